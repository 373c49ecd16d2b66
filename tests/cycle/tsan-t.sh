#!/bin/sh
# tsan-t: the threads test under ThreadSanitizer, natively: no data race in
# the choice, its publication or the reads that follow.
# SPDX-License-Identifier: MIT
set -u

src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/log

if [ -n "${TEST_EMULATOR:-}" ]; then
	echo "1..0 # SKIP ThreadSanitizer runs natively only (this build runs under $TEST_EMULATOR)"
	exit 0
fi
case $(${CC:-cc} -dumpmachine 2>/dev/null) in
x86_64-*linux*) ;;
*) echo "1..0 # SKIP ThreadSanitizer is checked on x86-64 Linux"; exit 0 ;;
esac
echo "1..2"
${CC:-cc} -O1 -g -fsanitize=thread -pthread -I"$src/cycle" -I"$src/tests" \
	"$src/tests/cycle/threads-t.c" -o "$tmp/threads-tsan" >"$tmp/log" 2>&1
ok $? "threads-t builds with -fsanitize=thread"
# setarch -R: TSan's shadow memory wants no address randomisation on
# some kernels.
TSAN_OPTIONS="halt_on_error=1 exitcode=66" setarch "$(uname -m)" -R \
	"$tmp/threads-tsan" >"$tmp/log" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q 'WARNING: ThreadSanitizer' "$tmp/log"
ok $? "threads-t under ThreadSanitizer: no race reported (exit $rc)"
tap_status
