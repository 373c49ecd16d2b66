/* first-call: microseconds taken by the first getticks() of a process (where cycle.h chooses its counter).
 * SPDX-License-Identifier: MIT
 *
 * Built by bench/bench-getticks with -include PATH/cycle.h and a counter
 * macro, natively or for aarch64/armhf (static, run under qemu user mode).
 * Prints the microseconds of the first call, of the second, and of the
 * first TIME_MIN that follows ("-" where the header leaves TIME_MIN to
 * FFTW's timer.c), on one line.  clock_gettime is called twice before, so
 * that its own first-call cost (the vDSO lookup) is not counted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}

int main(void)
{
	double t0, t1, t2, t3, tmin = 1;
	ticks a, b;

	(void)now_us();
	t0 = now_us();
	a = getticks();
	t1 = now_us();
	b = getticks();
	t2 = now_us();
#ifdef TIME_MIN
	tmin = TIME_MIN;
	t3 = now_us();
	printf("%.3f %.3f %.3f\n", t1 - t0, t2 - t1, t3 - t2);
#else
	t3 = t2;
	printf("%.3f %.3f -\n", t1 - t0, t2 - t1);
#endif
	/* Keep the reads (and print nothing more): their values are not used. */
	return a == b + 1 || tmin < t3 - t3;
}
