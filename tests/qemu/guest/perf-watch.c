/* perf-watch: a perf session counting cycles on one CPU, checked after an event of the test's choosing. */
/* SPDX-License-Identifier: MIT */
/*
 * Opens a CPU-bound cycles event (what `perf stat -C N` does) and keeps it
 * open until FILE exists; then reads the count twice, 0.5 s apart, while
 * keeping CPU N busy.  The count must still advance: whatever happened
 * meanwhile (a re-grant, CPU PM, unloading the module) left perf working.
 *
 * Usage: perf-watch --cpu N --until FILE
 * Prints "before=<count> advanced=<delta>"; exits 0 when delta > 0, 1 when
 * perf's count stood still or on failure, 3 when the kernel has no perf
 * driver for this PMU.
 */
#define _GNU_SOURCE
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
	const char *until = NULL;
	long cpu = -1;
	uint64_t before, after;
	volatile unsigned long spin;
	double start;
	int i, fd;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--cpu") == 0)
			cpu = parse_number("perf-watch", "CPU", argv[i + 1]);
		else if (strcmp(argv[i], "--until") == 0)
			until = argv[i + 1];
		else
			break;
	}
	if (i != argc || cpu < 0 || until == NULL) {
		fprintf(stderr, "usage: perf-watch --cpu N --until FILE\n");
		return 2;
	}

	fd = open_cpu_cycles("perf-watch", cpu);
	start = now_seconds();
	while (access(until, F_OK) != 0) {
		if (now_seconds() - start > 120) {
			fprintf(stderr, "perf-watch: %s never appeared\n", until);
			return 1;
		}
		usleep(20000);
	}
	pin_to_cpu("perf-watch", cpu);
	before = read_count("perf-watch", fd);
	start = now_seconds();
	while (now_seconds() - start < 0.5)
		for (spin = 0; spin < 100000; spin++)
			;
	after = read_count("perf-watch", fd);
	printf("before=%llu advanced=%llu\n", (unsigned long long)before,
	       (unsigned long long)(after - before));
	return after > before ? 0 : 1;
}
