/* guard-plugin.c: a plugin that makes the choice with the guard installed,
 * to be dlclosed.
 * SPDX-License-Identifier: MIT
 */
#include "engine-test.h"

/* As after choosing a counter the kernel may revoke: the guard of this
 * plugin's file is the signal action now. */
void plugin_choose_guarded(void)
{
	pretend_granted(0);
}

int plugin_guard_is_mine(void)
{
	return guard_installed();
}

/* As when the choice ends on a counter that needs no guard: removed. */
void plugin_drop_guard(void)
{
	cycle_impl_remove();
}
