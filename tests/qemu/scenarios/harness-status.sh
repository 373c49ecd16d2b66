# harness-status.sh: guest side of vm-run's own check: --file and --no-module reach the guest, the status comes back.
# SPDX-License-Identifier: MIT
[ -f /opt/guest-tap.sh ] || exit 1
[ ! -e /opt/cycle_enable.ko ] || exit 1
[ -x /opt/pmu-read ] || exit 1
exit 7
