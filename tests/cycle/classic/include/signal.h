/* <signal.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
/* POSIX names, hidden by a strict ISO mode as glibc hides them. */
#if !defined(__STRICT_ANSI__) || defined(_POSIX_C_SOURCE)
#define SA_SIGINFO 4
#endif
