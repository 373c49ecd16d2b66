# dkms-module.sh: guest side of the Debian suite's DKMS check: the module DKMS built loads and grants.
# SPDX-License-Identifier: MIT
#
# Runs inside the arm64 VM (tests/debian/check-debian boots it with
# vm-run --no-module), with /opt/cycle_enable.ko the module that
# `dkms build` of the cycle-enable-dkms package cross-built against the
# same Debian kernel's headers, and /opt/dkms-version the package's version.

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
ko=/opt/cycle_enable.ko

is "before load: $pmu_counter traps on CPU 0" traps "$(./pmu-read --cpu 0)"
check "insmod the module DKMS built" insmod "$ko"
is "its version is the package's" "$(cat /opt/dkms-version)" \
	"$(cat /sys/module/cycle_enable/version 2>/dev/null)"
is "it grants every CPU" "0-$((cpu_count - 1))" "$(ce granted)"
for cpu in $all_cpus; do
	is "$pmu_counter counts from user space on CPU $cpu" counts \
		"$(./pmu-read --cpu "$cpu")"
done
consumer --seconds 1
is "a cycle.h consumer exits 0" 0 "$consumer_status"
is "the consumer uses $pmu_counter" "$pmu_counter" "$consumer_start"
check "rmmod cycle_enable" rmmod cycle_enable
is "after rmmod: $pmu_counter traps again" traps "$(./pmu-read --cpu 0)"
check "no kernel WARNING, BUG or Oops" kernel_trouble
done_testing
