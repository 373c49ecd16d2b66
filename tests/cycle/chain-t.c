/* chain-t: with the guard installed, the program's previous action behaves
 * as the kernel would have made it behave.
 * SPDX-License-Identifier: MIT
 *
 * Each case runs in a child with the guard installed over the program's
 * action (pretend_granted: as after choosing a revocable counter).
 */
#include <setjmp.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

#define SIG CYCLE_IMPL_TRAP_SIGNAL

static sigjmp_buf escape;
static volatile sig_atomic_t calls, mask_ok;

static void install(void (*handler)(int), int flags, int extra_masked)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (extra_masked)
		sigaddset(&sa.sa_mask, extra_masked);
	sigaction(SIG, &sa, NULL);
}

static void counting_handler(int sig)
{
	(void)sig;
	calls++;
	siglongjmp(escape, 1);
}

/* Records whether the mask is what the kernel would have set. */
static void mask_handler(int sig)
{
	sigset_t now;

	sigprocmask(SIG_BLOCK, NULL, &now);
	mask_ok = sigismember(&now, SIGUSR1) == 1 &&
		  sigismember(&now, sig) == 1;
	siglongjmp(escape, 1);
}

static void nodefer_handler(int sig)
{
	sigset_t now;

	sigprocmask(SIG_BLOCK, NULL, &now);
	mask_ok = sigismember(&now, sig) == 0;
	siglongjmp(escape, 1);
}

static void ignored_sent(void)
{
	install(SIG_IGN, 0, 0);
	pretend_granted(0);
	kill(getpid(), SIG);
	_exit(0);
}

static void siginfo_ignored_sent(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_SIGINFO;
	sa.sa_sigaction = (void (*)(int, siginfo_t *, void *))(void (*)(void))
		SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIG, &sa, NULL);
	pretend_granted(0);
	kill(getpid(), SIG);
	_exit(0);
}

static void ignored_fault(void)
{
	install(SIG_IGN, 0, 0);
	pretend_granted(0);
	genuine_fault();
	_exit(0);
}

static void resethand_twice(void)
{
	install(counting_handler, SA_RESETHAND, 0);
	pretend_granted(0);
	if (sigsetjmp(escape, 1) == 0)
		genuine_fault();
	if (calls != 1)
		_exit(3);
	genuine_fault(); /* the default action now: killed by SIG */
	_exit(0);
}

static void masked(void)
{
	install(mask_handler, 0, SIGUSR1);
	pretend_granted(0);
	if (sigsetjmp(escape, 1) == 0)
		genuine_fault();
	_exit(mask_ok ? 0 : 1);
}

static void nodefer(void)
{
	install(nodefer_handler, SA_NODEFER, 0);
	pretend_granted(0);
	if (sigsetjmp(escape, 1) == 0)
		genuine_fault();
	_exit(mask_ok ? 0 : 1);
}

/* A call through a NULL pointer: a page fault at PC 0, which the guard must
 * not try to decode (it would fault again inside the handler). */
static void null_call(void)
{
	void (*volatile fn)(void) = NULL;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = counting_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	pretend_granted(0);
	if (sigsetjmp(escape, 1) == 0)
		fn();
	_exit(calls == 1 ? 0 : 1);
}

int main(void)
{
	int status;

#if !defined(CYCLE_IMPL_ENGINE) || CYCLE_IMPL_TRAP_SIGNAL == 0
	tap_skip_all("no counter here can trap: there is no guard");
#endif
	tap_plan(7);
	status = in_child(ignored_sent);
	tap_ok(status == 0, "SIG_IGN: a sent signal is ignored (%d)", status);
	status = in_child(siginfo_ignored_sent);
	tap_ok(status == 0, "SA_SIGINFO with SIG_IGN: ignored, no call to "
	       "address 1 (%d)", status);
	status = in_child(ignored_fault);
	tap_ok(status == 1000 + SIG, "SIG_IGN: a fault still kills (%d)",
	       status);
	status = in_child(resethand_twice);
	tap_ok(status == 1000 + SIG, "SA_RESETHAND: the handler runs once, "
	       "then the default action (%d)", status);
	status = in_child(masked);
	tap_ok(status == 0, "the handler runs with its sa_mask and the signal "
	       "blocked (%d)", status);
	status = in_child(nodefer);
	tap_ok(status == 0, "SA_NODEFER: the signal is not blocked in the "
	       "handler (%d)", status);
	status = in_child(null_call);
	tap_ok(status == 0, "a NULL call reaches the program's SIGSEGV "
	       "handler (%d)", status);
	return tap_done();
}
