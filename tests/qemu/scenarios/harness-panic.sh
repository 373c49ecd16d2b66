# harness-panic.sh: guest side of vm-run's own check: a kernel panic must not pass for a status.
# SPDX-License-Identifier: MIT
echo c >/proc/sysrq-trigger
sleep 60
