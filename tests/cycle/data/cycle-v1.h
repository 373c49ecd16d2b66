/* cycle-v1.h: cycle.h as released before the versioned state (a fixture).
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to
 * deal in the Software without restriction, including without limitation the
 * rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
 * sell copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions: the above copyright
 * notice and this permission notice shall be included in all copies or
 * substantial portions of the Software.  THE SOFTWARE IS PROVIDED "AS IS",
 * WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
 *
 * ==========================================================================
 * MANUAL
 * ==========================================================================
 *
 * A drop-in replacement for FFTW's kernel/cycle.h.  It times short intervals
 * with the cheapest counter the machine really lets user space read, and it
 * never kills the process: a counter whose read traps (SIGILL), or that reads
 * but does not advance, is replaced by the next one in a fallback chain, at
 * the first call and also later, when the kernel revokes access (Linux clears
 * PMUSERENR_EL0 whenever perf runs, on CPU hotplug and on idle exit).
 *
 * API (FFTW's)
 *   ticks   an unsigned 64-bit integer type on every architecture the run-time
 *           engine below supports (another integer type on the rest).
 *   ticks   getticks(void)             read the counter.
 *   double  elapsed(ticks t1, ticks t0) t1 - t0 in ticks.  An interval that
 *           straddles a run-time change of counter comes out negative, which
 *           FFTW's planner treats as "measure again".
 *   HAVE_TICK_COUNTER                  defined when getticks() exists.
 *
 * API (additions; all extra names start with cycle_ / CYCLE_)
 *   const char *cycle_counter_name(void)   the counter in use: "PMCCNTR_EL0",
 *           "PMCCNTR_EL0_perf", "CNTVCT_EL0", "PMCCNTR", "CNTVCT", "rdtsc",
 *           "rdcycle", "rdtime",
 *           "mftb", "stckf", "clock_gettime", ...
 *   double  cycle_ticks_per_second(void)   the rate of ticks, measured at the
 *           choice against CLOCK_MONOTONIC_RAW (nominal for clock_gettime).
 *
 * Units.  A tick is one unit of the counter chosen at the first call, for the
 *   life of the process: CPU cycles (PMCCNTR_EL0, PMCCNTR_EL0_perf, PMCCNTR,
 *   rdtsc, rdcycle),
 *   generic-timer ticks at CNTFRQ (CNTVCT_EL0, CNTVCT) or nanoseconds
 *   (clock_gettime).  If the counter is revoked later, the replacement's
 *   readings are scaled into the same unit.  PMU cycle counters are per CPU:
 *   an interval across a migration between CPUs is not meaningful.  ARMv7's
 *   PMCCNTR is 32 bits wide; elapsed() handles its wrap for intervals below
 *   2^31 ticks (about 2 s at 1 GHz).
 *
 * Configuration (macros, normally from config.h; FFTW's configure names):
 *   HAVE_ARMV8_PMCCNTR_EL0  aarch64: try PMCCNTR_EL0 first.
 *   HAVE_ARMV8_CNTVCT_EL0   aarch64: try CNTVCT_EL0 first (also the default).
 *   HAVE_ARMV7A_PMCCNTR     32-bit ARMv7-A and later: try PMCCNTR first.
 *   HAVE_ARMV7A_CNTVCT      32-bit ARMv7-A and later: try CNTVCT first (the
 *                           default there).  Older 32-bit ARM never gets these
 *                           instructions; it uses clock_gettime.
 *   HAVE_GETHRTIME, HAVE_HRTIME_T, HAVE_MACH_ABSOLUTE_TIME,
 *   HAVE_MACH_MACH_TIME_H   as in FFTW, for systems without the engine.
 *
 * Fallback chains (the first usable one, starting at the configured counter):
 *   aarch64   PMCCNTR_EL0 -> PMCCNTR_EL0_perf -> CNTVCT_EL0
 *             -> clock_gettime(CLOCK_MONOTONIC_RAW)
 *   ARMv7+    PMCCNTR -> CNTVCT -> clock_gettime
 *   x86       rdtsc -> clock_gettime        riscv64  rdcycle -> rdtime -> clock
 *   powerpc   mftb -> clock_gettime         s390x    stckf -> clock_gettime
 *   others    clock_gettime (Linux), or what FFTW's cycle.h used.
 *
 * Environment (read once, at the first call):
 *   CYCLE_COUNTER=NAME  start the chain at NAME (any name of this machine's
 *                       chain above); it still never dies if NAME traps.  An
 *                       unknown name is reported once on stderr and ignored.
 *   CYCLE_DEBUG=1       print one line on stderr naming the counter chosen and
 *                       why, and one more if it is revoked later.  Nothing is
 *                       ever printed otherwise.
 *
 * How it works.  The first getticks() (from any thread; the others wait) reads
 * each candidate under a temporary SIGILL handler that recognises the counter
 * instructions by their encoding and skips them, spins about 200 us to see
 * which counters advance and at what rate, picks one and publishes it (on
 * x86 the handler is for SIGSEGV, which a disabled rdtsc raises).  Later
 * calls of the configured counter cost one load and one predictable branch
 * on top of the counter read; a fallback is read through a function call.
 * When the chosen counter is one the kernel may revoke (the PMU counters), the
 * handler stays installed: a counter read that traps is completed with the
 * replacement's reading, the process switches to the replacement for good,
 * and any other SIGILL is passed to the handler the program had (or kills the
 * process as it would have).  A program that installs its own SIGILL handler
 * after the first getticks() replaces this guard.
 *
 * The perf tier (aarch64, "PMCCNTR_EL0_perf").  Linux 5.17+ lets a task read
 * PMCCNTR_EL0 while it holds a user-readable perf event, if the admin set
 * kernel.perf_user_access=1; the kernel sets the access up itself at every
 * context switch, migration, hotplug and idle exit, so no module is needed.
 * (Observed on Debian's 6.1: it does not take the access back from a CPU the
 * task left, but the counter is stopped there.)  The tier is tried only when
 * the chain reaches it: PMCCNTR_EL0 is configured (or CYCLE_COUNTER names
 * PMCCNTR_EL0 or PMCCNTR_EL0_perf) and its direct read traps or does not
 * count; never when the direct read counts, because opening a cycles event
 * takes the counter from direct readers.  CYCLE_COUNTER=CNTVCT_EL0 skips it.
 *
 * The thread that makes the choice opens one event (cycles, this thread, any
 * CPU, user mode only, config1 "long" and "rdpmc", close-on-exec) with a raw
 * system call, and maps its first page.  Unprivileged users need
 * kernel.perf_event_paranoid 2 or lower (Debian's default, 3, refuses them
 * any event: EACCES).  A reading follows the page's sequence lock: the
 * event's offset plus PMCCNTR_EL0 when the page says the event sits in the
 * cycle counter now (index 32), else read() on the event.  An mrs that traps
 * because the task was switched out meanwhile is stepped over by the trap
 * handler and retried; it revokes nothing.  It counts the user-mode cycles of
 * that one thread (not the kernel's, not other tasks', nothing while it
 * sleeps), continuously across migrations.
 *
 * Only the opening thread reads the event: the page's index and offset
 * describe that thread's event, and EL0 access is set up only for tasks
 * holding such an event.  arm64 accepts inherit with user access (it only
 * requires a task-bound event), but an inherited child event has no page of
 * its own and read() on the parent sums all threads; an event per thread
 * would leak a descriptor per exited thread (cycle.h cannot hook thread exit
 * without libpthread).  So every other thread, and the child of a fork() (the
 * kernel does not copy the page), reads the next tier (CNTVCT_EL0) scaled
 * into cycles, as after a revocation: an interval measured on one thread is
 * meaningful, one across two threads is not (as for PMU counters of two
 * CPUs).  The descriptor stays open for the life of the process.
 *
 * Requirements of the engine: Linux, GCC or Clang, and POSIX declarations
 * (any mode but a strict ISO one such as -std=c99 without _POSIX_C_SOURCE; in
 * that mode aarch64 gets CNTVCT_EL0, x86 rdtsc, PowerPC mftb, s390x stckf,
 * the rest timespec_get in C11 and no counter in C99).  Shared state is one
 * weak symbol, so all translation units and libraries of a process share one
 * choice; in position-independent code on 32-bit ARM reaching it costs one
 * more load, through the GOT (-fno-pie avoids it).
 *
 * Adding a port: write a CYCLE_IMPL_PORT_* block below (counter names, an
 * inline read per counter, and optionally the decoder that recognises a
 * trapping read), and add the counter to the manual above.
 */
