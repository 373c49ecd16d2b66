# SafecycleProjectInclude.cmake: turns the counter options on in a CMake project that does not know safecycle.
# SPDX-License-Identifier: MIT
#
# For a project you do not want to patch (FFTW's CMakeLists, a vcpkg or conan
# port):
#
#   cmake -DCMAKE_PROJECT_INCLUDE=<prefix>/share/cmake/safecycle/SafecycleProjectInclude.cmake \
#         -DENABLE_ARMV8_PMCCNTR_EL0=ON ...
#
# CMake (3.15+) includes this file right after the project's top-level
# project() call: it declares the options of SafecycleCounters.cmake, checks
# them against the compiler, and adds the HAVE_* macros to every target
# (add_compile_definitions), since the project's own config.h template does not
# define them.  Copy safecycle's cycle.h over the project's cycle.h as well.

# Only the top-level project: a nested project() call would check twice.
if(NOT CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)
  return()
endif()
include("${CMAKE_CURRENT_LIST_DIR}/SafecycleCounters.cmake")
safecycle_counters(ADD_DEFINITIONS)
