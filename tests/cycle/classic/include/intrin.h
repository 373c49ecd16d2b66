/* <intrin.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
unsigned __int64 __rdtsc(void);
