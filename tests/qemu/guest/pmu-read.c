/* pmu-read: report whether the PMU cycle counter traps, is frozen or counts here. */
/* SPDX-License-Identifier: MIT */
/*
 * The tests' own oracle of the hardware state, independent of cycle/cycle.h:
 * it reads the counter with its own instruction, catches SIGILL itself and
 * prints one word, "traps", "frozen" or "counts".
 *
 * Usage: pmu-read [--cpu N] [--event | --pmcr-write | --rate]
 * --event reads event counter 0 (PMEVCNTR0_EL0, arm64 only) instead: the
 * module grants that only with event_read=1.
 * --pmcr-write writes PMCR back with the value it holds and prints "traps"
 * or "writes": the module allows that only with user_write=1.
 * --rate prints "rate=R", the counter's ticks per microsecond of
 * CLOCK_MONOTONIC over 100 ms spent in user space: where a filter leaves
 * user space out of the count, only the kernel's share of that time counts.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "guest-util.h"

static sigjmp_buf trapped;

static void on_sigill(int sig)
{
	(void)sig;
	siglongjmp(trapped, 1);
}

static int read_event_counter;
static int write_pmcr;
static int measure_rate;

static uint64_t read_counter(void)
{
#if defined(__aarch64__)
	uint64_t v;
	if (read_event_counter)
		__asm__ __volatile__("mrs %0, pmevcntr0_el0" : "=r"(v));
	else
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
	return v;
#elif defined(__arm__)
	uint32_t v;
	if (read_event_counter) {
		fprintf(stderr, "pmu-read: --event is for arm64 only\n");
		exit(2);
	}
	__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(v));
	return v;
#else
#error "pmu-read is for ARM guests"
#endif
}

/* Read PMCR and write the same value back: changes nothing, or traps. */
static void rewrite_pmcr(void)
{
#if defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, pmcr_el0" : "=r"(v));
	__asm__ __volatile__("msr pmcr_el0, %0" : : "r"(v));
#else
	uint32_t v;

	__asm__ __volatile__("mrc p15, 0, %0, c9, c12, 0" : "=r"(v));
	__asm__ __volatile__("mcr p15, 0, %0, c9, c12, 0" : : "r"(v));
#endif
}

int main(int argc, char **argv)
{
	volatile uint64_t first = 0, second = 0;
	volatile unsigned long spin;
	struct sigaction sa;

	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc) {
			pin_to_cpu("pmu-read",
				   parse_number("pmu-read", "CPU", argv[++i]));
		} else if (strcmp(argv[i], "--event") == 0) {
			read_event_counter = 1;
		} else if (strcmp(argv[i], "--pmcr-write") == 0) {
			write_pmcr = 1;
		} else if (strcmp(argv[i], "--rate") == 0) {
			measure_rate = 1;
		} else {
			fprintf(stderr, "usage: pmu-read [--cpu N] [--event | --pmcr-write | --rate]\n");
			return 2;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigill;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, NULL);

	if (sigsetjmp(trapped, 1)) {
		puts("traps");
		return 0;
	}
	if (write_pmcr) {
		rewrite_pmcr();
		puts("writes");
		return 0;
	}
	if (measure_rate) {
		struct timespec t0, t;
		double us;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		first = read_counter();
		do {
			for (spin = 0; spin < 10000; spin++)
				;
			clock_gettime(CLOCK_MONOTONIC, &t);
			us = (t.tv_sec - t0.tv_sec) * 1e6 +
			     (t.tv_nsec - t0.tv_nsec) / 1e3;
		} while (us < 100000);
		second = read_counter();
#if defined(__arm__)
		printf("rate=%.4f\n", (uint32_t)(second - first) / us);
#else
		printf("rate=%.4f\n", (double)(second - first) / us);
#endif
		return 0;
	}
	first = read_counter();
	/* Long enough for any counting clock to tick, even under emulation. */
	for (spin = 0; spin < 2000000; spin++)
		;
	second = read_counter();
	puts(first != second ? "counts" : "frozen");
	return 0;
}
