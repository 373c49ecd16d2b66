// cxx-t: cycle.h compiles and works as C++.
// SPDX-License-Identifier: MIT
#include <cstdio>
#include <cstring>

#include "cycle.h"

int main()
{
	std::printf("1..2\n");
	ticks t0 = getticks();
	ticks t1 = getticks();
	const char *name = cycle_counter_name();
	std::printf("%sok 1 - C++ reads %s\n", name && *name ? "" : "not ", name);
	std::printf("%sok 2 - elapsed() >= 0 in C++\n",
		    elapsed(t1, t0) >= 0 ? "" : "not ");
	return name && *name && elapsed(t1, t0) >= 0 ? 0 : 1;
}