#ifndef CYCLE_H_INCLUDED
#define CYCLE_H_INCLUDED

#if defined(__cplusplus) || \
	(defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define CYCLE_IMPL_INLINE static inline
#elif defined(__GNUC__)
#define CYCLE_IMPL_INLINE static __inline__
#else
#define CYCLE_IMPL_INLINE static
#endif

#include <stdint.h>
#include <time.h>
#if defined(__linux__) && defined(__GNUC__)
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#endif

/* ------------------------------------------------------------------------
 * Ports: per architecture, the counters of its chain (clock_gettime, always
 * last, is added by the engine), how to read each, and which one the build
 * asked for.  CYCLE_IMPL_NHW is the number of hardware counters.
 * ---------------------------------------------------------------------- */

#if defined(__GNUC__) && defined(__aarch64__)
/* AArch64: the PMU cycle counter read directly, the same counter read
 * through a perf event (kernel.perf_user_access=1, Linux 5.17+), and the
 * generic timer's virtual count. */
#define CYCLE_IMPL_PORT_AARCH64 1
#define CYCLE_IMPL_NHW 3
#define CYCLE_IMPL_NAMES "PMCCNTR_EL0", "PMCCNTR_EL0_perf", "CNTVCT_EL0"
#define CYCLE_IMPL_PERF_INDEX 1
/* Linux clears PMUSERENR_EL0; a perf read's mrs may trap too (handled). */
#define CYCLE_IMPL_REVOCABLE(i) ((i) <= CYCLE_IMPL_PERF_INDEX)
#define CYCLE_IMPL_NARROW(i) 0
#if defined(HAVE_ARMV8_PMCCNTR_EL0)
#define CYCLE_IMPL_CONFIGURED 0
#else
#define CYCLE_IMPL_CONFIGURED 2
#endif
#if defined(__linux__) && defined(SA_SIGINFO) && defined(CLOCK_MONOTONIC)
#ifdef __cplusplus
extern "C" uint64_t cycle_impl_perf_read(void); /* with the engine */
#else
uint64_t cycle_impl_perf_read(void); /* with the engine, below */
#endif
#define CYCLE_IMPL_PERF_READ() cycle_impl_perf_read()
#else
#define CYCLE_IMPL_PERF_READ() ((uint64_t)0) /* never chosen there */
#endif
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint64_t v;

	if (i == 0)
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
	else if (i == CYCLE_IMPL_PERF_INDEX)
		v = CYCLE_IMPL_PERF_READ();
	else
		__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
CYCLE_IMPL_INLINE double cycle_impl_hw_nominal_hz(int i)
{
	uint64_t f;

	if (i != 2)
		return 0.0;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return (double)f;
}

#elif defined(__GNUC__) && defined(__arm__) && defined(__ARM_ARCH) && \
	__ARM_ARCH >= 7 && \
	(!defined(__ARM_ARCH_PROFILE) || __ARM_ARCH_PROFILE == 'A')
/* 32-bit ARMv7-A and later: CP15 PMU cycle counter and generic timer. */
#define CYCLE_IMPL_PORT_ARMV7 1
#define CYCLE_IMPL_NHW 2
#define CYCLE_IMPL_NAMES "PMCCNTR", "CNTVCT"
#define CYCLE_IMPL_REVOCABLE(i) ((i) == 0) /* Linux clears PMUSERENR */
#define CYCLE_IMPL_NARROW(i) ((i) == 0)    /* PMCCNTR is 32 bits */
#if defined(HAVE_ARMV7A_PMCCNTR)
#define CYCLE_IMPL_CONFIGURED 0
#else
#define CYCLE_IMPL_CONFIGURED 1
#endif
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint32_t lo, hi;

	if (i == 0) {
		__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(lo));
		return lo;
	}
	__asm__ __volatile__("mrrc p15, 1, %0, %1, c14"
			     : "=r"(lo), "=r"(hi));
	return (uint64_t)hi << 32 | lo;
}
CYCLE_IMPL_INLINE double cycle_impl_hw_nominal_hz(int i)
{
	uint32_t f;

	/* CNTFRQ is readable from user space where CNTVCT is: ask only
	 * after a CNTVCT read succeeded. */
	if (i != 1)
		return 0.0;
	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(f));
	return (double)f;
}

#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* x86: the time-stamp counter (faults if the process set PR_TSC_SIGSEGV). */
#define CYCLE_IMPL_PORT_X86 1
#define CYCLE_IMPL_NHW 1
#define CYCLE_IMPL_NAMES "rdtsc"
#define CYCLE_IMPL_REVOCABLE(i) 0
#define CYCLE_IMPL_NARROW(i) 0
#define CYCLE_IMPL_CONFIGURED 0
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint32_t lo, hi;

	(void)i;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
CYCLE_IMPL_INLINE double cycle_impl_hw_nominal_hz(int i)
{
	(void)i;
	return 0.0;
}

#elif defined(__GNUC__) && defined(__riscv) && __riscv_xlen == 64
/* RISC-V: Linux 6.6+ makes rdcycle trap by default; rdtime does not. */
#define CYCLE_IMPL_PORT_RISCV 1
#define CYCLE_IMPL_NHW 2
#define CYCLE_IMPL_NAMES "rdcycle", "rdtime"
#define CYCLE_IMPL_REVOCABLE(i) 0
#define CYCLE_IMPL_NARROW(i) 0
#define CYCLE_IMPL_CONFIGURED 0
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint64_t v;

	if (i == 0)
		__asm__ __volatile__("rdcycle %0" : "=r"(v));
	else
		__asm__ __volatile__("rdtime %0" : "=r"(v));
	return v;
}
CYCLE_IMPL_INLINE double cycle_impl_hw_nominal_hz(int i)
{
	(void)i;
	return 0.0;
}

#elif defined(__GNUC__) && (defined(__powerpc__) || defined(__ppc__))
/* PowerPC: the time base. */
#define CYCLE_IMPL_PORT_PPC 1
#define CYCLE_IMPL_NHW 1
#define CYCLE_IMPL_NAMES "mftb"
#define CYCLE_IMPL_REVOCABLE(i) 0
#define CYCLE_IMPL_NARROW(i) 0
#define CYCLE_IMPL_CONFIGURED 0
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	(void)i;
#if defined(__powerpc64__)
	{
		uint64_t tb;

		__asm__ __volatile__("mftb %0" : "=r"(tb));
		return tb;
	}
#else
	{
		uint32_t hi, lo, hi2;

		do { /* the upper half may tick between the two reads */
			__asm__ __volatile__("mftbu %0" : "=r"(hi));
			__asm__ __volatile__("mftb %0" : "=r"(lo));
			__asm__ __volatile__("mftbu %0" : "=r"(hi2));
		} while (hi != hi2);
		return (uint64_t)hi << 32 | lo;
	}
#endif
}
CYCLE_IMPL_INLINE double cycle_impl_hw_nominal_hz(int i)
{
	(void)i;
	return 0.0;
}

#elif defined(__GNUC__) && defined(__s390x__)
/* s390x: the TOD clock (bit 51 ticks every microsecond). */
#define CYCLE_IMPL_PORT_S390 1
#define CYCLE_IMPL_NHW 1
#define CYCLE_IMPL_NAMES "stckf"
#define CYCLE_IMPL_REVOCABLE(i) 0
#define CYCLE_IMPL_NARROW(i) 0
#define CYCLE_IMPL_CONFIGURED 0
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint64_t tod;

	(void)i;
	__asm__ __volatile__("stckf %0" : "=Q"(tod) : : "cc");
	return tod;
}
CYCLE_IMPL_INLINE double cycle_impl_hw_nominal_hz(int i)
{
	(void)i;
	return 4096.0e6;
}

#else
/* No hardware counter known here: clock_gettime only, if the engine runs. */
#define CYCLE_IMPL_NHW 0
#define CYCLE_IMPL_CONFIGURED 0
#endif

