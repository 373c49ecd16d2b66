/* host-symbols-t: the engine calls no function the program may own, and
 * leaves errno alone.
 * SPDX-License-Identifier: MIT
 *
 * syscall() is neither ISO C nor POSIX: a program may define its own (an
 * emulator, a sandbox's shim), in a strict mode under any prototype and in
 * any mode under libc's, which this file uses.  An engine that reached
 * libc's syscall() by its symbol would call the program's instead: prctl's
 * number on x86, the perf tier's openat on aarch64.  So the engine makes
 * its few system calls itself.  Nor does getticks() change errno, as
 * FFTW's (one instruction) never did, though the choice's system calls
 * fail on ordinary hosts: no perf_user_access sysctl before Linux 5.17, a
 * seccomp filter that refuses prctl.
 */
#include <errno.h>

#include "engine-test.h"
#include "tap/basic.h"

static int program_calls;

long syscall(long number, ...)
{
	(void)number;
	program_calls++;
	errno = ENOSYS;
	return -1;
}

/* A choice that probes and calibrates the whole chain, then reads; exit 0
 * when errno and the program's syscall() were left alone, else 1 or 2. */
static void full_choice(void)
{
	int i;

	force_full_choice();
	errno = EDOM;
	for (i = 0; i < 1000; i++)
		(void)getticks();
	(void)cycle_ticks_per_second();
	if (errno != EDOM)
		_exit(1);
	_exit(program_calls == 0 ? 0 : 2);
}

int main(void)
{
	int status, after_first, i;

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(3);
	errno = EDOM;
	(void)getticks();
	after_first = errno;
	for (i = 0; i < 1000; i++)
		(void)getticks();
	(void)cycle_ticks_per_second();
	tap_ok(after_first == EDOM && errno == EDOM,
	       "getticks() leaves errno alone (after the first call: %d, "
	       "after more: %d; set: %d)", after_first, errno, EDOM);
	tap_ok(program_calls == 0,
	       "the program's syscall() was called %d times (choosing %s)",
	       program_calls, cycle_counter_name());
	status = in_child(full_choice);
	tap_ok(status == 0, "so did a choice that probes the whole chain "
	       "(status %d: 1 errno changed, 2 syscall() called)", status);
	return tap_done();
}
