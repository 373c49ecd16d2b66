#!/bin/sh
# layering-t: cycle/'s files include and call each other one way only.
# SPDX-License-Identifier: MIT
#
# The probe is layered: cycle-probe.c (main) on probe-qualify.c on
# probe-lib.c and probe-verdict.c, with cycle.h at the bottom.  This test
# builds two graphs of cycle/'s modules (x.c and x.h are module x):
# "#include" lines between them, and calls between their objects (each
# compiled here with $CC; an object that uses a symbol another defines
# depends on it, as nm shows).  Neither graph may have a circle.  Only
# probe-lib.[ch] may name cycle.h's internals (cycle_impl_*, CYCLE_IMPL_*),
# beyond asking whether the engine is there.  The checker is first shown
# a circle of each kind, so that it can fail.
set -u

src=${top_srcdir:-.}
build=${top_builddir:-.}
. "$src/tests/tap/libtap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_DIAG=$tmp/diag
cc=${CC:-cc}

# circle KIND FILE...: prints the first circle of the graph of the FILEs'
# modules (a file's name without .c, .h or .o), exit 1 if there is one.
# KIND include: "#include "x"" lines; KIND call: FILEs are objects, an edge
# where one's undefined symbol is another's definition.
circle() {
	kind=$1
	shift
	for f in "$@"; do
		if [ "$kind" = include ]; then
			sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" |
				sed "s|^|$(basename "$f") |; s|\.[ch]\( \)|\1|; s|\.[ch]$||"
		else
			nm "$f" | awk -v me="$(basename "$f" .o)" \
				'$1 == "U" { print me, "U", $2 } NF == 3 && $2 ~ /^[TDRBCVW]$/ { print me, "D", $3 }'
		fi
	done | python3 -c '
import sys
kind = sys.argv[1]
edges, defined, used = {}, {}, []
for line in sys.stdin:
    w = line.split()
    if kind == "include":
        edges.setdefault(w[0], set()).add(w[1])
    elif w[1] == "D":
        defined[w[2]] = w[0]
    else:
        used.append((w[0], w[2]))
for me, sym in used:
    if sym in defined:
        edges.setdefault(me, set()).add(defined[sym])
for n in edges:
    edges[n].discard(n)  # x.c includes x.h
state = {}
def visit(n, path):
    state[n] = 1
    for m in sorted(edges.get(n, ())):
        if state.get(m) == 1:  # on the path: a circle
            return path[path.index(m):] + [m]
        if m not in state:
            c = visit(m, path + [m])
            if c:
                return c
    state[n] = 2
    return None
for n in sorted(edges):
    if n not in state:
        c = visit(n, [n])
        if c:
            print(" -> ".join(c))
            sys.exit(1)
' "$kind"
}

echo "1..5"
if ! command -v python3 >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		echo "Bail out! python3 or nm is missing (tests/install-deps base)"
		exit 1
	fi
	for i in 1 2 3 4; do skip "python3 or nm is missing"; done
	no_tools=1
fi

# The checker finds a circle of each kind: a module (f.c, f.h) including
# another that includes it, and objects calling each other.
if [ -z "${no_tools:-}" ]; then
	mkdir "$tmp/bad"
	printf '#include "f.h"\n#include "g.h"\n' >"$tmp/bad/f.c"
	printf '#include "g.h"\n#include "f.h"\n' >"$tmp/bad/g.c"
	: >"$tmp/bad/f.h"
	: >"$tmp/bad/g.h"
	found=$(circle include "$tmp/bad/f.c" "$tmp/bad/f.h" "$tmp/bad/g.c" "$tmp/bad/g.h")
	[ $? -eq 1 ] && [ "$found" = "f -> g -> f" ]
	ok $? "the checker finds a circle of includes ($found)"
	printf 'int g(void);\nint f(void) { return g(); }\n' >"$tmp/bad/f.c"
	printf 'int f(void);\nint g(void) { return f() + 1; }\n' >"$tmp/bad/g.c"
	$cc -c -o "$tmp/bad/f.o" "$tmp/bad/f.c" 2>"$TAP_DIAG" &&
		$cc -c -o "$tmp/bad/g.o" "$tmp/bad/g.c" 2>>"$TAP_DIAG" &&
		found=$(circle call "$tmp/bad/f.o" "$tmp/bad/g.o")
	[ $? -eq 1 ] && [ "$found" = "f -> g -> f" ]
	ok $? "the checker finds a circle of calls ($found)"

	# cycle/'s includes.
	found=$(circle include "$src"/cycle/*.c "$src"/cycle/*.h)
	st=$?
	echo "$found" >"$TAP_DIAG"
	[ $st -eq 0 ] && [ -z "$found" ]
	ok $? "cycle/'s modules include each other one way"

	# cycle/'s calls, in objects built as the probe's are (warnings, as
	# from a CC with -W options, are not the point).
	: >"$TAP_DIAG"
	objects=
	found=
	for f in "$src"/cycle/*.c; do
		o=$tmp/$(basename "$f" .c).o
		$cc -include "$build/config.h" -I"$src/cycle" -c -o "$o" "$f" \
			2>"$tmp/cc.log" ||
			{ echo "$cc could not compile $f:"; cat "$tmp/cc.log"; } >>"$TAP_DIAG"
		objects="$objects $o"
	done
	# shellcheck disable=SC2086 # one word per object
	[ ! -s "$TAP_DIAG" ] && [ -n "$objects" ] && found=$(circle call $objects)
	st=$?
	[ -n "$found" ] && echo "$found" >>"$TAP_DIAG"
	ok $st "cycle/'s objects call each other one way ($(echo $objects | wc -w) objects)"
fi

# cycle.h's internals, named only by the probe's library.
grep -n 'cycle_impl_\|CYCLE_IMPL_' "$src"/cycle/*.c "$src"/cycle/*.h |
	grep -v -e '^[^:]*/cycle\.h:' -e '^[^:]*/probe-lib\.[ch]:' |
	sed 's/CYCLE_IMPL_ENGINE//g' | grep 'cycle_impl_\|CYCLE_IMPL_' >"$TAP_DIAG"
[ ! -s "$TAP_DIAG" ]
ok $? "only probe-lib.c and probe-lib.h reach into cycle.h's internals"

tap_status
