# fftw-lib.sh: shared shell helpers of tests/fftw and bench/ (paths, cache, TAP output).
# SPDX-License-Identifier: MIT
#
# Source it from a bash script after setting FFTW_LIB_CALLER to the script's name;
# it sets TOP (the project root) and CACHE (the download and build cache).
# shellcheck shell=bash disable=SC2034 # TOP, CACHE: for the scripts that source this

FFTW_TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$FFTW_TESTS_DIR/../.." && pwd)
# Downloads and builds live outside the source tree so a second run is quick.
CACHE=${SAFECYCLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/safecycle}

die() {
	echo "${FFTW_LIB_CALLER:-fftw}: $*" >&2
	exit 1
}

usage_error() {
	echo "${FFTW_LIB_CALLER:-fftw}: $* (try --help)" >&2
	exit 2
}

# The cross compiler and qemu-user binary of each architecture we build for.
arch_cc() {
	case $1 in
	x86_64) echo gcc ;;
	aarch64) echo aarch64-linux-gnu-gcc ;;
	armhf) echo arm-linux-gnueabihf-gcc ;;
	*) usage_error "unknown architecture '$1' (x86_64 aarch64 armhf)" ;;
	esac
}

arch_host() {
	case $1 in
	x86_64) echo "" ;;
	aarch64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	*) usage_error "unknown architecture '$1' (x86_64 aarch64 armhf)" ;;
	esac
}

# Prefix that runs a static binary of the architecture on this x86-64 host.
arch_runner() {
	case $1 in
	x86_64) echo "" ;;
	aarch64) echo qemu-aarch64 ;;
	armhf) echo qemu-arm ;;
	*) usage_error "unknown architecture '$1' (x86_64 aarch64 armhf)" ;;
	esac
}

# --- TAP ------------------------------------------------------------------
# The plan is printed last (tap_done), so sections can add tests freely.
tap_count=0
tap_failed=0

tap_ok() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $*"
}

tap_not_ok() {
	tap_count=$((tap_count + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_count - $*"
}

tap_skip() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - # SKIP $*"
}

# tap_check DESCRIPTION COMMAND...: one test that passes when COMMAND succeeds.
tap_check() {
	local desc=$1
	shift
	if "$@"; then tap_ok "$desc"; else tap_not_ok "$desc"; fi
}

tap_diag() {
	# Indent every line so a TAP harness never mistakes it for a result.
	sed 's/^/# /'
}

tap_done() {
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}

# A missing prerequisite: a failure under CI=true, a skip of the whole script otherwise.
# After some tests ran, the rest is skipped as one more test.
tap_missing() {
	if [ "${CI:-}" = true ]; then
		echo "Bail out! missing prerequisite: $*"
		exit 1
	fi
	if [ "$tap_count" -gt 0 ]; then
		tap_skip "missing prerequisite: $*"
		tap_done
		exit
	fi
	echo "1..0 # SKIP missing prerequisite: $*"
	exit 0
}

# apply_series SERIES-DIR TREE: the series' patches, in order, with patch -p1
# (as someone without git applies them); at the first that does not apply,
# names it on stderr and fails.
apply_series() {
	local p
	for p in "$1"/*.patch; do
		patch -p1 -s -N -d "$2" <"$p" ||
			{ echo "$(basename "$p") does not apply to $2" >&2; return 1; }
	done
}

# tap_merge PREFIX COMMAND...: run a TAP script and fold its results into ours,
# renumbered; its skip, bail-out and exit status become results too.
tap_merge() {
	local prefix=$1 out rc=0 line failed_before=$tap_failed
	shift
	out=$(mktemp)
	"$@" >"$out" 2>&1 || rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*" # SKIP"* | "ok "*" # skip"*) tap_skip "$prefix: ${line#*# [Ss][Kk][Ii][Pp] }" ;;
		"ok "*) tap_ok "$prefix: $(sed 's/^ok [0-9]* *-* *//' <<<"$line")" ;;
		"not ok "*) tap_not_ok "$prefix: $(sed 's/^not ok [0-9]* *-* *//' <<<"$line")" ;;
		"1..0"*) tap_skip "$prefix: ${line#*# }" ;;
		"1.."*) ;;
		"Bail out!"*) tap_not_ok "$prefix: ${line#Bail out!}" ;;
		*) echo "# $line" ;;
		esac
	done <"$out"
	rm -f "$out"
	if [ $rc -ne 0 ] && [ $tap_failed -eq "$failed_before" ]; then
		tap_not_ok "$prefix: exited with status $rc"
	fi
}
