#!/bin/sh
# secure-env-t: a setuid or setgid program that includes cycle.h ignores
# CYCLE_DEBUG and CYCLE_COUNTER: whoever runs it cannot steer its counter nor
# make it write to stderr.
# SPDX-License-Identifier: MIT
#
# A program (C without _GNU_SOURCE, where <stdlib.h> does not declare
# secure_getenv, and C++, where it does) prints the counter it uses.  Run as
# it is, the environment works (the control); owned by nobody and setuid, or
# by nogroup and setgid, and run by root, it must print nothing on stderr and
# not use the counter CYCLE_COUNTER names.  And each, given a file capability
# and run by nobody (setpriv), must ignore them too: only glibc's
# secure_getenv (AT_SECURE), which the header calls by its symbol in every
# mode, sees that case; a uid/gid comparison cannot, so these checks fail if
# either language loses it.  Needs root, a native
# build and a directory that honours the set-user-ID bit (and setcap, setpriv
# for the last check); otherwise the tests are skipped.
set -u

src=$(cd "${top_srcdir:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/log

echo "1..8"
skip_all() {
	i=0
	while [ $i -lt 8 ]; do skip "$1"; i=$((i + 1)); done
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "needs root (to make a setuid program)"
[ -z "${TEST_EMULATOR:-}" ] || skip_all "a cross build (qemu-user does not run setuid programs)"
case $(${CC:-cc} -dumpmachine 2>/dev/null) in
*linux*) ;;
*) skip_all "the engine is Linux only" ;;
esac

cat >"$tmp/use.c" <<'PROGRAM'
#include "cycle.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
	ticks t0 = getticks(), t1 = getticks();
	char line[256], caps[64] = "?";
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %63s", caps) == 1)
			break;
	if (f)
		fclose(f);
#ifdef __GLIBC__
	const char *libc = "glibc";
#else
	const char *libc = "other";
#endif
	printf("%s libc=%s euid=%d egid=%d capeff=%s\n", cycle_counter_name(), libc, (int)geteuid(), (int)getegid(), caps);
	return elapsed(t1, t0) < 0;
}
PROGRAM
cp "$tmp/use.c" "$tmp/use.cc"
${CC:-cc} -O2 -I"$src/cycle" "$tmp/use.c" -o "$tmp/c" >"$tmp/log" 2>&1 ||
	skip_all "the C program does not build"
${CXX:-c++} -O2 -I"$src/cycle" "$tmp/use.cc" -o "$tmp/cxx" >"$tmp/log" 2>&1 ||
	skip_all "the C++ program does not build"
chmod 755 "$tmp"

# run PROGRAM: its stdout in $tmp/out, stderr in $tmp/err, asking for both.
run() {
	CYCLE_DEBUG=1 CYCLE_COUNTER=clock_gettime "$1" >"$tmp/out" 2>"$tmp/err"
}

run "$tmp/c"
cp "$tmp/err" "$tmp/log"
grep -q '^clock_gettime ' "$tmp/out" && grep -q '^cycle.h: ' "$tmp/err"
ok $? "control: run as it is, CYCLE_COUNTER and CYCLE_DEBUG are obeyed ($(cat "$tmp/out"))"

for lang in c cxx; do
	for how in setuid setgid; do
		cp "$tmp/$lang" "$tmp/$lang-$how"
		if [ $how = setuid ]; then
			chown 65534 "$tmp/$lang-$how" && chmod 4755 "$tmp/$lang-$how"
		else
			chgrp 65534 "$tmp/$lang-$how" && chmod 2755 "$tmp/$lang-$how"
		fi
		run "$tmp/$lang-$how"
		st=$?
		if grep -q 'euid=0 egid=0 ' "$tmp/out"; then
			skip "$lang $how: $tmp does not honour the set-ID bits (nosuid?)"
			continue
		fi
		{ cat "$tmp/out"; cat "$tmp/err"; } >"$tmp/log"
		[ $st -eq 0 ] && ! [ -s "$tmp/err" ] && ! grep -q '^clock_gettime ' "$tmp/out"
		ok $? "$lang, $how: the environment is ignored ($(cat "$tmp/out"))"
	done
done
# A program that is only setgid, run by a user in no other group, is covered
# above; one more control: the same setuid file run without the variables.
"$tmp/c-setuid" >"$tmp/out" 2>"$tmp/err" && ! [ -s "$tmp/err" ]
ok $? "setuid program without the variables: runs, prints nothing on stderr"

# A file capability, run by an unprivileged user: AT_SECURE, same IDs.
for lang in c cxx; do
	if ! command -v setcap >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1; then
		skip "setcap or setpriv is not installed (libcap2-bin, util-linux)"
		continue
	fi
	cp "$tmp/$lang" "$tmp/$lang-caps"
	if ! setcap cap_net_raw+ep "$tmp/$lang-caps" 2>"$tmp/log"; then
		skip "setcap failed here (no file capabilities on $tmp?)"
		continue
	fi
	CYCLE_DEBUG=1 CYCLE_COUNTER=clock_gettime setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/$lang-caps" >"$tmp/out" 2>"$tmp/err"
	st=$?
	{ cat "$tmp/out"; cat "$tmp/err"; } >"$tmp/log"
	if ! grep -q 'euid=' "$tmp/out"; then
		skip "$lang: the program did not run with the capability ($(head -n 1 "$tmp/err"); bounding set?)"
		continue
	elif grep -q 'capeff=0*$' "$tmp/out"; then
		skip "file capabilities are not honoured here ($(cat "$tmp/out"))"
		continue
	elif grep -q 'libc=other' "$tmp/out"; then
		skip "$lang: only glibc's secure_getenv sees a file capability ($(cat "$tmp/out"))"
		continue
	fi
	[ $st -eq 0 ] && grep -q 'euid=65534' "$tmp/out" && ! [ -s "$tmp/err" ] && ! grep -q '^clock_gettime ' "$tmp/out"
	ok $? "$lang with a file capability, run by nobody: the environment is ignored ($(cat "$tmp/out"))"
done
tap_status
