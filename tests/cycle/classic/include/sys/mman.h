/* <sys/mman.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
