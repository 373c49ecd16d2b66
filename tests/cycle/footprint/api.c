/* api.c: the library's one exported entry, which times with cycle.h.
 * SPDX-License-Identifier: MIT
 */
#ifndef HEADER
#define HEADER "cycle.h"
#endif
#include HEADER

static volatile double sink;

/* Keeps the units' measurements alive. */
double footprint_sink(double v)
{
	sink = v;
	return v;
}

/* The interval of a short busy loop, in ticks: positive when the counter
 * works in this thread. */
double footprint_interval(void)
{
	ticks t0 = getticks();
	volatile int spin;

	for (spin = 0; spin < 10000; spin++)
		;
	return elapsed(getticks(), t0);
}