/* ------------------------------------------------------------------------
 * The run-time engine: Linux, GCC-compatible compiler, POSIX visible.
 * ---------------------------------------------------------------------- */

#if defined(__linux__) && defined(__GNUC__) && defined(SA_SIGINFO) && \
	defined(CLOCK_MONOTONIC)
#define CYCLE_IMPL_ENGINE 1

#ifdef CLOCK_MONOTONIC_RAW
#define CYCLE_IMPL_CLOCK CLOCK_MONOTONIC_RAW
#else
#define CYCLE_IMPL_CLOCK CLOCK_MONOTONIC
#endif

typedef uint64_t ticks;
#define HAVE_TICK_COUNTER 1

/* Index of clock_gettime, the last link of every chain. */
#define CYCLE_IMPL_NCOUNTERS (CYCLE_IMPL_NHW + 1)
#define CYCLE_IMPL_CLOCK_INDEX CYCLE_IMPL_NHW

/* Values of cycle_impl_global.mode. */
#define CYCLE_IMPL_UNINIT 0
#define CYCLE_IMPL_BUSY 1 /* one thread is choosing */
#define CYCLE_IMPL_FAST 2 /* the configured counter, read inline */
#define CYCLE_IMPL_SLOW 3 /* another counter, read through cycle_impl_slow */

/* Values of cycle_impl_global.status[]. */
#define CYCLE_IMPL_UNTESTED 0
#define CYCLE_IMPL_AVAILABLE 1
#define CYCLE_IMPL_TRAPS 2
#define CYCLE_IMPL_FROZEN 3

/* Values of cycle_impl_global.perf_state: the perf tier's event, opened at
 * most once per process, by the thread that probes it first. */
#define CYCLE_IMPL_PERF_UNTRIED 0
#define CYCLE_IMPL_PERF_OPEN 1       /* event open, page mapped, idx 32 seen */
#define CYCLE_IMPL_PERF_NO_SYSCTL 2  /* no perf_user_access: not arm64 5.17+ */
#define CYCLE_IMPL_PERF_SYSCTL_OFF 3 /* kernel.perf_user_access is not 1 */
#define CYCLE_IMPL_PERF_OPEN_FAILED 4 /* perf_event_open: see perf_errno */
#define CYCLE_IMPL_PERF_MMAP_FAILED 5 /* mmap of the page: see perf_errno */
#define CYCLE_IMPL_PERF_NO_RDPMC 6   /* the page offers no PMCCNTR_EL0 read */
#define CYCLE_IMPL_PERF_DIRECT 7     /* not tried: PMCCNTR_EL0 reads directly */

/* How long the choice watches the counters advance: long enough for a
 * 24 MHz timer to tick thousands of times, short enough not to be noticed. */
#define CYCLE_IMPL_CALIBRATE_NS 200000

/* Atomics on int.  Where int is not lock-free (32-bit ARM before ARMv6)
 * clang turns the __atomic builtins into calls to libatomic, which a
 * header-only drop-in cannot ask for; the __sync builtins are in libgcc,
 * which implements them with the Linux kernel's helpers.  Each is a full
 * barrier, more than the orders asked for, and those machines only have
 * clock_gettime anyway. */
#if defined(__clang__) && defined(__GCC_ATOMIC_INT_LOCK_FREE) && \
	__GCC_ATOMIC_INT_LOCK_FREE < 2
#define CYCLE_IMPL_LOAD(p, order) __sync_fetch_and_add((p), 0)
#define CYCLE_IMPL_STORE(p, v, order) \
	((void)__sync_lock_test_and_set((p), (v)), __sync_synchronize())
#define CYCLE_IMPL_ADD(p, v, order) __sync_add_and_fetch((p), (v))
#define CYCLE_IMPL_CAS(p, expected, desired) \
	cycle_impl_sync_cas((p), (expected), (desired))
CYCLE_IMPL_INLINE int cycle_impl_sync_cas(int *p, int *expected, int desired)
{
	int old = __sync_val_compare_and_swap(p, *expected, desired);
	int swapped = old == *expected;

	*expected = old;
	return swapped;
}
#else
#define CYCLE_IMPL_LOAD(p, order) __atomic_load_n((p), (order))
#define CYCLE_IMPL_STORE(p, v, order) __atomic_store_n((p), (v), (order))
#define CYCLE_IMPL_ADD(p, v, order) __atomic_add_fetch((p), (v), (order))
#define CYCLE_IMPL_CAS(p, expected, desired) \
	__atomic_compare_exchange_n((p), (expected), (desired), 0, \
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#endif

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 5
#define CYCLE_IMPL_LIKELY(x) (x)
#else
#define CYCLE_IMPL_LIKELY(x) __builtin_expect(!!(x), 1)
#endif

/* After a revocation, readings y of counter i become ticks as
 * base + scale * (y - origin); see cycle_impl_convert(). */
struct cycle_impl_conversion {
	uint64_t origin;
	uint64_t base;
	double scale;
};

/* The one piece of shared state: a weak definition in every translation unit
 * that includes this header, merged by the linker into one per process. */
struct cycle_impl_state {
	int mode;     /* CYCLE_IMPL_UNINIT .. CYCLE_IMPL_SLOW */
	int active;   /* index of the counter read now */
	int chosen;   /* index chosen at the first call; defines the unit */
	int narrow;   /* ticks live modulo 2^32 (ARMv7 PMCCNTR chosen) */
	int debug;    /* CYCLE_DEBUG was set */
	int guarded;  /* the trap handler stays installed */
	int probing;  /* a probe is reading: traps must not revoke */
	int handler_installed;
	unsigned traps;            /* counter reads that trapped, ever */
	int perf_state;  /* CYCLE_IMPL_PERF_* : the perf tier's event */
	int perf_errno;  /* why perf_event_open or mmap failed */
	int perf_fd;     /* the event, read() when the page says so */
	int perf_other;  /* what threads other than the opener read */
	volatile void *perf_page; /* the event's first page, mmap'ed */
	volatile int *perf_alive; /* 1, but 0 in a child of fork() */
	int status[CYCLE_IMPL_NCOUNTERS];
	double hz[CYCLE_IMPL_NCOUNTERS];
	struct cycle_impl_conversion conv[CYCLE_IMPL_NCOUNTERS];
	struct sigaction previous; /* the program's action, for chaining */
};

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((weak)) struct cycle_impl_state cycle_impl_global;

#if defined(CYCLE_IMPL_PERF_INDEX)
/* Per thread: the perf event belongs to the thread that opened it (see the
 * manual), and its trap handler must know a trap came from a perf read. */
struct cycle_impl_perf_thread {
	int mine;         /* this thread opened the event */
	int reading;      /* inside the mrs of a perf read */
	unsigned trapped; /* such mrs that trapped */
};
__attribute__((weak)) __thread struct cycle_impl_perf_thread
	cycle_impl_perf_self;
int cycle_impl_perf_open(void);
const char *cycle_impl_perf_reason(int state);
#endif

ticks cycle_impl_slow(void);
void cycle_impl_init(void);
const char *cycle_impl_name(int index);
int cycle_impl_lookup(const char *name);
uint64_t cycle_impl_read(int index);
int cycle_impl_try_read(int index, uint64_t *value);
void cycle_impl_on_trap(int sig, siginfo_t *info, void *context);
const char *cycle_counter_name(void);
double cycle_ticks_per_second(void);

#ifdef __cplusplus
}
#endif

/* --- Recognising and completing a trapping read, per port. ---------------
 * cycle_impl_decode() returns the counter index of the instruction at the
 * faulting PC (or -1) and where its result goes; cycle_impl_complete() writes
 * the value there and steps over the instruction.  The register file is the
 * kernel's sigcontext at uc_mcontext, mirrored here so that no libc feature
 * macro is needed to name its fields. */

