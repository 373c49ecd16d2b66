// cxx-t: cycle.h compiles and works as C++.
// SPDX-License-Identifier: MIT
#include <cstdio>
#include <cstring>

#include "cycle.h"

#if __cplusplus >= 201103L && defined(HAVE_TICK_COUNTER) && \
	(defined(__x86_64__) || defined(__i386__) || defined(__powerpc__) || \
	 defined(__s390__))
#include <type_traits>
// FFTW's ticks: the same type, so the same C++ mangling as FFTW's header.
static_assert(std::is_same<ticks, unsigned long long>::value,
	      "ticks is unsigned long long, as in FFTW");
#endif

int main()
{
	std::printf("1..2\n");
	ticks t0 = getticks();
	ticks t1 = getticks();
	const char *name = cycle_counter_name();
	std::printf("%sok 1 - C++ reads %s\n", name && *name ? "" : "not ",
		    name ? name : "(null)");
	std::printf("%sok 2 - elapsed() >= 0 in C++\n",
		    elapsed(t1, t0) >= 0 ? "" : "not ");
	return name && *name && elapsed(t1, t0) >= 0 ? 0 : 1;
}
