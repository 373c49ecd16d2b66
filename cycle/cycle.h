/* cycle.h: a cycle-counter header for planners that never dies on a trap.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * It takes the place of FFTW's kernel/cycle.h (Copyright (c) 2003, 2007-14
 * Matteo Frigo and Massachusetts Institute of Technology, under the same
 * licence) and keeps that file's counters, conditions and ticks types; the
 * code and text are this project's own.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to
 * deal in the Software without restriction, including without limitation the
 * rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
 * sell copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.  IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 * FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
 * IN THE SOFTWARE.
 *
 * ==========================================================================
 * MANUAL (the long form, and why: PERFORMANCE_COUNTERS.md, "Inside cycle.h")
 * ==========================================================================
 *
 * A drop-in for FFTW's kernel/cycle.h.  It times short intervals with the
 * cheapest counter the machine really lets user space read, and it never
 * kills the process: a counter whose read traps (SIGILL), or that reads but
 * does not advance, is replaced by the next one of a chain, at the first
 * call and also later, when the kernel takes access back (Linux clears
 * PMUSERENR_EL0 when perf runs, on CPU hotplug and on idle exit).
 *
 * API (FFTW's; declared first thing after the includes)
 *   ticks getticks(void)                read the counter.
 *   double elapsed(ticks t1, ticks t0)  t1 - t0 in ticks; negative for an
 *       interval across a run-time change of counter (FFTW's planner then
 *       measures again).  ARMv7's 32-bit PMCCNTR: modulo 2^32, never < 0.
 *   ticks      unsigned long long on x86, PowerPC and s390 (as FFTW 3.3.10),
 *              uint64_t elsewhere; without the engine, the block's type.
 *   TIME_MIN   FFTW's shortest measurement in ticks, unless defined before:
 *              5000 for rdtsc, 100 for the other cycle counters, 1 us of
 *              ticks (at least 100) for hardware clocks, 2000 ns for
 *              clock_gettime.
 *   HAVE_TICK_COUNTER  defined when getticks() exists.
 * API (additions; every other name starts with cycle_impl_, CYCLE_IMPL_
 * or CYCLE_H_)
 *   const char *cycle_counter_name(void)  the counter in use (names below).
 *   double cycle_ticks_per_second(void)   the rate of ticks, measured once
 *              against CLOCK_MONOTONIC_RAW (PERFORMANCE_COUNTERS.md, "How
 *              it works"), else the stated rate (CNTFRQ); without the
 *              engine the nominal rate; else 0 (unknown).
 *   A tick is a unit of the counter chosen at the first call, for the life
 *   of the process: after a revocation the next counter's readings are
 *   scaled into it.  PMU cycle counters are per CPU: an interval across a
 *   migration is not meaningful.
 *
 * Configuration (macros, normally from config.h; FFTW's configure names)
 *   HAVE_ARMV8_PMCCNTR_EL0  aarch64: start at PMCCNTR_EL0.
 *   HAVE_ARMV8_CNTVCT_EL0   aarch64: start at CNTVCT_EL0 (the default).
 *   HAVE_ARMV7A_PMCCNTR     32-bit ARMv7-A and later: start at PMCCNTR.
 *   HAVE_ARMV7A_CNTVCT      the same, CNTVCT (the default there).
 *   HAVE_RISCV_RDCYCLE      riscv64 (this header's): start at rdcycle.
 *   Both macros of one architecture: the timer first.  FFTW's other
 *   HAVE_* macros (HAVE_GETHRTIME, HAVE_MACH_ABSOLUTE_TIME, ...) select
 *   its blocks where there is no engine.  Linux without the engine obeys
 *   neither ARMv7 macro, and reads CNTVCT_EL0 for HAVE_ARMV8_PMCCNTR_EL0,
 *   with a compile-time message: nothing would catch the trap.
 *   CYCLE_H_NO_FOLD  a static engine in every calling file, where GCC 12+
 *       on ELF x86-64, aarch64 and armhf would keep one per program or
 *       shared object (for -flto builds, objects made by ld -r whose
 *       hidden symbols are made local: PERFORMANCE_COUNTERS.md "Costs").
 *
 * Chains (the first counter that reads and advances, from the configured
 * one; clock_gettime is CLOCK_MONOTONIC_RAW, in nanoseconds)
 *   aarch64   PMCCNTR_EL0 -> PMCCNTR_EL0_perf -> CNTVCT_EL0 -> clock_gettime
 *   ARMv7-A+  PMCCNTR -> CNTVCT -> clock_gettime
 *   x86       rdtsc -> clock_gettime
 *   riscv64   rdcycle -> rdtime -> clock_gettime
 *   powerpc   mftb -> clock_gettime      s390x  stckf -> clock_gettime
 *   others    clock_gettime
 *   PMCCNTR_EL0_perf: the cycle counter through a perf event of the thread
 *   (Linux 5.17+, kernel.perf_user_access=1), tried only after a direct
 *   PMCCNTR_EL0 read failed.  It counts the thread's user-mode cycles, none
 *   while it sleeps; its rate is 0 (unknown) where its thread slept or was
 *   switched out in every window of the choice, and then the readings it
 *   takes from CNTVCT_EL0 (other threads, a fork() child, after it is left)
 *   are unscaled.
 *
 * Environment (read once; ignored in a setuid or setgid process)
 *   CYCLE_COUNTER=NAME  start the chain at NAME (an unknown name is
 *                       reported once on stderr and ignored).
 *   CYCLE_DEBUG=1       one line on stderr naming the counter and why, one
 *                       more at a revocation.  Nothing is printed else.
 *
 * How it works (PERFORMANCE_COUNTERS.md, "How it works").  The first
 * getticks() chooses.  A configured counter the kernel never takes back
 * (rdtsc, CNTVCT_EL0, rdtime, mftb, stckf) is read until it moves; else
 * each candidate is read under a temporary SIGILL handler, the guard,
 * which steps over this header's counter reads that trap.  The guard stays
 * while a revocable counter (PMU, rdcycle) is in use, also after one of
 * its reads trapped.  Then getticks() is a load of a hidden flag and a
 * compare before an inline read of the kernel-kept counters, a call for
 * the others; async-signal-safe.  Signal actions and masks stay the
 * program's, but for the guard while it is needed.  One state per group
 * of objects that see each other's symbols: cycle_impl_v3_n* and
 * cycle_impl_v3_t* are the only exported names.  A file that never calls
 * getticks() gets no code; one that calls it gets a call into one copy
 * of the engine per program or shared object (GCC 12+, ELF x86-64,
 * aarch64, armhf), or its own (about 4.5 KiB on x86-64).
 *
 * Reading order.  THE API (the declarations), then THE IMPLEMENTATION: the
 * fold's switches, PORTS (one block per architecture, then the hooks'
 * defaults, among them cycle_impl_decode: which traps are the guard's),
 * the state, getticks() and elapsed(), the engine's helpers, the perf tier
 * (aarch64), the guard (install, remove, unload, revoke, on_trap,
 * probe), the choice, the additions; last, FFTW's blocks for builds
 * without the engine.
 *
 * Without the engine (not Linux, not GCC or Clang, a strict ISO mode that
 * hides sigaction, or an architecture whose counter Linux never takes
 * back: SPARC v9, Alpha, PA-RISC, IA-64, LoongArch, Elbrus, riscv32,
 * 31-bit s390, MIPS with HAVE_MIPS_ZBUS_TIMER): the first of FFTW's blocks
 * whose condition holds, in FFTW master's order, then timespec_get in C11.
 *
 * Limits (each explained in PERFORMANCE_COUNTERS.md, "Limits")
 *   - A thread that blocks the trap signal never reads a PMU counter; one
 *     that blocks it after its first call can die of a revocation that
 *     lands between two instructions.
 *   - A handler the program installs for it after the first call replaces
 *     the guard.  One that signal() put back is set right at its next
 *     trap (ARM, i386); called directly by other code, it aborts.
 *   - Objects with separate states (RTLD_LOCAL, hidden visibility) chain
 *     their guards: unload them in the reverse order of first use.
 *   - A vfork() child may not call getticks().
 *   - Functions the program names secure_getenv or sched_getcpu are
 *     called (glibc's, by their symbols, in every mode).
 *   - A program that turns its TSC off (PR_SET_TSC) after the first call
 *     dies at the next read, as with FFTW's header.
 *   - A getticks() inside the choice, in its thread (its trap and SIGSYS
 *     handlers, most functions it calls if replaced), returns 0.
 *   - A trap signal already pending at the first call: no counter that
 *     may trap is read (CYCLE_DEBUG: "not read").
 *   - GCC's -flto (one partition) keeps every calling file's engine.
 */
#ifndef CYCLE_H_INCLUDED
#define CYCLE_H_INCLUDED

#if defined(__cplusplus) || \
	(defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define CYCLE_IMPL_INLINE static inline
#elif defined(__GNUC__)
#define CYCLE_IMPL_INLINE static __inline__
#elif defined(_MSC_VER)
#define CYCLE_IMPL_INLINE static __inline
#else
#define CYCLE_IMPL_INLINE static
#endif

/* Counters Linux leaves readable with no way to take them back (no sysctl,
 * prctl or PMU that perf claims): FFTW's block suffices, no engine. */
#if defined(__sparc_v9__) || defined(__alpha__) || defined(__hppa__) || \
	defined(__ia64__) || defined(__loongarch64) || defined(__e2k__) || \
	(defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 32) || \
	(defined(__s390__) && !defined(__s390x__)) || \
	(defined(__mips__) && defined(HAVE_MIPS_ZBUS_TIMER))
#define CYCLE_IMPL_CLASSIC 1
#endif

/* Visual C++ before 2010 has no <stdint.h>; its blocks below need none. */
#if defined(_MSC_VER) && _MSC_VER < 1600
#define CYCLE_IMPL_NO_STDINT 1
#else
#include <stdint.h>
#endif
#include <time.h>
#if defined(__linux__) && defined(__GNUC__) && !defined(CYCLE_IMPL_CLASSIC)
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#endif

/* ==========================================================================
 * THE API (the manual above), with the engine: Linux, GCC or Clang, POSIX
 * visible, not a classic CPU.  Without it: FFTW's blocks, at the end.
 * ========================================================================== */
#if defined(__linux__) && defined(__GNUC__) && defined(SA_SIGINFO) && \
	defined(CLOCK_MONOTONIC) && !defined(CYCLE_IMPL_CLASSIC)
#define CYCLE_IMPL_ENGINE 1
#if defined(__x86_64__) || defined(__i386__) || defined(__powerpc__) || \
	defined(__ppc__) || defined(__s390x__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wlong-long" /* C++98, C89 -pedantic */
__extension__ typedef unsigned long long ticks; /* FFTW 3.3.10's type */
#pragma GCC diagnostic pop
#else
typedef uint64_t ticks;
#endif
#define HAVE_TICK_COUNTER 1
#define CYCLE_IMPL_API static __inline__ /* inlined where GCC may */
CYCLE_IMPL_API ticks getticks(void);
CYCLE_IMPL_API double elapsed(ticks t1, ticks t0);
CYCLE_IMPL_API const char *cycle_counter_name(void);
CYCLE_IMPL_API double cycle_ticks_per_second(void);
CYCLE_IMPL_API double cycle_impl_time_min(void); /* TIME_MIN */
#endif

/* ==========================================================================
 * THE IMPLEMENTATION
 * ========================================================================== */

#ifdef CYCLE_IMPL_ENGINE
/* The fold (GCC 12+, ELF; off with CYCLE_H_NO_FOLD): one copy of the
 * engine per program or shared object.  Each large function stays static
 * but sits in a COMDAT group of its own, named like a hidden alias that
 * every call goes through (CYCLE_IMPL_DECL); the linker keeps one group of
 * a name, any file's.  So all of the engine is built for the ABI's
 * baseline (CYCLE_IMPL_PIN), whatever the file's -march or -mfpu: the copy
 * kept runs wherever a file that calls it can.  A file below the baseline,
 * or on x86 of another -march family than x86-64-vN (GCC inlines only
 * within one), keeps its own engine.  The helpers are always inlined, or
 * their out-of-line copies would stay in every file.  The test is of the
 * program's "#pragma GCC target", if any, which builds the API; on x86
 * the implementation is read with the pragma set aside (its arch= would
 * clash with the pin's), where all of it is pinned. */
#if !defined(CYCLE_H_NO_FOLD) && __GNUC__ >= 12 && !defined(__clang__) && \
	!defined(__INTEL_COMPILER) && !defined(__NVCOMPILER) && defined(__ELF__)
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__k8__) && \
	defined(__MMX__) && defined(__FXSR__) && defined(__SSE__) && \
	defined(__SSE2__)
#define CYCLE_IMPL_PIN_ISA "arch=x86-64"
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define CYCLE_IMPL_PIN_ISA "arch=armv8-a"
#elif defined(__arm__) && __ARM_ARCH >= 7 && defined(__ARM_ARCH_PROFILE) && \
	__ARM_ARCH_PROFILE == 'A' && defined(__ARM_PCS_VFP) && \
	(__ARM_FP & 8) && !defined(__cplusplus) /* g++: __thumb__ may lie */
#define CYCLE_IMPL_PIN_ISA "arch=armv7-a,fpu=vfp" /* VFPv2: D0-D15 */
#endif
#endif
#ifdef CYCLE_IMPL_PIN_ISA
#define CYCLE_IMPL_FOLD 1
#if defined(__x86_64__)
#define CYCLE_IMPL_SET_ASIDE 1 /* the implementation: no target pragma */
#endif
#define CYCLE_IMPL_PIN __attribute__((__target__(CYCLE_IMPL_PIN_ISA)))
#undef CYCLE_IMPL_INLINE
#define CYCLE_IMPL_INLINE \
	static __inline__ __attribute__((__always_inline__)) CYCLE_IMPL_PIN
#else
#define CYCLE_IMPL_PIN
#endif
#endif

#ifdef CYCLE_IMPL_SET_ASIDE
#pragma GCC push_options
#pragma GCC reset_options
#endif

/* A 64-bit counter read as two 32-bit halves: the upper half is read again
 * until it did not change across the read of the lower one. */
#define CYCLE_IMPL_SPLIT_READ(hi, lo, read_hi, read_lo) \
	do { \
		unsigned int cycle_impl_hi2; \
		do { \
			__asm__ __volatile__(read_hi : "=r"(hi)); \
			__asm__ __volatile__(read_lo : "=r"(lo)); \
			__asm__ __volatile__(read_hi : "=r"(cycle_impl_hi2)); \
		} while ((hi) != cycle_impl_hi2); \
	} while (0)

/* CNTVCT_EL0's rate: for the port and for the blocks without the engine. */
#if defined(__aarch64__)
CYCLE_IMPL_INLINE double cycle_impl_cntfrq_el0(void)
{
	uint64_t f;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return (double)f;
}
#endif

#if defined(CYCLE_IMPL_ENGINE)

/* ------------------------------------------------------------------------
 * PORTS.  One block per architecture defines what it has of these hooks
 * ([default], set after the blocks: clock_gettime alone); the engine adds
 * clock_gettime to every chain.
 *   CYCLE_IMPL_NHW              its counters [0]; _NAMES "name\0..." [""]
 *   cycle_impl_hw_read(i)       reads counter i; callers guard a read
 *   CYCLE_IMPL_INLINE_INDEX     read inline once chosen; never taken back
 *   CYCLE_IMPL_CONFIGURED       the chain's start as built [inline index]
 *   CYCLE_IMPL_REVOCABLE(i)     taken back from outside (PMU) [0]
 *   CYCLE_IMPL_CYCLES(i)        counts CPU cycles [0]
 *   CYCLE_IMPL_NARROW(i)        32 bits wide; with _HAS_NARROW [0]
 *   CYCLE_IMPL_CYCLE_TIME_MIN   TIME_MIN for a cycle counter [100.0]
 *   cycle_impl_hw_nominal_hz(i) its stated rate [0.0: none]
 *   cycle_impl_quiet(i)         the kernel says it reads, no trap [0]
 *   CYCLE_IMPL_PMU_ACCESS       the instruction that reads PMUSERENR
 *   CYCLE_IMPL_TRAP_SIGNAL      what a refused read raises, with struct
 *                               cycle_impl_regs, _decode_insn, _complete_insn
 *   CYCLE_IMPL_VDSO_READS_HW0   the vDSO's clock reads counter 0 (x86),
 *                               with _UNGUARDED_OK, cycle_impl_clock_syscall
 *   CYCLE_IMPL_CMT, _NAME_OF, _SET, _ISA, _FAST_ADDRESS  assembler syntax
 * After the defaults only the perf tier (aarch64, fenced) names a CPU;
 * before them, the fold's pin, CNTFRQ_EL0's reader (above) and the ARM
 * ports' shared PMUSERENR and byte-order helpers (just below).
 * ---------------------------------------------------------------------- */

/* PMUSERENR(_EL0), readable at EL0: EN (bit 0) grants all, CR (bit 2) cycle
 * counter reads; under PMUv3.9's UEN (bit 4) "perhaps": a guarded read
 * tells (PERFORMANCE_COUNTERS.md, "PMCCNTR_EL0").  Denied: never read. */
#define CYCLE_IMPL_USERENR_EN 0x1u
enum { CYCLE_IMPL_PMU_DENIED, CYCLE_IMPL_PMU_GRANTED, CYCLE_IMPL_PMU_PERHAPS };
CYCLE_IMPL_INLINE int cycle_impl_userenr_grant(unsigned long userenr)
{
	if (userenr & CYCLE_IMPL_USERENR_EN)
		return CYCLE_IMPL_PMU_GRANTED;
	if (userenr & 0x10u) /* UEN */
		return CYCLE_IMPL_PMU_PERHAPS;
	return userenr & 0x4u ? CYCLE_IMPL_PMU_GRANTED : CYCLE_IMPL_PMU_DENIED;
}
#define CYCLE_IMPL_ACCESS_REGISTER 100 /* decoded: PMUSERENR's read trapped */

/* Arm instructions are little-endian, even in a big-endian program. */
#if defined(__AARCH64EB__) || defined(__ARMEB__)
#define CYCLE_IMPL_LE(bits, x) __builtin_bswap##bits(x)
#else
#define CYCLE_IMPL_LE(bits, x) (x)
#endif

#if defined(__aarch64__)
/* AArch64: PMCCNTR_EL0_perf is the engine's perf tier, not an instruction. */
#define CYCLE_IMPL_NHW 3
#define CYCLE_IMPL_NAMES "PMCCNTR_EL0\0PMCCNTR_EL0_perf\0CNTVCT_EL0\0"
#define CYCLE_IMPL_PERF_INDEX 1
#define CYCLE_IMPL_INLINE_INDEX 2
#define CYCLE_IMPL_REVOCABLE(i) ((i) <= CYCLE_IMPL_PERF_INDEX)
#define CYCLE_IMPL_CYCLES(i) ((i) <= CYCLE_IMPL_PERF_INDEX)
/* With both macros the timer comes first (the manual, Configuration). */
#if defined(HAVE_ARMV8_PMCCNTR_EL0) && !defined(HAVE_ARMV8_CNTVCT_EL0)
#define CYCLE_IMPL_CONFIGURED 0
#endif
#ifndef cycle_impl_hw_nominal_hz /* rate-t states a false CNTFRQ */
#define cycle_impl_hw_nominal_hz(i) ((i) == 2 ? cycle_impl_cntfrq_el0() : 0.0)
#endif
/* CNTVCT_EL0: Linux lets EL0 read it, or emulates it; never a SIGILL. */
#define cycle_impl_quiet(i) ((i) == 2)
#define CYCLE_IMPL_TRAP_SIGNAL SIGILL
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint64_t v = 0;

	if (i == 0)
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
	else if (i == 2)
		__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
/* Trapped by a hypervisor without a virtual PMU: the guard reads 0. */
#define CYCLE_IMPL_PMU_ACCESS "mrs %0, pmuserenr_el0"
/* The fold's assembler syntax (CYCLE_IMPL_DECL): comment, symbol operand. */
#define CYCLE_IMPL_CMT "//"
#define CYCLE_IMPL_NAME_OF "%c0"
struct cycle_impl_regs {
	uint64_t fault_address, x[31], sp, pc;
};
CYCLE_IMPL_INLINE int cycle_impl_decode_insn(const struct cycle_impl_regs *r,
					     int *reg)
{
	uint32_t insn = CYCLE_IMPL_LE(32, *(const uint32_t *)(uintptr_t)r->pc);

	*reg = (int)(insn & 0x1f);
	insn &= 0xffffffe0u;
	return insn == 0xd53b9d00u ? 0 : /* mrs Xt, PMCCNTR_EL0 */
	       insn == 0xd53be040u ? 2 : /* mrs Xt, CNTVCT_EL0 */
	       insn == 0xd53b9e00u /* mrs Xt, PMUSERENR_EL0 */
	       ? CYCLE_IMPL_ACCESS_REGISTER : -1;
}
CYCLE_IMPL_INLINE void cycle_impl_complete_insn(struct cycle_impl_regs *r,
						int reg, uint64_t value)
{
	if (reg != 31) /* xzr */
		r->x[reg] = value;
	r->pc += 4;
}

#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && \
	(!defined(__ARM_ARCH_PROFILE) || __ARM_ARCH_PROFILE == 'A')
/* 32-bit ARMv7-A and later: CP15 PMU cycle counter and generic timer.  No
 * quiet hook: a core may lack the timer and qemu-arm traps it, so the
 * choice probes. */
#define CYCLE_IMPL_NHW 2
#define CYCLE_IMPL_NAMES "PMCCNTR\0CNTVCT\0"
#define CYCLE_IMPL_INLINE_INDEX 1
#define CYCLE_IMPL_REVOCABLE(i) ((i) == 0) /* Linux clears PMUSERENR */
#define CYCLE_IMPL_CYCLES(i) ((i) == 0)
#define CYCLE_IMPL_NARROW(i) ((i) == 0) /* PMCCNTR is 32 bits */
#define CYCLE_IMPL_HAS_NARROW 1
#if defined(HAVE_ARMV7A_PMCCNTR) && !defined(HAVE_ARMV7A_CNTVCT)
#define CYCLE_IMPL_CONFIGURED 0 /* the timer first with both, as above */
#endif
/* CNTFRQ is readable where CNTVCT is: asked after a CNTVCT read worked. */
#ifndef cycle_impl_hw_nominal_hz /* rate-t states a false CNTFRQ */
#define cycle_impl_hw_nominal_hz(i) ((i) == 1 ? cycle_impl_timer_hz() : 0.0)
#endif
#define CYCLE_IMPL_TRAP_SIGNAL SIGILL
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint32_t lo, hi;

	if (i == 0) {
		__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(lo));
		return lo;
	}
	__asm__ __volatile__("mrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
	return (uint64_t)hi << 32 | lo;
}
CYCLE_IMPL_INLINE double cycle_impl_timer_hz(void)
{
	uint32_t f;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(f));
	return (double)f;
}
/* PMUSERENR: .EN on ARMv7, .CR on ARMv8 in AArch32, .UEN on PMUv3.9. */
#define CYCLE_IMPL_PMU_ACCESS "mrc p15, 0, %0, c9, c14, 0"
/* The fold's assembler syntax (CYCLE_IMPL_DECL), Thumb's alias directive,
 * and how far ahead pc reads (by the instruction set). */