#if defined(CYCLE_IMPL_PORT_AARCH64)
#define CYCLE_IMPL_TRAP_SIGNAL SIGILL
struct cycle_impl_regs {
	uint64_t fault_address;
	uint64_t x[31];
	uint64_t sp;
	uint64_t pc;
};
CYCLE_IMPL_INLINE struct cycle_impl_regs *cycle_impl_regs_of(void *context)
{
	return (struct cycle_impl_regs *)(void *)
		&((ucontext_t *)context)->uc_mcontext;
}
CYCLE_IMPL_INLINE int cycle_impl_decode(void *context, int *reg)
{
	uint32_t insn = *(const uint32_t *)(uintptr_t)
		cycle_impl_regs_of(context)->pc;

#if defined(__AARCH64EB__)
	insn = __builtin_bswap32(insn); /* instructions are little-endian */
#endif
	*reg = (int)(insn & 0x1f);
	if ((insn & 0xffffffe0u) == 0xd53b9d00u) /* mrs Xt, PMCCNTR_EL0 */
		return 0;
	if ((insn & 0xffffffe0u) == 0xd53be040u) /* mrs Xt, CNTVCT_EL0 */
		return 2;
	return -1;
}
CYCLE_IMPL_INLINE void cycle_impl_complete(void *context, int reg,
					   uint64_t value)
{
	struct cycle_impl_regs *r = cycle_impl_regs_of(context);

	if (reg != 31) /* xzr */
		r->x[reg] = value;
	r->pc += 4;
}

#elif defined(CYCLE_IMPL_PORT_ARMV7)
#define CYCLE_IMPL_TRAP_SIGNAL SIGILL
struct cycle_impl_regs {
	unsigned long trap_no, error_code, oldmask;
	unsigned long r[16]; /* r0-r10, fp, ip, sp, lr, pc */
	unsigned long cpsr;
};
CYCLE_IMPL_INLINE struct cycle_impl_regs *cycle_impl_regs_of(void *context)
{
	return (struct cycle_impl_regs *)(void *)
		&((ucontext_t *)context)->uc_mcontext;
}
CYCLE_IMPL_INLINE uint32_t cycle_impl_insn(const struct cycle_impl_regs *r)
{
	uint32_t insn;

	if (r->cpsr & 0x20) { /* Thumb: two halfwords, the first one high */
		const uint16_t *hw = (const uint16_t *)(uintptr_t)r->r[15];
		uint16_t h1 = hw[0], h2 = hw[1];

#if defined(__ARMEB__)
		h1 = __builtin_bswap16(h1); /* instructions are little-endian */
		h2 = __builtin_bswap16(h2);
#endif
		insn = (uint32_t)h1 << 16 | h2;
	} else {
		insn = *(const uint32_t *)(uintptr_t)r->r[15];
#if defined(__ARMEB__)
		insn = __builtin_bswap32(insn);
#endif
	}
	return insn;
}
/* *reg gets Rt, and for MRRC also Rt2 (bits 19:16) in bits 8 and up. */
CYCLE_IMPL_INLINE int cycle_impl_decode(void *context, int *reg)
{
	uint32_t insn = cycle_impl_insn(cycle_impl_regs_of(context));

	*reg = (int)((insn >> 12) & 0xf);
	if ((insn & 0xffff0fffu) == 0xee190f1du) /* mrc p15,0,Rt,c9,c13,0 */
		return 0;
	if ((insn & 0xfff00fffu) == 0xec500f1eu) { /* mrrc p15,1,Rt,Rt2,c14 */
		*reg |= (int)((insn >> 16) & 0xf) << 8 | 0x10000;
		return 1;
	}
	return -1;
}
CYCLE_IMPL_INLINE void cycle_impl_complete(void *context, int reg,
					   uint64_t value)
{
	struct cycle_impl_regs *r = cycle_impl_regs_of(context);
	int rt = reg & 0xf, rt2 = (reg >> 8) & 0xf;

	if (rt < 15)
		r->r[rt] = (unsigned long)(uint32_t)value;
	if ((reg & 0x10000) && rt2 < 15)
		r->r[rt2] = (unsigned long)(uint32_t)(value >> 32);
	r->r[15] += 4; /* both encodings are 32 bits, in ARM and in Thumb */
}

#elif defined(CYCLE_IMPL_PORT_X86)
#define CYCLE_IMPL_TRAP_SIGNAL SIGSEGV
#if defined(__x86_64__)
struct cycle_impl_regs {
	uint64_t r8_15[8], di, si, bp, bx, dx, ax, cx, sp, ip;
};
#else
struct cycle_impl_regs {
	uint32_t gs, fs, es, ds, di, si, bp, sp, bx, dx, cx, ax;
	uint32_t trapno, err, ip;
};
#endif
CYCLE_IMPL_INLINE struct cycle_impl_regs *cycle_impl_regs_of(void *context)
{
	return (struct cycle_impl_regs *)(void *)
		&((ucontext_t *)context)->uc_mcontext;
}
CYCLE_IMPL_INLINE int cycle_impl_decode(void *context, int *reg)
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)
		cycle_impl_regs_of(context)->ip;

	*reg = 0;
	return p[0] == 0x0f && p[1] == 0x31 ? 0 : -1; /* rdtsc */
}
/* clock_gettime without the vDSO (see cycle_impl_read). */
CYCLE_IMPL_INLINE void cycle_impl_clock_syscall(struct timespec *ts)
{
	long ret;

#if defined(__x86_64__)
#if defined(__ILP32__)
	long nr = 0x40000000L | 228; /* x32 */
#else
	long nr = 228;
#endif
	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "0"(nr), "D"((long)CYCLE_IMPL_CLOCK), "S"(ts)
			     : "rcx", "r11", "memory");
#else
	/* clock_gettime64 for a 64-bit time_t, the old call otherwise. */
	long nr = sizeof(ts->tv_sec) == 8 ? 403 : 265;

	__asm__ __volatile__("int $0x80"
			     : "=a"(ret)
			     : "0"(nr), "b"((long)CYCLE_IMPL_CLOCK), "c"(ts)
			     : "memory");
#endif
	(void)ret;
}
CYCLE_IMPL_INLINE void cycle_impl_complete(void *context, int reg,
					   uint64_t value)
{
	struct cycle_impl_regs *r = cycle_impl_regs_of(context);

	(void)reg;
	r->ax = (uint32_t)value;
	r->dx = (uint32_t)(value >> 32);
	r->ip += 2;
}

#elif defined(CYCLE_IMPL_PORT_RISCV)
#define CYCLE_IMPL_TRAP_SIGNAL SIGILL
struct cycle_impl_regs {
	uint64_t pc;
	uint64_t x[31]; /* x1..x31 */
};
CYCLE_IMPL_INLINE struct cycle_impl_regs *cycle_impl_regs_of(void *context)
{
	return (struct cycle_impl_regs *)(void *)
		&((ucontext_t *)context)->uc_mcontext;
}
CYCLE_IMPL_INLINE int cycle_impl_decode(void *context, int *reg)
{
	uint32_t insn = *(const uint32_t *)(uintptr_t)
		cycle_impl_regs_of(context)->pc;

	*reg = (int)((insn >> 7) & 0x1f);
	if ((insn & 0xfffff07fu) == 0xc0002073u) /* csrrs rd, cycle, x0 */
		return 0;
	if ((insn & 0xfffff07fu) == 0xc0102073u) /* csrrs rd, time, x0 */
		return 1;
	return -1;
}
CYCLE_IMPL_INLINE void cycle_impl_complete(void *context, int reg,
					   uint64_t value)
{
	struct cycle_impl_regs *r = cycle_impl_regs_of(context);

	if (reg != 0)
		r->x[reg - 1] = value;
	r->pc += 4;
}
#endif /* ports with a decoder */

/* Ports without a decoder: their counters never trap. */
#ifndef CYCLE_IMPL_TRAP_SIGNAL
#define CYCLE_IMPL_TRAP_SIGNAL 0
CYCLE_IMPL_INLINE int cycle_impl_decode(void *context, int *reg)
{
	(void)context;
	*reg = 0;
	return -1;
}
CYCLE_IMPL_INLINE void cycle_impl_complete(void *context, int reg,
					   uint64_t value)
{
	(void)context;
	(void)reg;
	(void)value;
}
#endif

#if CYCLE_IMPL_NHW == 0
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	(void)i;
	return 0;
}
CYCLE_IMPL_INLINE double cycle_impl_hw_nominal_hz(int i)
{
	(void)i;
	return 0.0;
}
#define CYCLE_IMPL_REVOCABLE(i) 0
#define CYCLE_IMPL_NARROW(i) 0
#endif

/* --- The classic API. ------------------------------------------------- */

