#!/bin/sh
# version-t: configure.ac's version is repeated unchanged in dkms.conf, debian/changelog and the module.
# SPDX-License-Identifier: MIT
#
# AC_INIT in configure.ac is the one source of the version.  DKMS reads
# enable_module/dkms.conf and dpkg reads debian/changelog as plain files, so
# they carry a copy; this test fails as soon as a copy differs.
set -u

src=${top_srcdir:-.}
. "$src/tests/tap/libtap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_DIAG=$tmp/diag

echo "1..5"
version=$(sed -n 's/^AC_INIT(\[safecycle\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
case $version in
[0-9]*.[0-9]*) st=0 ;;
*) st=1 ;;
esac
echo "configure.ac has no AC_INIT([safecycle], [X.Y...]) line" >"$TAP_DIAG"
ok $st "configure.ac names the version ($version)"

# same WHAT VALUE: one copy of the version.
same() {
	echo "expected '$version', got '$2'" >"$TAP_DIAG"
	[ -n "$version" ] && [ "$2" = "$version" ]
	ok $? "$1 repeats it"
}
same "enable_module/dkms.conf's PACKAGE_VERSION" \
	"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$src/enable_module/dkms.conf")"
# The newest entry's upstream version: the part before the Debian revision.
same "debian/changelog's newest entry" \
	"$(sed -n '1s/^safecycle (\(.*\)-[^-]*).*/\1/p' "$src/debian/changelog")"
# The module's MODULE_VERSION comes from dkms.conf through Kbuild's ccflags-y.
grep -q 'CYCLE_ENABLE_VERSION=.*cycle_enable_version' "$src/enable_module/Kbuild" &&
	grep -q 'cycle_enable_version :=.*dkms.conf' "$src/enable_module/Kbuild"
st=$?
echo "enable_module/Kbuild no longer passes dkms.conf's version as CYCLE_ENABLE_VERSION" >"$TAP_DIAG"
ok $st "the module's MODULE_VERSION is dkms.conf's"
# The build's own idea (config.h), when there is one.
if [ -n "${top_builddir:-}" ] && [ -f "$top_builddir/config.h" ]; then
	same "the configured build (config.h)" \
		"$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")"
else
	skip "no configured build to compare"
fi
tap_status
