/* <stddef.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
typedef unsigned long size_t;