CYCLE_IMPL_INLINE ticks getticks(void)
{
#if CYCLE_IMPL_NHW > 0
	if (CYCLE_IMPL_LIKELY(CYCLE_IMPL_LOAD(&cycle_impl_global.mode,
					      __ATOMIC_RELAXED) ==
			      CYCLE_IMPL_FAST))
		return cycle_impl_hw_read(CYCLE_IMPL_CONFIGURED);
#endif
	return cycle_impl_slow();
}

CYCLE_IMPL_INLINE double elapsed(ticks t1, ticks t0)
{
	/* Modular difference: survives a counter wrap, and an interval that
	 * straddles a revocation (see cycle_impl_convert) comes out negative. */
	if (cycle_impl_global.narrow)
		return (double)(int32_t)(uint32_t)(t1 - t0);
	return (double)(int64_t)(t1 - t0);
}

/* --- The engine's functions: weak, so one copy serves the process. ----- */

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((weak)) const char *cycle_impl_name(int index)
{
#if CYCLE_IMPL_NHW > 0
	static const char *const names[] = {CYCLE_IMPL_NAMES, "clock_gettime"};
#else
	static const char *const names[] = {"clock_gettime"};
#endif

	if (index < 0 || index >= CYCLE_IMPL_NCOUNTERS)
		return "none";
	return names[index];
}

/* Index of a counter name (case-insensitive), or -1. */
__attribute__((weak)) int cycle_impl_lookup(const char *name)
{
	int i;

	for (i = 0; i < CYCLE_IMPL_NCOUNTERS; i++) {
		const char *a = cycle_impl_name(i), *b = name;

		while (*a && (*a | 0x20) == (*b | 0x20)) {
			a++;
			b++;
		}
		if (*a == '\0' && *b == '\0')
			return i;
	}
	return -1;
}

/* A raw reading of counter index (nanoseconds for clock_gettime).  May trap
 * for a hardware counter: callers hold the handler (cycle_impl_try_read). */
__attribute__((weak)) uint64_t cycle_impl_read(int index)
{
	struct timespec ts;

	if (index < CYCLE_IMPL_NHW)
		return cycle_impl_hw_read(index);
#if defined(CYCLE_IMPL_PORT_X86)
	/* With rdtsc off (PR_TSC_SIGSEGV) the vDSO's clock_gettime faults
	 * too, as it reads the TSC: ask the kernel itself. */
	if (cycle_impl_global.status[0] == CYCLE_IMPL_TRAPS) {
		cycle_impl_clock_syscall(&ts);
		return (uint64_t)ts.tv_sec * 1000000000u +
		       (uint64_t)ts.tv_nsec;
	}
#endif
	clock_gettime(CYCLE_IMPL_CLOCK, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ticks from a reading of counter index, in the unit of the chosen one. */
CYCLE_IMPL_INLINE ticks cycle_impl_convert(int index, uint64_t reading)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	const struct cycle_impl_conversion *c = &g->conv[index];
	ticks t;

	if (index == g->chosen)
		t = reading;
	else
		t = c->base + (uint64_t)(int64_t)(c->scale *
			(double)(int64_t)(reading - c->origin));
	return g->narrow ? (uint32_t)t : t;
}

CYCLE_IMPL_INLINE void cycle_impl_say(const char *text)
{
	/* write(2): this also runs inside the signal handler. */
	ssize_t n = write(2, text, strlen(text));

	(void)n;
}

CYCLE_IMPL_INLINE void cycle_impl_install_handler(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	struct sigaction sa;

	if (CYCLE_IMPL_TRAP_SIGNAL == 0 || g->handler_installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = cycle_impl_on_trap;
	sa.sa_flags = SA_SIGINFO;
#ifdef SA_RESTART
	sa.sa_flags |= SA_RESTART; /* no EINTR from the program's calls */
#endif
#ifdef SA_ONSTACK
	sa.sa_flags |= SA_ONSTACK; /* use its alternate stack, if any */
#endif
	sigemptyset(&sa.sa_mask);
	if (sigaction(CYCLE_IMPL_TRAP_SIGNAL, &sa, &g->previous) == 0)
		g->handler_installed = 1;
}

CYCLE_IMPL_INLINE void cycle_impl_remove_handler(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	struct sigaction now;

	if (!g->handler_installed)
		return;
	/* Put the program's action back only if ours is still the one set. */
	if (sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &now) == 0 &&
	    (now.sa_flags & SA_SIGINFO) &&
	    now.sa_sigaction == cycle_impl_on_trap)
		sigaction(CYCLE_IMPL_TRAP_SIGNAL, &g->previous, NULL);
	g->handler_installed = 0;
}

#if defined(CYCLE_IMPL_PERF_INDEX)
/* --- The perf tier (aarch64): PMCCNTR_EL0 read through a perf event. -----
 * With kernel.perf_user_access=1 (Linux 5.17+), the kernel sets
 * PMUSERENR_EL0 when it schedules a task holding a user-readable event, and
 * clears it when it enables the PMU for another task (see the manual for
 * what it leaves behind); the event's first page tells, under a sequence
 * lock, whether the event sits in PMCCNTR_EL0 right now (index 32) and what
 * to add to it.
 * The layouts below are the heads of the kernel's struct perf_event_attr (up
 * to config1, PERF_ATTR_SIZE_VER0) and struct perf_event_mmap_page, spelled
 * here so that no kernel header is needed. */
struct cycle_impl_perf_attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint32_t wakeup_events, bp_type;
	uint64_t config1;
};
struct cycle_impl_perf_page {
	uint32_t version, compat_version, lock, index;
	int64_t offset;
	uint64_t time_enabled, time_running, capabilities;
	uint16_t pmc_width;
};
/* Bit n of a __u64 bit-field (attr flags, page capabilities): allocated
 * from the least significant bit on little-endian, the most on big. */
#if defined(__AARCH64EB__)
#define CYCLE_IMPL_BITFIELD(n) ((uint64_t)1 << (63 - (n)))
#else
#define CYCLE_IMPL_BITFIELD(n) ((uint64_t)1 << (n))
#endif
#define CYCLE_IMPL_PERF_CYCLE_INDEX 32 /* armv8pmu_user_event_idx() */
#define CYCLE_IMPL_PERF_PAGE_SIZE 4096 /* mapping one page of 4/16/64 KiB */

/* An arm64 system call without libc's syscall(), which strict ISO modes
 * do not declare; returns -errno on failure. */
CYCLE_IMPL_INLINE long cycle_impl_syscall6(long nr, long a, long b, long c,
					   long d, long e, long f)
{
	long ret;

	__asm__ __volatile__("mov x8, %1\n\tmov x0, %2\n\tmov x1, %3\n\t"
			     "mov x2, %4\n\tmov x3, %5\n\tmov x4, %6\n\t"
			     "mov x5, %7\n\tsvc #0\n\tmov %0, x0"
			     : "=r"(ret)
			     : "r"(nr), "r"(a), "r"(b), "r"(c), "r"(d),
			       "r"(e), "r"(f)
			     : "x0", "x1", "x2", "x3", "x4", "x5", "x8",
			       "memory");
	return ret;
}

/* One pass over the page's protocol: 1 and the count in *value when
 * PMCCNTR_EL0 could be read directly, 0 when read() must answer. */
CYCLE_IMPL_INLINE int cycle_impl_perf_sample(
	const volatile struct cycle_impl_perf_page *pc, uint64_t *value)
{
	struct cycle_impl_perf_thread *t = &cycle_impl_perf_self;
	uint32_t seq, idx, width;
	uint64_t pmc = 0, count = 0;
	unsigned trapped;
	int direct;

	do {
		seq = pc->lock;
		__asm__ __volatile__("" : : : "memory");
		idx = pc->index;
		width = pc->pmc_width;
		direct = (pc->capabilities & CYCLE_IMPL_BITFIELD(2)) != 0 &&
			 idx == CYCLE_IMPL_PERF_CYCLE_INDEX;
		if (direct) {
			/* Descheduled between the index and the mrs, the
			 * mrs traps: the handler sees t->reading, counts
			 * the trap and steps over it without revoking. */
			trapped = t->trapped;
			t->reading = 1;
			__asm__ __volatile__("mrs %0, pmccntr_el0"
					     : "=r"(pmc) : : "memory");
			t->reading = 0;
			if (t->trapped != trapped)
				direct = 0;
			if (width > 0 && width < 64)
				pmc = (uint64_t)((int64_t)(pmc << (64 - width)) >>
						 (64 - width));
			count = (uint64_t)pc->offset + pmc;
		}
		__asm__ __volatile__("" : : : "memory");
	} while (pc->lock != seq);
	*value = count;
	return direct;
}

