# libtap.sh: TAP helpers for the shell tests (sourced, not run).
# SPDX-License-Identifier: MIT
#
# ok STATUS DESCRIPTION   prints "ok N" when STATUS is 0, else "not ok N"
#                         followed by the first lines of $TAP_DIAG, if set
# skip REASON             prints "ok N # SKIP REASON"
# tap_status              the exit status: 1 when anything failed

tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=1
		if [ -n "${TAP_DIAG:-}" ] && [ -f "$TAP_DIAG" ]; then
			head -20 "$TAP_DIAG" | sed 's/^/# /'
		fi
	fi
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}

tap_status() {
	return "$tap_failed"
}
