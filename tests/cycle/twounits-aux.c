/* twounits-aux: the second translation unit of twounits-t.
 * SPDX-License-Identifier: MIT
 */
#include "cycle.h"

const void *aux_state_address(void);
const char *aux_counter_name(void);
ticks aux_getticks(void);

const void *aux_state_address(void)
{
#ifdef CYCLE_IMPL_ENGINE
	return &cycle_impl_state;
#else
	return 0;
#endif
}

const char *aux_counter_name(void)
{
	return cycle_counter_name();
}

ticks aux_getticks(void)
{
	return getticks();
}
