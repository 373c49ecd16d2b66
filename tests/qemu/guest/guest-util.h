/* guest-util.h: small helpers shared by the static guest programs.
 * SPDX-License-Identifier: MIT
 */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

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

#endif /* GUEST_UTIL_H */
