/* perf-cycles: hold a perf cycles event open on one CPU for a while. */
/* SPDX-License-Identifier: MIT */
/*
 * Opening a CPU-cycles event makes Linux reprogram the PMU of that CPU and
 * clear user access to it, which is what the tests want to provoke.
 *
 * Usage: perf-cycles --cpu N --seconds S
 * Prints "cycles=<count>"; exits 3 when the kernel has no driver for this
 * CPU's PMU (ENOENT: no hardware cycles event), 1 on other failures.
 */
#define _GNU_SOURCE /* CPU_SET, in guest-util.h */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "guest-util.h"

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	long cpu = -1, seconds = -1;
	uint64_t count;
	int i, fd;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--cpu") == 0)
			cpu = parse_number("perf-cycles", "CPU", argv[i + 1]);
		else if (strcmp(argv[i], "--seconds") == 0)
			seconds = parse_number("perf-cycles", "duration",
					       argv[i + 1]);
		else
			break;
	}
	if (i != argc || cpu < 0 || seconds < 0) {
		fprintf(stderr, "usage: perf-cycles --cpu N --seconds S\n");
		return 2;
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, 0UL);
	if (fd < 0) {
		int open_errno = errno;

		perror("perf-cycles: perf_event_open");
		return open_errno == ENOENT ? 3 : 1;
	}
	sleep((unsigned int)seconds);
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count)) {
		perror("perf-cycles: read");
		return 1;
	}
	printf("cycles=%llu\n", (unsigned long long)count);
	close(fd);
	return 0;
}
