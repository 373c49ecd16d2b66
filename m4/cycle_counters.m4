# serial 6
# cycle_counters.m4: configure options that choose the first cycle counter to try.
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the safecycle contributors
#
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to
# deal in the Software without restriction, including without limitation the
# rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
# sell copies of the Software, and to permit persons to whom the Software is
# furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.  IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
# FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
# IN THE SOFTWARE.
#
# CYCLE_ARG_COUNTERS([DOCUMENT])
# ------------------------------
# Adds the options below (their help points to DOCUMENT, by default
# PERFORMANCE_COUNTERS.md; FFTW passes README-perfcnt.md), checks that the compiler targets a CPU that has the
# counter asked for (an impossible choice stops configure, naming the host),
# and defines in config.h the macro that cycle/cycle.h reads:
#
#   --enable-armv8-pmccntr       HAVE_ARMV8_PMCCNTR_EL0   aarch64
#   --enable-armv8-pmccntr-el0   HAVE_ARMV8_PMCCNTR_EL0   aarch64 (FFTW's name)
#   --enable-armv8-cntvct-el0    HAVE_ARMV8_CNTVCT_EL0    aarch64 (FFTW's name)
#   --enable-armv7a-pmccntr      HAVE_ARMV7A_PMCCNTR      32-bit ARMv7-A or later
#   --enable-armv7a-cntvct       HAVE_ARMV7A_CNTVCT       32-bit ARMv7-A or later
#
# Options of one family may be given together, as FFTW's configure allows
# (the two spellings of PMCCNTR_EL0 are one counter).  Both macros of a
# family are then defined, and the generic timer comes first, as cycle.h
# does in every mode (its manual, "Configuration"): the PMU option has no
# effect, which configure says in one warning, and --help and the summary's
# chain state.
#
# Sets and substitutes CYCLE_COUNTER_CHAIN, the chain cycle.h will walk on
# this host ("PMCCNTR_EL0 -> PMCCNTR_EL0_perf -> CNTVCT_EL0 ->
# clock_gettime"), for a summary.
# Needs AC_CANONICAL_HOST and a C compiler (AC_PROG_CC) before it.  Copy this
# file into your m4/ directory and call CYCLE_ARG_COUNTERS from configure.ac.

# _CYCLE_ARG_ONE(OPTION, HELP, DOCUMENT)
AC_DEFUN([_CYCLE_ARG_ONE],
[AC_ARG_ENABLE([$1],
  [AS_HELP_STRING([--enable-$1],
    [$2 (see ]m4_default([$3], [PERFORMANCE_COUNTERS.md])[)])],
  [AS_CASE([$enableval], [yes|no], [],
    [AC_MSG_ERROR([--enable-$1 takes no value, got '$enableval'])])],
  [enable_[]m4_translit([$1], [-], [_])=no])])

# _CYCLE_TIMER_FIRST(PMU-VARIABLE, TIMER-OPTION, TIMER)
# Where the timer's option was given too, the chain starts at the timer, not
# at the PMU counter: warn that the PMU option ($PMU-VARIABLE, the spelling
# given) has no effect, and empty PMU-VARIABLE.
AC_DEFUN([_CYCLE_TIMER_FIRST],
[AS_IF([test -n "$$1" && test "x$enable_[]m4_translit([$2], [-], [_])" = xyes],
  [AC_MSG_WARN([$$1 has no effect beside --enable-$2: $3 comes first, as in cycle.h])
   $1=])])

