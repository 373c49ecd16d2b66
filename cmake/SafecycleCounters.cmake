# SafecycleCounters.cmake: CMake options that choose the first cycle counter cycle.h tries.
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
# The CMake twin of m4/cycle_counters.m4: the same options, the same macros,
# the same errors.  include(SafecycleCounters) declares the options:
#
#   ENABLE_ARMV8_PMCCNTR       HAVE_ARMV8_PMCCNTR_EL0   aarch64
#   ENABLE_ARMV8_PMCCNTR_EL0   HAVE_ARMV8_PMCCNTR_EL0   aarch64 (FFTW's name)
#   ENABLE_ARMV8_CNTVCT_EL0    HAVE_ARMV8_CNTVCT_EL0    aarch64 (FFTW's name)
#   ENABLE_ARMV7A_PMCCNTR      HAVE_ARMV7A_PMCCNTR      32-bit ARMv7-A or later
#   ENABLE_ARMV7A_CNTVCT       HAVE_ARMV7A_CNTVCT       32-bit ARMv7-A or later
#
# As with configure, the options of one family may be given together: both
# macros are defined, the generic timer comes first (as in cycle.h), and a
# warning says that the PMU option has no effect.
#
# safecycle_counters([ADD_DEFINITIONS] [TARGETS target...]) then checks, with
# the C compiler, that it targets a CPU that has each counter asked for (an
# impossible choice is a FATAL_ERROR naming the host; so are a misspelt
# ENABLE_ARMV* option and a value other than ON/OFF), and sets in the caller's
# scope:
#
#   HAVE_ARMV8_PMCCNTR_EL0 ...   1 for each macro to define (for a config.h
#                                template's #cmakedefine lines)
#   SAFECYCLE_DEFINITIONS        the same as a list of NAME=1
#   SAFECYCLE_COUNTER_CHAIN      the counters cycle.h will try, in order
#
# ADD_DEFINITIONS also adds the macros to every target of the current
# directory and below (add_compile_definitions): the hook for a project whose
# config.h template does not know the macros, such as FFTW's.  TARGETS adds
# them to those targets only (PRIVATE).  Needs the C language enabled.
# Set SAFECYCLE_DOCUMENT before the include to point the options' help at
# your own document.  Copy this file into your project, or
# find_package(safecycle), which includes it.

include_guard(GLOBAL)
# Our policies, not the including project's (FFTW asks for 3.0): the
# functions below keep the ones in force where they are defined.
cmake_policy(VERSION 3.12...3.25)
include(CheckCSourceCompiles)

# The document the options' help points to (FFTW sets README-perfcnt.md).
if(NOT DEFINED SAFECYCLE_DOCUMENT)
  set(SAFECYCLE_DOCUMENT PERFORMANCE_COUNTERS.md)
endif()
option(ENABLE_ARMV8_PMCCNTR
  "try the ARMv8 PMU cycle counter PMCCNTR_EL0 first, unless ENABLE_ARMV8_CNTVCT_EL0 is ON too (see ${SAFECYCLE_DOCUMENT})" OFF)
option(ENABLE_ARMV8_PMCCNTR_EL0 "same as ENABLE_ARMV8_PMCCNTR" OFF)
option(ENABLE_ARMV8_CNTVCT_EL0
  "try the ARMv8 generic timer CNTVCT_EL0 first (the default on aarch64), even with ENABLE_ARMV8_PMCCNTR" OFF)
option(ENABLE_ARMV7A_PMCCNTR
  "try the ARMv7-A PMU cycle counter PMCCNTR first, unless ENABLE_ARMV7A_CNTVCT is ON too (see ${SAFECYCLE_DOCUMENT})" OFF)
option(ENABLE_ARMV7A_CNTVCT
  "try the ARMv7-A generic timer CNTVCT first (the default on ARMv7-A), even with ENABLE_ARMV7A_PMCCNTR" OFF)

# _safecycle_target_is(RESULT-VARIABLE PREPROCESSOR-TEST): does the C compiler
# target a CPU for which PREPROCESSOR-TEST holds?  Compiles only (cross builds).
# _safecycle_fail(MESSAGE): stop with MESSAGE on one line, as configure's
# AC_MSG_ERROR does (CMake wraps a message unless it starts with a space).
function(_safecycle_fail msg)
  message(FATAL_ERROR " ${msg}")
endfunction()

