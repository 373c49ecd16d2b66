/* <time.h> as cycle.h sees it in tests/cycle/classic-t.sh (a stub). */
#include <stddef.h>
struct timespec { long tv_sec; long tv_nsec; };
typedef int clockid_t;
int clock_gettime(clockid_t clock, struct timespec *ts);
/* POSIX names, hidden by a strict ISO mode as glibc hides them. */
#if !defined(__STRICT_ANSI__) || defined(_POSIX_C_SOURCE)
#define CLOCK_MONOTONIC 1
#endif
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define TIME_UTC 1
int timespec_get(struct timespec *ts, int base);
#endif
#if defined(__sgi) /* IRIX */
#define CLOCK_SGI_CYCLE 10
#endif
