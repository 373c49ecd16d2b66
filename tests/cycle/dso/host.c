/* host.c: the programs of dso-t.sh, each a hostile host for cycle.h.
 * SPDX-License-Identifier: MIT
 *
 *   host mixed LIB1 NAME1 LIB2 NAME2   two libraries built with different
 *        configurations, called in this order: both survive, and both
 *        time a 10 ms sleep as 10 ms in their own ticks
 *   host dlclose PLUGIN   a plugin installs the guard and is unloaded: the
 *        program's own handler is the action again, and reached
 *   host reguard PLUGIN   the same in a program that has cycle.h itself and
 *        shares the state (-rdynamic): its next call puts its own guard back
 *   host stray PLUGIN   the program saves the plugin's guard, the plugin
 *        removes it, the program restores what it saved (an OpenSSL-style
 *        probe around the choice): dlclose still gives the action back
 *   host-cycle reinstall PLUGIN   the same stray, then the program's own
 *        copy installs its guard over it: a genuine fault must still reach
 *        the program's handler (the two guards must not chain to each other)
 * Exit status 0 on success, 3 when mixed timed a sleep outside 5..200 ms
 * (dso-t.sh tries that again: a busy machine can upset one calibration);
 * what went wrong on stderr.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#ifdef HOST_HAS_CYCLE_H
#include "engine-test.h"
#else
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#define SIG SIGSEGV
#else
#define SIG SIGILL
#endif

static sigjmp_buf escape;
static volatile sig_atomic_t caught;

static void own_handler(int sig)
{
	(void)sig;
	caught++;
	siglongjmp(escape, 1);
}

static void fault(void)
{
#if defined(__x86_64__) || defined(__i386__)
	volatile int *volatile bad = (volatile int *)(uintptr_t)8;

	*bad = 1;
#elif defined(__aarch64__)
	__asm__ __volatile__(".inst 0x00000000");
#elif defined(__arm__) && defined(__thumb__)
	__asm__ __volatile__(".inst.n 0xde00");
#elif defined(__arm__)
	__asm__ __volatile__(".inst 0xe7f000f0");
#else
	raise(SIG);
#endif
}

static void *need(void *lib, const char *sym)
{
	void *p = dlsym(lib, sym);

	if (!p) {
		fprintf(stderr, "host: no %s: %s\n", sym, dlerror());
		_exit(2);
	}
	return p;
}

static void *open_lib(const char *path, int flags)
{
	void *lib = dlopen(path, flags);

	if (!lib) {
		fprintf(stderr, "host: %s\n", dlerror());
		_exit(2);
	}
	return lib;
}

static int mixed(char **argv)
{
	int k, bad = 0;

	for (k = 0; k < 2; k++) {
		void *lib = open_lib(argv[2 + 2 * k], RTLD_NOW | RTLD_GLOBAL);
		char sym[64];
		double (*ms)(void);
		const char *(*counter)(void);
		double t;

		snprintf(sym, sizeof(sym), "%s_ms", argv[3 + 2 * k]);
		ms = (double (*)(void))need(lib, sym);
		snprintf(sym, sizeof(sym), "%s_counter", argv[3 + 2 * k]);
		counter = (const char *(*)(void))need(lib, sym);
		t = ms();
		printf("%s: %s measured a 10 ms sleep as %.2f ms\n",
		       argv[3 + 2 * k], counter(), t);
		if (!(t > 5.0 && t < 200.0))
			bad = 3;
	}
	return bad;
}

static int unload(char **argv, int reguard)
{
	struct sigaction sa, now;
	void *lib;
	void (*choose)(void);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = own_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIG, &sa, NULL);
	lib = open_lib(argv[2], RTLD_NOW | RTLD_LOCAL);
	choose = (void (*)(void))need(lib, "plugin_choose_guarded");
	choose();
	if (!((int (*)(void))need(lib, "plugin_guard_is_mine"))()) {
		fputs("host: the plugin's guard was not installed\n", stderr);
		return 1;
	}
	if (reguard >= 2) {
		struct sigaction saved;

		sigaction(SIG, NULL, &saved);
		((void (*)(void))need(lib, "plugin_drop_guard"))();
		sigaction(SIG, &saved, NULL);
	}
#ifdef HOST_HAS_CYCLE_H
	if (reguard == 3) {
		cycle_impl_install();
		if (sigsetjmp(escape, 1) == 0)
			fault();
		if (caught != 1) {
			fputs("host: a genuine fault missed the program's handler"
			      " behind the two guards\n", stderr);
			return 1;
		}
		caught = 0;
	}
#endif
	dlclose(lib);
	sigaction(SIG, NULL, &now);
#ifdef HOST_HAS_CYCLE_H
	if (reguard == 3) {
		/* The program's guard stays, chaining to its handler. */
		if (!guard_installed()) {
			fputs("host: after dlclose the program's guard is "
			      "gone\n", stderr);
			return 1;
		}
	} else
#endif
	if ((now.sa_flags & SA_SIGINFO) || now.sa_handler != own_handler) {
		fputs("host: after dlclose the action is not the program's\n",
		      stderr);
		return 1;
	}
#ifdef HOST_HAS_CYCLE_H
	if (reguard == 1) {
		/* Put back where the counter needs it (not rdtsc's). */
		(void)getticks();
		if (guard_installed() != !!CYCLE_IMPL_REVOCABLE(0)) {
			fputs("host: the program's guard was not put back, or"
			      " put back where nothing needs it\n", stderr);
			return 1;
		}
	}
#else
	(void)reguard;
#endif
	if (sigsetjmp(escape, 1) == 0)
		fault();
	if (caught != 1) {
		fputs("host: a genuine fault missed the program's handler\n",
		      stderr);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && strcmp(argv[1], "mixed") == 0)
		return mixed(argv);
	if (argc == 3 && strcmp(argv[1], "dlclose") == 0)
		return unload(argv, 0);
	if (argc == 3 && strcmp(argv[1], "reguard") == 0)
		return unload(argv, 1);
	if (argc == 3 && strcmp(argv[1], "stray") == 0)
		return unload(argv, 2);
	if (argc == 3 && strcmp(argv[1], "reinstall") == 0)
		return unload(argv, 3);
	fputs("usage: host mixed LIB1 NAME1 LIB2 NAME2 | dlclose PLUGIN | "
	      "reguard PLUGIN | stray PLUGIN | reinstall PLUGIN\n", stderr);
	return 2;
}
