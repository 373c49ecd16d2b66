/* guest-perf.h: the one perf event the guest programs use, a CPU's cycles.
 * SPDX-License-Identifier: MIT
 */
#ifndef GUEST_PERF_H
#define GUEST_PERF_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Opens a cycles counter for every task on CPU cpu (as `perf stat -C`), or
 * says why and exits: 3 when the kernel has no such event (no PMU), else 1. */
static inline int open_cpu_cycles(const char *prog, long cpu)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, 0UL);
	if (fd < 0) {
		int open_errno = errno;

		fprintf(stderr, "%s: perf_event_open: %s\n", prog,
			strerror(open_errno));
		exit(open_errno == ENOENT ? 3 : 1);
	}
	return fd;
}

/* The event's count so far, or a one-line error and exit 1. */
static inline uint64_t read_count(const char *prog, int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		fprintf(stderr, "%s: read: %s\n", prog, strerror(errno));
		exit(1);
	}
	return v;
}

#endif /* GUEST_PERF_H */
