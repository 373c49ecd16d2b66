/* stack-t: cycle.h on the small stacks of other people's threads.
 * SPDX-License-Identifier: MIT
 *
 * Hosts run getticks() on threads with the smallest stack the system allows
 * (thread pools, language runtimes) and take signals on a small alternate
 * stack (Go, and runtimes that catch their own stack overflows).  The first
 * call chooses and calibrates on the caller's stack, and a trapping counter
 * read is answered by the guard's handler on that stack, or on the
 * alternate one when the thread has one (SA_ONSTACK).  Each case runs in a
 * fresh process, on a stack of its own with an inaccessible page below it,
 * so running off the end kills the child instead of passing unnoticed; the
 * stack is painted first, and the test reports how much of it was used.
 *
 * The trap: on ARM the engine is made to believe the PMU counter granted
 * (engine-test.h), so reading it traps for real under qemu and on a stock
 * kernel; on x86 rdtsc is turned off (PR_SET_TSC) and the guard installed,
 * where the kernel honours that.  Where no trap can be staged (a PMU really
 * granted, by the module or a perf event; no counter that traps) the trap
 * cases are skipped and say why.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "engine-test.h"
#include "tap/basic.h"

#ifdef CYCLE_IMPL_ENGINE

#define PAINT 0xa5
/* The alternate stack: the manual's "about 6 KiB", rounded up. */
#define ALT_STACK_SIZE 8192

/* What a child found, in memory it shares with the parent. */
struct outcome {
	int ran;             /* the thread finished */
	int interval_ok;     /* elapsed() over 1 ms of spinning was positive */
	int trap_armed;      /* a trapping read could be set up here */
	int trapped;         /* ... and the guard answered it */
	char why_unarmed[96];
	size_t size, used;   /* the painted stack, and how much of it was used */
};

static struct outcome *out;

struct region {
	unsigned char *base; /* the usable part, above the guard page */
	size_t size;
};

/* size bytes of painted stack above one inaccessible page. */
static int map_stack(struct region *r, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *p;

	size = (size + page - 1) / page * page;
	p = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p, page, PROT_NONE) != 0)
		return 0;
	r->base = p + page;
	r->size = size;
	memset(r->base, PAINT, size);
	return 1;
}

/* Stacks grow down: the bytes below the lowest one written are paint. */
static size_t used_of(const struct region *r)
{
	size_t k = 0;

	while (k < r->size && r->base[k] == PAINT)
		k++;
	return r->size - k;
}

/* Sets up a counter read that traps; 1 when it could. */
static int arm_trap(void)
{
#if defined(CYCLE_IMPL_PMU_ACCESS)
	if (!counter0_traps()) { /* granted: by a module, a perf event */
		snprintf(out->why_unarmed, sizeof(out->why_unarmed),
			 "%s reads here: no trap to stage", cycle_impl_name(0));
		return 0;
	}
	pretend_granted(0);
	return 1;
#elif (defined(__x86_64__) || defined(__i386__)) && defined(PR_SET_TSC)
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0 ||
	    !counter0_traps()) {
		snprintf(out->why_unarmed, sizeof(out->why_unarmed),
			 "this kernel lets rdtsc run after PR_SET_TSC");
		return 0;
	}
	cycle_impl_install();
	return 1;
#else
	snprintf(out->why_unarmed, sizeof(out->why_unarmed),
		 "no counter here that a test can make trap");
	return 0;
#endif
}

/* The host's code on the thread: the first call (the choice), an
 * interval, then a read that traps. */
static void host_work(void)
{
	ticks t0, t1;
	unsigned traps;

	t0 = getticks();
	spin_ms(1);
	t1 = getticks();
	out->interval_ok = elapsed(t1, t0) > 0;
	out->trap_armed = arm_trap();
	if (out->trap_armed) {
		traps = cycle_impl_state.traps;
		(void)guarded_read(0);
		out->trapped = cycle_impl_state.traps == traps + 1;
	}
	out->ran = 1;
}

static void *on_small_stack(void *arg)
{
	(void)arg;
	host_work();
	return NULL;
}

static void *with_alt_stack(void *arg)
{
	const struct region *alt = arg;
	stack_t ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = alt->base;
	ss.ss_size = alt->size;
	if (sigaltstack(&ss, NULL) != 0)
		return NULL;
	host_work();
	return NULL;
}

/* The smallest stack pthreads accepts here. */
static size_t smallest_stack(void)
{
	long min = -1;

#if defined(_SC_THREAD_STACK_MIN)
	min = sysconf(_SC_THREAD_STACK_MIN);
#endif
	if (min < (long)PTHREAD_STACK_MIN)
		min = (long)PTHREAD_STACK_MIN;
	return (size_t)min;
}

static void small_stack_child(void)
{
	struct region stack;
	pthread_attr_t attr;
	pthread_t t;

	force_full_choice(); /* probe under the guard, on that stack */
	if (!map_stack(&stack, smallest_stack()) ||
	    pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstack(&attr, stack.base, stack.size) != 0 ||
	    pthread_create(&t, &attr, on_small_stack, NULL) != 0 ||
	    pthread_join(t, NULL) != 0)
		_exit(3);
	out->size = stack.size;
	out->used = used_of(&stack);
}

static void alt_stack_child(void)
{
	struct region alt;
	pthread_t t;

	force_full_choice();
	if (!map_stack(&alt, ALT_STACK_SIZE) ||
	    pthread_create(&t, NULL, with_alt_stack, &alt) != 0 ||
	    pthread_join(t, NULL) != 0)
		_exit(3);
	out->size = alt.size;
	out->used = used_of(&alt);
}

static int run_case(void (*child)(void))
{
	memset(out, 0, sizeof(*out));
	return in_child(child);
}

/* A skip whose reason was measured. */
static void skip_because(const char *what, const char *why)
{
	char line[200];

	snprintf(line, sizeof(line), "%s: %s", what, why);
	tap_skip(line);
}

int main(void)
{
	int status;

	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED) {
		tap_bail("mmap: %s", strerror(errno));
		return 1;
	}
	tap_plan(4);

	status = run_case(small_stack_child);
	tap_ok(status == 0 && out->ran && out->interval_ok,
	       "the choice and an interval on a thread with the smallest "
	       "stack (%zu bytes, %zu used; child status %d)", out->size,
	       out->used, status);
	if (out->trap_armed)
		tap_ok(status == 0 && out->trapped,
		       "a trapping read on that stack is answered by the guard");
	else
		skip_because("a trapping read on the smallest stack",
			     out->why_unarmed);

	status = run_case(alt_stack_child);
	tap_ok(status == 0 && out->ran && out->interval_ok,
	       "the choice and an interval on a thread with a %d-byte "
	       "alternate signal stack (child status %d)", ALT_STACK_SIZE,
	       status);
	if (out->trap_armed)
		tap_ok(status == 0 && out->trapped && out->used > 0,
		       "the guard answers a trapping read on the alternate "
		       "stack (%zu of %zu bytes used)", out->used, out->size);
	else
		skip_because("a trapping read on the alternate stack",
			     out->why_unarmed);
	return tap_done();
}

#else

int main(void)
{
	tap_skip_all("this build of cycle.h has no run-time engine");
	return 0;
}

#endif
