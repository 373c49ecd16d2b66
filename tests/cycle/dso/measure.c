/* measure.c: a library (or plugin) that times a 10 ms sleep with cycle.h.
 * SPDX-License-Identifier: MIT
 *
 * Built several times by dso-t.sh: with different counter configurations,
 * with hidden visibility, and with other versions of the header (HEADER).
 * MEASURE_NAME gives each build its own function names.
 */
#include <time.h>

#ifndef HEADER
#define HEADER "cycle.h"
#endif
#include HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

/* The interval in milliseconds, by this library's own ticks and rate. */
__attribute__((visibility("default"))) double CAT(MEASURE_NAME, _ms)(void)
{
	struct timespec nap = {0, 10000000};
	ticks t0, t1;

	t0 = getticks();
	nanosleep(&nap, NULL);
	t1 = getticks();
	return elapsed(t1, t0) / cycle_ticks_per_second() * 1e3;
}

__attribute__((visibility("default"))) const char *
CAT(MEASURE_NAME, _counter)(void)
{
	return cycle_counter_name();
}
