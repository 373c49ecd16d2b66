/* engine-test.h: drive cycle.h's engine into states an emulator cannot reach.
 * SPDX-License-Identifier: MIT
 *
 * Under qemu user mode the PMU counters always trap, so the path where access
 * is granted at the choice and revoked later cannot happen by itself.
 * pretend_granted() sets the engine up exactly as its choice would have on a
 * machine where the counter worked (the rest of the chain calibrated, the trap
 * guard installed), so that the next real read traps for real and goes
 * through the real handler.  Also: a genuine fault of the kind the guard
 * watches, and a fork helper that reports how a child ended.
 */
#ifndef ENGINE_TEST_H
#define ENGINE_TEST_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cycle.h"
#include "tap/basic.h"

/* The value the granted counter "last read" before the revocation. */
#define PRETEND_LAST_READING ((ticks)123456789)

/* The chain from start on, found and timed as a probing choice does it (a
 * choice without probes measured nothing); whether counter start read in
 * the first phase. */
static inline int probe_chain_from(int start)
{
	uint64_t last[CYCLE_IMPL_NCOUNTERS] = {0}; /* GCC 12 on armhf */
	int readable;

	cycle_impl_find_readable(start);
	readable = cycle_impl_state.status[start] == CYCLE_IMPL_AVAILABLE;
	cycle_impl_calibrate(start, last);
	return readable;
}

static inline void pretend_granted(int index)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int i;

	(void)getticks(); /* let the real choice run first */
	if (index + 1 < CYCLE_IMPL_NCOUNTERS)
		(void)probe_chain_from(index + 1);
	g->status[index] = CYCLE_IMPL_AVAILABLE;
	g->hz[index] = 1e9;
	g->rate_known = 1; /* as the choice of a revocable counter leaves it */
	g->time_min = cycle_impl_time_min_for(index, g->hz[index]);
	g->chosen = index;
	g->narrow = CYCLE_IMPL_NARROW(index);
	for (i = index + 1; i < CYCLE_IMPL_NCOUNTERS; i++)
		if (g->status[i] == CYCLE_IMPL_AVAILABLE)
			cycle_impl_link(i, cycle_impl_read(i),
					PRETEND_LAST_READING);
	cycle_impl_install();
	/* The fast path's flag as that choice leaves it: set only when the
	 * inline counter was chosen (the real choice just made may have set
	 * it). */
	CYCLE_IMPL_STORE(&cycle_impl_fast, index == CYCLE_IMPL_INLINE_INDEX,
			 __ATOMIC_RELAXED);
	CYCLE_IMPL_STORE(&g->mode, CYCLE_IMPL_READY + index, __ATOMIC_RELEASE);
}

/* Busy for ms milliseconds of the clock, in user mode where the vDSO reads
 * it: time that every counter counts, the perf tier's thread counter too. */
static inline void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec <
	       ms * 1000000L);
}

/* Makes the next choice the one that probes under the guard, also where
 * the configured counter would be taken without a probe (rdtsc, CNTVCT_EL0:
 * cycle_impl_quick): CYCLE_COUNTER naming the configured counter itself. */
static inline void force_full_choice(void)
{
	setenv("CYCLE_COUNTER", cycle_impl_name(CYCLE_IMPL_CONFIGURED), 1);
}

/* Reads counter index the way getticks() does after its access check.
 * The barriers tell the compiler what the guard may have changed meanwhile
 * (the read is an asm without a memory clobber: a trap is invisible to it). */
static inline uint64_t guarded_read(int index)
{
	uint64_t v;

	__asm__ __volatile__("" : : : "memory");
	v = cycle_impl_read(index);
	__asm__ __volatile__("" : : : "memory");
	return v;
}

/* Whether the guard of this file is the action installed now. */
static inline int guard_installed(void)
{
	struct sigaction now;

	sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &now);
	return (now.sa_flags & SA_SIGINFO) &&
	       now.sa_sigaction == cycle_impl_on_trap;
}

/* A fault that is not a counter read, of the signal the guard handles. */
static inline void genuine_fault(void)
{
#if CYCLE_IMPL_TRAP_SIGNAL == SIGSEGV || CYCLE_IMPL_TRAP_SIGNAL == 0
	/* Through a volatile pointer, so that GCC 12's -Warray-bounds
	 * does not see a constant address. */
	volatile int *volatile bad = (volatile int *)(uintptr_t)8;

	*bad = 1;
#elif defined(__aarch64__)
	__asm__ __volatile__(".inst 0x00000000"); /* udf #0 */
#elif defined(__arm__) && defined(__thumb__)
	__asm__ __volatile__(".inst.n 0xde00"); /* udf #0 */
#elif defined(__arm__)
	__asm__ __volatile__(".inst 0xe7f000f0"); /* udf #0 */
#elif defined(__riscv)
	__asm__ __volatile__(".4byte 0"); /* all zeros: illegal */
#else
	raise(SIGILL);
#endif
}

