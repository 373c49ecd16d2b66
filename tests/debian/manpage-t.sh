#!/bin/sh
# manpage-t: cycle-probe.1 renders without warnings and documents every option and JSON key.
# SPDX-License-Identifier: MIT
#
# Runs the built cycle-probe (under $TEST_EMULATOR in a cross build) for its
# --help and --json output.  Without man(1) the rendering check is skipped,
# and fails with CI=true (tests/install-deps installs man-db).
set -u

src=${top_srcdir:-.}
build=${top_builddir:-.}
. "$src/tests/tap/libtap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_DIAG=$tmp/diag
page=$src/cycle/cycle-probe.1
probe=$build/cycle/cycle-probe

echo "1..4"
if command -v man >/dev/null 2>&1; then
	# man --warnings passes -ww to groff: every warning goes to stderr.
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" >"$tmp/out" 2>"$TAP_DIAG"
	st=$?
	[ $st -eq 0 ] && [ ! -s "$TAP_DIAG" ] && [ -s "$tmp/out" ]
	ok $? "man --warnings renders cycle-probe.1 silently (exit $st)"
elif [ "${CI:-}" = true ]; then
	echo "man not found (tests/install-deps base)" >"$TAP_DIAG"
	ok 1 "man --warnings renders cycle-probe.1: man is missing"
else
	skip "man is not installed"
fi

# documented KIND WORD...: each WORD appears in bold in the page.
documented() {
	kind=$1
	shift
	: >"$TAP_DIAG"
	for w in "$@"; do
		# Bold words are written .B word, .BR word, or \fBword\fR.
		grep -q -e "^\.B[IR]\{0,1\} \(.*[ \"]\)\{0,1\}$w\([ ,\"]\|$\)" \
			-e "\\\\fB$w\\\\f" "$page" ||
			echo "not in the page: $w" >>"$TAP_DIAG"
	done
	[ ! -s "$TAP_DIAG" ]
	ok $? "every $kind is documented ($*)"
}

# The options, from --help (man writes \- for each hyphen).
# shellcheck disable=SC2086 # TEST_EMULATOR may be a command with arguments
${TEST_EMULATOR:-} "$probe" --help >"$tmp/help" 2>&1
options=$(grep -o -e '--[a-z][a-z-]*' "$tmp/help" | sort -u | sed 's/-/\\\\-/g')
[ -n "$options" ]
ok $? "cycle-probe --help lists options"
# shellcheck disable=SC2086
documented option $options

# The JSON keys of this machine's output, --qualify's included (perf_tier's
# appear on aarch64).
# shellcheck disable=SC2086
${TEST_EMULATOR:-} "$probe" --json --qualify >"$tmp/json" 2>/dev/null
keys=$(grep -o '"[a-z_]*":' "$tmp/json" | tr -d '":' | sort -u)
# shellcheck disable=SC2086
documented "JSON key" $keys
tap_status
