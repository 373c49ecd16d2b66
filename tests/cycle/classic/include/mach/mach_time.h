/* <mach/mach_time.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
uint64_t mach_absolute_time(void);
