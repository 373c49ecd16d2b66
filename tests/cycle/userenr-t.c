/* userenr-t: what cycle.h makes of the PMU's user-enable register, on the
 * values the kernels and the module write, PMUv3.9's among them.
 * SPDX-License-Identifier: MIT
 *
 * No emulator here has PMUv3.9 (qemu 7.2's CPUs stop at PMUv3p5), so the
 * decision is tested on the register values themselves: those Linux writes
 * (none; ER|CR for a task with a user-readable perf event, 5.17+; UEN|ER|CR
 * with PMUACR_EL1 naming the task's counters, 6.13+ on PMUv3.9), those
 * cycle_enable writes (CR; CR|ER with event_read=1; EN with user_write=1),
 * and the corners.  Runs on every architecture: the decision is arithmetic.
 */
#include "cycle.h"

#include "tap/basic.h"

#ifdef CYCLE_IMPL_ENGINE

static const struct {
	unsigned long value;
	int grant;
	const char *who;
} cases[] = {
	{0x00, CYCLE_IMPL_PMU_DENIED, "stock kernel, or perf for another task"},
	{0x0c, CYCLE_IMPL_PMU_GRANTED, "Linux 5.17+ perf_user_access: ER|CR"},
	{0x04, CYCLE_IMPL_PMU_GRANTED, "cycle_enable: CR"},
	{0x0c, CYCLE_IMPL_PMU_GRANTED, "cycle_enable event_read=1: CR|ER"},
	{0x01, CYCLE_IMPL_PMU_GRANTED, "cycle_enable user_write=1 (ARMv7): EN"},
	{0x05, CYCLE_IMPL_PMU_GRANTED, "EN|CR"},
	{0x1c, CYCLE_IMPL_PMU_PERHAPS,
	 "Linux 6.13+ on PMUv3.9: UEN|ER|CR, PMUACR_EL1 decides"},
	{0x10, CYCLE_IMPL_PMU_PERHAPS, "UEN alone: PMUACR_EL1 decides"},
	{0x11, CYCLE_IMPL_PMU_GRANTED, "EN with UEN: EN grants all"},
	{0x08, CYCLE_IMPL_PMU_DENIED, "ER alone: event counters only"},
	{0x02, CYCLE_IMPL_PMU_DENIED, "SW alone: software increment only"},
	{0xffffffe0ul, CYCLE_IMPL_PMU_DENIED, "RES0 bits only"},
};

int main(void)
{
	unsigned i;

	tap_plan((int)(sizeof(cases) / sizeof(cases[0])));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = cycle_impl_userenr_grant(cases[i].value);

		tap_ok(got == cases[i].grant, "PMUSERENR 0x%02lx (%s): %s",
		       cases[i].value, cases[i].who,
		       got == CYCLE_IMPL_PMU_GRANTED ? "granted" :
		       got == CYCLE_IMPL_PMU_PERHAPS ? "perhaps: a guarded read decides" :
		       "denied: not even tried");
	}
	return tap_done();
}

#else

int main(void)
{
	tap_skip_all("this build of cycle.h has no run-time engine");
	return 0;
}

#endif