#define CYCLE_IMPL_CMT "@"
#define CYCLE_IMPL_NAME_OF "%c0"
#if defined(__thumb__)
#define CYCLE_IMPL_SET ".thumb_set "
#define CYCLE_IMPL_ISA "t"
#define CYCLE_IMPL_PC_AHEAD "4"
#else
#define CYCLE_IMPL_PC_AHEAD "8"
#endif
/* PIC would load the fast flag's offset from a literal pool: movw and movt
 * build it from the instruction stream (cycle_impl_fast_address). */
#if defined(__PIC__) && !defined(__ARMEB__)
#define CYCLE_IMPL_FAST_ADDRESS(name) \
	"movw %0, #:lower16:(" name " - (1f + " CYCLE_IMPL_PC_AHEAD "))\n\t" \
	"movt %0, #:upper16:(" name " - (1f + " CYCLE_IMPL_PC_AHEAD "))\n" \
	"1:\tadd %0, %0, pc"
#endif
struct cycle_impl_regs {
	unsigned long trap_no, error_code, oldmask;
	unsigned long r[15], pc; /* r0-r10, fp, ip, sp, lr; pc */
	unsigned long cpsr;
};
/* *reg gets Rt, and for MRRC also Rt2 (bits 19:16) in bits 8 and up. */
CYCLE_IMPL_INLINE int cycle_impl_decode_insn(const struct cycle_impl_regs *r,
					     int *reg)
{
	const uint16_t *hw = (const uint16_t *)(uintptr_t)r->pc;
	uint32_t h1 = CYCLE_IMPL_LE(16, hw[0]), h2 = 0, insn;
	int thumb = (r->cpsr & 0x20) != 0;

	/* Thumb's second halfword only for a 32-bit encoding: a 16-bit UDF
	 * may end the last mapped page. */
	if (!thumb || (h1 >> 11) >= 0x1d)
		h2 = CYCLE_IMPL_LE(16, hw[1]);
	/* ARM: one word, its low halfword first; Thumb: the first one high. */
	insn = thumb ? h1 << 16 | h2 : h2 << 16 | h1;
	*reg = (int)((insn >> 12) & 0xf);
	if ((insn & 0xfff00fffu) == 0xec500f1eu) { /* mrrc p15,1,Rt,Rt2,c14 */
		*reg |= (int)((insn >> 16) & 0xf) << 8 | 0x10000;
		return 1;
	}
	insn &= 0xffff0fffu;
	return insn == 0xee190f1du ? 0 : /* mrc p15,0,Rt,c9,c13,0 */
	       insn == 0xee190f1eu /* mrc p15,0,Rt,c9,c14,0 */
	       ? CYCLE_IMPL_ACCESS_REGISTER : -1;
}
CYCLE_IMPL_INLINE void cycle_impl_complete_insn(struct cycle_impl_regs *r,
						int reg, uint64_t value)
{
	int rt = reg & 0xf, rt2 = (reg >> 8) & 0xf;

	if (rt < 15)
		r->r[rt] = (unsigned long)(uint32_t)value;
	if ((reg & 0x10000) && rt2 < 15)
		r->r[rt2] = (unsigned long)(uint32_t)(value >> 32);
	r->pc += 4; /* both encodings are 32 bits, in ARM and in Thumb */
}

#elif defined(__x86_64__) || defined(__i386__)
/* x86: rdtsc faults (SIGSEGV) only where the process set PR_TSC_SIGSEGV, so
 * no guard stays after the first call (as in the classic header).  Read as
 * "ds rdtsc" (3e 0f 31; a no-op prefix): the guard completes only ours. */
#define CYCLE_IMPL_NHW 1
#define CYCLE_IMPL_NAMES "rdtsc\0"
#define CYCLE_IMPL_INLINE_INDEX 0
#define CYCLE_IMPL_CYCLES(i) ((i) == 0)
#define CYCLE_IMPL_CYCLE_TIME_MIN 5000.0 /* FFTW's value for x86 */
#define cycle_impl_quiet(i) ((void)(i), cycle_impl_tsc_enabled())
#define CYCLE_IMPL_VDSO_READS_HW0 1
#define CYCLE_IMPL_UNGUARDED_OK 1
#define CYCLE_IMPL_TRAP_SIGNAL SIGSEGV
#define CYCLE_IMPL_CMT "#" /* the fold's assembler syntax (CYCLE_IMPL_DECL) */
#define CYCLE_IMPL_NAME_OF "%p0" /* %c0 fails in -mcmodel=large */
#if defined(__x86_64__)
#define CYCLE_IMPL_SYS_PRCTL 157L
#define CYCLE_IMPL_SYS_CLOCK_GETTIME 228L
#define CYCLE_IMPL_SYSCALL(ret, nr, a, b) __asm__ __volatile__("syscall" \
	: "=a"(ret) : "0"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory")
struct cycle_impl_regs {
	uint64_t r8_15[8], di, si, bp, bx, dx, ax, cx, sp, ip;
};
#else
#define CYCLE_IMPL_SYS_PRCTL 172L
/* clock_gettime64 for a 64-bit time_t */
#define CYCLE_IMPL_SYS_CLOCK_GETTIME (sizeof(time_t) == 8 ? 403L : 265L)
#define CYCLE_IMPL_SYSCALL(ret, nr, a, b) __asm__ __volatile__("int $0x80" \
	: "=a"(ret) : "0"(nr), "b"(a), "c"(b) : "memory")
struct cycle_impl_regs {
	uint32_t gs, fs, es, ds, di, si, bp, sp, bx, dx, cx, ax;
	uint32_t trapno, err, ip;
};
#endif
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint32_t lo, hi;

	(void)i;
	__asm__ __volatile__(".byte 0x3e\n\trdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
/* Not libc's syscall(): a program may define its own (host-symbols-t), and
 * errno stays the program's; -errno on failure. */
CYCLE_IMPL_INLINE long cycle_impl_x86_syscall(long nr, long a, long b)
{
	long ret;

#if defined(__x86_64__) && defined(__ILP32__)
	nr |= 0x40000000L; /* x32 */
#endif
	CYCLE_IMPL_SYSCALL(ret, nr, a, b);
	return ret;
}
#define cycle_impl_clock_syscall(clock, ts) \
	cycle_impl_x86_syscall(CYCLE_IMPL_SYS_CLOCK_GETTIME, (long)(clock), \
			       (long)(uintptr_t)(ts))
/* prctl(PR_GET_TSC).  A seccomp filter that answers it with an error, or
 * with a SIGSYS whose handler returns, leaves tsc 0: the choice probes. */
CYCLE_IMPL_INLINE int cycle_impl_tsc_enabled(void)
{
	int tsc = 0;

	return cycle_impl_x86_syscall(CYCLE_IMPL_SYS_PRCTL, 25 /* PR_GET_TSC */,
				      (long)(uintptr_t)&tsc) == 0 &&
	       tsc == 1 /* PR_TSC_ENABLE */;
}
/* A disabled rdtsc is a general protection fault: SI_KERNEL, no address.
 * A page fault (a NULL call, a bad pointer) is not; its PC may not read. */
#define CYCLE_IMPL_TRAPPED_HERE(info, r) ((info)->si_code == 0x80)
#if defined(__x86_64__) && !defined(CYCLE_IMPL_FULL_FRAME)
#define CYCLE_IMPL_FULL_FRAME(info, context) 1
#endif
CYCLE_IMPL_INLINE int cycle_impl_decode_insn(const struct cycle_impl_regs *r,
					     int *reg)
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)r->ip;

	*reg = 0;
	return p[0] == 0x3e && p[1] == 0x0f && p[2] == 0x31 ? 0 : -1;
}
CYCLE_IMPL_INLINE void cycle_impl_complete_insn(struct cycle_impl_regs *r,
						int reg, uint64_t value)
{
	(void)reg;
	r->ax = (uint32_t)value;
	r->dx = (uint32_t)(value >> 32);
	r->ip += 3; /* ds rdtsc */
}

#elif defined(__riscv) && __riscv_xlen == 64
/* RISC-V: rdcycle traps by default since Linux 6.6 (a sysctl); rdtime never,
 * and the chain starts there (as FFTW's, d46ecddd) unless asked. */
#define CYCLE_IMPL_NHW 2
#define CYCLE_IMPL_NAMES "rdcycle\0rdtime\0"
#define CYCLE_IMPL_INLINE_INDEX 1
#define CYCLE_IMPL_REVOCABLE(i) ((i) == 0)
#define CYCLE_IMPL_CYCLES(i) ((i) == 0)
#if defined(HAVE_RISCV_RDCYCLE)
#define CYCLE_IMPL_CONFIGURED 0
#endif
#define cycle_impl_quiet(i) ((i) == 1)
#define CYCLE_IMPL_TRAP_SIGNAL SIGILL
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint64_t v;

	if (i == 0)
		__asm__ __volatile__("rdcycle %0" : "=r"(v));
	else
		__asm__ __volatile__("rdtime %0" : "=r"(v));
	return v;
}
struct cycle_impl_regs {
	uint64_t pc, x[31]; /* x1..x31 */
};
/* Read by halfwords: with compressed instructions a 32-bit one may be only
 * 2-byte aligned, and a 16-bit one may end the last mapped page. */
CYCLE_IMPL_INLINE int cycle_impl_decode_insn(const struct cycle_impl_regs *r,
					     int *reg)
{
	const uint16_t *hw = (const uint16_t *)(uintptr_t)r->pc;
	uint32_t insn = (uint32_t)hw[0];

	if ((insn & 3) == 3) /* a 32-bit encoding */
		insn |= (uint32_t)hw[1] << 16;
	*reg = (int)((insn >> 7) & 0x1f);
	insn &= 0xfffff07fu;
	return insn == 0xc0002073u ? 0 : /* csrrs rd, cycle, x0 */
	       insn == 0xc0102073u ? 1 : -1; /* csrrs rd, time, x0 */
}
CYCLE_IMPL_INLINE void cycle_impl_complete_insn(struct cycle_impl_regs *r,
						int reg, uint64_t value)
{
	if (reg != 0)
		r->x[reg - 1] = value;
	r->pc += 4;
}

#elif defined(__powerpc__) || defined(__ppc__)
/* PowerPC: the time base, which never traps. */
#define CYCLE_IMPL_NHW 1
#define CYCLE_IMPL_NAMES "mftb\0"
#define CYCLE_IMPL_INLINE_INDEX 0
#define cycle_impl_quiet(i) ((void)(i), 1)
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint64_t tb;
#if !defined(__powerpc64__)
	unsigned int hi, lo;

	CYCLE_IMPL_SPLIT_READ(hi, lo, "mftbu %0", "mftb %0");
	tb = (uint64_t)hi << 32 | lo;
#else
	__asm__ __volatile__("mftb %0" : "=r"(tb));
#endif
	(void)i;
	return tb;
}

#elif defined(__s390x__)
/* s390x: the TOD clock, which never traps. */
#define CYCLE_IMPL_NHW 1
#define CYCLE_IMPL_NAMES "stckf\0"
#define CYCLE_IMPL_INLINE_INDEX 0
#define cycle_impl_hw_nominal_hz(i) ((void)(i), 4096.0e6) /* bit 51: 1 us */
#define cycle_impl_quiet(i) ((void)(i), 1)
CYCLE_IMPL_INLINE uint64_t cycle_impl_hw_read(int i)
{
	uint64_t tod;

	(void)i;
	__asm__ __volatile__("stckf %0" : "=Q"(tod) : : "cc");
	return tod;
}
#endif /* the ports */

