/* reenter-t: a getticks() made inside the first one, in its thread, returns.
 * SPDX-License-Identifier: MIT
 *
 * The choice calls functions that a program or a preloaded library may
 * replace (a tracer's write or clock_gettime, a sandbox's sigaction), and
 * while it probes, a trap signal sent to its thread reaches the program's
 * handler.  A getticks() from there is a call inside the choice, in the
 * choosing thread: waiting for the choice would wait for itself, with every
 * signal but the trap signal blocked (SIGTERM and ^C too).  It returns 0 (no
 * counter yet) and the choice goes on.  Here the program replaces
 * sched_getcpu, which the probing choice calls by its symbol (glibc) around
 * each of its timing windows; in the second case that function also raises
 * the trap signal, whose handler is the program's.  In the third it raises
 * SIGUSR1, which the choice keeps blocked: its handler runs as the choice
 * lets the signals through, and must find the thread unmarked (a handler
 * that leaves with siglongjmp would keep the mark for good, and later calls
 * in the thread would read 0).
 */
#include <setjmp.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

#define HANG_SECONDS 60 /* a choice takes milliseconds, qemu-system's too */

static volatile int inner_calls, raise_inside, handler_calls;
static volatile ticks inner_reading = 1, handler_reading = 1;
static volatile int raise_usr1, usr1_mark = -1;
static volatile ticks usr1_reading;
static sigjmp_buf usr1_out;

/* The program's own sched_getcpu, of the same meaning. */
int sched_getcpu(void)
{
	if (inner_calls++ == 0) {
		inner_reading = getticks();
		if (raise_inside)
			raise(CYCLE_IMPL_TRAP_SIGNAL);
		if (raise_usr1)
			raise(SIGUSR1);
	}
	return 0;
}

static void program_handler(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)info;
	(void)context;
	handler_reading = getticks();
	handler_calls++;
}

static void usr1_handler(int sig)
{
	(void)sig;
	usr1_mark = cycle_impl_self.probing;
	usr1_reading = getticks();
	siglongjmp(usr1_out, 1);
}

/* Exit 0: the choice ended, the calls inside it read 0; 2: sched_getcpu was
 * never called (no glibc, or a choice without windows); else 1. */
static void first_call(void)
{
	struct sigaction sa;

	if (raise_inside) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = program_handler;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(CYCLE_IMPL_TRAP_SIGNAL, &sa, NULL) != 0)
			_exit(3);
	}
	if (raise_usr1) {
		signal(SIGUSR1, usr1_handler);
		if (sigsetjmp(usr1_out, 1) != 0)
			_exit(inner_calls == 0 ? 2 :
			      usr1_mark == 0 && usr1_reading != 0 &&
			      cycle_impl_self.probing == 0 && getticks() != 0 ?
			      0 : 1);
	}
	force_full_choice(); /* probes, with timing windows */
	(void)getticks();
	if (raise_usr1)
		_exit(inner_calls == 0 ? 2 : 1); /* SIGUSR1 never handled */
	if (inner_calls == 0)
		_exit(2);
	if (cycle_impl_state.mode < CYCLE_IMPL_READY || inner_reading != 0)
		_exit(1);
	if (raise_inside && (handler_calls != 1 || handler_reading != 0))
		_exit(1);
	_exit(0);
}

static void report(int status, const char *what, const char *well)
{
	if (status == 2)
		tap_skip("the choice never called sched_getcpu (no glibc)");
	else
		tap_ok(status == 0, "%s: %s (status %d)", what,
		       status == CHILD_HUNG ? "still waiting for itself" :
		       status == 0 ? well : "it read otherwise, or the "
					     "choice did not end",
		       status);
}

int main(void)
{
#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("no engine: nothing is chosen at run time");
	return 0;
#else
	tap_plan(3);
	report(in_child_within(first_call, HANG_SECONDS),
	       "getticks() from a function the choice calls",
	       "it read 0, the choice went on");
	raise_inside = 1;
	report(in_child_within(first_call, HANG_SECONDS),
	       "getticks() from a handler of the trap signal raised inside "
	       "the choice", "it read 0, the choice went on");
	raise_inside = 0;
	raise_usr1 = 1;
	report(in_child_within(first_call, HANG_SECONDS),
	       "getticks() from a handler of a signal the choice kept "
	       "blocked, left with siglongjmp",
	       "it ran after the choice, unmarked, and read the counter");
	return tap_done();
#endif
}
