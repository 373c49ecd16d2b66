/* actions-t: after the first getticks() the program's SIGSEGV and SIGILL
 * actions are exactly what they were, wherever the counter in use cannot be
 * revoked from outside the program.
 * SPDX-License-Identifier: MIT
 *
 * Language runtimes and crash reporters own these signals: a library must
 * not leave a handler of its own in front of theirs.  The guard stays only
 * while a counter the kernel may take back (an ARM PMU counter, RISC-V's
 * rdcycle) is in use; there the check is skipped.  Each case runs in a fresh
 * process, so that its getticks() is the first.
 */
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

static void program_handler(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)info;
	(void)context;
}

/* SA_RESTORER: the flag glibc adds to every action it sets (the return
 * trampoline).  An action the guard put back has it even where the program
 * never set one (SIG_DFL from exec): the only difference a choice that
 * probed (installed a guard, and removed it) may leave, and one no program
 * can tell in its behaviour.  A choice without probes leaves none. */
#define RESTORER 0x04000000

/* Whether two actions are the same: handler, flags (but ignored) and mask. */
static int same_action(const struct sigaction *a, const struct sigaction *b,
		       int ignored)
{
	int s;

	if (a->sa_handler != b->sa_handler ||
	    (a->sa_flags & ~ignored) != (b->sa_flags & ~ignored))
		return 0;
	for (s = 1; s < 65; s++)
		if (sigismember(&a->sa_mask, s) != sigismember(&b->sa_mask, s))
			return 0;
	return 1;
}

/* Exit 0 when the first getticks() left both actions as they were; 3 when
 * the counter chosen keeps its guard (a revocable one: not this test's). */
static void check(int with_handler)
{
	int ignored;
	int sigs[2] = {SIGSEGV, SIGILL}, k;
	struct sigaction before[2], after[2], sa;
	ticks t0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = program_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	for (k = 0; k < 2; k++) {
		if (with_handler == sigs[k])
			sigaction(sigs[k], &sa, NULL);
		sigaction(sigs[k], NULL, &before[k]);
	}
	t0 = getticks();
	if (elapsed(getticks(), t0) < 0)
		_exit(2);
	/* Revocable from outside the program: the PMU counters (ARM's, and
	 * RISC-V's rdcycle).  Not rdtsc, not the timers, not the clock. */
	if (CYCLE_IMPL_REVOCABLE(CYCLE_IMPL_INDEX_OF(cycle_impl_state.mode)))
		_exit(3);
	ignored = cycle_impl_state.installer ? RESTORER : 0;
	for (k = 0; k < 2; k++) {
		sigaction(sigs[k], NULL, &after[k]);
		if (!same_action(&before[k], &after[k], ignored))
			_exit(10 + k);
	}
	_exit(0);
}

static void dfl(void) { check(0); }
static void segv_handler(void) { check(SIGSEGV); }
static void ill_handler(void) { check(SIGILL); }
static void dfl_probed(void)
{
	force_full_choice();
	check(0);
}
static void handler_probed(void)
{
	force_full_choice();
	check(CYCLE_IMPL_TRAP_SIGNAL ? CYCLE_IMPL_TRAP_SIGNAL : SIGSEGV);
}

static void report(int status, const char *what)
{
	if (status == 3)
		tap_skip("the counter in use may be revoked from outside: "
			 "the guard stays, as designed");
	else
		tap_ok(status == 0, "%s (status %d%s)", what, status,
		       status == 10 ? ": SIGSEGV changed" :
		       status == 11 ? ": SIGILL changed" : "");
}

int main(void)
{
#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(5);
	report(in_child(dfl), "SIG_DFL stays SIG_DFL for SIGSEGV and SIGILL "
	       "(but for glibc's SA_RESTORER where the choice probed)");
	report(in_child(segv_handler),
	       "a SIGSEGV handler stays, same pointer, flags and mask");
	report(in_child(ill_handler),
	       "a SIGILL handler stays, same pointer, flags and mask");
	report(in_child(dfl_probed),
	       "after a choice that probes under the guard: SIG_DFL again "
	       "(but for glibc's SA_RESTORER)");
	report(in_child(handler_probed),
	       "after a choice that probes under the guard: the handler again");
	return tap_done();
}
