/* perf-tier-t: the aarch64 perf tier's reading paths, on a page of our own.
 * SPDX-License-Identifier: MIT
 *
 * Under qemu user mode perf_event_open fails and PMCCNTR_EL0 always traps,
 * so the perf tier is never chosen by itself.  Here the engine is given a
 * page that claims the event sits in PMCCNTR_EL0 (index 32) and a pipe in
 * place of the event's descriptor: the mrs then traps for real, as it does
 * on hardware when the task is switched out between reading the page and
 * reading the counter.  The handler must step over it without revoking
 * anything, and the reading must come from read().  On real hardware (where
 * the mrs may succeed: a module loaded, or kernel.perf_user_access=1) the
 * checks that need the trap are skipped, and the others hold whichever
 * counter the real choice took.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>

#include "engine-test.h"
#include "tap/basic.h"

#if defined(CYCLE_IMPL_ENGINE) && defined(CYCLE_IMPL_PERF_INDEX)

static struct cycle_impl_perf_page fake_page;
static int fake_alive = 1;

/* Whether kernel.perf_user_access is 1: the real choice may take the tier. */
static int perf_user_access(void)
{
	char c = 0;
	int fd = open("/proc/sys/kernel/perf_user_access", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	return c == '1';
}

/* CNTVCT_EL0 now, in the unit of the chosen counter: what the tier must
 * answer in its place (the index is the port's, not looked up). */
static uint64_t cntvct_now(void)
{
	int cntvct = CYCLE_IMPL_PERF_INDEX + 1;

	return cycle_impl_convert(cntvct, cycle_impl_hw_read(cntvct));
}

/* Writes value into the pipe that stands for the event's descriptor. */
static int feed(int fd, uint64_t value)
{
	return write(fd, &value, sizeof(value)) == (ssize_t)sizeof(value);
}

int main(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int fds[2], mode, active, no_trap, n;
	unsigned traps;
	uint64_t v, c0, c1;
	const uint64_t window_ns = 10000000; /* the rate's windows */
	double rate;

	tap_plan(12);
	force_full_choice(); /* the chain measured, as where PMCCNTR_EL0 is configured */
	(void)getticks(); /* the real choice, whatever this machine allows */
	if (perf_user_access())
		tap_skip("kernel.perf_user_access is 1 here: the tier may be "
			 "chosen");
	else
		tap_ok(CYCLE_IMPL_INDEX_OF(g->mode) != CYCLE_IMPL_PERF_INDEX &&
		       g->perf_state != CYCLE_IMPL_PERF_OPEN,
		       "without perf_user_access the tier is not chosen "
		       "(%s: %s)", cycle_counter_name(),
		       cycle_impl_perf_reason(g->perf_state));
	/* Non-blocking: a read() with nothing fed fails, and does not hang. */
	if (pipe(fds) != 0 || fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0)
		tap_bail("pipe: %s", strerror(errno));

	fake_page.lock = 2;
	fake_page.index = CYCLE_IMPL_PERF_CYCLE_INDEX;
	fake_page.offset = 1000;
	fake_page.capabilities = CYCLE_IMPL_BITFIELD(2); /* cap_user_rdpmc */
	fake_page.pmc_width = 64;
	g->perf_fd = fds[0];
	g->perf_alive = &fake_alive;
	g->perf_page = &fake_page;
	g->perf_opener = &cycle_impl_self;
	cycle_impl_self.perf_mine = 1;
	cycle_impl_install(); /* as when the tier is chosen */

	mode = g->mode;
	active = CYCLE_IMPL_INDEX_OF(g->mode);
	traps = g->traps;
	feed(fds[1], 0xabcdef);
	v = cycle_impl_perf_read();
	/* Whether the mrs traps is the hardware's answer, not the engine's;
	 * this thread's own perf event (perf_user_access) lets it read. */
	no_trap = !counter0_traps() || g->perf_state == CYCLE_IMPL_PERF_OPEN;
	if (no_trap) {
		tap_skip("PMCCNTR_EL0 reads here: no trap to stage");
		tap_skip("PMCCNTR_EL0 reads here: no trap to stage");
		if (read(fds[0], &v, sizeof(v)) != (ssize_t)sizeof(v))
			tap_bail("the tier called read() although its mrs "
				 "read PMCCNTR_EL0 (%s)", strerror(errno));
	} else {
		tap_ok(cycle_impl_self.perf_trapped == 1,
		       "a trapping mrs inside the page protocol is stepped over"
		       " once (%u)", cycle_impl_self.perf_trapped);
		tap_ok(v == 0xabcdef,
		       "... and the reading comes from read() (%#llx)",
		       (unsigned long long)v);
	}
	tap_ok(g->traps == traps && g->mode == mode && CYCLE_IMPL_INDEX_OF(g->mode) == active,
	       "... and nothing is revoked (traps %u, active %s)", g->traps,
	       cycle_impl_name(CYCLE_IMPL_INDEX_OF(g->mode)));

	/* The page says the event is not in a counter now: read() only. */
	fake_page.index = 0;
	traps = cycle_impl_self.perf_trapped;
	feed(fds[1], 0x123456);
	v = cycle_impl_perf_read();
	tap_ok(v == 0x123456 && cycle_impl_self.perf_trapped == traps,
	       "index 0: read() answers, no mrs (%#llx)", (unsigned long long)v);

	/* The tier's rate: the kernel only takes counts away (a switch, a
	 * fault), so the fastest of the windows, not the first or the last.
	 * Five windows of 10 ms (read() from the pipe is a system call,
	 * slow in a VM, and a window is kept only where its brackets are
	 * within 5% of it), after five to warm the code, counting 1e6, 1e7,
	 * 1e7, 1e7, 1e6: the fast ones measure about 1e9, a slow one at most
	 * 1.05e8 (its window is at least 95% of 10 ms, or too blurred). */
	for (n = 0; n < 5; n++) {
		feed(fds[1], 0);
		feed(fds[1], 1000000);
	}
	(void)cycle_impl_measure(CYCLE_IMPL_PERF_INDEX, window_ns);
	for (n = 0; n < 5; n++) {
		feed(fds[1], 0);
		feed(fds[1], n == 0 || n == 4 ? 1000000 : 10000000);
	}
	rate = cycle_impl_measure(CYCLE_IMPL_PERF_INDEX, window_ns);
	tap_ok(rate > 1.5e8 && rate <= 1.06e9,
	       "the tier's rate is its fastest window's (%.4g Hz)", rate);

	/* A child of fork(), or a thread that did not open the event: the
	 * next tier, CNTVCT_EL0, in the unit of the chosen counter, made
	 * PMCCNTR_EL0 at 1 GHz here so that a reading left unconverted shows
	 * (under qemu the real choice is CNTVCT_EL0 itself). */
	g->chosen = 0;
	g->hz[0] = 1e9;
	cycle_impl_link(CYCLE_IMPL_PERF_INDEX + 1,
			cycle_impl_hw_read(CYCLE_IMPL_PERF_INDEX + 1),
			PRETEND_LAST_READING);
	fake_alive = 0;
	c0 = cntvct_now();
	v = cycle_impl_perf_read();
	c1 = cntvct_now();
	tap_ok(c0 <= v && v <= c1,
	       "a wiped fork sentinel: the next tier answers (%llu <= %llu <= "
	       "%llu)", (unsigned long long)c0, (unsigned long long)v,
	       (unsigned long long)c1);
	fake_alive = 1;
	g->perf_opener = NULL;
	c0 = cntvct_now();
	v = cycle_impl_perf_read();
	c1 = cntvct_now();
	tap_ok(c0 <= v && v <= c1, "not the opener: the next tier answers");
	/* A new thread that glibc placed where the opener's record was (its
	 * stack reused): the same address, but its own fresh record. */
	g->perf_opener = &cycle_impl_self;
	cycle_impl_self.perf_mine = 0;
	c0 = cntvct_now();
	v = cycle_impl_perf_read();
	c1 = cntvct_now();
	tap_ok(c0 <= v && v <= c1,
	       "a new thread at a finished opener's address: the next tier");
	cycle_impl_self.perf_mine = 1;
	fake_page.index = CYCLE_IMPL_PERF_CYCLE_INDEX;

	/* A PMCCNTR_EL0 read that is not a perf read still revokes. */
	if (no_trap) {
		tap_skip("PMCCNTR_EL0 reads here: no trap to stage");
	} else {
		pretend_granted(0);
		traps = g->traps;
		(void)guarded_read(0); /* as getticks(), after the access check */
		tap_ok(g->traps == traps + 1 && CYCLE_IMPL_INDEX_OF(g->mode) != 0,
		       "a direct PMCCNTR_EL0 read outside the page protocol "
		       "still revokes (now %s)",
		       cycle_impl_name(CYCLE_IMPL_INDEX_OF(g->mode)));
	}

	/* An event the PMU does not schedule (its counters all taken, or a
	 * big.LITTLE cluster of another PMU): index 0, and read() answers the
	 * same count over and over.  getticks() must see a stop and move on,
	 * or FFTW's planner doubles its repeats for ever. */
	fake_page.index = 0;
	pretend_granted(CYCLE_IMPL_PERF_INDEX);
	feed(fds[1], 0x777);
	feed(fds[1], 0x777);
	feed(fds[1], 0x777);
	c0 = getticks();
	v = getticks();
	for (n = 0; (c1 = getticks()) == v && n < 1000000; n++)
		; /* two readings of CNTVCT_EL0 may fall in one tick */
	tap_ok(c0 == 0x777 &&
	       CYCLE_IMPL_INDEX_OF(g->mode) == CYCLE_IMPL_PERF_INDEX + 1 &&
	       elapsed(c1, v) > 0,
	       "a count that stopped is left for %s (%#llx, then %llu, %llu)",
	       cycle_impl_name(CYCLE_IMPL_INDEX_OF(g->mode)),
	       (unsigned long long)c0, (unsigned long long)v,
	       (unsigned long long)c1);

	/* The kernel's layouts (include/uapi/linux/perf_event.h). */
	tap_ok(offsetof(struct cycle_impl_perf_page, offset) == 16 &&
	       offsetof(struct cycle_impl_perf_page, capabilities) == 40 &&
	       offsetof(struct cycle_impl_perf_page, pmc_width) == 48 &&
	       offsetof(struct cycle_impl_perf_attr, config1) == 56 &&
	       sizeof(struct cycle_impl_perf_attr) == 64,
	       "page and attr fields sit where the kernel puts them");
	return tap_done();
}

#else

int main(void)
{
	tap_skip_all("no perf tier on this architecture");
	return 0;
}

#endif
