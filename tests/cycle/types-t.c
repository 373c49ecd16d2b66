/* types-t: ticks and TIME_MIN are FFTW's, per architecture.
 * SPDX-License-Identifier: MIT
 *
 * FFTW 3.3.10's cycle.h: ticks is unsigned long long on x86-64, i386,
 * PowerPC and s390, uint64_t in its ARM blocks; TIME_MIN is 5000 in its x86
 * blocks.  A different type changes C++ mangling and printf formats.
 */
#include <stdio.h>
#include <string.h>

#include "cycle.h"
#include "tap/basic.h"

#if defined(__x86_64__) || defined(__i386__) || defined(__powerpc__) || \
	defined(__ppc__) || defined(__s390__)
__extension__ typedef unsigned long long fftw_ticks;
#define FFTW_TICKS "unsigned long long"
#else
typedef uint64_t fftw_ticks;
#define FFTW_TICKS "uint64_t"
#endif

/* Whether the counter counts CPU cycles: its TIME_MIN is then a number of
 * cycles, not a time.  (Not inlined: GCC would compare the literals with
 * the header's shortest name and warn, -Wstring-compare, where the chain
 * has no such counter.) */
static __attribute__((noinline)) int counts_cycles(const char *name)
{
	static const char *const cycles[] = {
		"PMCCNTR_EL0", "PMCCNTR", "rdcycle", "PMCCNTR_EL0_perf"
	};
	size_t i;

	for (i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++)
		if (strcmp(name, cycles[i]) == 0)
			return 1;
	return 0;
}

int main(void)
{
#if !defined(HAVE_TICK_COUNTER)
	tap_skip_all("no tick counter in this build");
#else
	const char *name = cycle_counter_name();
	double tmin = TIME_MIN, hz = cycle_ticks_per_second();

	tap_plan(3);
#if defined(CYCLE_IMPL_ENGINE)
	/* A read of clock_gettime may be a system call of about 1 us: 1 us of
	 * its ticks would measure little but the read. */
	tap_ok(cycle_impl_time_min_for(CYCLE_IMPL_CLOCK_INDEX, 1e9) >= 2000.0,
	       "TIME_MIN for clock_gettime is at least 2 us (%g ns)",
	       cycle_impl_time_min_for(CYCLE_IMPL_CLOCK_INDEX, 1e9));
#else
	tap_skip("no engine");
#endif
	tap_ok(__builtin_types_compatible_p(ticks, fftw_ticks),
	       "ticks is FFTW's " FFTW_TICKS);
#if defined(__x86_64__) || defined(__i386__)
	if (name[0] == 'r') { /* rdtsc */
		tap_ok(tmin == 5000.0, "TIME_MIN is FFTW's 5000 for rdtsc (%g)",
		       tmin);
		return tap_done();
	}
#endif
	if (hz > 0 && !counts_cycles(name))
		tap_ok(tmin >= 100.0 && tmin >= hz * 1e-6 * 0.999,
		       "TIME_MIN is 1 us of %s ticks at %.4g Hz (%g), >= 100",
		       name, hz, tmin);
	else
		tap_ok(tmin >= 100.0, "TIME_MIN for %s is %g", name, tmin);
	return tap_done();
#endif
}