/* Seconds of CLOCK_MONOTONIC: the bounds below are time, not counts. */
static inline double window_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CHILD_HUNG (-2)

/* fn() in a child: its exit status, 1000 + the signal that killed it, or -1
 * (no fork, or no status to wait for: SIGCHLD ignored).  With seconds > 0,
 * CHILD_HUNG when it still runs that long after the fork; it is killed then
 * with SIGKILL, as a choice that waits for itself blocks every other
 * signal.  A signal that interrupts the wait does not end it. */
static inline int in_child_within(void (*fn)(void), int seconds)
{
	double deadline = window_now() + seconds;
	pid_t pid, done;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fn();
		_exit(0);
	}
	for (;;) {
		done = waitpid(pid, &status, seconds > 0 ? WNOHANG : 0);
		if (done == pid)
			return WIFSIGNALED(status) ? 1000 + WTERMSIG(status)
						   : WEXITSTATUS(status);
		if (done < 0 && errno != EINTR)
			break;
		if (done == 0 && window_now() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return CHILD_HUNG;
		}
		if (done == 0)
			usleep(100000);
	}
	if (errno != ECHILD) /* (ECHILD: reaped already, pid may be reused) */
		kill(pid, SIGKILL);
	return -1;
}

static inline int in_child(void (*fn)(void))
{
	return in_child_within(fn, 0);
}

/* A bare read of counter 0 (the PMU's on ARM) with nothing to catch a trap:
 * the port's instruction alone, no access check, no guard. */
static inline void bare_read_counter0(void)
{
	sigset_t trap;

	signal(SIGILL, SIG_DFL);
	signal(SIGSEGV, SIG_DFL);
	sigemptyset(&trap);
	sigaddset(&trap, SIGILL);
	sigaddset(&trap, SIGSEGV);
	sigprocmask(SIG_UNBLOCK, &trap, NULL);
	(void)cycle_impl_hw_read(0);
}

/* Whether counter 0 traps here, asked of the hardware in a child, not of
 * the engine under test: where a module or a perf event grants the PMU, or
 * rdtsc runs, no trap can be staged with it.  A child that ends otherwise
 * (fork refused, a sandbox's kill) answers neither way: bail out. */
static inline int counter0_traps(void)
{
	int status = in_child(bare_read_counter0);

	if (status != 0 && status != 1000 + CYCLE_IMPL_TRAP_SIGNAL)
		tap_bail("a bare read of %s in a child: status %d",
			 cycle_impl_name(0), status);
	return status != 0;
}

/* Timing windows (a fork or a signal during the choice): runs attempt() in
 * a fresh process each time, until it hit its window `wanted` times or
 * WINDOW_SECONDS have passed.  attempt() returns 0 when it hit the window
 * and all went well, 2 when it missed the window; anything else, or a death,
 * is a failure.  The bound is time, not a count of attempts: on a busy
 * machine (two builds on two cores) the other thread may not run inside a
 * window of a few microseconds for hundreds of attempts, and that says
 * nothing about the header. */
#define WINDOW_SECONDS 60

struct window_tally {
	int attempts, hits, missed, failures;
	double seconds;
};

static inline void retry_window(int (*attempt)(void), int wanted,
				struct window_tally *w)
{
	double start = window_now();

	memset(w, 0, sizeof(*w));
	while (w->hits < wanted && w->seconds < WINDOW_SECONDS) {
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(attempt());
		w->attempts++;
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status))
			w->failures++;
		else if (WEXITSTATUS(status) == 0)
			w->hits++;
		else if (WEXITSTATUS(status) == 2)
			w->missed++;
		else
			w->failures++;
		w->seconds = window_now() - start;
	}
	tap_diag("%d attempts in %.1f s: window hit %d times, missed %d, "
		 "failed %d", w->attempts, w->seconds, w->hits, w->missed,
		 w->failures);
}

/* A window never hit within the bound is a skip, said as such: the race
 * was not staged, so nothing was shown either way. */
static inline void window_hit_ok(const struct window_tally *w,
				 const char *what)
{
	char why[200];

	if (w->hits > 0) {
		tap_ok(1, "%s: the window was hit (%d times in %d attempts)",
		       what, w->hits, w->attempts);
		return;
	}
	snprintf(why, sizeof(why), "%s: the window was never hit in %d "
		 "attempts over %.0f s (a busy machine)", what, w->attempts,
		 w->seconds);
	tap_skip(why);
}

#endif /* ENGINE_TEST_H */
