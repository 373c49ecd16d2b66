# harness-hang.sh: guest side of vm-run's own check: a guest that never ends must time out.
# SPDX-License-Identifier: MIT
sleep 600