/* The hooks' defaults (the PORTS banner): clock_gettime only. */
#ifndef CYCLE_IMPL_NHW
#define CYCLE_IMPL_NHW 0
#define CYCLE_IMPL_NAMES ""
#define CYCLE_IMPL_INLINE_INDEX 0
#define cycle_impl_hw_read(i) ((void)(i), (uint64_t)0)
#endif
#ifndef CYCLE_IMPL_CONFIGURED
#define CYCLE_IMPL_CONFIGURED CYCLE_IMPL_INLINE_INDEX
#endif
#ifndef CYCLE_IMPL_REVOCABLE
#define CYCLE_IMPL_REVOCABLE(i) 0
#endif
#ifndef CYCLE_IMPL_CYCLES
#define CYCLE_IMPL_CYCLES(i) 0
#endif
#ifndef CYCLE_IMPL_NARROW
#define CYCLE_IMPL_NARROW(i) 0
#endif
#ifndef CYCLE_IMPL_CYCLE_TIME_MIN
#define CYCLE_IMPL_CYCLE_TIME_MIN 100.0 /* FFTW's default TIME_MIN */
#endif
#ifndef cycle_impl_hw_nominal_hz
#define cycle_impl_hw_nominal_hz(i) ((void)(i), 0.0)
#endif
#ifndef cycle_impl_quiet
#define cycle_impl_quiet(i) ((void)(i), 0)
#endif
#ifdef CYCLE_IMPL_PMU_ACCESS
CYCLE_IMPL_INLINE int cycle_impl_pmu_access(void)
{
	unsigned long v;

	__asm__ __volatile__(CYCLE_IMPL_PMU_ACCESS : "=r"(v));
	return cycle_impl_userenr_grant(v);
}
#else
#define cycle_impl_pmu_access() CYCLE_IMPL_PMU_GRANTED
#endif
/* VDSO_READS_HW0: the system call answers until counter 0, which the vDSO
 * reads, is known to work.  UNGUARDED_OK: counter 0 is read unguarded when
 * neither the kernel nor a probe can answer (only the program revokes it). */
#ifndef CYCLE_IMPL_VDSO_READS_HW0
#define CYCLE_IMPL_VDSO_READS_HW0 0
#define CYCLE_IMPL_UNGUARDED_OK 0
#define cycle_impl_clock_syscall(clock, ts) clock_gettime((clock), (ts))
#endif

/* The signal a refused read raises, if any: its port mirrors uc_mcontext in
 * struct cycle_impl_regs (no libc macro needed), decodes the read at pc
 * (index or -1; register) and completes it (stores, steps over), for a
 * signal the kernel raised for that very instruction (checked first). */
#ifdef CYCLE_IMPL_TRAP_SIGNAL
#ifndef CYCLE_IMPL_TRAPPED_HERE
/* Undefined (ILL_ILLOPC; ILL_ILLOPN from qemu-user) at si_addr, the pc. */
#define CYCLE_IMPL_TRAPPED_HERE(info, r) \
	((info)->si_code > 0 && (uintptr_t)(info)->si_addr == (r)->pc)
#endif
/* The kernel's frame puts the context right after the siginfo (arm,
 * arm64, riscv, i386); a handler set without SA_SIGINFO gets no frame, its
 * two arguments are what the interrupted code left in the registers
 * (cycle_impl_rearm).  x86-64 passes both pointers for every handler. */
#ifndef CYCLE_IMPL_FULL_FRAME
#define CYCLE_IMPL_FULL_FRAME(info, context) \
	((char *)(context) == (char *)(info) + sizeof(siginfo_t))
#endif
#define cycle_impl_regs_of(context) ((struct cycle_impl_regs *)(void *) \
	&((ucontext_t *)(context))->uc_mcontext)
CYCLE_IMPL_INLINE int cycle_impl_decode(const siginfo_t *info, void *context,
					int *reg)
{
	const struct cycle_impl_regs *r = cycle_impl_regs_of(context);

	return CYCLE_IMPL_TRAPPED_HERE(info, r) ? cycle_impl_decode_insn(r, reg)
						: -1;
}
#define cycle_impl_complete(context, reg, value) \
	cycle_impl_complete_insn(cycle_impl_regs_of(context), (reg), (value))
#else
#define CYCLE_IMPL_TRAP_SIGNAL 0
#ifndef CYCLE_IMPL_FULL_FRAME
#define CYCLE_IMPL_FULL_FRAME(info, context) 1
#endif
#define cycle_impl_decode(info, context, reg) ((void)(reg), -1)
#define cycle_impl_complete(context, reg, value) \
	((void)(context), (void)(reg), (void)(value))
#endif
#ifdef CLOCK_MONOTONIC_RAW
#define CYCLE_IMPL_CLOCK CLOCK_MONOTONIC_RAW
#else
#define CYCLE_IMPL_CLOCK CLOCK_MONOTONIC
#endif
/* Whether counter i is the perf tier: a constant 0 without one (a
 * comparison with -1 sends GCC down an out-of-bounds path it warns of). */
#if defined(CYCLE_IMPL_PERF_INDEX)
#define CYCLE_IMPL_IS_PERF(i) ((i) == CYCLE_IMPL_PERF_INDEX)
#else
#define CYCLE_IMPL_IS_PERF(i) 0
#endif

/* clock_gettime is the last link of every chain. */
#define CYCLE_IMPL_NCOUNTERS (CYCLE_IMPL_NHW + 1)
#define CYCLE_IMPL_CLOCK_INDEX CYCLE_IMPL_NHW

/* --- The state, and how the engine is built. -------------------------- */

/* state.mode, how getticks() reads now: READY + i reads counter i, the
 * chosen one; CONVERTED + i reads a replacement, converted into its unit. */
#define CYCLE_IMPL_UNINIT 0
#define CYCLE_IMPL_REGUARD 1 /* the guard left with its DSO: put it back */
#define CYCLE_IMPL_CHOOSING 2
#define CYCLE_IMPL_READY 16
#define CYCLE_IMPL_CONVERTED 32
#define CYCLE_IMPL_INDEX_OF(mode) ((mode) & 15)

/* state.status[i]. */
#define CYCLE_IMPL_UNTESTED 0
#define CYCLE_IMPL_AVAILABLE 1
#define CYCLE_IMPL_TRAPS 2
#define CYCLE_IMPL_FROZEN 3

/* state.perf_state: the perf tier's event, opened at most once. */
#define CYCLE_IMPL_PERF_UNTRIED 0
#define CYCLE_IMPL_PERF_OPEN 1       /* event open, page mapped, idx 32 seen */
#define CYCLE_IMPL_PERF_NO_SYSCTL 2  /* no perf_user_access: not arm64 5.17+ */
#define CYCLE_IMPL_PERF_SYSCTL_OFF 3 /* kernel.perf_user_access is not 1 */
#define CYCLE_IMPL_PERF_OPEN_FAILED 4 /* perf_event_open: see perf_errno */
#define CYCLE_IMPL_PERF_MMAP_FAILED 5 /* mmap of the page: see perf_errno */
#define CYCLE_IMPL_PERF_NO_RDPMC 6   /* the page offers no PMCCNTR_EL0 read */
#define CYCLE_IMPL_PERF_DIRECT 7     /* not tried: PMCCNTR_EL0 reads directly */
#define CYCLE_IMPL_PERF_BUSY (-1)    /* being opened */

/* The choice's spin: thousands of ticks of a 24 MHz timer, unnoticed.  A
 * window is measured again, up to TRIES times, where the clock reads that
 * bracket its counter reads take more than a 20th of it (cycle_impl_blur). */
#define CYCLE_IMPL_CALIBRATE_NS 200000
#define CYCLE_IMPL_CONFIRM_NS 25000
#define CYCLE_IMPL_TRIES 5
#define CYCLE_IMPL_SHARP 0.05
/* TIME_MIN for hardware clocks: 1 us, FFTW's 100 ticks up to 100 MHz (at
 * qemu's 62.5 MHz 2 us bought no better plan: README, "Benchmark"); for
 * clock_gettime 2 us, as a read may be a system call of 1 us. */
#define CYCLE_IMPL_TIME_MIN_S 1e-6
#define CYCLE_IMPL_CLOCK_TIME_MIN 2000.0
#define CYCLE_IMPL_TIME_MIN_TICKS 100.0
/* Readings after a revocation are set back by 2^62 ticks: an interval
 * across it is negative (146 years at 1 GHz). */
#define CYCLE_IMPL_SETBACK ((uint64_t)1 << 62)

/* Atomics on int.  Where int is not lock-free (ARM before ARMv6) Clang
 * calls libatomic, which a header cannot ask for; the __sync builtins are
 * in libgcc.  Those machines only have clock_gettime anyway. */
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
#define CYCLE_IMPL_RELAXED __ATOMIC_RELAXED
#define CYCLE_IMPL_ACQUIRE __ATOMIC_ACQUIRE
#define CYCLE_IMPL_RELEASE __ATOMIC_RELEASE

#define CYCLE_IMPL_LIKELY(x) __builtin_expect(!!(x), 1)
/* The large, rarely called functions; COLD: those that run once per
 * process or at a trap, small rather than fast.  Why inline and how the
 * warnings are kept quiet: PERFORMANCE_COUNTERS.md, "Costs". */
#define CYCLE_IMPL_NOINLINE \
	static __inline__ __attribute__((__noinline__, __unused__)) CYCLE_IMPL_PIN
#define CYCLE_IMPL_COLD static __inline__ \
	__attribute__((__noinline__, __unused__, __cold__)) CYCLE_IMPL_PIN
/* CYCLE_IMPL_DECL(ret, f, args): f's forward declaration; with the fold, the
 * static f_s in section group SYM(f), whose body defines (CYCLE_IMPL_SELF)
 * the hidden alias SYM(f), declared as f_a; "f" is then a macro for f_a
 * that keeps f_s emitted.  The port's CMT (its assembler's comment) hides
 * GCC's flags after the section name. */
#ifdef CYCLE_IMPL_FOLD
#ifndef CYCLE_IMPL_SET /* the alias directive (a port may have its own) */
#define CYCLE_IMPL_SET ".set "
#define CYCLE_IMPL_ISA ""
#endif
/* The groups' names carry the hash of this header's code (fold-t
 * checks it): files of one object built with two versions keep two
 * engines, as they keep one state.  No -pg hook: its table would point
 * into the copies the linker drops, as would -fpatchable-function-entry's. */
#if __GNUC__ >= 8
#define CYCLE_IMPL_NO_PATCH __patchable_function_entry__(0, 0),
#else
#define CYCLE_IMPL_NO_PATCH
#endif
#define CYCLE_IMPL_CODE "b95b3dd0"
#define CYCLE_IMPL_SYM(name) name "_v3_" CYCLE_IMPL_STR(CYCLE_IMPL_NHW) \
	CYCLE_IMPL_ISA "_" CYCLE_IMPL_CODE
#define CYCLE_IMPL_DECL(ret, f, args) \
	static ret f##_s args CYCLE_IMPL_PIN __attribute__((__noclone__, \
		__no_instrument_function__, CYCLE_IMPL_NO_PATCH \
		__section__(".text." \
		CYCLE_IMPL_SYM(#f) ",\"axG\",%progbits," CYCLE_IMPL_SYM(#f) \
		",comdat" CYCLE_IMPL_CMT))); \
	extern ret f##_a args __asm__(CYCLE_IMPL_SYM(#f)) \
		__attribute__((__visibility__("hidden")))
