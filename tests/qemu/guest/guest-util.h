/* guest-util.h: small helpers shared by the static guest programs.
 * SPDX-License-Identifier: MIT
 */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC, independent of the counter under test. */
static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A non-negative decimal argument, or a one-line error and exit 2. */
static inline long parse_number(const char *prog, const char *what,
				const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "%s: bad %s '%s'\n", prog, what, arg);
		exit(2);
	}
	return v;
}

/* Run on CPU cpu from now on, or a one-line error and exit 2. */
static inline void pin_to_cpu(const char *prog, long cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		fprintf(stderr, "%s: bad CPU %ld\n", prog, cpu);
		exit(2);
	}
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "%s: cannot run on CPU %ld\n", prog, cpu);
		exit(2);
	}
}

#endif /* GUEST_UTIL_H */
