/* host-symbols-t: the engine's system calls never reach a syscall() of the
 * program's, and getticks() leaves errno alone.
 * SPDX-License-Identifier: MIT
 *
 * syscall() is neither ISO C nor POSIX: a program may define its own (an
 * emulator, a sandbox's shim), in a strict mode under any prototype and in
 * any mode under libc's, which this file uses.  An engine that reached
 * libc's syscall() by its symbol would call the program's instead: prctl's
 * number on x86, the perf tier's openat on aarch64.  So the engine makes
 * its few system calls itself.  (secure_getenv, a GNU name, is still called
 * by its symbol: PERFORMANCE_COUNTERS.md, "Limits".)  Nor does getticks()
 * change errno, as FFTW's (one instruction) never did, though the choice's
 * calls fail on ordinary hosts: no perf_user_access sysctl before Linux
 * 5.17, a seccomp filter that refuses prctl, CYCLE_DEBUG's line written to
 * a closed stderr.
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

/* The first choice of a fresh process, from the first counter of the
 * chain (the PMU's where there is one, and the perf tier after it), with
 * CYCLE_DEBUG's lines going to a closed stderr; exit 0 when errno and the
 * program's syscall() were left alone, else 1 or 2. */
static void whole_chain(void)
{
	int i;

	setenv("CYCLE_COUNTER", cycle_impl_name(0), 1);
	setenv("CYCLE_DEBUG", "1", 1);
	close(2);
	errno = EDOM;
	for (i = 0; i < 1000; i++)
		(void)getticks();
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
	/* (Before this process chooses: the child chooses for itself.) */
	status = in_child(whole_chain);
	tap_ok(status == 0, "a choice from %s, CYCLE_DEBUG to a closed stderr, "
	       "left errno and the program's syscall() alone (status %d: "
	       "1 errno changed, 2 syscall() called)", cycle_impl_name(0),
	       status);
	errno = EDOM;
	(void)getticks();
	after_first = errno;
	for (i = 0; i < 1000; i++)
		(void)getticks();
	(void)cycle_ticks_per_second();
	tap_ok(after_first == EDOM && errno == EDOM,
	       "the configured choice leaves errno alone (after the first "
	       "call: %d, after more: %d; set: %d)", after_first, errno, EDOM);
	tap_ok(program_calls == 0,
	       "the program's syscall() was called %d times (choosing %s)",
	       program_calls, cycle_counter_name());
	return tap_done();
}