#define CYCLE_IMPL_FN(f) f##_s
#define CYCLE_IMPL_SELF(f) __asm__ __volatile__(".ifndef " CYCLE_IMPL_SYM(#f) \
	"\n\t.globl " CYCLE_IMPL_SYM(#f) "\n\t.hidden " CYCLE_IMPL_SYM(#f) \
	"\n\t.type " CYCLE_IMPL_SYM(#f) ", %%function\n\t" CYCLE_IMPL_SET \
	CYCLE_IMPL_SYM(#f) ", " CYCLE_IMPL_NAME_OF "\n\t.endif" : : "X"(f##_s))
#define CYCLE_IMPL_KEEP(f) __asm__("" : : "X"(f##_s))
#define CYCLE_IMPL_REF(f) (__extension__({ CYCLE_IMPL_KEEP(f); f##_a; }))
#define CYCLE_IMPL_ALIAS(f) f##_a
#define CYCLE_IMPL_FINI ".fini_array.00100,\"awG\",%fini_array," \
	CYCLE_IMPL_SYM("cycle_impl_unload_entry") ",comdat" CYCLE_IMPL_CMT
#else
#define CYCLE_IMPL_DECL(ret, f, args) static ret f args
#define CYCLE_IMPL_FN(f) f
#define CYCLE_IMPL_SELF(f) ((void)0)
#define CYCLE_IMPL_KEEP(f) ((void)0)
#define CYCLE_IMPL_ALIAS(f) f
#define CYCLE_IMPL_FINI ".fini_array.00100"
#endif
/* XSI flags a strict POSIX mode may hide: asm-generic's values, those of
 * every port with a trap signal, so that every file's engine is the same
 * whatever its feature macros (the fold keeps any one's).  Unsigned: bit 31
 * is, and sa_flags is handled as unsigned (-Wsign-conversion). */
#define CYCLE_IMPL_SA_ONSTACK 0x08000000u
#define CYCLE_IMPL_SA_RESTART 0x10000000u
#define CYCLE_IMPL_SA_NODEFER 0x40000000u
#define CYCLE_IMPL_SA_RESETHAND 0x80000000u

/* After a revocation a reading y of counter i is base + scale * (y - origin)
 * ticks (cycle_impl_convert). */
struct cycle_impl_conversion {
	uint64_t origin;
	uint64_t base;
	double scale;
};

typedef void (*cycle_impl_handler)(int, siginfo_t *, void *);

/* The state the process shares: one choice, one unit, one guard.  Its name
 * carries the layout's version and the number of hardware counters (ARMv6
 * and ARMv7 builds differ), so that another layout keeps its own state. */
struct cycle_impl_v3_state {
	int mode;     /* see CYCLE_IMPL_READY */
	int resume;   /* the mode that REGUARD goes back to */
	int chooser;  /* pid of the process of the choosing thread, or 0 */
	int chosen;   /* index chosen at the first call; defines the unit */
	int narrow;   /* ticks are 32-bit readings, an epoch above them */
	int debug;    /* CYCLE_DEBUG was set */
	unsigned traps; /* counter reads completed by the guard, ever */
	double time_min; /* TIME_MIN for the chosen unit, or 0: derived */
	int status[CYCLE_IMPL_NCOUNTERS];
	double hz[CYCLE_IMPL_NCOUNTERS];
	struct cycle_impl_conversion conv[CYCLE_IMPL_NCOUNTERS];
	cycle_impl_handler installed; /* the guard installed now, or NULL */
	cycle_impl_handler installer; /* the last guard set, even removed */
	const void *installer_object; /* its object, whose dlclose removes it */
	int rate_known;  /* 1: hz[chosen] measured; -pid: being measured */
	struct sigaction previous;    /* the action it replaced: chained to */
	int perf_state;  /* CYCLE_IMPL_PERF_* : the perf tier's event */
	int perf_errno;  /* why perf_event_open or mmap failed */
	int perf_fd;     /* the event, read() when the page says so */
	const void *perf_opener; /* the record of the one thread reading it */
	volatile void *perf_page; /* the event's first page, mmap'ed */
	volatile int *perf_alive; /* 1, but 0 in a child of fork() */
};

/* Per thread, shared like the state, 40 bytes on every ABI.  States kept
 * apart (hidden visibility) may share one record, so nothing in it is one
 * state's alone. */
struct cycle_impl_v3_thread {
	uint64_t last_pmu;  /* the last PMU reading: a stopped counter repeats */
	int trap_ok;       /* 0 unknown, 1 trap signal unblocked, 2 blocked */
	int probing;       /* a probe reads, or settle has blocked signals:
			    * a trap revokes nothing, a getticks() returns 0 */
	int no_traps;      /* trap signal pending: no probe that traps */
	unsigned probe_traps; /* probe reads that trapped */
	int perf_mine;     /* this thread opened a perf event */
	int perf_reading;  /* inside the mrs of a perf read */
	unsigned perf_trapped; /* such mrs that trapped */
	int unframed;      /* traps let through for want of a frame */
};
#define CYCLE_IMPL_THREAD_BYTES 40

#define CYCLE_IMPL_PASTE2(a, b) a##b
#define CYCLE_IMPL_PASTE(a, b) CYCLE_IMPL_PASTE2(a, b)
#define cycle_impl_state CYCLE_IMPL_PASTE(cycle_impl_v3_n, CYCLE_IMPL_NHW)
#define cycle_impl_self CYCLE_IMPL_PASTE(cycle_impl_v3_t, CYCLE_IMPL_NHW)
#define cycle_impl_fast CYCLE_IMPL_PASTE(cycle_impl_v3_f, CYCLE_IMPL_NHW)

/* One state and one per-thread record per program or shared object, in
 * forms the linker folds into one (PERFORMANCE_COUNTERS.md, "Several copies
 * in one process").  cycle_impl_fast, hidden, is set for good once the mode
 * is READY + the inline counter: one PC-relative load (see "Costs"). */
#define CYCLE_IMPL_STR2(x) #x
#define CYCLE_IMPL_STR(x) CYCLE_IMPL_STR2(x)
#ifdef __cplusplus
extern "C" {
#endif
/* The flag's name is pinned (-fleading-underscore) and "used": 32-bit ARM
 * PIC reads it by name from inline assembly, which full LTO does not see. */
#define CYCLE_IMPL_FAST_NAME CYCLE_IMPL_STR(cycle_impl_fast)
#if defined(__clang__)
__attribute__((__selectany__)) struct cycle_impl_v3_state cycle_impl_state;
__attribute__((__selectany__)) __thread struct cycle_impl_v3_thread
	cycle_impl_self;
__attribute__((__selectany__, __used__, __visibility__("hidden")))
int cycle_impl_fast __asm__(CYCLE_IMPL_FAST_NAME);
#else
__attribute__((__common__, __used__, __visibility__("hidden")))
int cycle_impl_fast __asm__(CYCLE_IMPL_FAST_NAME);
#define CYCLE_IMPL_SELF_NAME CYCLE_IMPL_STR(cycle_impl_self)
__attribute__((__common__)) struct cycle_impl_v3_state cycle_impl_state;
/* (.ifndef: -flto puts the files' top-level asm into one.) */
__asm__(".ifndef " CYCLE_IMPL_SELF_NAME "\n\t"
	".pushsection .tbss." CYCLE_IMPL_SELF_NAME ",\"awTG\",%nobits,"
	CYCLE_IMPL_SELF_NAME ",comdat\n\t"
	".weak " CYCLE_IMPL_SELF_NAME "\n\t"
	".type " CYCLE_IMPL_SELF_NAME ",%tls_object\n\t"
	".size " CYCLE_IMPL_SELF_NAME "," CYCLE_IMPL_STR(CYCLE_IMPL_THREAD_BYTES)
	"\n\t.balign 8\n"
	CYCLE_IMPL_SELF_NAME ":\n\t"
	".zero " CYCLE_IMPL_STR(CYCLE_IMPL_THREAD_BYTES) "\n\t"
	".popsection\n\t"
	".endif");
extern __thread struct cycle_impl_v3_thread cycle_impl_self
	__asm__(CYCLE_IMPL_SELF_NAME);
#endif
/* The guard's owner (cycle_impl_object). */
extern void *__dso_handle __attribute__((__weak__, __visibility__("hidden")));
#ifdef __cplusplus
}
#endif
typedef char cycle_impl_v3_thread_bytes[ /* the assembler's size is right */
	sizeof(struct cycle_impl_v3_thread) == CYCLE_IMPL_THREAD_BYTES ? 1 : -1];

/* The engine's large functions (CYCLE_IMPL_DECL). */
CYCLE_IMPL_DECL(void, cycle_impl_cat, (char *, size_t, size_t *, const char *));
CYCLE_IMPL_DECL(void, cycle_impl_chain, (int, siginfo_t *, void *));
CYCLE_IMPL_DECL(int, cycle_impl_install, (void));
CYCLE_IMPL_DECL(int, cycle_impl_remove, (void));
CYCLE_IMPL_DECL(int, cycle_impl_revoke, (int, int, const char *));
CYCLE_IMPL_DECL(void, cycle_impl_on_trap, (int, siginfo_t *, void *));
CYCLE_IMPL_DECL(int, cycle_impl_probe, (int, uint64_t *));
CYCLE_IMPL_DECL(void, cycle_impl_explain, (int, int, int, const char *));
CYCLE_IMPL_DECL(void, cycle_impl_choose, (int));
CYCLE_IMPL_DECL(void, cycle_impl_settle, (int));
CYCLE_IMPL_DECL(void, cycle_impl_quick, (int));
CYCLE_IMPL_DECL(ticks, cycle_impl_slow, (int));
CYCLE_IMPL_DECL(void, cycle_impl_unload, (void));
CYCLE_IMPL_DECL(double, cycle_impl_measure, (int, uint64_t));
CYCLE_IMPL_DECL(double, cycle_impl_rate, (int));
#if defined(CYCLE_IMPL_PERF_INDEX)
CYCLE_IMPL_DECL(int, cycle_impl_perf_open, (void));
CYCLE_IMPL_DECL(uint64_t, cycle_impl_perf_read, (void));
#endif
#ifdef CYCLE_IMPL_FOLD
#define cycle_impl_cat CYCLE_IMPL_REF(cycle_impl_cat)
#define cycle_impl_chain CYCLE_IMPL_REF(cycle_impl_chain)
#define cycle_impl_install CYCLE_IMPL_REF(cycle_impl_install)
#define cycle_impl_remove CYCLE_IMPL_REF(cycle_impl_remove)
#define cycle_impl_revoke CYCLE_IMPL_REF(cycle_impl_revoke)
#define cycle_impl_on_trap CYCLE_IMPL_REF(cycle_impl_on_trap)
#define cycle_impl_probe CYCLE_IMPL_REF(cycle_impl_probe)
#define cycle_impl_explain CYCLE_IMPL_REF(cycle_impl_explain)
#define cycle_impl_choose CYCLE_IMPL_REF(cycle_impl_choose)
#define cycle_impl_settle CYCLE_IMPL_REF(cycle_impl_settle)
#define cycle_impl_quick CYCLE_IMPL_REF(cycle_impl_quick)
#define cycle_impl_slow CYCLE_IMPL_REF(cycle_impl_slow)
#define cycle_impl_unload CYCLE_IMPL_REF(cycle_impl_unload)
#define cycle_impl_measure CYCLE_IMPL_REF(cycle_impl_measure)
#define cycle_impl_rate CYCLE_IMPL_REF(cycle_impl_rate)
#if defined(CYCLE_IMPL_PERF_INDEX)
#define cycle_impl_perf_open CYCLE_IMPL_REF(cycle_impl_perf_open)
#define cycle_impl_perf_read CYCLE_IMPL_REF(cycle_impl_perf_read)
#endif
#endif

/* --- getticks() and elapsed(). ---------------------------------------- */

/* The fast flag's address: one PC-relative load, or a port's assembly. */
#ifdef CYCLE_IMPL_FAST_ADDRESS
CYCLE_IMPL_INLINE int *cycle_impl_fast_address(void)
{
	int *p;

	__asm__(CYCLE_IMPL_FAST_ADDRESS(CYCLE_IMPL_FAST_NAME) : "=r"(p));
	return p;
}
#else
#define cycle_impl_fast_address() (&cycle_impl_fast)
#endif

/* All but the inline counter (the first call too): cycle_impl_slow(). */
CYCLE_IMPL_API ticks getticks(void)
{
#if CYCLE_IMPL_NHW > 0
	if (CYCLE_IMPL_LIKELY(CYCLE_IMPL_LOAD(cycle_impl_fast_address(),
					      CYCLE_IMPL_RELAXED)))
		return (ticks)cycle_impl_hw_read(CYCLE_IMPL_INLINE_INDEX);
#endif
	return cycle_impl_slow(CYCLE_IMPL_CONFIGURED);
}

/* A modular difference: it survives a wrap, and an interval across a
 * revocation is negative (cycle_impl_convert).  ARMv7's narrow ticks:
 * unsigned within an epoch (PERFORMANCE_COUNTERS.md, "Units"). */
CYCLE_IMPL_API double elapsed(ticks t1, ticks t0)
{
#if defined(CYCLE_IMPL_HAS_NARROW)
	if (CYCLE_IMPL_LOAD(&cycle_impl_state.narrow, CYCLE_IMPL_RELAXED)) {
		if ((t1 ^ t0) >> 32)
			return -(double)CYCLE_IMPL_SETBACK;
		return (double)(uint32_t)(t1 - t0);
	}
#endif
	return (double)(int64_t)(t1 - t0);
}

/* --- The engine's helpers: names, CYCLE_DEBUG's lines, reads. --------- */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes" /* see CYCLE_IMPL_COLD */

/* One string, not an array of pointers: no relocation, no writable page. */
CYCLE_IMPL_INLINE const char *cycle_impl_name(int index)
{
	static const char names[] = CYCLE_IMPL_NAMES "clock_gettime";
	const char *name = names;

	if (index < 0 || index >= CYCLE_IMPL_NCOUNTERS)
		return "none";
	while (index-- > 0)
		name += strlen(name) + 1;
	return name;
}

/* Index of a counter name (case-insensitive), or -1. */
CYCLE_IMPL_INLINE int cycle_impl_lookup(const char *name)
{
	int i, k;

	for (i = 0; i < CYCLE_IMPL_NCOUNTERS; i++) {
		const char *a = cycle_impl_name(i);

		for (k = 0; a[k] && (a[k] | 0x20) == (name[k] | 0x20); k++)
			;
		if (!a[k] && !name[k])
			return i;
	}
	return -1;
}

/* CYCLE_DEBUG's lines, without stdio (handlers; strict modes hide snprintf). */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_cat)(char *buf, size_t size,
						   size_t *n, const char *text)
{
	CYCLE_IMPL_SELF(cycle_impl_cat);
	while (*text && *n + 1 < size)
		buf[(*n)++] = *text++;
	buf[*n] = '\0';
}
/* libc's write() by its symbol: a fortified write() (musl's
 * fortify-headers) is always inline, which GCC refuses into the pin. */
extern ssize_t cycle_impl_write(int, const void *, size_t) __asm__("write");
#define cycle_impl_say(line) do { \
		int cycle_impl_errno = errno; /* a closed stderr's EBADF */ \
		(void)!cycle_impl_write(2, line, strlen(line)); \
		errno = cycle_impl_errno; \
	} while (0)

/* A value from the environment, then after: the value is cut short ("...")
 * where both would not fit, control characters become '?'. */
CYCLE_IMPL_INLINE void cycle_impl_cat_value(char *buf, size_t size,
					    size_t *n, const char *value,
					    const char *after)
{
	size_t keep = strlen(after) + 1, len = strlen(value);
	size_t room = size > *n + keep ? size - *n - keep : 0;
	size_t take = len <= room ? len : room > 3 ? room - 3 : 0;

	for (; take > 0; take--, value++)
		buf[(*n)++] = (unsigned char)*value < 0x20 || *value == 0x7f ?
			'?' : *value;
	cycle_impl_cat(buf, size, n, len > room && room >= 3 ? "..." : "");
	cycle_impl_cat(buf, size, n, after);
}

CYCLE_IMPL_INLINE void cycle_impl_cat_int(char *buf, size_t size, size_t *n,
					  unsigned long v)
{
	char digits[24], *p = digits + sizeof(digits) - 1;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	cycle_impl_cat(buf, size, n, p);
}

/* clock_gettime, 0 if it fails; where the vDSO reads counter 0 (x86: rdtsc,
 * which faults where turned off) the system call, unless counter 0 works
 * and is in use. */
CYCLE_IMPL_INLINE uint64_t cycle_impl_clock(void)
{
	struct timespec ts = {0, 0};
	int mode = CYCLE_IMPL_VDSO_READS_HW0 ?
		CYCLE_IMPL_LOAD(&cycle_impl_state.mode, CYCLE_IMPL_RELAXED) : 0;
	long failed;

	if (CYCLE_IMPL_VDSO_READS_HW0 && mode != CYCLE_IMPL_READY &&
	    (CYCLE_IMPL_LOAD(&cycle_impl_state.status[0], CYCLE_IMPL_RELAXED) !=
		     CYCLE_IMPL_AVAILABLE ||
	     CYCLE_IMPL_INDEX_OF(mode) == CYCLE_IMPL_CLOCK_INDEX))
		failed = cycle_impl_clock_syscall(CYCLE_IMPL_CLOCK, &ts);
	else
		failed = clock_gettime(CYCLE_IMPL_CLOCK, &ts);
	if (failed)
		return 0; /* (cycle_impl_blur discards such a window) */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock ns after c0, bounded: a sandbox's clock may not answer.  A
 * failed read (0) ends the wait at once: the window is lost anyway. */
CYCLE_IMPL_INLINE uint64_t cycle_impl_wait(uint64_t c0, uint64_t ns)
{
	uint64_t c = c0;
	long n;

	for (n = 0; n < 1000000 && c && c - c0 < ns; n++)
		c = cycle_impl_clock();
	return c;
}

/* Whether this thread leaves the trap signal unblocked, asked once: a trap
 * where it is blocked kills, so revocable counters are not read there. */
CYCLE_IMPL_INLINE int cycle_impl_trap_unblocked(void)
{
	struct cycle_impl_v3_thread *t = &cycle_impl_self;
	sigset_t s;

	if (CYCLE_IMPL_TRAP_SIGNAL == 0 || t->probing)
		return 1; /* the chooser unblocks it (cycle_impl_settle) */
	if (t->trap_ok == 0) {
		sigemptyset(&s);
		sigprocmask(SIG_BLOCK, NULL, &s);
		t->trap_ok = 1 + (sigismember(&s, CYCLE_IMPL_TRAP_SIGNAL) == 1);
	}
	return t->trap_ok == 1;
}

#ifndef CYCLE_IMPL_PERF_INDEX /* no perf tier: its hooks do nothing */
CYCLE_IMPL_INLINE uint64_t cycle_impl_perf_read(void)
{
	return 0;
}
#define cycle_impl_perf_open() 0
#define cycle_impl_perf_epoch() 0u
#define cycle_impl_perf_own() 0
#define cycle_impl_perf_trapped() 0
#define cycle_impl_perf_skipped(start, i) ((void)(start), (void)(i), 0)
#define cycle_impl_perf_settled() ((void)0)
#define cycle_impl_perf_explain(line, size, n) 0
#endif

/* A raw reading of counter index (ns for the clock); callers guard it. */
CYCLE_IMPL_INLINE uint64_t cycle_impl_read(int index)
{
	if (CYCLE_IMPL_IS_PERF(index))
		return cycle_impl_perf_read();
	return index < CYCLE_IMPL_NHW ? cycle_impl_hw_read(index)
				      : cycle_impl_clock();
}

/* A reading of counter index in ticks of the chosen one. */
CYCLE_IMPL_INLINE ticks cycle_impl_convert(int index, uint64_t reading)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	const struct cycle_impl_conversion *c = &g->conv[index];
	uint64_t t;

	if (index == g->chosen)
		return (ticks)reading;
	t = c->base + (uint64_t)(int64_t)(c->scale *
		(double)(int64_t)(reading - c->origin));
	if (g->narrow) /* epoch 1: see elapsed() */
		t = (uint64_t)1 << 32 | (uint32_t)t;
	return (ticks)t;
}

/* The first usable counter after index, the clock at the latest; with
 * skip_pmu, past revocable ones too (for threads that block the trap). */
CYCLE_IMPL_INLINE int cycle_impl_next(int index, int skip_pmu)
{
	int next = index + 1;

	while (next < CYCLE_IMPL_CLOCK_INDEX &&
	       (CYCLE_IMPL_LOAD(&cycle_impl_state.status[next],
				CYCLE_IMPL_RELAXED) != CYCLE_IMPL_AVAILABLE ||
		(skip_pmu && CYCLE_IMPL_REVOCABLE(next))))
		next++;
	return next;
}

#if defined(CYCLE_IMPL_PERF_INDEX)
/* --- The perf tier (aarch64): PMCCNTR_EL0 read through a perf event. -----
 * PERFORMANCE_COUNTERS.md, "The perf tier".  No kernel header: the heads of
 * perf_event_attr (to config1, PERF_ATTR_SIZE_VER0) and perf_event_mmap_page
 * follow. */
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
#define CYCLE_IMPL_BITFIELD(n) ((uint64_t)1 << \
	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 63 - (n) : (n)))
#define CYCLE_IMPL_PERF_CYCLE_INDEX 32 /* armv8pmu_user_event_idx() */
#define CYCLE_IMPL_PERF_PAGE_SIZE 4096 /* mapping one page of 4/16/64 KiB */
/* arm64's system call numbers (asm-generic/unistd.h); a call on that page:
 * CYCLE_IMPL_PAGE_CALL(MMAP, ...), MADVISE or MUNMAP. */
#define CYCLE_IMPL_SYS_OPENAT 56L
#define CYCLE_IMPL_SYS_READ 63L
#define CYCLE_IMPL_SYS_MUNMAP 215L
#define CYCLE_IMPL_SYS_MMAP 222L
#define CYCLE_IMPL_SYS_MADVISE 233L
#define CYCLE_IMPL_SYS_PERF_EVENT_OPEN 241L
#define CYCLE_IMPL_PAGE_CALL(nr, addr, a, b, fd) \
	cycle_impl_syscall6(CYCLE_IMPL_SYS_##nr, addr, \
			    CYCLE_IMPL_PERF_PAGE_SIZE, a, b, fd, 0)
#define CYCLE_IMPL_FAILED(ret) ((unsigned long)(ret) > -4096ul) /* -errno */
/* This thread opened the event (not a new one at the opener's address). */
#define CYCLE_IMPL_PERF_MINE() (cycle_impl_self.perf_mine && \
	cycle_impl_state.perf_opener == (const void *)&cycle_impl_self)
/* ... and reads it itself: not a fork() child, whose copy of the page is
 * gone (its sentinel reads 0).  Elsewhere the tier is the next one's. */
#define cycle_impl_perf_own() (CYCLE_IMPL_PERF_MINE() && \
	cycle_impl_state.perf_page && *cycle_impl_state.perf_alive)

