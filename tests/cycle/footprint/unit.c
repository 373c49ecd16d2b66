/* unit.c: one file of a library that includes cycle.h and times once.
 * SPDX-License-Identifier: MIT
 *
 * footprint-t.sh links the same object into a shared library once and 64
 * times (a profiler with a timer in every file): what each extra copy adds
 * is what every including file costs its host.  Nothing here has external
 * linkage, so the copies link side by side; each times once at load.
 */
#ifndef HEADER
#define HEADER "cycle.h"
#endif
#include HEADER

double footprint_sink(double);

__attribute__((constructor)) static void unit_times_once(void)
{
	ticks t0 = getticks();

	footprint_sink(elapsed(getticks(), t0));
}
