/* tiny.c: a file that includes cycle.h and never calls it.
 * SPDX-License-Identifier: MIT
 *
 * footprint-t.sh links thousands of copies into one library: whatever the
 * header defines per including file (thread-local storage above all, which
 * glibc carves out of every thread's stack) is multiplied by them.
 */
#ifndef HEADER
#define HEADER "cycle.h"
#endif
#include HEADER
