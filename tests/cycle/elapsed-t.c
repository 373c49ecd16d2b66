/* elapsed-t: elapsed()'s arithmetic: wraps, 32-bit ticks, revocation setback.
 * SPDX-License-Identifier: MIT
 */
#include "cycle.h"
#include "tap/basic.h"

int main(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	struct cycle_impl_conversion *c;
	ticks top = ~(ticks)0;

#ifndef CYCLE_IMPL_ENGINE
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(12);
	(void)getticks();

	g->narrow = 0;
	tap_ok(elapsed(1000, 10) == 990.0, "plain difference");
	tap_ok(elapsed(5, top - 9) == 15.0, "64-bit wrap: 15 ticks across 2^64");
	tap_ok(elapsed(10, 1000) == -990.0, "reversed interval is negative");
	tap_ok(elapsed((ticks)1 << 62, 0) == 4611686018427387904.0,
	       "2^62 ticks stay exact enough");

	g->narrow = 1; /* ARMv7 PMCCNTR: ticks live modulo 2^32 */
	tap_ok(elapsed(0x10, 0xfffffff0u) == 32.0,
	       "32-bit wrap: 32 ticks across 2^32");
	tap_ok(elapsed(0x7fffffffu, 0) == 2147483647.0,
	       "32-bit: 2^31-1 ticks is the longest interval");
	tap_ok(elapsed(0x80000000u, 0) < 0,
	       "32-bit: 2^31 ticks reads as negative, not as a huge interval");
	g->narrow = 0;

	/* A conversion as the choice sets it up for a revocation: readings of
	 * the replacement come out a quarter of the range behind the last
	 * reading of the revoked counter, at the revoked counter's rate. */
	c = &g->conv[CYCLE_IMPL_CLOCK_INDEX];
	g->chosen = -1; /* no counter is the chosen one: always convert */
	c->origin = 5000;
	c->base = 1000000 - ((ticks)1 << 62);
	c->scale = 2.5;
	tap_ok(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5000) == c->base,
	       "conversion starts at the base");
	tap_ok(elapsed(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5400),
		       cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5000)) == 1000.0,
	       "converted intervals are scaled: 400 x 2.5 = 1000");
	tap_ok(elapsed(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5400),
		       1000000) < 0,
	       "an interval straddling the revocation is negative");
	g->narrow = 1;
	c->base = 1000000 - ((ticks)1 << 30);
	tap_ok(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5000) ==
	       (uint32_t)c->base, "narrow conversions stay within 32 bits");
	tap_ok(elapsed(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5400),
		       1000000) < 0,
	       "narrow: an interval straddling the revocation is negative");
	return tap_done();
}
