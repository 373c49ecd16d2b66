/* getticks-cost: nanoseconds per call of one way of reading a tick counter.
 * SPDX-License-Identifier: MIT
 *
 * Built once per candidate by bench/bench-getticks, with one of:
 *   -DREAD_CYCLE_H -include PATH/cycle.h   getticks() of that header
 *   -DREAD_RDTSC                           the bare rdtsc instruction (x86)
 *   -DREAD_CLOCK                           clock_gettime(CLOCK_MONOTONIC_RAW)
 * Usage: getticks-cost [SAMPLES [CALLS]]
 * Times SAMPLES loops of CALLS back-to-back reads and prints the median
 * nanoseconds per call, so that one preemption does not move the result.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(READ_CYCLE_H)
#define READ() ((uint64_t)getticks())
#elif defined(READ_RDTSC)
static inline uint64_t read_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#define READ() read_rdtsc()
#elif defined(READ_CLOCK)
static inline uint64_t read_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define READ() read_clock()
#else
#error "define READ_CYCLE_H, READ_RDTSC or READ_CLOCK"
#endif

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int samples = argc > 1 ? atoi(argv[1]) : 31;
	long calls = argc > 2 ? atol(argv[2]) : 200000;
	double *ns;
	uint64_t sink = 0;
	int s;

	if (argc > 3 || samples < 1 || samples > 10000 || calls < 1) {
		fprintf(stderr, "usage: getticks-cost [SAMPLES [CALLS]]\n");
		return 2;
	}
	ns = malloc(sizeof(*ns) * (size_t)samples);
	if (!ns)
		return 1;
	/* The first read may make a choice (cycle.h): keep it out of the timing. */
	sink += READ();
	for (s = 0; s < samples; s++) {
		double t0 = now_ns(), t1;
		long i;

		for (i = 0; i < calls; i++)
			sink += READ(); /* used below, so no read is dropped */
		t1 = now_ns();
		ns[s] = (t1 - t0) / (double)calls;
	}
	qsort(ns, (size_t)samples, sizeof(*ns), by_value);
	printf("%.3f\n", ns[samples / 2]);
	/* Never true in practice; keeps the sum, hence every read, alive. */
	if (sink == 42)
		fprintf(stderr, "!\n");
	free(ns);
	return 0;
}
