/* blocked-t: a thread that blocks every signal can call getticks().
 * SPDX-License-Identifier: MIT
 *
 * A trap in a thread that blocks its signal is forced to the default action
 * by the kernel: the process dies whatever the handler.  The sigwait-thread
 * pattern blocks everything in every worker.  Here such a thread makes the
 * first call (the choice probes counters that trap under qemu: PMCCNTR_EL0,
 * PMCCNTR, CNTVCT), and later reads while a PMU counter is pretended
 * granted, so that a read of it would trap for real under qemu.  Last, a
 * trap signal the program sent itself and keeps blocked is pending at the
 * first call: it is the program's, so the choice reads nothing that could
 * trap (unblocking the signal for a probe would deliver it), says so in
 * CYCLE_DEBUG's line, and leaves it pending for the program's handler.
 */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

static ticks blocked_reading;
static int blocked_trap_ok; /* what the thread's record says after two calls */

static void *blocked_thread(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	blocked_reading = getticks();
	(void)getticks();
	blocked_trap_ok = cycle_impl_self.trap_ok;
	return NULL;
}

static void choose_in_blocked_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, blocked_thread, NULL) != 0)
		_exit(3);
	pthread_join(t, NULL);
	/* The choice unblocks the trap signal for its probes: what it learnt
	 * there (the perf tier's rate is read outside a probe) must not make
	 * the thread read a counter that traps, which would kill it.  With a
	 * revocable counter chosen its second call asked (2: blocked). */
	if (CYCLE_IMPL_REVOCABLE(cycle_impl_chosen(cycle_impl_state.mode)) ?
	    blocked_trap_ok != 2 : blocked_trap_ok == 1)
		_exit(2);
	_exit(strcmp(cycle_counter_name(), "none") != 0 ? 0 : 1);
}

static void read_pmu_in_blocked_thread(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	pthread_t t;
	unsigned traps;

	pretend_granted(0);
	traps = g->traps;
	if (pthread_create(&t, NULL, blocked_thread, NULL) != 0)
		_exit(3);
	pthread_join(t, NULL);
	/* Not read there: no trap, and the reading is the replacement's. */
	_exit(g->traps == traps && elapsed(blocked_reading,
					    PRETEND_LAST_READING) < 0 ? 0 : 1);
}

static volatile sig_atomic_t program_got, program_code;

static void program_handler(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)context;
	program_got++;
	program_code = info->si_code;
}

/* Exit status 0, or which check failed (4-9). */
static void choose_with_trap_signal_pending(void)
{
	struct sigaction sa, now;
	sigset_t trap, pending;
	char said[600];
	int err[2], chosen;
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = program_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&trap);
	sigaddset(&trap, CYCLE_IMPL_TRAP_SIGNAL);
	/* stderr into a pipe (no file: /tmp may be read-only), read without
	 * waiting: a line that was never written is an empty one. */
	if (pipe(err) != 0 || fcntl(err[0], F_SETFL, O_NONBLOCK) != 0 ||
	    dup2(err[1], 2) != 2 ||
	    sigaction(CYCLE_IMPL_TRAP_SIGNAL, &sa, NULL) != 0 ||
	    sigprocmask(SIG_BLOCK, &trap, NULL) != 0 ||
	    raise(CYCLE_IMPL_TRAP_SIGNAL) != 0)
		_exit(3);
	force_full_choice(); /* probes, where a quick choice would not */
	setenv("CYCLE_DEBUG", "1", 1);
	(void)getticks();
	n = read(err[0], said, sizeof(said) - 1);
	said[n > 0 ? n : 0] = '\0';
	printf("# %s", n > 0 ? said : "(no CYCLE_DEBUG line)\n");
	chosen = cycle_impl_chosen(cycle_impl_state.mode);
	sigemptyset(&pending);
	sigpending(&pending);
	if (sigismember(&pending, CYCLE_IMPL_TRAP_SIGNAL) != 1 || program_got)
		_exit(4); /* delivered during the choice */
	if (cycle_impl_self.probe_traps != 0 || cycle_impl_state.traps != 0 ||
	    CYCLE_IMPL_REVOCABLE(chosen))
		_exit(5); /* a read trapped, or one that can is in use */
	sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &now);
	if (!(now.sa_flags & SA_SIGINFO) ||
	    now.sa_sigaction != program_handler)
		_exit(6); /* the program's action was not left in place */
	if (strstr(said, " traps") ||
	    (chosen != CYCLE_IMPL_CONFIGURED && !strstr(said, " not read")) ||
	    (chosen != CYCLE_IMPL_CONFIGURED && !strstr(said, "no guard")))
		_exit(7); /* the line names traps that were never read */
	sigprocmask(SIG_UNBLOCK, &trap, NULL);
	if (program_got != 1 || program_code > 0)
		_exit(8); /* the program's handler did not get its signal */
	_exit(0);
}

int main(void)
{
	int status;

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(3);
	status = in_child(choose_in_blocked_thread);
	tap_ok(status == 0, "the first call from a thread blocking every "
	       "signal survives the probe, and its record never says the trap "
	       "signal is unblocked (status %d)", status);
#if CYCLE_IMPL_NHW > 0 && CYCLE_IMPL_REVOCABLE(0)
	status = in_child(read_pmu_in_blocked_thread);
	tap_ok(status == 0, "such a thread never reads the granted PMU counter:"
	       " it gets the next counter in the same unit (status %d)",
	       status);
#else
	(void)read_pmu_in_blocked_thread;
	tap_skip("no PMU counter in this port's chain");
#endif
#if CYCLE_IMPL_TRAP_SIGNAL != 0
	status = in_child(choose_with_trap_signal_pending);
	tap_ok(status == 0, "a trap signal pending at the first call stays the "
	       "program's: nothing that traps is read, and its handler gets it"
	       " when it unblocks it (status %d)", status);
#else
	(void)choose_with_trap_signal_pending;
	tap_skip("no counter of this port traps");
#endif
	return tap_done();
}
