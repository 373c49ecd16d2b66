/* every-call.c: a file of a library that calls all of cycle.h's API.
 * SPDX-License-Identifier: MIT
 *
 * footprint-t.sh links it into a shared library 8 times: each copy then
 * needs every function of the engine, and with the fold (GCC, ELF) the
 * library must still hold each of them once.  Nothing here has external
 * linkage, so the copies link side by side.
 */
#include "cycle.h"

double footprint_sink(double);

__attribute__((constructor)) static void every_call(void)
{
	ticks t0 = getticks();

	footprint_sink(elapsed(getticks(), t0) + TIME_MIN +
		       cycle_ticks_per_second() + *cycle_counter_name());
}
