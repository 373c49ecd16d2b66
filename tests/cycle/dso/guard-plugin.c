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

#ifdef PLUGIN_TIMES_AT_UNLOAD
/* A plugin whose own teardown times something at dlclose: a destructor of
 * this file, and a handler registered with atexit(), which a shared object
 * runs at its dlclose.  Either may put the guard back (REGUARD) after the
 * header's destructor took it away, unless that destructor runs last. */
static volatile ticks plugin_last;

static void plugin_time(void)
{
	plugin_last = getticks();
}

__attribute__((constructor)) static void plugin_hello(void)
{
	atexit(plugin_time);
}

__attribute__((destructor)) static void plugin_bye(void)
{
	plugin_time();
}
#endif