/* syscall() of our own, as on x86 (host-symbols-t); -errno on failure. */
CYCLE_IMPL_INLINE long cycle_impl_syscall6(long nr, long a, long b, long c,
					   long d, long e, long f)
{
	register long x8 __asm__("x8") = nr, x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b, x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d, x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ __volatile__("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2),
			     "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
}

/* One pass over the page's protocol: 1 and the count in *value when
 * PMCCNTR_EL0 could be read directly, 0 when read() must answer. */
CYCLE_IMPL_INLINE int cycle_impl_perf_sample(
	const volatile struct cycle_impl_perf_page *pc, uint64_t *value)
{
	struct cycle_impl_v3_thread *t = &cycle_impl_self;
	uint32_t seq, idx, width, trapped;
	uint64_t pmc = 0, count = 0;
	int direct;

	do {
		seq = pc->lock;
		__asm__ __volatile__("" : : : "memory");
		idx = pc->index;
		width = pc->pmc_width;
		direct = (pc->capabilities & CYCLE_IMPL_BITFIELD(2)) != 0 &&
			 idx == CYCLE_IMPL_PERF_CYCLE_INDEX;
		if (direct) {
			/* Switched out since, it traps: the guard counts it. */
			trapped = t->perf_trapped;
			t->perf_reading = 1;
			__asm__ __volatile__("mrs %0, pmccntr_el0"
					     : "=r"(pmc) : : "memory");
			t->perf_reading = 0;
			direct = t->perf_trapped == trapped;
			if (width > 0 && width < 64)
				pmc = (uint64_t)((int64_t)(pmc << (64 - width))
						 >> (64 - width));
			count = (uint64_t)pc->offset + pmc;
		}
		__asm__ __volatile__("" : : : "memory");
	} while (pc->lock != seq);
	*value = count;
	return direct;
}

/* Why the tier is not in use (or "open"); for CYCLE_DEBUG and cycle-probe. */
CYCLE_IMPL_INLINE const char *cycle_impl_perf_reason(int state)
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
 * this thread can read the tier.  The guard must be installed.  No stdio:
 * the choice may run in a signal handler. */
CYCLE_IMPL_COLD int CYCLE_IMPL_FN(cycle_impl_perf_open)(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct cycle_impl_perf_attr attr;
	int expected = CYCLE_IMPL_PERF_UNTRIED, state;
	long fd, page, alive = -1, err = 0;
	char c = 0;
	uint64_t v;

	CYCLE_IMPL_SELF(cycle_impl_perf_open);
	if (!CYCLE_IMPL_CAS(&g->perf_state, &expected, CYCLE_IMPL_PERF_BUSY))
		return expected == CYCLE_IMPL_PERF_OPEN &&
		       CYCLE_IMPL_PERF_MINE();
	/* Not libc's open() and read(): glibc's _FORTIFY_SOURCE wraps them in
	 * always-inline functions, which GCC will not inline into code built
	 * for less than the file (CYCLE_IMPL_PIN). */
	fd = cycle_impl_syscall6(CYCLE_IMPL_SYS_OPENAT, -100 /* AT_FDCWD */,
				 (long)"/proc/sys/kernel/perf_user_access",
				 O_RDONLY, 0, 0, 0);
	state = fd < 0 ? CYCLE_IMPL_PERF_NO_SYSCTL : CYCLE_IMPL_PERF_SYSCTL_OFF;
	if (fd >= 0) {
		if (cycle_impl_syscall6(CYCLE_IMPL_SYS_READ, fd, (long)&c, 1, 0,
					0, 0) != 1)
			c = 0;
		close((int)fd);
	}
	if (c != '1')
		goto out;
	/* Type and config 0: CPU cycles.  exclude_kernel, exclude_hv: what
	 * perf_event_paranoid=2 allows; config1: "long" (64 bits), "rdpmc". */
	__builtin_memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.flags = CYCLE_IMPL_BITFIELD(5) | CYCLE_IMPL_BITFIELD(6);
	attr.config1 = 3;
	/* perf_event_open(attr, this thread, any CPU, no group, CLOEXEC). */
	state = CYCLE_IMPL_PERF_OPEN_FAILED;
	err = fd = cycle_impl_syscall6(CYCLE_IMPL_SYS_PERF_EVENT_OPEN,
				       (long)(uintptr_t)&attr, 0, -1, -1, 8, 0);
	if (fd < 0)
		goto out;
	state = CYCLE_IMPL_PERF_MMAP_FAILED;
	err = page = CYCLE_IMPL_PAGE_CALL(MMAP, 0, 1 /* PROT_READ */,
					  1 /* MAP_SHARED */, fd);
	if (CYCLE_IMPL_FAILED(page))
		goto out_close;
	/* A child of fork() gets no copy of the event's page: it finds this
	 * MADV_WIPEONFORK page zeroed and reads another tier instead. */
	err = alive = CYCLE_IMPL_PAGE_CALL(MMAP, 0, 3 /* PROT_READ|PROT_WRITE */,
					   0x22 /* MAP_PRIVATE|MAP_ANON */, -1);
	if (!CYCLE_IMPL_FAILED(alive))
		err = CYCLE_IMPL_PAGE_CALL(MADVISE, alive,
					   18 /* MADV_WIPEONFORK */, 0, 0);
	if (err != 0)
		goto out_unmap;
	state = CYCLE_IMPL_PERF_NO_RDPMC;
	if (!cycle_impl_perf_sample(
		    (const volatile struct cycle_impl_perf_page *)page, &v))
		goto out_unmap;
	*(volatile int *)(uintptr_t)alive = 1;
	g->perf_alive = (volatile int *)(uintptr_t)alive;
	g->perf_fd = (int)fd;
	cycle_impl_self.perf_mine = 1;
	g->perf_opener = &cycle_impl_self;
	g->perf_page = (volatile void *)(uintptr_t)page;
	state = CYCLE_IMPL_PERF_OPEN;
	goto out;
out_unmap: /* (alive: mapped, or -errno) */
	if (!CYCLE_IMPL_FAILED(alive))
		CYCLE_IMPL_PAGE_CALL(MUNMAP, alive, 0, 0, 0);
	CYCLE_IMPL_PAGE_CALL(MUNMAP, page, 0, 0, 0);
out_close:
	close((int)fd);
out:
	g->perf_errno = (int)-err; /* 0 unless a call failed */
	CYCLE_IMPL_STORE(&g->perf_state, state, CYCLE_IMPL_RELEASE);
	return state == CYCLE_IMPL_PERF_OPEN;
}

/* The event's count (the opening thread's user-mode cycles); other threads,
 * a fork() child and a thread blocking SIGILL get the next tier's, scaled. */
CYCLE_IMPL_NOINLINE uint64_t CYCLE_IMPL_FN(cycle_impl_perf_read)(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	const volatile struct cycle_impl_perf_page *pc =
		(const volatile struct cycle_impl_perf_page *)g->perf_page;
	uint64_t v;
	int other;

	CYCLE_IMPL_SELF(cycle_impl_perf_read);
	if (cycle_impl_perf_own()) {
		if (cycle_impl_trap_unblocked() &&
		    cycle_impl_perf_sample(pc, &v))
			return v;
		/* Not in PMCCNTR_EL0 now (multiplexed, sysctl turned off,
		 * trapped, SIGILL blocked): the kernel knows the count. */
		if (cycle_impl_syscall6(CYCLE_IMPL_SYS_READ, g->perf_fd,
					(long)&v, (long)sizeof(v), 0, 0, 0) ==
		    (long)sizeof(v))
			return v;
	}
	other = cycle_impl_next(CYCLE_IMPL_PERF_INDEX, 1);
	return cycle_impl_convert(other, cycle_impl_read(other));
}

/* The page's sequence count, which the kernel moves when it switches the
 * opening thread out and back in (the tier counts nothing meanwhile): a
 * window across a change is lost (cycle_impl_measure).  0 elsewhere. */
CYCLE_IMPL_INLINE uint32_t cycle_impl_perf_epoch(void)
{
	return cycle_impl_perf_own() ? ((const volatile struct
		cycle_impl_perf_page *)cycle_impl_state.perf_page)->lock : 0;
}

/* The guard's question: was it the mrs of a perf read that trapped? */
#define cycle_impl_perf_trapped() \
	(cycle_impl_self.perf_reading ? (cycle_impl_self.perf_trapped++, 1) : 0)

/* Phase 1: skip the tier (counter i) when direct reads of PMCCNTR_EL0 move
 * in 20 us (readable is not enough: a perf_user_access task leaves EL0
 * access on, counter stopped): a perf cycles event would take it from them. */
CYCLE_IMPL_INLINE int cycle_impl_perf_skipped(int start, int i)
{
	uint64_t a, b, c0;

	if (i != CYCLE_IMPL_PERF_INDEX || start >= i ||
	    cycle_impl_state.status[0] != CYCLE_IMPL_AVAILABLE)
		return 0;
	c0 = cycle_impl_clock();
	if (!cycle_impl_probe(0, &a))
		return 0;
	cycle_impl_wait(c0, 20000);
	if (!cycle_impl_probe(0, &b) || b == a)
		return 0;
	cycle_impl_state.perf_state = CYCLE_IMPL_PERF_DIRECT;
	return 1;
}

/* After phase 1: with the event open, direct PMCCNTR_EL0 reads jump at every
 * switch, and they did not count before (perf_skipped): frozen. */
CYCLE_IMPL_INLINE void cycle_impl_perf_settled(void)
{
	if (cycle_impl_state.perf_state == CYCLE_IMPL_PERF_OPEN &&
	    cycle_impl_state.status[0] == CYCLE_IMPL_AVAILABLE)
		cycle_impl_state.status[0] = CYCLE_IMPL_FROZEN;
}

/* CYCLE_DEBUG's words for a tier that is not open; 0 where it is. */
CYCLE_IMPL_INLINE int cycle_impl_perf_explain(char *line, size_t size,
					      size_t *n)
{
	int state = cycle_impl_state.perf_state;

	if (state == CYCLE_IMPL_PERF_OPEN)
		return 0;
	cycle_impl_cat(line, size, n, " unavailable: ");
	cycle_impl_cat(line, size, n, cycle_impl_perf_reason(state));
	if (state == CYCLE_IMPL_PERF_OPEN_FAILED ||
	    state == CYCLE_IMPL_PERF_MMAP_FAILED) {
		cycle_impl_cat(line, size, n, " (errno ");
		cycle_impl_cat_int(line, size, n,
				   (unsigned long)cycle_impl_state.perf_errno);
		cycle_impl_cat(line, size, n, ")");
	}
	return 1;
}
#endif /* the perf tier */

/* --- The guard: it completes our reads, passes the rest on. ---------- */

/* Whether sa's handler is h, with SA_SIGINFO or without: signal() puts a
 * handler back without it (cycle_impl_rearm). */
CYCLE_IMPL_INLINE int cycle_impl_is_handler(const struct sigaction *sa,
					    cycle_impl_handler h)
{
	return h && sa->sa_sigaction == h;
}

/* A guard of this state (this file's, the installed or the last one set)
 * is never chained to: two guards would pass a fault back and forth. */
CYCLE_IMPL_INLINE int cycle_impl_is_guard(const struct sigaction *sa)
{
	return cycle_impl_is_handler(sa, cycle_impl_on_trap) ||
	       cycle_impl_is_handler(sa, cycle_impl_state.installed) ||
	       cycle_impl_is_handler(sa, cycle_impl_state.installer);
}

/* What the kernel would have done with the program's own action. */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_chain)(int sig, siginfo_t *info,
					void *context)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct sigaction prev = g->previous;
	unsigned int flags = (unsigned int)prev.sa_flags;
	void (*plain)(int) = prev.sa_handler; /* or sa_sigaction: a union */
	int sent = info->si_code <= 0, s; /* kill(), raise(), sigqueue() */
	sigset_t mask, old;

	CYCLE_IMPL_SELF(cycle_impl_chain);
	if (cycle_impl_is_guard(&prev))
		plain = SIG_DFL; /* no program action is left to reach */
	if (plain == SIG_IGN && sent)
		return; /* a sent signal, ignored */
	if (plain == SIG_DFL || plain == SIG_IGN) {
		/* The default (a fault is never ignored): a fault re-executes
		 * on return and kills; a sent signal is sent again. */
		__builtin_memset(&prev, 0, sizeof(prev));
		prev.sa_handler = SIG_DFL;
		sigemptyset(&prev.sa_mask);
		sigaction(sig, &prev, NULL);
		if (sent)
			raise(sig);
		return;
	}
	if (flags & CYCLE_IMPL_SA_RESETHAND) { /* once, then the default */
		g->previous.sa_flags = (int)(flags & ~(CYCLE_IMPL_SA_RESETHAND |
					(unsigned int)SA_SIGINFO));
		g->previous.sa_handler = SIG_DFL;
	}
	/* The kernel's: the interrupted code's, sa_mask, sig (!SA_NODEFER). */
	mask = ((ucontext_t *)context)->uc_sigmask;
	for (s = 1; s < 65; s++)
		if (sigismember(&prev.sa_mask, s) == 1)
			sigaddset(&mask, s);
	if (!(flags & CYCLE_IMPL_SA_NODEFER))
		sigaddset(&mask, sig);
	sigprocmask(SIG_SETMASK, &mask, &old);
	if (flags & SA_SIGINFO)
		prev.sa_sigaction(sig, info, context);
	else
		plain(sig);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The program or shared object this file is in, the guard's owner, known
 * by its __dso_handle (one each, for __cxa_atexit), not by the guard's code
 * (that would pull the engine into files that never read a counter). */
CYCLE_IMPL_INLINE const void *cycle_impl_object(void)
{
	return &__dso_handle;
}

/* The guard's action.  RESTART: no EINTR from the program's calls;
 * ONSTACK: its alternate stack, if any; the mask: cycle_impl_chain() sets
 * the program's. */
CYCLE_IMPL_INLINE void cycle_impl_guard_action(struct sigaction *sa,
					       cycle_impl_handler guard)
{
	__builtin_memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = guard;
	sa->sa_flags = (int)(SA_SIGINFO | CYCLE_IMPL_SA_RESTART |
			     CYCLE_IMPL_SA_ONSTACK);
	sigfillset(&sa->sa_mask);
}

/* Installs this object's guard unless one is installed; 1 when one is. */
CYCLE_IMPL_COLD int CYCLE_IMPL_FN(cycle_impl_install)(void)
{
	/* The object's destructor, listed by a pointer of the installer's own
	 * (no code where nothing installs a guard, even at -O0), runs last in
	 * the object: a getticks() after it would put the guard back into
	 * code about to be unmapped (PERFORMANCE_COUNTERS.md, "Costs"). */
	static void (*unload_entry)(void) __attribute__((__section__(
		CYCLE_IMPL_FINI), __unused__)) =
		CYCLE_IMPL_ALIAS(cycle_impl_unload);
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct sigaction sa, prev, seen;

	CYCLE_IMPL_SELF(cycle_impl_install);
	if (CYCLE_IMPL_TRAP_SIGNAL == 0)
		return 0;
	if (g->installed)
		return 1;
	cycle_impl_guard_action(&sa, cycle_impl_on_trap);
	/* The program's action is saved and the guard named before it is set,
	 * for a child forked in between.  A guard of this state found set (a
	 * fork cut an install, or a thread put a removed one back) is not
	 * saved: the program's action saved with it stays. */
	if (sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &seen) != 0)
		return 0;
	if (!cycle_impl_is_guard(&seen))
		g->previous = seen;
	g->installer = cycle_impl_on_trap;
	g->installer_object = cycle_impl_object();
	CYCLE_IMPL_KEEP(cycle_impl_unload);
	__asm__ __volatile__("" : : "m"(unload_entry)); /* keep it */
	if (sigaction(CYCLE_IMPL_TRAP_SIGNAL, &sa, &prev) != 0)
		return 0;
	/* Changed in between by another thread: that one is replaced. */
	if ((prev.sa_handler != seen.sa_handler ||
	     prev.sa_flags != seen.sa_flags) && !cycle_impl_is_guard(&prev))
		g->previous = prev;
	g->installed = cycle_impl_on_trap;
	return 1;
}

/* Gives the program its action back if ours is still set; 1 when it did.
 * The guard is forgotten first: a child forked in between finds one set and
 * none recorded (cycle_impl_after_cut), never one recorded and gone. */
CYCLE_IMPL_COLD int CYCLE_IMPL_FN(cycle_impl_remove)(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	cycle_impl_handler mine = g->installed;
	struct sigaction now;

	CYCLE_IMPL_SELF(cycle_impl_remove);
	if (!mine)
		return 0;
	g->installed = NULL;
	return sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &now) == 0 &&
	       cycle_impl_is_handler(&now, mine) &&
	       sigaction(CYCLE_IMPL_TRAP_SIGNAL, &g->previous, NULL) == 0;
}

/* At dlclose the object that set the guard takes it away, or it would point
 * into unmapped code; the next getticks() of an object that stays puts its
 * own back (REGUARD). */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_unload)(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	cycle_impl_handler mine = g->installer;
	struct sigaction now;
	int mode;

	CYCLE_IMPL_SELF(cycle_impl_unload);
	if (CYCLE_IMPL_TRAP_SIGNAL == 0 || !mine ||
	    g->installer_object != cycle_impl_object())
		return;
	/* Its address may be another function's after the unload. */
	g->installer = NULL;
	g->installer_object = NULL;
	if (g->installed != mine) {
		/* Removed, then put back by a thread that had saved it (an
		 * OpenSSL-style probe): a stray must not outlive the code. */
		if (sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &now) == 0 &&
		    cycle_impl_is_handler(&now, mine))
			sigaction(CYCLE_IMPL_TRAP_SIGNAL, &g->previous, NULL);
		return;
	}
	/* Only if still ours: a handler the program set on top of it stays. */
	if (!cycle_impl_remove())
		return;
	mode = CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE);
	g->resume = mode;
	if (mode >= CYCLE_IMPL_READY)
		CYCLE_IMPL_STORE(&g->mode, CYCLE_IMPL_REGUARD,
				 CYCLE_IMPL_RELEASE);
}

/* Counter index, in use in mode, was taken away (it trapped, its access bit
 * went, or it stopped): the next usable one for good; returns the new mode. */
CYCLE_IMPL_COLD int CYCLE_IMPL_FN(cycle_impl_revoke)(int index, int mode,
						     const char *why)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int next = cycle_impl_next(index, 0);
	char line[160];
	size_t n = 0;

	CYCLE_IMPL_SELF(cycle_impl_revoke);
	if (!CYCLE_IMPL_CAS(&g->mode, &mode, CYCLE_IMPL_CONVERTED + next))
		return mode; /* another thread switched first */
	CYCLE_IMPL_STORE(&g->status[index], CYCLE_IMPL_TRAPS,
			 CYCLE_IMPL_RELAXED);
	if (g->debug) {
		cycle_impl_cat(line, sizeof(line), &n, "cycle.h: ");
		cycle_impl_cat(line, sizeof(line), &n, cycle_impl_name(index));
		cycle_impl_cat(line, sizeof(line), &n, why);
		cycle_impl_cat(line, sizeof(line), &n,
			       " after the choice; now using ");
		cycle_impl_cat(line, sizeof(line), &n, cycle_impl_name(next));
		cycle_impl_cat(line, sizeof(line), &n, "\n");
		cycle_impl_say(line);
	}
	return CYCLE_IMPL_CONVERTED + next;
}

