/* perf-churn: keep opening and closing perf CPU-cycles events on every CPU for a while.
 * SPDX-License-Identifier: MIT
 *
 * Each perf event that runs on a CPU makes Linux reprogram that CPU's PMU and
 * clear user access to its cycle counter; doing it over and over, on all CPUs,
 * while FFTW plans is the harshest revocation pattern a program meets.
 *
 * Usage: perf-churn SECONDS
 * Stops after SECONDS or at SIGTERM/SIGINT, prints "perf-churn: N events opened
 * on M CPUs" and exits 0.  Exits 1 when no event could be opened at all (then
 * the churn did not happen and a test relying on it must not pass), 3 when the
 * kernel has no CPU-cycles event (no PMU driver: ENOENT or EOPNOTSUPP),
 * 2 on a usage error.
 */
#include <errno.h>
#include <signal.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int open_cycles(int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	/* pid -1 with a CPU: a CPU-wide event, which needs root (the VM runs as root). */
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long opened = 0;
	int last_errno = 0;
	double seconds, end;
	char *tail;

	if (argc != 2 || (seconds = strtod(argv[1], &tail)) <= 0 || *tail) {
		fprintf(stderr, "usage: perf-churn SECONDS\n");
		return 2;
	}
	if (ncpus < 1)
		ncpus = 1;
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	end = now() + seconds;
	while (!stop && now() < end) {
		int cpu;

		for (cpu = 0; cpu < ncpus; cpu++) {
			uint64_t count;
			int fd = open_cycles(cpu);

			if (fd < 0) {
				last_errno = errno;
				continue;
			}
			opened++;
			/* The event is enabled at open; let it count a little. */
			usleep(1000);
			if (read(fd, &count, sizeof(count)) < 0)
				last_errno = errno;
			close(fd);
		}
		/* A first round without a single event will not get better. */
		if (opened == 0)
			break;
	}
	printf("perf-churn: %lu events opened on %ld CPUs\n", opened, ncpus);
	if (opened == 0) {
		fprintf(stderr, "perf-churn: perf_event_open failed: %s\n",
			strerror(last_errno));
		return last_errno == ENOENT || last_errno == EOPNOTSUPP ? 3 : 1;
	}
	return 0;
}