/* Why the tier is not in use (or "open"); for CYCLE_DEBUG and cycle-probe. */
__attribute__((weak)) const char *cycle_impl_perf_reason(int state)
{
	switch (state) {
	case CYCLE_IMPL_PERF_UNTRIED: return "not tried";
	case CYCLE_IMPL_PERF_OPEN: return "open";
	case CYCLE_IMPL_PERF_NO_SYSCTL:
		return "no /proc/sys/kernel/perf_user_access (Linux older than"
		       " 5.17, or not arm64)";
	case CYCLE_IMPL_PERF_SYSCTL_OFF: return "kernel.perf_user_access is 0";
	case CYCLE_IMPL_PERF_OPEN_FAILED: return "perf_event_open failed";
	case CYCLE_IMPL_PERF_MMAP_FAILED: return "mmap of the event failed";
	case CYCLE_IMPL_PERF_NO_RDPMC:
		return "the event is not readable in PMCCNTR_EL0 (cycle "
		       "counter busy, or no user access)";
	case CYCLE_IMPL_PERF_DIRECT:
		return "not tried: PMCCNTR_EL0 reads directly (a perf cycles "
		       "event would revoke that)";
	}
	return "busy";
}

/* Opens the event for the calling thread, once per process; returns 1 when
 * this thread can read the tier.  A trap handler must be installed. */
__attribute__((weak)) int cycle_impl_perf_open(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	struct cycle_impl_perf_attr attr;
	int expected = CYCLE_IMPL_PERF_UNTRIED, state, c;
	long fd, page, alive, err = 0;
	uint64_t v;
	FILE *f;

	if (!CYCLE_IMPL_CAS(&g->perf_state, &expected, -1))
		return expected == CYCLE_IMPL_PERF_OPEN &&
		       cycle_impl_perf_self.mine;
	f = fopen("/proc/sys/kernel/perf_user_access", "r");
	c = f ? fgetc(f) : EOF;
	if (f)
		fclose(f);
	if (!f) {
		state = CYCLE_IMPL_PERF_NO_SYSCTL;
		goto out;
	}
	if (c != '1') {
		state = CYCLE_IMPL_PERF_SYSCTL_OFF;
		goto out;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = 0;   /* PERF_TYPE_HARDWARE */
	attr.config = 0; /* PERF_COUNT_HW_CPU_CYCLES */
	attr.size = sizeof(attr);
	/* exclude_kernel, exclude_hv: what perf_event_paranoid=2 allows a
	 * user; the time the kernel spends for the task is not counted. */
	attr.flags = CYCLE_IMPL_BITFIELD(5) | CYCLE_IMPL_BITFIELD(6);
	attr.config1 = 3; /* bit 0 "long": 64 bits; bit 1 "rdpmc": EL0 reads */
	/* perf_event_open(attr, this thread, any CPU, no group, CLOEXEC). */
	fd = cycle_impl_syscall6(241, (long)(uintptr_t)&attr, 0, -1, -1, 8, 0);
	if (fd < 0) {
		g->perf_errno = (int)-fd;
		state = CYCLE_IMPL_PERF_OPEN_FAILED;
		goto out;
	}
	/* mmap(NULL, one page, PROT_READ, MAP_SHARED, fd, 0) */
	page = cycle_impl_syscall6(222, 0, CYCLE_IMPL_PERF_PAGE_SIZE, 1, 1, fd,
				   0);
	if (page < 0 && page > -4096) {
		g->perf_errno = (int)-page;
		close((int)fd);
		state = CYCLE_IMPL_PERF_MMAP_FAILED;
		goto out;
	}
	/* The kernel does not copy the event's page into a child of fork():
	 * a private page with MADV_WIPEONFORK tells the child, which finds
	 * it zeroed, to read another tier instead of the missing page.
	 * mmap(NULL, page, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS). */
	alive = cycle_impl_syscall6(222, 0, CYCLE_IMPL_PERF_PAGE_SIZE, 3, 0x22,
				    -1, 0);
	if ((alive < 0 && alive > -4096) ||
	    (err = cycle_impl_syscall6(233, alive, CYCLE_IMPL_PERF_PAGE_SIZE,
				       18, 0, 0, 0)) != 0) {
		g->perf_errno = (int)-(alive < 0 && alive > -4096 ? alive : err);
		cycle_impl_syscall6(215, page, CYCLE_IMPL_PERF_PAGE_SIZE, 0, 0,
				    0, 0); /* munmap */
		close((int)fd);
		state = CYCLE_IMPL_PERF_MMAP_FAILED;
		goto out;
	}
	*(volatile int *)(uintptr_t)alive = 1;
	g->perf_alive = (volatile int *)(uintptr_t)alive;
	g->perf_fd = (int)fd;
	if (g->perf_other == 0)
		g->perf_other = CYCLE_IMPL_CLOCK_INDEX; /* until init knows */
	cycle_impl_perf_self.mine = 1;
	g->perf_page = (volatile void *)(uintptr_t)page;
	if (!cycle_impl_perf_sample((const volatile struct cycle_impl_perf_page
				     *)g->perf_page, &v)) {
		g->perf_page = NULL;
		cycle_impl_perf_self.mine = 0;
		cycle_impl_syscall6(215, page, CYCLE_IMPL_PERF_PAGE_SIZE, 0, 0,
				    0, 0); /* munmap */
		close((int)fd);
		state = CYCLE_IMPL_PERF_NO_RDPMC;
		goto out;
	}
	state = CYCLE_IMPL_PERF_OPEN;
out:
	CYCLE_IMPL_STORE(&g->perf_state, state, __ATOMIC_RELEASE);
	return state == CYCLE_IMPL_PERF_OPEN;
}

/* The tier's reading: the event's count (user-mode cycles of the opening
 * thread); other threads, and a child of fork() (perf_alive zeroed), get
 * the next tier's reading in the same unit instead (see the manual). */
__attribute__((weak)) uint64_t cycle_impl_perf_read(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	const volatile struct cycle_impl_perf_page *pc =
		(const volatile struct cycle_impl_perf_page *)g->perf_page;
	uint64_t v;
	int other;

	if (cycle_impl_perf_self.mine && pc && *g->perf_alive) {
		if (cycle_impl_perf_sample(pc, &v))
			return v;
		/* Not in PMCCNTR_EL0 now (multiplexed, sysctl turned off,
		 * trapped): the kernel knows the count. */
		if (read(g->perf_fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			return v;
	}
	other = g->perf_other ? g->perf_other : CYCLE_IMPL_CLOCK_INDEX;
	return cycle_impl_convert(other, cycle_impl_read(other));
}
#endif /* CYCLE_IMPL_PERF_INDEX */

/* Read counter index, telling whether the read trapped (returns 0 then). */
__attribute__((weak)) int cycle_impl_try_read(int index, uint64_t *value)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	int had_handler = g->handler_installed;
	unsigned before;

	if (index >= CYCLE_IMPL_NHW) {
		*value = cycle_impl_read(index);
		return 1;
	}
	cycle_impl_install_handler();
#if defined(CYCLE_IMPL_PERF_INDEX)
	if (index == CYCLE_IMPL_PERF_INDEX && !cycle_impl_perf_open()) {
		if (!had_handler)
			cycle_impl_remove_handler();
		*value = 0;
		return 0;
	}
#endif
	CYCLE_IMPL_STORE(&g->probing, 1, __ATOMIC_SEQ_CST);
	before = CYCLE_IMPL_LOAD(&g->traps, __ATOMIC_SEQ_CST);
	*value = cycle_impl_read(index);
	CYCLE_IMPL_STORE(&g->probing, 0, __ATOMIC_SEQ_CST);
	if (!had_handler)
		cycle_impl_remove_handler();
	return CYCLE_IMPL_LOAD(&g->traps, __ATOMIC_SEQ_CST) == before;
}

/* The signal handler: complete counter reads, pass everything else on. */
__attribute__((weak)) void cycle_impl_on_trap(int sig, siginfo_t *info,
					      void *context)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	int saved_errno = errno;
	int reg, index, mode, active;
	uint64_t value = 0;

	index = info->si_code > 0 ? cycle_impl_decode(context, &reg) : -1;
	if (index < 0) {
		struct sigaction *p = &g->previous;

		if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
			p->sa_sigaction(sig, info, context);
		} else if (!(p->sa_flags & SA_SIGINFO) &&
			   p->sa_handler != SIG_DFL &&
			   p->sa_handler != SIG_IGN) {
			p->sa_handler(sig);
		} else {
			/* Default action: a fault re-executes on return and
			 * kills the process as it would have; a signal that
			 * was sent is sent again, delivered after we return. */
			signal(sig, SIG_DFL);
			if (info->si_code <= 0)
				raise(sig);
		}
		errno = saved_errno;
		return;
	}
#if defined(CYCLE_IMPL_PERF_INDEX)
	/* The mrs of a perf read, descheduled after it read the page: the
	 * perf read notices and asks read(); nothing is revoked. */
	if (index == 0 && g->perf_page && cycle_impl_perf_self.reading) {
		cycle_impl_perf_self.trapped++;
		cycle_impl_complete(context, reg, 0);
		errno = saved_errno;
		return;
	}
#endif
	CYCLE_IMPL_ADD(&g->traps, 1, __ATOMIC_SEQ_CST);
	mode = CYCLE_IMPL_LOAD(&g->mode, __ATOMIC_ACQUIRE);
	if ((mode == CYCLE_IMPL_FAST || mode == CYCLE_IMPL_SLOW) &&
	    !CYCLE_IMPL_LOAD(&g->probing, __ATOMIC_SEQ_CST)) {
		/* Revoked after the choice: move to the next usable counter
		 * for good (clock_gettime at the latest) and answer with it. */
		active = CYCLE_IMPL_LOAD(&g->active, __ATOMIC_ACQUIRE);
		if (active == index) {
			int next = index + 1;

			while (next < CYCLE_IMPL_CLOCK_INDEX &&
			       g->status[next] != CYCLE_IMPL_AVAILABLE)
				next++;
			if (CYCLE_IMPL_CAS(&g->active, &active, next)) {
				active = next;
				g->status[index] = CYCLE_IMPL_TRAPS;
				CYCLE_IMPL_STORE(&g->mode, CYCLE_IMPL_SLOW,
						 __ATOMIC_RELEASE);
				if (g->debug) {
					cycle_impl_say("cycle.h: ");
					cycle_impl_say(cycle_impl_name(index));
					cycle_impl_say(" trapped after the choice;"
						       " now using ");
					cycle_impl_say(cycle_impl_name(next));
					cycle_impl_say("\n");
				}
			}
		}
		value = cycle_impl_convert(active, cycle_impl_read(active));
	}
	cycle_impl_complete(context, reg, value);
	errno = saved_errno;
}