/* The guard called without a frame: put back by signal() without
 * SA_SIGINFO (FFTW's neon.c: old = signal(SIGILL, probe); ...; signal(
 * SIGILL, old)), or by SysV signal() and now reset.  It sets its action
 * right (the program's, if no guard is wanted) and returns 1: the
 * instruction traps again, with a frame.  Set right by another thread
 * already: the same, but a second time in a row the frame is believed (0:
 * a system that lays it out otherwise would loop).  Called by other code,
 * or refused by a sandbox: no frame and no way on but a loop, so abort(). */
CYCLE_IMPL_INLINE int cycle_impl_rearm(int sig)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct sigaction now, sa;
	int ours;

	if (sigaction(sig, NULL, &now) != 0)
		abort();
	ours = cycle_impl_is_guard(&now);
	if (ours && (now.sa_flags & SA_SIGINFO))
		return cycle_impl_self.unframed++ == 0;
	if (!ours &&
	    !(now.sa_handler == SIG_DFL &&
	      ((unsigned int)now.sa_flags & CYCLE_IMPL_SA_RESETHAND)))
		abort();
	if (g->installed)
		cycle_impl_guard_action(&sa, g->installed);
	else
		sa = g->previous;
	if (sigaction(sig, &sa, NULL) != 0)
		abort();
	return 1;
}

/* The guard itself.  What it completes reads 0 unless the counter in use
 * was revoked: then the next counter's reading, converted. */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_on_trap)(int sig, siginfo_t *info,
					  void *context)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int saved_errno = errno, reg = 0, index, mode, active;
	uint64_t value = 0;

	CYCLE_IMPL_SELF(cycle_impl_on_trap);
	if (!CYCLE_IMPL_FULL_FRAME(info, context) && cycle_impl_rearm(sig)) {
		errno = saved_errno;
		return;
	}
	/* The thread's record only for a read of ours: a dlopen'ed object's
	 * TLS may be allocated at its first touch, not a signal's business. */
	index = cycle_impl_decode(info, context, &reg);
	if (index >= 0)
		cycle_impl_self.unframed = 0;
	if (index < 0) {
		cycle_impl_chain(sig, info, context);
	} else if (index == CYCLE_IMPL_ACCESS_REGISTER ||
		   (index == 0 && cycle_impl_perf_trapped())) {
		/* No PMU for this task (a hypervisor without one), or a perf
		 * read descheduled after it read the page: it asks read(). */
		cycle_impl_complete(context, reg, 0);
	} else if (cycle_impl_self.probing) { /* it sees the trap */
		cycle_impl_self.probe_traps++;
		cycle_impl_complete(context, reg, 0);
	} else {
		CYCLE_IMPL_ADD(&g->traps, 1, CYCLE_IMPL_RELAXED);
		mode = CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE);
		if (mode >= CYCLE_IMPL_READY &&
		    CYCLE_IMPL_INDEX_OF(mode) == index &&
		    CYCLE_IMPL_REVOCABLE(index))
			mode = cycle_impl_revoke(index, mode, " trapped");
		/* Else a counter of another object that was never chosen: 0,
		 * and its caller re-checks. */
		active = CYCLE_IMPL_INDEX_OF(mode);
		if (mode >= CYCLE_IMPL_READY && active != index)
			value = cycle_impl_convert(active,
						   cycle_impl_read(active));
		cycle_impl_complete(context, reg, value);
	}
	errno = saved_errno;
}

/* Reads counter index under the guard; 0 (and *value 0) when it trapped or
 * was not read.  Revokes nothing. */
CYCLE_IMPL_COLD int CYCLE_IMPL_FN(cycle_impl_probe)(int index, uint64_t *value)
{
	struct cycle_impl_v3_thread *t = &cycle_impl_self;
	unsigned before;
	int was;

	CYCLE_IMPL_SELF(cycle_impl_probe);
	*value = 0;
	/* The clock, counters that never trap, and one the kernel says
	 * reads (CNTVCT_EL0) need no guard. */
	if (index >= CYCLE_IMPL_NHW || CYCLE_IMPL_TRAP_SIGNAL == 0 ||
	    (index == CYCLE_IMPL_INLINE_INDEX && cycle_impl_quiet(index)))
		goto unguarded;
	if (t->no_traps)
		return 0;
	if (!cycle_impl_install()) {
		/* Neither the kernel (seccomp refuses PR_GET_TSC) nor the
		 * guard answers: rdtsc is read as the classic header does. */
		if (!CYCLE_IMPL_UNGUARDED_OK || index != 0)
			return 0;
		goto unguarded;
	}
	/* A PMU counter not granted is not read: no trap for another thread's
	 * SIGILL handler.  PMUv3.9's "perhaps" is read, guarded. */
	if ((index == 0 && cycle_impl_pmu_access() == CYCLE_IMPL_PMU_DENIED) ||
	    (CYCLE_IMPL_IS_PERF(index) && !cycle_impl_perf_open()))
		return 0;
	was = t->probing;
	t->probing = 1;
	before = t->probe_traps;
	__asm__ __volatile__("" : : : "memory");
	*value = cycle_impl_read(index);
	__asm__ __volatile__("" : : : "memory");
	t->probing = was;
	return t->probe_traps == before;
unguarded:
	*value = cycle_impl_read(index);
	return 1;
}

/* --- The choice, in phases. ------------------------------------------- */

/* getenv, but not in a process with privileges its invoker lacks: glibc's
 * secure_getenv, else the IDs (<sys/auxv.h> would bring in <elf.h>).  It
 * is named by its symbol: <stdlib.h> declares it only under _GNU_SOURCE,
 * and every file's engine must be the same. */
#if defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 17))
#define CYCLE_IMPL_HAS_SECURE_GETENV 1
extern char *cycle_impl_secure_getenv(const char *) __asm__("secure_getenv");
#endif
CYCLE_IMPL_INLINE const char *cycle_impl_getenv(const char *name)
{
#ifdef CYCLE_IMPL_HAS_SECURE_GETENV
	return cycle_impl_secure_getenv(name);
#else
	const char *value = getenv(name);

	if (value && (getuid() != geteuid() || getgid() != getegid()))
		return NULL;
	return value;
#endif
}

/* Whether CYCLE_DEBUG asks for lines on stderr ("0" and "" do not). */
CYCLE_IMPL_INLINE int cycle_impl_debug_wanted(void)
{
	const char *debug = cycle_impl_getenv("CYCLE_DEBUG");

	return debug && *debug && strcmp(debug, "0") != 0;
}

/* Where the chain starts: CYCLE_COUNTER's counter, or the configured one. */
CYCLE_IMPL_INLINE int cycle_impl_choice_start(int configured, int *requested)
{
	const char *request = cycle_impl_getenv("CYCLE_COUNTER");
	char line[160];
	size_t n = 0;
	int r;

	cycle_impl_state.debug = cycle_impl_debug_wanted();
	*requested = 0;
	if (!request || !*request)
		return configured;
	r = cycle_impl_lookup(request);
	if (r >= 0) {
		*requested = 1;
		return r;
	}
	cycle_impl_cat(line, sizeof(line), &n, "cycle.h: CYCLE_COUNTER=");
	cycle_impl_cat_value(line, sizeof(line), &n, request,
			     " is not a counter of this machine; ignored\n");
	cycle_impl_say(line);
	return configured;
}

/* Phase 1: which candidates read without trapping.  (Whether rdtsc works
 * decides how the clock is read on x86, wherever the chain starts.) */
CYCLE_IMPL_INLINE void cycle_impl_find_readable(int start)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	uint64_t v;
	int i;

	if (CYCLE_IMPL_VDSO_READS_HW0)
		g->status[0] = cycle_impl_probe(0, &v) ? CYCLE_IMPL_AVAILABLE
						       : CYCLE_IMPL_TRAPS;
	for (i = start; i < CYCLE_IMPL_NCOUNTERS; i++)
		g->status[i] = !cycle_impl_perf_skipped(start, i) &&
			cycle_impl_probe(i, &v) ? CYCLE_IMPL_AVAILABLE
						: CYCLE_IMPL_TRAPS;
	cycle_impl_perf_settled();
}

/* The rate of counter i that advanced by d in ns of the clock: a stated
 * rate (CNTFRQ) that the measurement confirms is more exact, and the only
 * one where the clock did not move (0: unknown). */
CYCLE_IMPL_INLINE double cycle_impl_hz(int i, uint64_t d, uint64_t ns)
{
	double hz = ns ? (double)d * 1e9 / (double)ns : 0.0;
	double nominal = cycle_impl_hw_nominal_hz(i);

	if (nominal > 0 && (!ns || (hz > 0.9 * nominal && hz < 1.1 * nominal)))
		return nominal;
	return hz;
}

/* Reads the usable counters from start on into v, the clock last. */
CYCLE_IMPL_INLINE void cycle_impl_sample(int start, uint64_t *v)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int i;

	for (i = start; i < CYCLE_IMPL_NCOUNTERS; i++)
		if (g->status[i] == CYCLE_IMPL_AVAILABLE &&
		    !cycle_impl_probe(i, &v[i]))
			g->status[i] = CYCLE_IMPL_TRAPS;
}

/* The share of a window that the brackets of its readings take (the clock
 * read c0, the first reading, c1, ..., c2, the last reading, c3): where a
 * preemption shows (PERFORMANCE_COUNTERS.md, "How it works").  +1: a clock
 * that does not move.  -1: a read failed (0, or the clock went back). */
CYCLE_IMPL_INLINE double cycle_impl_blur(uint64_t c0, uint64_t c1,
					 uint64_t c2, uint64_t c3)
{
	if (c0 == 0 || c1 < c0 || c2 < c1 || c3 < c2)
		return -1.0;
	return (double)((c1 - c0) + (c3 - c2)) / (double)(c2 - c1 + 1);
}
/* Whether blur is sharper than best, the sharpest so far (-1: none yet). */
#define CYCLE_IMPL_SHARPER(blur, best) \
	((blur) >= 0 && ((best) < 0 || (blur) < (best)))

/* The CPU this thread runs on (-1: unknown).  A window across a migration
 * is not measured: each CPU's PMU counter counted its own cycles (none in
 * idle), so the difference is any number.  glibc's, by its symbol (as
 * secure_getenv above); rate-t moves the thread between windows. */
#ifndef cycle_impl_cpu
#if defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 6))
extern int cycle_impl_sched_getcpu(void) __asm__("sched_getcpu");
#define cycle_impl_cpu() cycle_impl_sched_getcpu()
#else
#define cycle_impl_cpu() (-1)
#endif
#endif

/* Phase 2: which of them advance, how fast; last[] gets the final readings
 * of the sharpest window, or of the first where the clock never went on
 * (phase 1 found what traps: no trap's handling blurs one). */
CYCLE_IMPL_INLINE void cycle_impl_calibrate(int start, uint64_t *last)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	/* (= {0}: the first window is always kept; some GCCs cannot see it.) */
	uint64_t first[CYCLE_IMPL_NCOUNTERS] = {0};
	uint64_t v0[CYCLE_IMPL_NCOUNTERS] = {0}, v1[CYCLE_IMPL_NCOUNTERS] = {0};
	uint64_t c0, c1, ns = 0, d, v;
	double blur, best = -1.0;
	int i, tries, n, readable, cpu;

	g->status[CYCLE_IMPL_CLOCK_INDEX] = CYCLE_IMPL_AVAILABLE;
	g->hz[CYCLE_IMPL_CLOCK_INDEX] = 1e9;
	if (start == CYCLE_IMPL_CLOCK_INDEX) {
		cycle_impl_sample(start, last);
		return;
	}
	for (tries = 0; tries < CYCLE_IMPL_TRIES &&
	     (best < 0 || best > CYCLE_IMPL_SHARP); tries++) {
		cpu = cycle_impl_cpu();
		c0 = cycle_impl_clock();
		cycle_impl_sample(start, v0);
		c1 = cycle_impl_wait(v0[CYCLE_IMPL_CLOCK_INDEX],
				     CYCLE_IMPL_CALIBRATE_NS);
		cycle_impl_sample(start, v1);
		blur = cycle_impl_cpu() == cpu ?
			cycle_impl_blur(c0, v0[CYCLE_IMPL_CLOCK_INDEX], c1,
					v1[CYCLE_IMPL_CLOCK_INDEX]) : -1.0;
		if (tries == 0 || CYCLE_IMPL_SHARPER(blur, best)) {
			best = blur;
			ns = (v1[CYCLE_IMPL_CLOCK_INDEX] + c1) / 2 -
			     (v0[CYCLE_IMPL_CLOCK_INDEX] + c0) / 2;
			__builtin_memcpy(first, v0, sizeof(first));
			__builtin_memcpy(last, v1, sizeof(v1));
		}
	}
	if (best < 0)
		ns = 0; /* a read failed in every window: no rate */
	for (i = start; i < CYCLE_IMPL_CLOCK_INDEX; i++) {
		if (g->status[i] != CYCLE_IMPL_AVAILABLE)
			continue;
		d = last[i] - first[i];
		/* No window counted (failed reads, perhaps too soon for a
		 * 1 MHz counter): a spin of its own, as in cycle_impl_quick. */
		readable = 1;
		for (n = 0; best < 0 && d == 0 && readable && n < 100000; n++)
			if ((readable = cycle_impl_probe(i, &v)) != 0)
				d = v - first[i];
		if (CYCLE_IMPL_NARROW(i))
			d = (uint32_t)d;
		if (!readable)
			g->status[i] = CYCLE_IMPL_TRAPS;
		else if (d == 0 || d >= (uint64_t)1 << 62)
			g->status[i] = CYCLE_IMPL_FROZEN;
		else
			g->hz[i] = cycle_impl_hz(i, d, ns);
	}
}

/* FFTW's shortest measurement in ticks of counter index, at rate hz. */
CYCLE_IMPL_INLINE double cycle_impl_time_min_for(int index, double hz)
{
	double tmin = hz * CYCLE_IMPL_TIME_MIN_S;

	if (index == CYCLE_IMPL_CLOCK_INDEX)
		return CYCLE_IMPL_CLOCK_TIME_MIN;
	if (CYCLE_IMPL_CYCLES(index))
		return CYCLE_IMPL_CYCLE_TIME_MIN;
	return tmin < CYCLE_IMPL_TIME_MIN_TICKS ? CYCLE_IMPL_TIME_MIN_TICKS
						: tmin;
}

/* Counter i's reading origin will be the chosen counter's last_chosen, set
 * back, and its steps scaled by the ratio of rates (cycle_impl_convert);
 * state.chosen, narrow and both rates must be set. */
CYCLE_IMPL_INLINE void cycle_impl_link(int i, uint64_t origin,
				       uint64_t last_chosen)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	double hz = g->hz[g->chosen];

	g->conv[i].origin = origin;
	g->conv[i].base = g->narrow ? last_chosen
				    : last_chosen - CYCLE_IMPL_SETBACK;
	/* Rates unknown (no clock): a guess, but finite and moving. */
	g->conv[i].scale = hz > 0 && g->hz[i] > 0 ? hz / g->hz[i] : 1.0;
}

/* CYCLE_DEBUG's line: the counter chosen, why not the ones before, a note. */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_explain)(int start, int chosen,
					  int requested, const char *note)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	char line[400];
	size_t n = 0;
	int i, unread = 0;

	CYCLE_IMPL_SELF(cycle_impl_explain);
	cycle_impl_cat(line, sizeof(line), &n, "cycle.h: using ");
	cycle_impl_cat(line, sizeof(line), &n, cycle_impl_name(chosen));
	cycle_impl_cat(line, sizeof(line), &n,
		       requested ? " (CYCLE_COUNTER " : " (configured ");
	cycle_impl_cat(line, sizeof(line), &n, cycle_impl_name(start));
	for (i = start; i < chosen; i++) {
		cycle_impl_cat(line, sizeof(line), &n, i == start ? "; " : ", ");
		cycle_impl_cat(line, sizeof(line), &n, cycle_impl_name(i));
		if (CYCLE_IMPL_IS_PERF(i) &&
		    cycle_impl_perf_explain(line, sizeof(line), &n))
			continue;
		/* Never read (settle, after_cut), or read and trapped. */
		unread |= g->status[i] == CYCLE_IMPL_TRAPS &&
			  cycle_impl_self.no_traps;
		cycle_impl_cat(line, sizeof(line), &n,
			       g->status[i] == CYCLE_IMPL_FROZEN ? " is frozen"
			       : cycle_impl_self.no_traps ? " not read"
			       : " traps");
	}
	if (unread)
		cycle_impl_cat(line, sizeof(line), &n, "; no guard to trust: "
			       "a trap signal pending, or a fork mid-install");
	cycle_impl_cat(line, sizeof(line), &n, note);
	cycle_impl_cat(line, sizeof(line), &n, ")\n");
	cycle_impl_say(line);
}

/* A choice taken over from a forked chooser: the guard's action and its
 * record may disagree, either way (fork() copies the actions before the
 * memory: a guard recorded as installed may be missing).  Anything but a
 * guard set: none is reliably there, and one installed now could pass a
 * fault back and forth with a wrapper the child set: probe nothing that
 * traps. */
CYCLE_IMPL_INLINE void cycle_impl_after_cut(void)
{
	struct sigaction now;

	if (CYCLE_IMPL_TRAP_SIGNAL != 0 && cycle_impl_state.installer &&
	    (sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &now) != 0 ||
	     !cycle_impl_is_guard(&now)))
		cycle_impl_self.no_traps = 1;
}

