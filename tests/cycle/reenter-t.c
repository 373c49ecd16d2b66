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
 * the trap signal, whose handler is the program's.
 */
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

#define HANG_SECONDS 60 /* a choice takes milliseconds, qemu-system's too */

static volatile int inner_calls, raise_inside, handler_calls;
static volatile ticks inner_reading = 1, handler_reading = 1;

/* The program's own sched_getcpu, of the same meaning. */
int sched_getcpu(void)
{
	if (inner_calls++ == 0) {
		inner_reading = getticks();
		if (raise_inside)
			raise(CYCLE_IMPL_TRAP_SIGNAL);
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
	force_full_choice(); /* probes, with timing windows */
	(void)getticks();
	if (inner_calls == 0)
		_exit(2);
	if (cycle_impl_state.mode < CYCLE_IMPL_READY || inner_reading != 0)
		_exit(1);
	if (raise_inside && (handler_calls != 1 || handler_reading != 0))
		_exit(1);
	_exit(0);
}

/* first_call() in a child; its exit status, 1000 + a killing signal, or -1
 * when it was still running after HANG_SECONDS (then killed). */
static int in_child_bounded(void)
{
	pid_t pid, done;
	int status, tenths;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0)
		first_call();
	for (tenths = 0; tenths < HANG_SECONDS * 10; tenths++) {
		done = waitpid(pid, &status, WNOHANG);
		if (done == pid)
			return WIFSIGNALED(status) ? 1000 + WTERMSIG(status)
						   : WEXITSTATUS(status);
		if (done < 0)
			return -2;
		usleep(100000);
	}
	kill(pid, SIGKILL); /* the chooser blocks every other signal */
	waitpid(pid, &status, 0);
	return -1;
}

static void report(int status, const char *what)
{
	if (status == 2)
		tap_skip("the choice never called sched_getcpu (no glibc)");
	else
		tap_ok(status == 0, "%s: %s (status %d)", what,
		       status == -1 ? "still waiting for itself" :
		       status == 0 ? "it read 0, the choice went on" :
				     "it did not read 0, or the choice "
				     "did not end",
		       status);
}

int main(void)
{
#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("no engine: nothing is chosen at run time");
	return 0;
#else
	tap_plan(2);
	report(in_child_bounded(),
	       "getticks() from a function the choice calls");
	raise_inside = 1;
	report(in_child_bounded(),
	       "getticks() from a handler of the trap signal raised inside "
	       "the choice");
	return tap_done();
#endif
}