function(_safecycle_target_is var test)
  set(CMAKE_REQUIRED_QUIET ON)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  check_c_source_compiles("#if !(${test})
#error not this target
#endif
int safecycle_probe(void) { return 0; }" ${var})
  set(${var} "${${var}}" PARENT_SCOPE)
endfunction()

# _safecycle_timer_first(RESULT-VARIABLE PMU-OPTION TIMER-OPTION TIMER):
# PMU-OPTION is ON; RESULT-VARIABLE is ON when the chain starts at the PMU
# counter, that is unless TIMER-OPTION is ON too (then one warning says so).
function(_safecycle_timer_first var pmu_option timer_option timer)
  if(${timer_option})
    message(WARNING " ${pmu_option} has no effect beside ${timer_option}: ${timer} comes first, as in cycle.h")
    set(${var} OFF PARENT_SCOPE)
  else()
    set(${var} ON PARENT_SCOPE)
  endif()
endfunction()

# The host as a person reads it: the compiler's triplet where CMake knows it.
function(_safecycle_host var)
  if(CMAKE_C_COMPILER_TARGET)
    set(host "${CMAKE_C_COMPILER_TARGET}")
  elseif(CMAKE_C_LIBRARY_ARCHITECTURE)
    set(host "${CMAKE_C_LIBRARY_ARCHITECTURE}")
  else()
    set(host "${CMAKE_SYSTEM_PROCESSOR}-${CMAKE_SYSTEM_NAME}")
  endif()
  set(${var} "${host}" PARENT_SCOPE)
endfunction()

function(safecycle_counters)
  cmake_parse_arguments(PARSE_ARGV 0 arg "ADD_DEFINITIONS" "" "TARGETS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "safecycle_counters: unknown argument '${arg_UNPARSED_ARGUMENTS}' (ADD_DEFINITIONS, TARGETS)")
  endif()
  set(options ENABLE_ARMV8_PMCCNTR ENABLE_ARMV8_PMCCNTR_EL0
    ENABLE_ARMV8_CNTVCT_EL0 ENABLE_ARMV7A_PMCCNTR ENABLE_ARMV7A_CNTVCT)
  set(AARCH64 "defined(__aarch64__)")
  set(ARMV7A "defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && (!defined(__ARM_ARCH_PROFILE) || __ARM_ARCH_PROFILE == 'A')")
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    message(FATAL_ERROR "safecycle_counters needs the C language: project(... LANGUAGES C) or enable_language(C) first")
  endif()

  # A typo must not silently build without the counter; nor must a value.
  get_cmake_property(cache_variables CACHE_VARIABLES)
  foreach(v IN LISTS cache_variables)
    if(v MATCHES "^ENABLE_ARMV[0-9]" AND NOT v IN_LIST options)
      string(REPLACE ";" ", " known "${options}")
      _safecycle_fail("unknown counter option ${v} (known: ${known})")
    endif()
  endforeach()
  foreach(o IN LISTS options)
    if(NOT "${${o}}" MATCHES "^([Oo][Nn]|[Oo][Ff][Ff]|[Yy][Ee][Ss]|[Nn][Oo]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0|)$")
      _safecycle_fail("${o} takes ON or OFF, got '${${o}}'")
    endif()
  endforeach()

  _safecycle_host(host)
  set(definitions)
  # option | macro | what it needs | the variable holding the preprocessor test
  foreach(spec
      "ENABLE_ARMV8_PMCCNTR|HAVE_ARMV8_PMCCNTR_EL0|an aarch64 compiler|AARCH64"
      "ENABLE_ARMV8_PMCCNTR_EL0|HAVE_ARMV8_PMCCNTR_EL0|an aarch64 compiler|AARCH64"
      "ENABLE_ARMV8_CNTVCT_EL0|HAVE_ARMV8_CNTVCT_EL0|an aarch64 compiler|AARCH64"
      "ENABLE_ARMV7A_PMCCNTR|HAVE_ARMV7A_PMCCNTR|a 32-bit ARM compiler targeting ARMv7-A or later|ARMV7A"
      "ENABLE_ARMV7A_CNTVCT|HAVE_ARMV7A_CNTVCT|a 32-bit ARM compiler targeting ARMv7-A or later|ARMV7A")
    string(REPLACE "|" ";" spec "${spec}")
    list(GET spec 0 option)
    list(GET spec 1 macro)
    list(GET spec 2 needs)
    list(GET spec 3 test)
    if(${option})
      _safecycle_target_is(SAFECYCLE_TARGET_${test} "${${test}}")
      if(NOT SAFECYCLE_TARGET_${test})
        _safecycle_fail("${option} needs ${needs}, but the compiler (${CMAKE_C_COMPILER}) targets ${host}")
      endif()
      if(NOT "${macro}=1" IN_LIST definitions)
        list(APPEND definitions "${macro}=1")
        set(${macro} 1 PARENT_SCOPE)
      endif()
    endif()
  endforeach()

  # Both options of a family: the timer comes first, as in cycle.h.
  set(pmu_first_armv8 OFF)
  if(ENABLE_ARMV8_PMCCNTR)
    _safecycle_timer_first(pmu_first_armv8 ENABLE_ARMV8_PMCCNTR ENABLE_ARMV8_CNTVCT_EL0 CNTVCT_EL0)
  elseif(ENABLE_ARMV8_PMCCNTR_EL0)
    _safecycle_timer_first(pmu_first_armv8 ENABLE_ARMV8_PMCCNTR_EL0 ENABLE_ARMV8_CNTVCT_EL0 CNTVCT_EL0)
  endif()
  set(pmu_first_armv7 OFF)
  if(ENABLE_ARMV7A_PMCCNTR)
    _safecycle_timer_first(pmu_first_armv7 ENABLE_ARMV7A_PMCCNTR ENABLE_ARMV7A_CNTVCT CNTVCT)
  endif()

  # The chain cycle.h walks on this host, for the summary.
  _safecycle_target_is(SAFECYCLE_TARGET_AARCH64 "${AARCH64}")
  if(SAFECYCLE_TARGET_AARCH64)
    if(pmu_first_armv8)
      set(chain "PMCCNTR_EL0 -> PMCCNTR_EL0_perf -> CNTVCT_EL0 -> clock_gettime")
    else()
      set(chain "CNTVCT_EL0 -> clock_gettime")
    endif()
  else()
    _safecycle_target_is(SAFECYCLE_TARGET_ARMV7A "${ARMV7A}")
    if(SAFECYCLE_TARGET_ARMV7A)
      if(pmu_first_armv7)
        set(chain "PMCCNTR -> CNTVCT -> clock_gettime")
      else()
        set(chain "CNTVCT -> clock_gettime")
      endif()
    else()
      set(chain "clock_gettime")
      foreach(port
          "defined(__x86_64__) || defined(__i386__)@rdtsc -> clock_gettime"
          "defined(__riscv) && __riscv_xlen == 64 && defined(HAVE_RISCV_RDCYCLE)@rdcycle -> rdtime -> clock_gettime"
          "defined(__riscv) && __riscv_xlen == 64@rdtime -> clock_gettime"
          "defined(__powerpc__) || defined(__ppc__)@mftb -> clock_gettime"
          "defined(__s390x__)@stckf -> clock_gettime"
          # The classic architectures: FFTW's one counter, read as FFTW reads it.
          "defined(__sparc_v9__)@rd %tick"
          "defined(__alpha__)@rpcc"
          "defined(__hppa__)@mfctl 16"
          "defined(__ia64__)@ar.itc"
          "defined(__loongarch64)@rdtime.d"
          "defined(__e2k__)@rrd %clkr"
          "defined(__riscv) && __riscv_xlen == 32@rdtime"
          "defined(__s390__)@stck")
        string(REPLACE "@" ";" port "${port}")
        list(GET port 0 test)
        list(GET port 1 this_chain)
        string(MAKE_C_IDENTIFIER "SAFECYCLE_TARGET_${this_chain}" var)
        _safecycle_target_is(${var} "${test}")
        if(${var})
          set(chain "${this_chain}")
          break()
        endif()
      endforeach()
    endif()
  endif()

  # The chain is checked at run time only on Linux with GCC or Clang, in a
  # mode that declares POSIX's sigaction and clock_gettime (not C99 without
  # extensions); elsewhere the header reads the first of its classic blocks
  # that fits (on 32-bit ARM Linux, not an ARMv7 counter).  The test is the
  # header's own.
  set(CMAKE_REQUIRED_QUIET ON)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY) # compiled, not linked
  check_c_source_compiles("#include <signal.h>
#include <time.h>
#if !defined(__linux__) || !defined(__GNUC__) || !defined(SA_SIGINFO) || !defined(CLOCK_MONOTONIC)
#error no run-time checks here
#endif
int safecycle_probe(void) { return 0; }" SAFECYCLE_TARGET_ENGINE)
  if(SAFECYCLE_TARGET_ENGINE)
    set(order " (tried in this order)")
  else()
    set(chain "the classic block for this system (no run-time checks: they need Linux, GCC or Clang, and POSIX declarations)")
    set(order "")
  endif()

  if(arg_ADD_DEFINITIONS AND definitions)
    add_compile_definitions(${definitions})
  endif()
  foreach(t IN LISTS arg_TARGETS)
    if(NOT TARGET ${t})
      message(FATAL_ERROR "safecycle_counters: no target '${t}'")
    endif()
    if(definitions)
      target_compile_definitions(${t} PRIVATE ${definitions})
    endif()
  endforeach()
  if(definitions)
    string(REPLACE ";" " " shown "${definitions}")
  else()
    set(shown "none")
  endif()
  message(STATUS "safecycle: counters compiled in: ${chain}${order}; defines: ${shown}")
  set(SAFECYCLE_DEFINITIONS "${definitions}" PARENT_SCOPE)
  set(SAFECYCLE_COUNTER_CHAIN "${chain}" PARENT_SCOPE)
endfunction()