/* The whole choice, under the chooser lock.  Phase 3: the first usable
 * counter defines the unit; later ones are linked to it (cycle_impl_link).
 * The guard stays only where the counter chosen is revocable. */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_choose)(int configured)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	uint64_t last[CYCLE_IMPL_NCOUNTERS];
	int mode, requested, start, chosen, i;

	CYCLE_IMPL_SELF(cycle_impl_choose);
	start = cycle_impl_choice_start(configured, &requested);
	cycle_impl_find_readable(start);
	cycle_impl_calibrate(start, last);
	for (chosen = start; g->status[chosen] != CYCLE_IMPL_AVAILABLE;)
		chosen++;
	g->chosen = chosen;
	if (CYCLE_IMPL_IS_PERF(chosen))
		g->hz[chosen] = cycle_impl_measure(chosen,
						   CYCLE_IMPL_CALIBRATE_NS);
	CYCLE_IMPL_STORE(&g->narrow, CYCLE_IMPL_NARROW(chosen),
			 CYCLE_IMPL_RELAXED);
	/* A revocable counter keeps its rate from the choice (the perf tier's
	 * measured just above), another's is measured when asked
	 * (cycle_impl_rate; why: PERFORMANCE_COUNTERS.md, "How it works").
	 * Both set either way: a forked child may retake the choice. */
	g->rate_known = CYCLE_IMPL_REVOCABLE(chosen);
	g->time_min = g->rate_known ? cycle_impl_time_min_for(
					      chosen, g->hz[chosen]) : 0.0;
	for (i = chosen + 1; i < CYCLE_IMPL_NCOUNTERS; i++)
		if (g->status[i] == CYCLE_IMPL_AVAILABLE)
			cycle_impl_link(i, last[i], last[chosen]);
	if (!CYCLE_IMPL_REVOCABLE(chosen) || !cycle_impl_install())
		cycle_impl_remove();
	if (g->debug)
		cycle_impl_explain(start, chosen, requested,
				   g->installed ? "; trap guard installed" : "");
	mode = CYCLE_IMPL_READY + chosen;
	if (CYCLE_IMPL_REVOCABLE(chosen) && !g->installed)
		mode = CYCLE_IMPL_CONVERTED + cycle_impl_next(chosen, 0);
	CYCLE_IMPL_STORE(&g->mode, mode, CYCLE_IMPL_RELEASE);
}

/* A cancelled chooser would hold the lock for ever (Android has none). */
#if defined(__ANDROID__)
#define CYCLE_IMPL_SETCANCEL(state, old) ((void)(old))
#else
#define CYCLE_IMPL_SETCANCEL(state, old) pthread_setcancelstate(state, old)
#endif

/* Under the chooser lock (cut: taken over from a forked chooser): the guard
 * put back (REGUARD), or the choice, unless a quick one was made meanwhile. */
CYCLE_IMPL_INLINE void cycle_impl_locked(int configured, int cut)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int mode, index, cancel = 0;

	CYCLE_IMPL_SETCANCEL(PTHREAD_CANCEL_DISABLE, &cancel);
	if (cut)
		cycle_impl_after_cut();
	mode = CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE);
	if (mode == CYCLE_IMPL_REGUARD) {
		mode = g->resume;
		index = CYCLE_IMPL_INDEX_OF(mode);
		if (CYCLE_IMPL_REVOCABLE(index) && !cycle_impl_install())
			mode = CYCLE_IMPL_CONVERTED + cycle_impl_next(index, 0);
		CYCLE_IMPL_STORE(&g->mode, mode, CYCLE_IMPL_RELEASE);
	} else if (mode < CYCLE_IMPL_READY &&
		   CYCLE_IMPL_CAS(&g->mode, &mode, CYCLE_IMPL_CHOOSING)) {
		cycle_impl_choose(configured);
	}
	CYCLE_IMPL_STORE(&g->chooser, 0, CYCLE_IMPL_RELEASE);
	CYCLE_IMPL_SETCANCEL(cancel, NULL);
}

/* Makes the choice or waits for the thread that does.  The lock is the
 * chooser's pid, its signals blocked but for the trap signal and a SIGSYS
 * left unblocked (PERFORMANCE_COUNTERS.md, "Threads, fork and signal ...").
 * While they are blocked, a call from inside (a function the choice calls
 * that the program replaced, those two signals' handlers) returns at once:
 * it would wait for itself. */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_settle)(int configured)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct timespec nap = { 0, 20000 };
	sigset_t all, old, pending;
	int me, owner;

	CYCLE_IMPL_SELF(cycle_impl_settle);
	if (cycle_impl_self.probing)
		return;
	while (CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE) <
	       CYCLE_IMPL_READY) {
		me = (int)getpid();
		owner = CYCLE_IMPL_LOAD(&g->chooser, CYCLE_IMPL_ACQUIRE);
		if (owner == me) {
			nanosleep(&nap, NULL); /* not to starve the chooser */
			continue;
		}
		sigfillset(&all);
		sigemptyset(&old);
		sigprocmask(SIG_BLOCK, NULL, &old);
#ifdef SIGSYS
		if (sigismember(&old, SIGSYS) != 1)
			sigdelset(&all, SIGSYS);
#endif
		sigprocmask(SIG_SETMASK, &all, &old);
		cycle_impl_self.probing = 2;
		/* The trap signal is unblocked for the probes, unless the
		 * program keeps one pending: that one is not ours. */
		if (CYCLE_IMPL_TRAP_SIGNAL) {
			sigemptyset(&pending);
			sigpending(&pending);
			cycle_impl_self.no_traps = sigismember(
				&pending, CYCLE_IMPL_TRAP_SIGNAL) == 1;
			if (!cycle_impl_self.no_traps) {
				sigdelset(&all, CYCLE_IMPL_TRAP_SIGNAL);
				sigprocmask(SIG_SETMASK, &all, NULL);
			}
		}
		if (CYCLE_IMPL_CAS(&g->chooser, &owner, me))
			cycle_impl_locked(configured, owner != 0);
		cycle_impl_self.probing = 0;
		cycle_impl_self.no_traps = 0;
		cycle_impl_self.trap_ok = 0; /* asked anew under its own mask */
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
}

/* The choice without probes (PERFORMANCE_COUNTERS.md, "How it works"): the
 * inline counter, if cycle_impl_quiet() and it advances; else the long way. */
CYCLE_IMPL_COLD void CYCLE_IMPL_FN(cycle_impl_quick)(int configured)
{
	const char *request = cycle_impl_getenv("CYCLE_COUNTER");
	int expected = CYCLE_IMPL_UNINIT, n;
	uint64_t first;

	CYCLE_IMPL_SELF(cycle_impl_quick);
	if (CYCLE_IMPL_NHW == 0 || configured != CYCLE_IMPL_INLINE_INDEX ||
	    (request && *request) || !cycle_impl_quiet(configured))
		return;
	first = cycle_impl_hw_read(configured);
	for (n = 0; cycle_impl_hw_read(configured) == first; n++)
		if (n == 10000)
			return;
	if (CYCLE_IMPL_CAS(&cycle_impl_state.mode, &expected,
			   CYCLE_IMPL_READY + configured) &&
	    cycle_impl_debug_wanted())
		cycle_impl_explain(configured, configured, 0,
			"; the kernel lets it read: no probe, no guard");
}

/* Everything but the inline counter comes here. */
CYCLE_IMPL_NOINLINE ticks CYCLE_IMPL_FN(cycle_impl_slow)(int configured)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int mode = CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE), index, err;
	uint64_t v;

	CYCLE_IMPL_SELF(cycle_impl_slow);
	if (mode < CYCLE_IMPL_READY) {
		err = errno; /* the choice fails calls: not the program's */
		if (mode == CYCLE_IMPL_UNINIT)
			cycle_impl_quick(configured);
		cycle_impl_settle(configured); /* at once if that one stands */
		mode = CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE);
		errno = err;
		if (mode < CYCLE_IMPL_READY)
			return 0; /* called from inside settle: no counter yet */
	}
	if (CYCLE_IMPL_NHW > 0 &&
	    mode == CYCLE_IMPL_READY + CYCLE_IMPL_INLINE_INDEX) {
		CYCLE_IMPL_STORE(&cycle_impl_fast, 1, CYCLE_IMPL_RELAXED);
		return (ticks)cycle_impl_hw_read(CYCLE_IMPL_INLINE_INDEX);
	}
	index = CYCLE_IMPL_INDEX_OF(mode);
	if (CYCLE_IMPL_REVOCABLE(index) && !cycle_impl_trap_unblocked()) {
		/* The trap signal blocked here: the next counter, converted. */
		index = cycle_impl_next(index, 1);
		return cycle_impl_convert(index, cycle_impl_read(index));
	}
	/* Access taken back (perf, hotplug, idle) is seen before the read,
	 * which then need not trap; PMUv3.9's "perhaps" reads, guarded. */
	if (index == 0 && cycle_impl_pmu_access() == CYCLE_IMPL_PMU_DENIED) {
		cycle_impl_revoke(0, mode, " is no longer granted");
		return cycle_impl_slow(configured);
	}
	v = cycle_impl_read(index);
	/* The guard answered a read that trapped, and switched: read anew. */
	if (CYCLE_IMPL_REVOCABLE(index) &&
	    CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE) != mode)
		return cycle_impl_slow(configured);
	/* A PMU counter left readable but stopped (Linux 6.1, after perf), or
	 * a perf event the PMU cannot schedule (its counters all taken, a
	 * big.LITTLE cluster of another PMU) would make elapsed() 0 for ever:
	 * equal readings 2 us apart are a stop.  Not where the tier is read
	 * as CNTVCT_EL0 (other threads): equal within a tick. */
	if (CYCLE_IMPL_REVOCABLE(index) && mode < CYCLE_IMPL_CONVERTED &&
	    (!CYCLE_IMPL_IS_PERF(index) || cycle_impl_perf_own())) {
		if (v == cycle_impl_self.last_pmu) {
			cycle_impl_wait(cycle_impl_clock(), 2000);
			if (cycle_impl_read(index) == v) {
				cycle_impl_revoke(index, mode, " stopped");
				return cycle_impl_slow(configured);
			}
		}
		cycle_impl_self.last_pmu = v;
	}
	if (mode >= CYCLE_IMPL_CONVERTED)
		return cycle_impl_convert(index, v);
	return (ticks)(g->narrow ? (uint32_t)v : v);
}

/* --- Additions to the API. -------------------------------------------- */

CYCLE_IMPL_API const char *cycle_counter_name(void)
{
	(void)getticks(); /* makes the choice if it is not made yet */
	return cycle_impl_name(CYCLE_IMPL_INDEX_OF(CYCLE_IMPL_LOAD(
		&cycle_impl_state.mode, CYCLE_IMPL_ACQUIRE)));
}

/* The counter whose unit ticks are in: the mode's, but the recorded one
 * after a switch or in REGUARD (only a probing choice reaches either). */
CYCLE_IMPL_INLINE int cycle_impl_chosen(int mode)
{
	return mode >= CYCLE_IMPL_CONVERTED || mode < CYCLE_IMPL_READY ?
		       cycle_impl_state.chosen : CYCLE_IMPL_INDEX_OF(mode);
}

/* Counter i's rate against the clock, over ns, from the sharpest window
 * (cycle_impl_blur); 0 if the clock went back in each.  The perf tier, a
 * counter of the thread, loses counts to the kernel (a fault, an interrupt,
 * a switch) and gains none: the fastest of its sharp windows.  One
 * function, called where it is to run warm: the same code each time. */
CYCLE_IMPL_NOINLINE double CYCLE_IMPL_FN(cycle_impl_measure)(int i, uint64_t ns)
{
	uint64_t a0, v0, b0, a1, v1, b1;
	double hz = 0, rate, blur, best = -1.0;
	uint32_t epoch;
	int tries;

	CYCLE_IMPL_SELF(cycle_impl_measure);
	for (tries = 0; tries < CYCLE_IMPL_TRIES && (CYCLE_IMPL_IS_PERF(i) ||
	     best < 0 || best > CYCLE_IMPL_SHARP); tries++) {
		epoch = cycle_impl_perf_epoch();
		a0 = cycle_impl_clock();
		v0 = cycle_impl_read(i);
		b0 = cycle_impl_clock();
		a1 = cycle_impl_wait(b0, ns);
		v1 = cycle_impl_read(i);
		b1 = cycle_impl_clock();
		blur = cycle_impl_blur(a0, b0, a1, b1);
		rate = cycle_impl_hz(i, v1 - v0, (a1 + b1) / 2 - (a0 + b0) / 2);
		if (!CYCLE_IMPL_IS_PERF(i) ? CYCLE_IMPL_SHARPER(blur, best) :
		    blur >= 0 && blur <= CYCLE_IMPL_SHARP && rate > hz &&
		    cycle_impl_perf_epoch() == epoch) {
			best = blur;
			hz = rate;
		}
	}
	return hz;
}

/* The chosen counter's rate: a revocable counter's from its probing
 * choice, a clock's measured here when first asked.  One thread publishes
 * it, marked with its pid meanwhile: others measure their own until then,
 * and a child forked during it takes over. */
CYCLE_IMPL_COLD double CYCLE_IMPL_FN(cycle_impl_rate)(int chosen)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	int state = CYCLE_IMPL_LOAD(&g->rate_known, CYCLE_IMPL_ACQUIRE), me;
	double nominal, hz;

	CYCLE_IMPL_SELF(cycle_impl_rate);
	if (state == 1)
		return g->hz[chosen];
	if (chosen < 0 || chosen >= CYCLE_IMPL_CLOCK_INDEX)
		return 1e9; /* nanoseconds */
	/* A stated rate (CNTFRQ) that two 25 us measurements confirm spares
	 * 200 us (two: a first window is cold, "How it works"). */
	nominal = cycle_impl_hw_nominal_hz(chosen);
	if (nominal > 0 &&
	    cycle_impl_measure(chosen, CYCLE_IMPL_CONFIRM_NS) == nominal &&
	    cycle_impl_measure(chosen, CYCLE_IMPL_CONFIRM_NS) == nominal)
		hz = nominal;
	else
		hz = cycle_impl_measure(chosen, CYCLE_IMPL_CALIBRATE_NS);
	if (hz <= 0)
		hz = nominal; /* the clock never answered sensibly */
	me = -(int)getpid();
	if (state != me && CYCLE_IMPL_CAS(&g->rate_known, &state, me)) {
		g->hz[chosen] = hz;
		CYCLE_IMPL_STORE(&g->rate_known, 1, CYCLE_IMPL_RELEASE);
	}
	return hz;
}

CYCLE_IMPL_API double cycle_ticks_per_second(void)
{
	(void)getticks();
	return cycle_impl_rate(cycle_impl_chosen(
		CYCLE_IMPL_LOAD(&cycle_impl_state.mode, CYCLE_IMPL_ACQUIRE)));
}

/* TIME_MIN in ticks: derived here unless the choice set it; after a
 * switch, at least 100 steps of the replacement (each of many ticks). */
CYCLE_IMPL_API double cycle_impl_time_min(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	double tmin, coarse;
	int mode, chosen;

	(void)getticks();
	mode = CYCLE_IMPL_LOAD(&g->mode, CYCLE_IMPL_ACQUIRE);
	tmin = g->time_min;
	if (tmin == 0) {
		chosen = cycle_impl_chosen(mode);
		tmin = cycle_impl_time_min_for(
			chosen, CYCLE_IMPL_CYCLES(chosen) ? 0.0
							  : cycle_impl_rate(chosen));
	}
	if (mode >= CYCLE_IMPL_CONVERTED) {
		coarse = CYCLE_IMPL_TIME_MIN_TICKS *
			 g->conv[CYCLE_IMPL_INDEX_OF(mode)].scale;
		if (coarse > tmin)
			tmin = coarse;
	}
	return tmin;
}
#ifndef TIME_MIN
#define TIME_MIN cycle_impl_time_min()
#endif

#pragma GCC diagnostic pop
#endif /* the engine */

/* ------------------------------------------------------------------------
 * Without the engine: FFTW's blocks in its master's order, on its conditions
 * (narrowed where a bare read could trap), then two of ours
 * (PERFORMANCE_COUNTERS.md, "Without the engine").  The
 * first that holds defines ticks, getticks() and these macros ([default]):
 *   CYCLE_IMPL_PLAIN_NAME      the counter's name, a string literal
 *   CYCLE_IMPL_PLAIN_ASM       the instruction that reads it, not getticks()
 *   CYCLE_IMPL_PLAIN_HZ        its nominal rate [0.0: unknown]
 *   CYCLE_IMPL_PLAIN_TIME_MIN  FFTW's TIME_MIN [none]
 *   CYCLE_IMPL_PLAIN_WIDTH     the unsigned type of a reading [ticks]
 *   CYCLE_IMPL_PLAIN_SIGNED    ticks is signed
 *   CYCLE_IMPL_PLAIN_ELAPSED   ticks is a structure: the block has elapsed()
 * ---------------------------------------------------------------------- */

#if !defined(CYCLE_IMPL_ENGINE)

/* Linux can make both ARMv7 counters trap, and no guard catches it here.
 * A #pragma message: GCC prints it from an installed (system) header too,
 * where it drops "#pragma GCC warning", and no -Werror makes it an error;
 * -pedantic-errors refuses #warning before C23. */
#if defined(__linux__) && defined(__arm__) && \
	(defined(HAVE_ARMV7A_CNTVCT) || defined(HAVE_ARMV7A_PMCCNTR)) && \
	defined(__GNUC__)
#pragma message "cycle.h: HAVE_ARMV7A_CNTVCT/PMCCNTR not obeyed: Linux \
can make the counter trap and this mode (strict ISO C?) hides the sigaction \
the guard needs; compile with -std=gnu99 or -D_POSIX_C_SOURCE=200809L"
#endif
/* The same for PMCCNTR_EL0 alone; CNTVCT_EL0 reads there (the block below). */
#if defined(__linux__) && defined(__aarch64__) && \
	defined(HAVE_ARMV8_PMCCNTR_EL0) && !defined(HAVE_ARMV8_CNTVCT_EL0) && \
	defined(__GNUC__)
#pragma message "cycle.h: HAVE_ARMV8_PMCCNTR_EL0 not obeyed, CNTVCT_EL0 read \
instead: Linux can make the counter trap and this mode (strict ISO C?) hides \
the sigaction the guard needs; compile with -std=gnu99 or \
-D_POSIX_C_SOURCE=200809L"
#endif

