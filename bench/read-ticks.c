/* read-ticks: a function that only returns getticks(), whose disassembly is getticks()'s code.
 * SPDX-License-Identifier: MIT
 *
 * bench/bench-getticks cross-compiles it with the configure macro of each
 * counter and counts the instructions from read_ticks's entry to its return.
 */
#include "cycle.h"

ticks read_ticks(void);

ticks read_ticks(void)
{
	return getticks();
}
