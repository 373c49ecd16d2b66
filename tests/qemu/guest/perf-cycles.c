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
#include "guest-perf.h"
#include "guest-util.h"

int main(int argc, char **argv)
{
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

	fd = open_cpu_cycles("perf-cycles", cpu);
	sleep((unsigned int)seconds);
	count = read_count("perf-cycles", fd);
	printf("cycles=%llu\n", (unsigned long long)count);
	close(fd);
	return 0;
}