#if defined(__GNUC__)
#define CYCLE_IMPL_EXTENSION __extension__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wlong-long" /* C++98, C89 -pedantic */
#else
#define CYCLE_IMPL_EXTENSION
#endif

#if defined(HAVE_GETHRTIME) && defined(HAVE_HRTIME_T)
/* Solaris (and any system with gethrtime): nanoseconds, on any CPU. */
#include <sys/time.h>
typedef hrtime_t ticks;
#define getticks gethrtime
#define CYCLE_IMPL_PLAIN_NAME "gethrtime"
#define CYCLE_IMPL_PLAIN_HZ 1e9
#define CYCLE_IMPL_PLAIN_SIGNED 1

#elif defined(HAVE_READ_REAL_TIME) && defined(HAVE_TIME_BASE_TO_TIME)
/* AIX: the time base (or POWER's real-time clock) as a structure. */
#include <sys/time.h>
typedef timebasestruct_t ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	ticks t;

	read_real_time(&t, TIMEBASE_SZ);
	return t;
}
CYCLE_IMPL_INLINE double elapsed(ticks t1, ticks t0) /* in nanoseconds */
{
	time_base_to_time(&t1, TIMEBASE_SZ);
	time_base_to_time(&t0, TIMEBASE_SZ);
	return ((double)t1.tb_high - (double)t0.tb_high) * 1e9 +
	       ((double)t1.tb_low - (double)t0.tb_low);
}
#define CYCLE_IMPL_PLAIN_ELAPSED 1
#define CYCLE_IMPL_PLAIN_NAME "read_real_time"
#define CYCLE_IMPL_PLAIN_HZ 1e9

#elif (defined(__GNUC__) && (defined(__powerpc__) || defined(__ppc__))) || \
	(defined(__MWERKS__) && defined(macintosh)) || \
	(defined(__IBM_GCC_ASM) && (defined(__powerpc__) || defined(__ppc__)))
/* PowerPC's time base: GCC, CodeWarrior on Mac OS, IBM XL C. */
CYCLE_IMPL_EXTENSION typedef unsigned long long ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	unsigned int hi, lo;

	CYCLE_IMPL_SPLIT_READ(hi, lo, "mftbu %0", "mftb %0");
	return (ticks)hi << 32 | lo;
}
#define CYCLE_IMPL_PLAIN_NAME "mftb"

#elif defined(HAVE_MACH_ABSOLUTE_TIME) && defined(HAVE_MACH_MACH_TIME_H)
/* macOS (other than PowerPC); mach_timebase_info() gives the rate. */
#include <mach/mach_time.h>
typedef uint64_t ticks;
#define getticks mach_absolute_time
#define CYCLE_IMPL_PLAIN_NAME "mach_absolute_time"

#elif ((defined(__GNUC__) || defined(__ICC)) && defined(__i386__)) || \
	((defined(__GNUC__) || defined(__ICC) || defined(__SUNPRO_C)) && \
	 defined(__x86_64__)) || \
	(defined(__PGI) && defined(__x86_64__))
/* x86's TSC: FFTW's i386, x86-64 and PGI blocks (its Visual C++ x86 block,
 * between them, never holds for these compilers). */
CYCLE_IMPL_EXTENSION typedef unsigned long long ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	unsigned int lo, hi; /* ICC, Sun Studio and PGI take GCC's syntax */

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (ticks)hi << 32 | lo;
}
#define CYCLE_IMPL_PLAIN_NAME "rdtsc"
#define CYCLE_IMPL_PLAIN_TIME_MIN 5000.0

#elif defined(_MSC_VER) && _MSC_VER >= 1200 && defined(_M_IX86) && \
	_M_IX86 >= 500
/* Visual C++ on x86 (Pentium and later). */
#include <windows.h>
#if _MSC_VER >= 1400
#include <intrin.h>
#endif
typedef LARGE_INTEGER ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	ticks t;

#if _MSC_VER >= 1400
	t.QuadPart = (LONGLONG)__rdtsc();
#else /* no __rdtsc yet, and the assembler does not know the mnemonic */
	__asm {
		_emit 0x0f
		_emit 0x31
		mov t.LowPart, eax
		mov t.HighPart, edx
	}
#endif
	return t;
}
CYCLE_IMPL_INLINE double elapsed(ticks t1, ticks t0)
{
	return (double)(t1.QuadPart - t0.QuadPart);
}
#define CYCLE_IMPL_PLAIN_ELAPSED 1
#define CYCLE_IMPL_PLAIN_NAME "rdtsc"
#define CYCLE_IMPL_PLAIN_TIME_MIN 5000.0

#elif defined(_MSC_VER) && _MSC_VER >= 1400 && \
	(defined(_M_AMD64) || defined(_M_X64))
/* Visual C++ on x86-64. */
#include <intrin.h>
#pragma intrinsic(__rdtsc)
typedef unsigned __int64 ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	return __rdtsc();
}
#define CYCLE_IMPL_PLAIN_NAME "rdtsc"
#define CYCLE_IMPL_PLAIN_TIME_MIN 5000.0

#elif (defined(__EDG_VERSION) || defined(__ECC)) && defined(__ia64__)
/* IA-64's interval time counter, Intel's compiler. */
#include <ia64intrin.h>
typedef unsigned long ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	return __getReg(_IA64_REG_AR_ITC);
}
#define CYCLE_IMPL_PLAIN_NAME "ar.itc"

#elif defined(__GNUC__) && defined(__ia64__)
/* IA-64's interval time counter, GCC. */
typedef unsigned long ticks;
#define CYCLE_IMPL_PLAIN_ASM "mov %0=ar.itc"
#define CYCLE_IMPL_PLAIN_NAME "ar.itc"

#elif defined(__hpux) && defined(__ia64)
/* IA-64's interval time counter, HP's compiler on HP-UX. */
#include <machine/sys/inline.h>
typedef unsigned long ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	return _Asm_mov_from_ar(_AREG_ITC);
}
#define CYCLE_IMPL_PLAIN_NAME "ar.itc"

#elif defined(_MSC_VER) && defined(_M_IA64)
/* IA-64's interval time counter, Visual C++. */
typedef unsigned __int64 ticks;
#ifdef __cplusplus
extern "C"
#endif
unsigned __int64 __getReg(int reg);
#pragma intrinsic(__getReg)
#define CYCLE_IMPL_IA64_ITC 3116 /* CV_IA64_ApITC: ar.itc for __getReg */
CYCLE_IMPL_INLINE ticks getticks(void)
{
	volatile ticks t = __getReg(CYCLE_IMPL_IA64_ITC); /* read it here */

	return t;
}
#define CYCLE_IMPL_PLAIN_NAME "ar.itc"

#elif defined(__hppa__) || defined(__hppa)
/* PA-RISC's interval timer (control register 16): GCC, or HP's compiler. */
typedef unsigned long ticks;
#if defined(__GNUC__)
#define CYCLE_IMPL_PLAIN_ASM "mfctl 16, %0"
#else
#include <machine/inline.h>
CYCLE_IMPL_INLINE ticks getticks(void)
{
	register ticks t;

	_MFCTL(16, t);
	return t;
}
#endif
#define CYCLE_IMPL_PLAIN_NAME "mfctl 16"

#elif defined(__GNUC__) && defined(__s390__)
/* s390's TOD clock (bit 51 ticks every microsecond), stck as in FFTW. */
CYCLE_IMPL_EXTENSION typedef unsigned long long ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	ticks tod;

	__asm__ __volatile__("stck %0" : "=Q"(tod) : : "cc");
	return tod;
}
#define CYCLE_IMPL_PLAIN_NAME "stck"
#define CYCLE_IMPL_PLAIN_HZ 4096.0e6

#elif defined(__GNUC__) && defined(__alpha__)
/* Alpha's process cycle counter: only its low 32 bits count cycles. */
typedef unsigned int ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	unsigned long cc;

	__asm__ __volatile__("rpcc %0" : "=r"(cc));
	return (ticks)(cc & 0xffffffffu);
}
#define CYCLE_IMPL_PLAIN_NAME "rpcc"

#elif defined(__GNUC__) && defined(__sparc_v9__)
/* SPARC v9's tick register (32 bits of it in a 32-bit program). */
typedef unsigned long ticks;
#define CYCLE_IMPL_PLAIN_ASM "rd %%tick, %0"
#define CYCLE_IMPL_PLAIN_NAME "rd %tick"

#elif (defined(__DECC) || defined(__DECCXX)) && defined(__alpha) && \
	defined(HAVE_C_ASM_H)
/* Alpha's process cycle counter, DEC C (Tru64, OpenVMS). */
#include <c_asm.h>
typedef unsigned int ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	unsigned long cc = asm("rpcc %v0");

	return (ticks)(cc & 0xffffffffu);
}
#define CYCLE_IMPL_PLAIN_NAME "rpcc"

#elif defined(HAVE_ARMV7A_CNTVCT) && defined(__arm__) && !defined(__linux__)
/* ARMv7-A's virtual count, if asked for. */
typedef uint64_t ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("mrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
	return (uint64_t)hi << 32 | lo;
}
CYCLE_IMPL_INLINE double cycle_impl_plain_hz(void)
{
	uint32_t f;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(f)); /* CNTFRQ */
	return (double)f;
}
#define CYCLE_IMPL_PLAIN_NAME "CNTVCT"
#define CYCLE_IMPL_PLAIN_HZ cycle_impl_plain_hz()

#elif defined(HAVE_ARMV7A_PMCCNTR) && defined(__arm__) && !defined(__linux__)
/* ARMv7-A's PMU cycle counter, if asked for: 32 bits in a 64-bit ticks. */
typedef uint64_t ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	uint32_t cc;

	__asm__ __volatile__("mrc p15, 0, %0, c9, c13, 0" : "=r"(cc));
	return cc;
}
#define CYCLE_IMPL_PLAIN_WIDTH uint32_t
#define CYCLE_IMPL_PLAIN_NAME "PMCCNTR"

#elif defined(__aarch64__) && \
	(defined(__APPLE__) || defined(__linux__) || defined(HAVE_ARMV8_CNTVCT_EL0))
/* AArch64's virtual count, which macOS and Linux let user space read. */
typedef uint64_t ticks;
#define CYCLE_IMPL_PLAIN_ASM "mrs %0, cntvct_el0"
#define CYCLE_IMPL_PLAIN_NAME "CNTVCT_EL0"
#define CYCLE_IMPL_PLAIN_HZ cycle_impl_cntfrq_el0()

#elif defined(__aarch64__) && defined(HAVE_ARMV8_PMCCNTR_EL0)
/* AArch64's PMU cycle counter, if asked for on other systems. */
typedef uint64_t ticks;
#define CYCLE_IMPL_PLAIN_ASM "mrs %0, pmccntr_el0"
#define CYCLE_IMPL_PLAIN_NAME "PMCCNTR_EL0"

#elif defined(__riscv_xlen) && (__riscv_xlen == 64 || __riscv_xlen == 32)
/* RISC-V's time CSR, which the kernel lets user space read. */
typedef uint64_t ticks;
#if __riscv_xlen == 64
#define CYCLE_IMPL_PLAIN_ASM "rdtime %0"
#else
CYCLE_IMPL_INLINE ticks getticks(void)
{
	unsigned int hi, lo;

	CYCLE_IMPL_SPLIT_READ(hi, lo, "rdtimeh %0", "rdtime %0");
	return (uint64_t)hi << 32 | lo;
}
#endif
#define CYCLE_IMPL_PLAIN_NAME "rdtime"

#elif defined(__loongarch64)
/* LoongArch's stable counter (rdtime.d also gives the counter's id). */
typedef uint64_t ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	uint64_t v, id;

	__asm__ __volatile__("rdtime.d %0, %1" : "=r"(v), "=r"(id));
	(void)id;
	return v;
}
#define CYCLE_IMPL_PLAIN_NAME "rdtime.d"

#elif defined(__e2k__)
/* Elbrus's clock register. */
typedef uint64_t ticks;
#define CYCLE_IMPL_PLAIN_ASM "rrd %%clkr, %0"
#define CYCLE_IMPL_PLAIN_NAME "rrd %clkr"

#elif defined(HAVE_CLOCK_GETTIME) && defined(CLOCK_SGI_CYCLE) && \
	!defined(__ANDROID__)
/* IRIX's cycle counter clock: ticks is a struct timespec. */
typedef struct timespec ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	struct timespec t;

	clock_gettime(CLOCK_SGI_CYCLE, &t);
	return t;
}
CYCLE_IMPL_INLINE double elapsed(ticks t1, ticks t0) /* in nanoseconds */
{
	return ((double)t1.tv_sec - (double)t0.tv_sec) * 1e9 +
	       ((double)t1.tv_nsec - (double)t0.tv_nsec);
}
#define CYCLE_IMPL_PLAIN_ELAPSED 1
#define CYCLE_IMPL_PLAIN_NAME "CLOCK_SGI_CYCLE"
#define CYCLE_IMPL_PLAIN_HZ 1e9

#elif defined(HAVE__RTC)
/* Cray's real-time clock intrinsic. */
#if defined(HAVE_INTRINSICS_H)
#include <intrinsics.h>
#endif
CYCLE_IMPL_EXTENSION typedef long long ticks;
#define getticks _rtc
#define CYCLE_IMPL_PLAIN_NAME "_rtc"
#define CYCLE_IMPL_PLAIN_SIGNED 1

#elif defined(HAVE_MIPS_ZBUS_TIMER) && defined(__mips__)
/* Some MIPS boards' ZBUS timer, mapped from /dev/mem at the first call (two
 * threads may both map it): PERFORMANCE_COUNTERS.md, "Without the engine". */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#define CYCLE_IMPL_ZBUS_ADDRESS 0x10030000
typedef uint64_t ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	static volatile uint64_t *timer;
	void *map;
	int fd;

	if (timer == 0) {
		fd = open("/dev/mem", O_RDONLY | O_SYNC);
		if (fd < 0)
			return 0;
		map = mmap(0, (size_t)sysconf(_SC_PAGESIZE), PROT_READ,
			   MAP_SHARED, fd, (off_t)CYCLE_IMPL_ZBUS_ADDRESS);
		close(fd);
		if (map == MAP_FAILED)
			return 0;
		timer = (volatile uint64_t *)map;
	}
	return *timer;
}
#define CYCLE_IMPL_PLAIN_NAME "ZBUS timer"

#elif defined(__GNUC__) && defined(__aarch64__)
/* This header's own: AArch64's virtual count elsewhere (FreeBSD, ...). */
typedef uint64_t ticks;
#define CYCLE_IMPL_PLAIN_ASM "mrs %0, cntvct_el0"
#define CYCLE_IMPL_PLAIN_NAME "CNTVCT_EL0"
#define CYCLE_IMPL_PLAIN_HZ cycle_impl_cntfrq_el0()

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
	defined(TIME_UTC) && !defined(CYCLE_IMPL_NO_STDINT)
/* This header's own: strict ISO C11 elsewhere, timespec_get in nanoseconds. */
typedef uint64_t ticks;
CYCLE_IMPL_INLINE ticks getticks(void)
{
	struct timespec ts;

	timespec_get(&ts, TIME_UTC);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define CYCLE_IMPL_PLAIN_NAME "timespec_get"
#define CYCLE_IMPL_PLAIN_HZ 1e9
#define CYCLE_IMPL_PLAIN_TIME_MIN 2000.0 /* 2 us, as clock_gettime's */
#endif /* the blocks */

/* The rest of the API, the same for every block. */
#if defined(CYCLE_IMPL_PLAIN_NAME)
#define HAVE_TICK_COUNTER 1
#if defined(CYCLE_IMPL_PLAIN_ASM)
CYCLE_IMPL_INLINE ticks getticks(void)
{
	ticks t;

	__asm__ __volatile__(CYCLE_IMPL_PLAIN_ASM : "=r"(t));
	return t;
}
#endif
#if defined(CYCLE_IMPL_PLAIN_SIGNED)
CYCLE_IMPL_INLINE double elapsed(ticks t1, ticks t0)
{
	return (double)(t1 - t0);
}
#elif !defined(CYCLE_IMPL_PLAIN_ELAPSED)
#if !defined(CYCLE_IMPL_PLAIN_WIDTH)
#define CYCLE_IMPL_PLAIN_WIDTH ticks
#endif
/* The difference modulo the counter's width (PERFORMANCE_COUNTERS.md,
 * "Without the engine"): negative for a 64-bit reading that went back (for
 * FFTW's planner to measure again), never for a 32-bit counter. */
CYCLE_IMPL_INLINE double elapsed(ticks t1, ticks t0)
{
	CYCLE_IMPL_PLAIN_WIDTH d = (CYCLE_IMPL_PLAIN_WIDTH)(t1 - t0);

	if (sizeof(d) >= 8 && d > (CYCLE_IMPL_PLAIN_WIDTH)-1 / 2)
		return -(double)(CYCLE_IMPL_PLAIN_WIDTH)(t0 - t1);
	return (double)d;
}
#endif
#if !defined(CYCLE_IMPL_PLAIN_HZ)
#define CYCLE_IMPL_PLAIN_HZ 0.0
#endif
CYCLE_IMPL_INLINE const char *cycle_counter_name(void)
{
	return CYCLE_IMPL_PLAIN_NAME;
}
CYCLE_IMPL_INLINE double cycle_ticks_per_second(void)
{
	return CYCLE_IMPL_PLAIN_HZ;
}
#if defined(CYCLE_IMPL_PLAIN_TIME_MIN) && !defined(TIME_MIN)
#define TIME_MIN CYCLE_IMPL_PLAIN_TIME_MIN
#endif
#endif /* a block was chosen */

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#endif /* no engine */

#ifdef CYCLE_IMPL_SET_ASIDE
#pragma GCC pop_options
#endif
#endif /* CYCLE_H_INCLUDED */
