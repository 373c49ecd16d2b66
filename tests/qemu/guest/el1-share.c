/* el1-share: how much of a syscall-heavy loop the cycle counter counts, against a user-only loop. */
/* SPDX-License-Identifier: MIT */
/*
 * Tells whether PMCCNTR_EL0 counts kernel time.  It measures cycles per
 * CNTVCT_EL0 tick twice on one CPU: in a loop that never leaves user space,
 * and in a loop of read(2)s of /dev/zero, where most of the time is spent
 * in the kernel (clearing the buffer).  share = second / first: about 1
 * when the kernel is counted, well below 1 when only EL0 is.
 *
 * Usage: el1-share [--cpu N]
 * Prints "share=<ratio> user=<cycles/tick> syscalls=<cycles/tick>"; exits 1
 * when PMCCNTR_EL0 traps or does not count, 3 on other architectures.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest-util.h"

#if defined(__aarch64__)

static sigjmp_buf trapped;

static void on_sigill(int sig)
{
	(void)sig;
	siglongjmp(trapped, 1);
}

static inline uint64_t cycles(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
	return v;
}

static inline uint64_t ticks(void)
{
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t tick_rate(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

static char buf[65536];

/* Cycles per timer tick over about 0.1 s of one kind of work. */
static double rate(int fd)
{
	uint64_t t0, t1, c0, c1, span = tick_rate() / 10;
	volatile unsigned long spin = 0;

	t0 = ticks();
	c0 = cycles();
	do {
		if (fd < 0) {
			for (int i = 0; i < 10000; i++)
				spin++;
		} else if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("el1-share: read /dev/zero");
			exit(1);
		}
		t1 = ticks();
	} while (t1 - t0 < span);
	c1 = cycles();
	return (double)(c1 - c0) / (double)(t1 - t0);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	double user, sys;
	int fd;

	if (argc == 3 && strcmp(argv[1], "--cpu") == 0) {
		pin_to_cpu("el1-share", parse_number("el1-share", "CPU", argv[2]));
	} else if (argc != 1) {
		fprintf(stderr, "usage: el1-share [--cpu N]\n");
		return 2;
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("el1-share: /dev/zero");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigill;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, NULL);
	if (sigsetjmp(trapped, 1)) {
		puts("el1-share: PMCCNTR_EL0 traps");
		return 1;
	}
	user = rate(-1);
	sys = rate(fd);
	if (user <= 0.0) {
		puts("el1-share: PMCCNTR_EL0 does not count");
		return 1;
	}
	printf("share=%.3f user=%.2f syscalls=%.2f\n", sys / user, user, sys);
	return 0;
}

#else

int main(void)
{
	fprintf(stderr, "el1-share: for aarch64 only\n");
	return 3;
}

#endif