#if defined(CYCLE_IMPL_PERF_INDEX)
/* Whether PMCCNTR_EL0 reads directly and moves within about 20 us. */
CYCLE_IMPL_INLINE int cycle_impl_pmu_counts(void)
{
	uint64_t a, b, c0 = cycle_impl_read(CYCLE_IMPL_CLOCK_INDEX);

	if (!cycle_impl_try_read(0, &a))
		return 0;
	while (cycle_impl_read(CYCLE_IMPL_CLOCK_INDEX) - c0 < 20000)
		;
	return cycle_impl_try_read(0, &b) && b != a;
}
#endif

/* The choice, made by exactly one thread. */
__attribute__((weak)) void cycle_impl_init(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	uint64_t first[CYCLE_IMPL_NCOUNTERS], last[CYCLE_IMPL_NCOUNTERS];
	const char *request = getenv("CYCLE_COUNTER");
	const char *debug = getenv("CYCLE_DEBUG");
	int start = CYCLE_IMPL_CONFIGURED, requested = 0, i, chosen;
	int measured = 0;
	char line[320];

	g->debug = debug && *debug && strcmp(debug, "0") != 0;
	if (request && *request) {
		int r = cycle_impl_lookup(request);

		if (r >= 0) {
			start = r;
			requested = 1;
		} else {
			snprintf(line, sizeof(line),
				 "cycle.h: CYCLE_COUNTER=%s is not a counter of"
				 " this machine; ignored\n", request);
			cycle_impl_say(line);
		}
	}

	/* Which candidates read without trapping.  The handler stays
	 * installed for the whole choice (any read may trap) and is kept or
	 * removed at the end. */
	if (start < CYCLE_IMPL_NHW)
		cycle_impl_install_handler();
	for (i = start; i < CYCLE_IMPL_NCOUNTERS; i++) {
#if defined(CYCLE_IMPL_PERF_INDEX)
		/* Opening a perf cycles event would take PMCCNTR_EL0 away
		 * from direct reads that work.  Readable is not enough: a
		 * task that held a perf_user_access event leaves EL0 access
		 * on where it ran, with the counter stopped. */
		if (i == CYCLE_IMPL_PERF_INDEX && start < i &&
		    g->status[0] == CYCLE_IMPL_AVAILABLE &&
		    cycle_impl_pmu_counts()) {
			g->perf_state = CYCLE_IMPL_PERF_DIRECT;
			continue;
		}
#endif
		g->status[i] = cycle_impl_try_read(i, &first[i]) ?
			CYCLE_IMPL_AVAILABLE : CYCLE_IMPL_TRAPS;
	}
#if defined(CYCLE_IMPL_PERF_INDEX)
	/* Holding the event, this task may read PMCCNTR_EL0 directly, but
	 * the raw value jumps at every switch: it stopped before we opened
	 * the event (cycle_impl_pmu_counts), and that is what it is. */
	if (g->perf_state == CYCLE_IMPL_PERF_OPEN &&
	    g->status[0] == CYCLE_IMPL_AVAILABLE)
		g->status[0] = CYCLE_IMPL_FROZEN;
#endif

	/* Which of them advance, and how fast, against the clock. */
	if (start < CYCLE_IMPL_CLOCK_INDEX) {
		uint64_t c0, c1;

		g->probing = 1;
		for (i = start; i < CYCLE_IMPL_NCOUNTERS; i++)
			if (g->status[i] == CYCLE_IMPL_AVAILABLE)
				first[i] = cycle_impl_read(i);
		c0 = first[CYCLE_IMPL_CLOCK_INDEX];
		do
			c1 = cycle_impl_read(CYCLE_IMPL_CLOCK_INDEX);
		while (c1 - c0 < CYCLE_IMPL_CALIBRATE_NS);
		for (i = start; i < CYCLE_IMPL_NCOUNTERS; i++)
			if (g->status[i] == CYCLE_IMPL_AVAILABLE)
				last[i] = cycle_impl_read(i);
		g->probing = 0;
		for (i = start; i < CYCLE_IMPL_NCOUNTERS; i++) {
			uint64_t d = last[i] - first[i];

			if (g->status[i] != CYCLE_IMPL_AVAILABLE)
				continue;
			if (CYCLE_IMPL_NARROW(i))
				d = (uint32_t)d;
			if (d == 0 || d >= (uint64_t)1 << 62)
				g->status[i] = CYCLE_IMPL_FROZEN;
			else
				g->hz[i] = (double)d * 1e9 /
					(double)(last[CYCLE_IMPL_CLOCK_INDEX] -
						 first[CYCLE_IMPL_CLOCK_INDEX]);
		}
		measured = 1;
	}
	g->status[CYCLE_IMPL_CLOCK_INDEX] = CYCLE_IMPL_AVAILABLE;
	g->hz[CYCLE_IMPL_CLOCK_INDEX] = 1e9;
#if defined(CYCLE_IMPL_PERF_INDEX)
	/* What threads other than the perf event's opener read. */
	for (i = CYCLE_IMPL_PERF_INDEX + 1;
	     g->status[i] != CYCLE_IMPL_AVAILABLE; i++)
		;
	g->perf_other = i;
#endif

	chosen = start;
	while (g->status[chosen] != CYCLE_IMPL_AVAILABLE)
		chosen++;
	g->chosen = chosen;
	g->active = chosen;
	g->narrow = CYCLE_IMPL_NARROW(chosen);

	/* Conversions for a revocation later: the replacement's readings are
	 * scaled to this unit and set back by a quarter of the tick range, so
	 * that an interval that straddles the switch is negative. */
	if (measured) {
		uint64_t setback = g->narrow ? (uint64_t)1 << 30
					     : (uint64_t)1 << 62;

		for (i = chosen + 1; i < CYCLE_IMPL_NCOUNTERS; i++) {
			if (g->status[i] != CYCLE_IMPL_AVAILABLE)
				continue;
			g->conv[i].origin = last[i];
			g->conv[i].base = last[chosen] - setback;
			g->conv[i].scale = g->hz[chosen] / g->hz[i];
		}
	}

	g->guarded = CYCLE_IMPL_REVOCABLE(chosen);
	if (g->guarded)
		cycle_impl_install_handler();
	else
		cycle_impl_remove_handler();

	if (g->debug) {
		char why[200] = "";
		size_t n = 0;

		for (i = start; i < chosen && n < sizeof(why); i++) {
			const char *what = g->status[i] == CYCLE_IMPL_TRAPS ?
				"traps" : "is frozen", *more = "";

#if defined(CYCLE_IMPL_PERF_INDEX)
			if (i == CYCLE_IMPL_PERF_INDEX &&
			    g->perf_state != CYCLE_IMPL_PERF_OPEN) {
				what = "unavailable: ";
				more = cycle_impl_perf_reason(g->perf_state);
			}
#endif
			n += (size_t)snprintf(why + n, sizeof(why) - n,
				"%s%s %s%s", n ? ", " : "; ",
				cycle_impl_name(i), what, more);
#if defined(CYCLE_IMPL_PERF_INDEX)
			if (i == CYCLE_IMPL_PERF_INDEX && n < sizeof(why) &&
			    (g->perf_state == CYCLE_IMPL_PERF_OPEN_FAILED ||
			     g->perf_state == CYCLE_IMPL_PERF_MMAP_FAILED))
				n += (size_t)snprintf(why + n, sizeof(why) - n,
					" (errno %d)", g->perf_errno);
#endif
		}
		snprintf(line, sizeof(line),
			 "cycle.h: using %s (%s %s%s%s)\n",
			 cycle_impl_name(chosen),
			 requested ? "CYCLE_COUNTER" : "configured",
			 cycle_impl_name(start), why,
			 g->guarded ? "; trap guard installed" : "");
		cycle_impl_say(line);
	}
	CYCLE_IMPL_STORE(&g->mode, chosen == CYCLE_IMPL_CONFIGURED &&
			 chosen < CYCLE_IMPL_NHW ? CYCLE_IMPL_FAST
						: CYCLE_IMPL_SLOW,
			 __ATOMIC_RELEASE);
}

