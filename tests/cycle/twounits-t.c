/* twounits-t: two translation units of one program share one choice.
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "cycle.h"
#include "tap/basic.h"

/* In twounits-aux.c, which includes cycle.h on its own. */
const void *aux_state_address(void);
const char *aux_counter_name(void);
ticks aux_getticks(void);

int main(void)
{
	ticks a, b;

#ifndef CYCLE_IMPL_ENGINE
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(3);
	a = aux_getticks(); /* the other unit makes the choice */
	b = getticks();
	tap_ok(aux_state_address() == (const void *)&cycle_impl_state,
	       "both units see the same state");
	tap_ok(strcmp(cycle_counter_name(), aux_counter_name()) == 0,
	       "both units use %s", cycle_counter_name());
	tap_ok(elapsed(b, a) >= 0, "readings of the two units are one timeline");
	return tap_done();
}
