/* <machine/sys/inline.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
enum { _AREG_ITC = 44 };
