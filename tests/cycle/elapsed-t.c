/* elapsed-t: elapsed()'s arithmetic: wraps, 32-bit ticks, revocation setback.
 * SPDX-License-Identifier: MIT
 */
#include "cycle.h"
#include "tap/basic.h"

int main(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct cycle_impl_conversion *c;
	ticks top = ~(ticks)0;
	int k, straddles = 0;

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

	/* A conversion as the choice sets it up for a revocation: readings of
	 * the replacement come out 2^62 ticks behind the last reading of the
	 * revoked counter, at the revoked counter's rate. */
	c = &g->conv[CYCLE_IMPL_CLOCK_INDEX];
	g->chosen = -1; /* no counter is the chosen one: always convert */
	c->origin = 5000;
	c->base = 1000000 - CYCLE_IMPL_SETBACK;
	c->scale = 2.5;
	tap_ok(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5000) == c->base,
	       "conversion starts at the base");
	tap_ok(elapsed(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5400),
		       cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5000)) == 1000.0,
	       "converted intervals are scaled: 400 x 2.5 = 1000");
	tap_ok(elapsed(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5400),
		       1000000) < 0,
	       "an interval straddling the revocation is negative");

#if defined(CYCLE_IMPL_HAS_NARROW)
	g->narrow = 1; /* ARMv7 PMCCNTR: ticks are 32-bit readings */
	tap_ok(elapsed(0x10, 0xfffffff0u) == 32.0,
	       "32-bit wrap: 32 ticks across 2^32");
	tap_ok(elapsed(0xffffffffu, 0) == 4294967295.0,
	       "32-bit: 2^32-1 ticks is the longest interval");
	tap_ok(elapsed(0x80000000u, 0) == 2147483648.0,
	       "32-bit: 2^31 ticks is positive (FFTW measures a negative "
	       "interval again, for ever for a plan this long)");
	c->base = 1000000;
	tap_ok(cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX, 5000) ==
	       ((ticks)1 << 32 | 1000000u),
	       "narrow conversions carry epoch 1 above the 32 bits");
	/* However far the revocation is from the choice, the straddling
	 * interval is negative: every 32-bit reading before it against
	 * every converted reading after it (it was positive for about half
	 * of them when the setback was fixed at the choice). */
	for (k = 0; k < 4096; k++) {
		ticks before = (ticks)(uint32_t)(k * 1048573u + 12345u);
		ticks after = cycle_impl_convert(CYCLE_IMPL_CLOCK_INDEX,
						 5000 + (uint64_t)k * 977u);

		straddles += elapsed(after, before) < 0;
	}
	tap_ok(straddles == 4096,
	       "narrow: %d of 4096 straddling intervals are negative",
	       straddles);
	g->narrow = 0;
#else
	(void)k;
	(void)straddles;
	for (k = 0; k < 5; k++)
		tap_skip("32-bit ticks: not on this architecture");
#endif
	return tap_done();
}