/* Everything but the configured counter's hot path comes here. */
__attribute__((weak)) ticks cycle_impl_slow(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;
	int mode = CYCLE_IMPL_LOAD(&g->mode, __ATOMIC_ACQUIRE);
	int active;

	if (mode < CYCLE_IMPL_FAST) {
		int expected = CYCLE_IMPL_UNINIT;

		if (CYCLE_IMPL_CAS(&g->mode, &expected, CYCLE_IMPL_BUSY))
			cycle_impl_init();
		while (CYCLE_IMPL_LOAD(&g->mode, __ATOMIC_ACQUIRE) <
		       CYCLE_IMPL_FAST)
			sched_yield();
	}
	active = CYCLE_IMPL_LOAD(&g->active, __ATOMIC_ACQUIRE);
	/* A read of the chosen counter that traps here is completed by the
	 * handler with an already converted value, so return it as it is. */
	if (active == g->chosen)
		return g->narrow ? (uint32_t)cycle_impl_read(active)
				 : cycle_impl_read(active);
	return cycle_impl_convert(active, cycle_impl_read(active));
}

__attribute__((weak)) const char *cycle_counter_name(void)
{
	(void)getticks(); /* makes the choice if it is not made yet */
	return cycle_impl_name(
		CYCLE_IMPL_LOAD(&cycle_impl_global.active, __ATOMIC_ACQUIRE));
}

__attribute__((weak)) double cycle_ticks_per_second(void)
{
	struct cycle_impl_state *g = &cycle_impl_global;

	(void)getticks();
	if (g->hz[g->chosen] == 0.0 && g->chosen < CYCLE_IMPL_NHW)
		return cycle_impl_hw_nominal_hz(g->chosen);
	return g->hz[g->chosen];
}

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------------------
 * Without the engine: FFTW's behaviour, limited to counters that do not
 * trap on the systems concerned.
 * ---------------------------------------------------------------------- */

#elif defined(CYCLE_IMPL_PORT_AARCH64) || defined(CYCLE_IMPL_PORT_X86) || \
	defined(CYCLE_IMPL_PORT_PPC) || defined(CYCLE_IMPL_PORT_S390)
/* CNTVCT_EL0 (Linux and macOS let user space read it), rdtsc, the time
 * base, the TOD clock: none of these traps without the process asking. */
typedef uint64_t ticks;
#if defined(CYCLE_IMPL_PORT_AARCH64)
#define CYCLE_IMPL_PLAIN_INDEX 2
#else
#define CYCLE_IMPL_PLAIN_INDEX 0
#endif
CYCLE_IMPL_INLINE ticks getticks(void)
{
	return cycle_impl_hw_read(CYCLE_IMPL_PLAIN_INDEX);
}
CYCLE_IMPL_INLINE const char *cycle_impl_plain_name(void)
{
	static const char *const names[] = {CYCLE_IMPL_NAMES};

	return names[CYCLE_IMPL_PLAIN_INDEX];
}
#define CYCLE_IMPL_PLAIN_NAME cycle_impl_plain_name()
#define CYCLE_IMPL_PLAIN_HZ cycle_impl_hw_nominal_hz(CYCLE_IMPL_PLAIN_INDEX)

#elif defined(HAVE_MACH_ABSOLUTE_TIME) && defined(HAVE_MACH_MACH_TIME_H)
/* macOS on other CPUs; mach_timebase_info() gives the rate. */
#include <mach/mach_time.h>
typedef uint64_t ticks;
#define getticks mach_absolute_time
#define CYCLE_IMPL_PLAIN_NAME "mach_absolute_time"
#define CYCLE_IMPL_PLAIN_HZ 0.0

#elif defined(HAVE_GETHRTIME) && defined(HAVE_HRTIME_T)
/* Solaris. */
#include <sys/time.h>
typedef hrtime_t ticks;
#define getticks gethrtime
#define CYCLE_IMPL_PLAIN_NAME "gethrtime"
#define CYCLE_IMPL_PLAIN_HZ 1e9

#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
/* Visual C++ on x86. */
#include <intrin.h>
typedef unsigned __int64 ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	return __rdtsc();
}
#define CYCLE_IMPL_PLAIN_NAME "rdtsc"
#define CYCLE_IMPL_PLAIN_HZ 0.0

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
	defined(TIME_UTC)
/* Strict ISO C11 elsewhere: timespec_get, in nanoseconds. */
typedef uint64_t ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	struct timespec ts;

	timespec_get(&ts, TIME_UTC);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define CYCLE_IMPL_PLAIN_NAME "timespec_get"
#define CYCLE_IMPL_PLAIN_HZ 1e9
#endif /* engine or not */

/* The rest of the API, the same for every counter without the engine. */
#if !defined(CYCLE_IMPL_ENGINE) && defined(CYCLE_IMPL_PLAIN_NAME)
#define HAVE_TICK_COUNTER 1
CYCLE_IMPL_INLINE double elapsed(ticks t1, ticks t0)
{
	return (double)(int64_t)(t1 - t0);
}
CYCLE_IMPL_INLINE const char *cycle_counter_name(void)
{
	return CYCLE_IMPL_PLAIN_NAME;
}
CYCLE_IMPL_INLINE double cycle_ticks_per_second(void)
{
	return CYCLE_IMPL_PLAIN_HZ;
}
#endif

#endif /* CYCLE_H_INCLUDED */
