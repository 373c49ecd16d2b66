#!/bin/sh
# code-version-t: every change of cycle.h's code comes with a new CYCLE_IMPL_CODE.
# SPDX-License-Identifier: MIT
#
# With GCC on ELF the engine's functions sit in COMDAT groups named after
# CYCLE_IMPL_CODE, and the linker keeps one group of a name per program or
# shared object.  Files built with two versions of the header would share
# one engine under one name, each half calling the other's functions, if
# the code changed and the number did not.  data/code-versions records the
# hash of the header's code (its comments and whitespace left out, and the
# CYCLE_IMPL_CODE line) for each number ever used: the header's code must be
# the one recorded for its number.  The check is first shown a changed
# header, so that it can fail.
set -u

src=${top_srcdir:-.}
. "$src/tests/tap/libtap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_DIAG=$tmp/diag
record=$src/tests/cycle/data/code-versions

# code HEADER: the hash of HEADER's code: outside strings and character
# constants, comments become a space; whitespace is squeezed.
code() {
	grep -v '^#define CYCLE_IMPL_CODE ' "$1" | LC_ALL=C awk '
	{ text = text $0 "\n" }
	END {
		n = length(text)
		for (i = 1; i <= n; i++) {
			c = substr(text, i, 1)
			d = substr(text, i, 2)
			if (d == "/*") {
				j = index(substr(text, i + 2), "*/")
				i += j ? j + 2 : n
				out = out " "
			} else if (d == "//") {
				j = index(substr(text, i), "\n")
				i += j ? j - 2 : n
			} else if (c == "\"" || c == "\047") {
				for (j = i + 1; j <= n; j++) {
					e = substr(text, j, 1)
					if (e == "\\")
						j++
					else if (e == c || e == "\n")
						break
				}
				out = out substr(text, i, j - i + 1)
				i = j
			} else {
				out = out c
			}
		}
		gsub(/[ \t\n]+/, " ", out)
		print out
	}' | sha256sum | cut -c1-64
}
# number HEADER: its CYCLE_IMPL_CODE.
number() {
	sed -n 's/^#define CYCLE_IMPL_CODE \([0-9][0-9]*\)$/\1/p' "$1"
}
# check HEADER: 0 when HEADER's number is recorded with HEADER's code.
check() {
	n=$(number "$1") h=$(code "$1")
	[ -n "$n" ] && [ -n "$h" ] || { echo "no CYCLE_IMPL_CODE or no hash" >"$TAP_DIAG"; return 1; }
	grep -qx "$n $h" "$record" && return 0
	if grep -q "^$n " "$record"; then
		next=$(($(grep -v '^#' "$record" | cut -d' ' -f1 | sort -n | tail -1) + 1))
		echo "cycle.h's code changed under CYCLE_IMPL_CODE $n: set it to $next and add \"$next $h\" to tests/cycle/data/code-versions" >"$TAP_DIAG"
	else
		echo "CYCLE_IMPL_CODE $n is not recorded: add \"$n $h\" to tests/cycle/data/code-versions" >"$TAP_DIAG"
	fi
	return 1
}

echo "1..5"
dups=$(grep -v '^#' "$record" | cut -d' ' -f1 | sort | uniq -d)
[ -z "$dups" ]
ok $? "each CYCLE_IMPL_CODE is recorded once${dups:+ (not: $dups)}"
check "$src/cycle/cycle.h"
ok $? "cycle.h's code is the one recorded for CYCLE_IMPL_CODE $(number "$src/cycle/cycle.h")"
# The controls: a change of code fails; a change of comment does not.
sed 's/CYCLE_IMPL_TRIES 5$/CYCLE_IMPL_TRIES 6/' "$src/cycle/cycle.h" >"$tmp/changed.h"
! cmp -s "$src/cycle/cycle.h" "$tmp/changed.h" && ! check "$tmp/changed.h"
ok $? "... and a header with one number changed is not"
sed 's|^/\* cycle.h: |/* cycle.h (a comment changed): |' "$src/cycle/cycle.h" >"$tmp/comment.h"
! cmp -s "$src/cycle/cycle.h" "$tmp/comment.h" && check "$tmp/comment.h"
ok $? "... while one with a comment changed still is"

# Two code versions in one program: two engines, by their groups' names.
cc=${CC:-cc}
if $cc -dM -E -I"$src/cycle" -x c "$src/cycle/cycle.h" 2>/dev/null | grep -q 'CYCLE_IMPL_FOLD'; then
	mkdir "$tmp/next"
	sed 's/^#define CYCLE_IMPL_CODE .*/#define CYCLE_IMPL_CODE 999/' "$src/cycle/cycle.h" >"$tmp/next/cycle.h"
	printf '#include "cycle.h"\nint main(void) { return elapsed(getticks(), getticks()) > 0; }\n' >"$tmp/main.c"
	printf '#include "cycle.h"\nint aux(void) { return getticks() == 0; }\n' >"$tmp/aux.c"
	$cc -O2 -I"$src/cycle" -c "$tmp/main.c" -o "$tmp/main.o" >"$TAP_DIAG" 2>&1 &&
		$cc -O2 -I"$tmp/next" -c "$tmp/aux.c" -o "$tmp/aux.o" >>"$TAP_DIAG" 2>&1 &&
		$cc "$tmp/main.o" "$tmp/aux.o" -o "$tmp/two" >>"$TAP_DIAG" 2>&1 &&
		nm "$tmp/two" | grep -q ' cycle_impl_slow_v3_.*_c1$' &&
		nm "$tmp/two" | grep -q ' cycle_impl_slow_v3_.*_c999$'
	ok $? "$cc: files built with two code versions keep one engine each"
else
	skip "$cc: no fold here (one engine per file)"
fi
tap_status