# _CYCLE_REQUIRE_TARGET(OPTION, DESCRIPTION, PREPROCESSOR-TEST)
# Stops configure when the compiler's target fails PREPROCESSOR-TEST.
AC_DEFUN([_CYCLE_REQUIRE_TARGET],
[AC_MSG_CHECKING([whether $host can use $1])
AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#if !($3)
#error not this target
#endif]], [[]])],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   AC_MSG_ERROR([$1 needs $2, but the compiler ($CC) targets $host])])])

AC_DEFUN([CYCLE_ARG_COUNTERS],
[AC_REQUIRE([AC_CANONICAL_HOST])dnl
AC_REQUIRE([AC_PROG_CC])dnl
_CYCLE_ARG_ONE([armv8-pmccntr],
  [try the ARMv8 PMU cycle counter PMCCNTR_EL0 first,
   unless --enable-armv8-cntvct-el0 is given too], [$1])
_CYCLE_ARG_ONE([armv8-pmccntr-el0], [same as --enable-armv8-pmccntr], [$1])
_CYCLE_ARG_ONE([armv8-cntvct-el0],
  [try the ARMv8 generic timer CNTVCT_EL0 first (the default on aarch64),
   even with --enable-armv8-pmccntr], [$1])
_CYCLE_ARG_ONE([armv7a-pmccntr],
  [try the ARMv7-A PMU cycle counter PMCCNTR first,
   unless --enable-armv7a-cntvct is given too], [$1])
_CYCLE_ARG_ONE([armv7a-cntvct],
  [try the ARMv7-A generic timer CNTVCT first (the default on ARMv7-A),
   even with --enable-armv7a-pmccntr], [$1])

dnl cycle_armv8_pmu, cycle_armv7_pmu: the PMU option given (its spelling), or empty.
cycle_armv8_pmu=
cycle_armv7_pmu=
AS_IF([test "x$enable_armv8_pmccntr" = xyes || test "x$enable_armv8_pmccntr_el0" = xyes],
  [AS_IF([test "x$enable_armv8_pmccntr" = xyes],
     [cycle_armv8_pmu=--enable-armv8-pmccntr],
     [cycle_armv8_pmu=--enable-armv8-pmccntr-el0])
   _CYCLE_REQUIRE_TARGET([$cycle_armv8_pmu], [an aarch64 compiler],
     [defined(__aarch64__)])
   AC_DEFINE([HAVE_ARMV8_PMCCNTR_EL0], [1],
     [Define to try the ARMv8 PMCCNTR_EL0 cycle counter first (unless
      HAVE_ARMV8_CNTVCT_EL0 is defined too).])])
AS_IF([test "x$enable_armv8_cntvct_el0" = xyes],
  [_CYCLE_REQUIRE_TARGET([--enable-armv8-cntvct-el0], [an aarch64 compiler],
     [defined(__aarch64__)])
   AC_DEFINE([HAVE_ARMV8_CNTVCT_EL0], [1],
     [Define to try the ARMv8 CNTVCT_EL0 generic timer first.])])
AS_IF([test "x$enable_armv7a_pmccntr" = xyes],
  [cycle_armv7_pmu=--enable-armv7a-pmccntr
   _CYCLE_REQUIRE_TARGET([--enable-armv7a-pmccntr],
     [a 32-bit ARM compiler targeting ARMv7-A or later], [defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && (!defined(__ARM_ARCH_PROFILE) || __ARM_ARCH_PROFILE == 'A')])
   AC_DEFINE([HAVE_ARMV7A_PMCCNTR], [1],
     [Define to try the ARMv7-A PMCCNTR cycle counter first (unless
      HAVE_ARMV7A_CNTVCT is defined too).])])
AS_IF([test "x$enable_armv7a_cntvct" = xyes],
  [_CYCLE_REQUIRE_TARGET([--enable-armv7a-cntvct],
     [a 32-bit ARM compiler targeting ARMv7-A or later], [defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && (!defined(__ARM_ARCH_PROFILE) || __ARM_ARCH_PROFILE == 'A')])
   AC_DEFINE([HAVE_ARMV7A_CNTVCT], [1],
     [Define to try the ARMv7-A CNTVCT generic timer first.])])
_CYCLE_TIMER_FIRST([cycle_armv8_pmu], [armv8-cntvct-el0], [CNTVCT_EL0])
_CYCLE_TIMER_FIRST([cycle_armv7_pmu], [armv7a-cntvct], [CNTVCT])

# The chain cycle.h walks on this host, for the summary.
AC_MSG_CHECKING([which counters cycle.h will try])
AC_COMPUTE_INT([cycle_port], [CYCLE_PORT_GUESS], [[
#if defined(__aarch64__)
#define CYCLE_PORT_GUESS 1
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && (!defined(__ARM_ARCH_PROFILE) || __ARM_ARCH_PROFILE == 'A')
#define CYCLE_PORT_GUESS 2
#elif defined(__x86_64__) || defined(__i386__)
#define CYCLE_PORT_GUESS 3
#elif defined(__riscv) && __riscv_xlen == 64 && defined(HAVE_RISCV_RDCYCLE)
#define CYCLE_PORT_GUESS 4
#elif defined(__riscv) && __riscv_xlen == 64
#define CYCLE_PORT_GUESS 15
#elif defined(__powerpc__) || defined(__ppc__)
#define CYCLE_PORT_GUESS 5
#elif defined(__s390x__)
#define CYCLE_PORT_GUESS 6
#elif defined(__sparc_v9__)
#define CYCLE_PORT_GUESS 7
#elif defined(__alpha__)
#define CYCLE_PORT_GUESS 8
#elif defined(__hppa__)
#define CYCLE_PORT_GUESS 9
#elif defined(__ia64__)
#define CYCLE_PORT_GUESS 10
#elif defined(__loongarch64)
#define CYCLE_PORT_GUESS 11
#elif defined(__e2k__)
#define CYCLE_PORT_GUESS 12
#elif defined(__riscv) && __riscv_xlen == 32
#define CYCLE_PORT_GUESS 13
#elif defined(__s390__)
#define CYCLE_PORT_GUESS 14
#else
#define CYCLE_PORT_GUESS 0
#endif]], [cycle_port=0])
AS_CASE([$cycle_port],
  [1], [AS_IF([test -n "$cycle_armv8_pmu"],
         [CYCLE_COUNTER_CHAIN="PMCCNTR_EL0 -> PMCCNTR_EL0_perf -> CNTVCT_EL0 -> clock_gettime"],
         [CYCLE_COUNTER_CHAIN="CNTVCT_EL0 -> clock_gettime"])],
  [2], [AS_IF([test -n "$cycle_armv7_pmu"],
         [CYCLE_COUNTER_CHAIN="PMCCNTR -> CNTVCT -> clock_gettime"],
         [CYCLE_COUNTER_CHAIN="CNTVCT -> clock_gettime"])],
  [3], [CYCLE_COUNTER_CHAIN="rdtsc -> clock_gettime"],
  [4], [CYCLE_COUNTER_CHAIN="rdcycle -> rdtime -> clock_gettime"],
  [5], [CYCLE_COUNTER_CHAIN="mftb -> clock_gettime"],
  [6], [CYCLE_COUNTER_CHAIN="stckf -> clock_gettime"],
  dnl The classic architectures: FFTW's one counter, read as FFTW reads it.
  [7], [CYCLE_COUNTER_CHAIN="rd %tick"],
  [8], [CYCLE_COUNTER_CHAIN="rpcc"],
  [9], [CYCLE_COUNTER_CHAIN="mfctl 16"],
  [10], [CYCLE_COUNTER_CHAIN="ar.itc"],
  [11], [CYCLE_COUNTER_CHAIN="rdtime.d"],
  [12], [CYCLE_COUNTER_CHAIN="rrd %clkr"],
  [13], [CYCLE_COUNTER_CHAIN="rdtime"],
  [15], [CYCLE_COUNTER_CHAIN="rdtime -> clock_gettime"],
  [14], [CYCLE_COUNTER_CHAIN="stck"],
  [CYCLE_COUNTER_CHAIN="clock_gettime"])
dnl The chain is checked at run time only on Linux with GCC or Clang, in a
dnl mode that declares POSIX's sigaction and clock_gettime (not -std=c99
dnl alone); elsewhere the header reads the first of its classic blocks that
dnl fits the system (on 32-bit ARM Linux, not an ARMv7 counter).  The test is
dnl the header's own.
AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <signal.h>
#include <time.h>
#if !defined(__linux__) || !defined(__GNUC__) || !defined(SA_SIGINFO) || \
	!defined(CLOCK_MONOTONIC)
#error no run-time checks here
#endif]])], [],
  [CYCLE_COUNTER_CHAIN="the classic block for this system (no run-time checks: they need Linux, GCC or Clang, and POSIX declarations)"])
AC_MSG_RESULT([$CYCLE_COUNTER_CHAIN])
AC_SUBST([CYCLE_COUNTER_CHAIN])
])
