# compat-probe.sh: guest side of armhf's cycle-probe on the arm64 kernel, in AArch32.
# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# Booted on arm64 with /opt/cycle-probe-armhf, the armhf build of
# cycle-probe (static, PMCCNTR configured): how Debian's armhf buildds and
# Raspberry Pi OS's 32-bit userland on its 64-bit kernel run it.  The arm64
# kernel lets AArch32 read the generic timer (CNTVCT) and traps PMCCNTR;
# the arm64 module's grant (PMUSERENR_EL0) holds for AArch32 reads too.  So
# stock, the probe must find PMCCNTR trapping on every CPU and select
# CNTVCT; with the module, PMCCNTR counting and selected; after rmmod,
# trapping again.

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
probe=/opt/cycle-probe-armhf

if [ ! -x "$probe" ]; then
	not_ok "prerequisite: $probe is in /opt"
	done_testing
	exit 1
fi
is "the kernel is arm64's" aarch64 "$(uname -m)"

# probe_round WHEN STATUS SELECTED PMCCNTR: one run of the probe and its
# verdict: the probe's architecture, its exit status, the counter it
# selects, PMCCNTR's status overall and on each CPU, CNTVCT's.
probe_round() {
	st=$(run_probe "$probe")
	is "$1: the armhf probe ran in AArch32 (arch armv7)" armv7 \
		"$(tr -d '\n' </tmp/probe.json |
			sed -n 's/.*"arch": *"\([^"]*\)".*/\1/p')"
	is "$1: cycle-probe exits $2" "$2" "$st"
	is "$1: cycle-probe selects $3" "$3" "$(probe_selected)"
	is "$1: PMCCNTR $4" "$4" "$(probe_status PMCCNTR)"
	is "$1: PMCCNTR $4 on all $cpu_count CPUs" "$cpu_count" \
		"$(tr -d '\n' </tmp/probe.json |
			sed -n 's/.*"name": *"PMCCNTR"[^}]*"per_cpu_status": *{\([^}]*\)}.*/\1/p' |
			tr ',' '\n' | grep -c "\"$4\"")"
	is "$1: CNTVCT available" available "$(probe_status CNTVCT)"
	[ ! -s /tmp/probe.err ] || diag "$(cat /tmp/probe.err)"
}

probe_round "stock kernel" 1 CNTVCT traps
check "insmod cycle_enable.ko" insmod /opt/cycle_enable.ko
probe_round "module loaded" 0 PMCCNTR available
check "rmmod cycle_enable" rmmod cycle_enable
probe_round "after rmmod" 1 CNTVCT traps
check "no kernel WARNING, BUG or Oops in the whole run" kernel_trouble

done_testing
