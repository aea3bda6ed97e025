#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian packages of debian/ (posixtrace-dkms,
# libposixtrace-k1, libposixtrace-k-dev, posixtrace), built with debhelper
# and dh-dkms from a copy of the tree's files, into $BUILD_DIR/deb; then
# lintian, which must report no error and no warning.
#
# usage: deb.sh [VERSION | --deps]
# VERSION (default: debian/changelog's) builds the same files as another
# version, with a changelog entry of its own: the packaging test builds an
# older one to upgrade from. --deps installs what the build needs, and no
# more (make check does, before it builds the packages beside its guests).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(debhelper dh-dkms dkms lintian dpkg-dev fakeroot libnl-genl-3-dev zlib1g-dev
	pkg-config)
need=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${need[*]}"
	log "deb: installing ${need[*]}"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${need[@]}" >/dev/null
fi
[ "${1-}" != --deps ] || exit 0

# The tree the packages come from: its commit, and a hash of what differs.
source_id() {
	if git -C "$TOP_DIR" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$TOP_DIR" rev-parse HEAD
		git -C "$TOP_DIR" diff HEAD | sha256sum
	else
		echo none
	fi
}

version=${1:-$(dpkg-parsechangelog -l "$TOP_DIR/debian/changelog" -S Version)}
out=$BUILD_DIR/deb${1:+-$1}
work=$BUILD_DIR/deb-work/posixtrace-$version
rm -rf "$out" "$BUILD_DIR/deb-work"
mkdir -p "$out" "$work"

# The files of the tree, not what a build left in it: git's list in a
# clone, else everything but the build directories.
if git -C "$TOP_DIR" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$TOP_DIR" && { git ls-files; git ls-files -o --exclude-standard; } |
		sort -u | while read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done |
		tar -cf - -T -) | tar -xf - -C "$work"
else
	(cd "$TOP_DIR" && tar -cf - --exclude=./build --exclude='*.o' .) |
		tar -xf - -C "$work"
fi
if [ -n "${1:-}" ]; then
	# Another version: a changelog entry of its own (debian/rules gives
	# DKMS the changelog's version).
	(cd "$work" && DEBEMAIL=maintainers@users.noreply.a-seed-7372f896.example \
		DEBFULLNAME="posixtrace maintainers" dch -b -v "$version" \
		"Built as $version for the packaging test." >/dev/null 2>&1 ||
		sed -i "1s/([^)]*)/($version)/" debian/changelog)
fi
log "deb: building posixtrace $version"
(cd "$work" && dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) ||
	{ tail -n 30 "$out/build.log" >&2; die "dpkg-buildpackage failed ($out/build.log)"; }
# Errors and warnings fail, as does lintian failing to run (2); notes (I:)
# and pedantic tags are shown. The packages reach $out only if clean.
rc=0
lintian --pedantic -I "$BUILD_DIR"/deb-work/*.changes >"$out/lintian.txt" 2>&1 || rc=$?
grep -v '^running with root privileges' "$out/lintian.txt" >&2 || true
[ $rc -lt 2 ] || die "lintian failed to run (exit $rc, $out/lintian.txt)"
if grep -q '^[EW]:' "$out/lintian.txt"; then
	die "lintian reports errors or warnings ($out/lintian.txt)"
fi
mv "$BUILD_DIR"/deb-work/*.deb "$BUILD_DIR"/deb-work/*.changes \
	"$BUILD_DIR"/deb-work/*.buildinfo "$out"/
rm -rf "$BUILD_DIR/deb-work"
# What they were built from, for deb-test.sh to tell stale packages.
source_id >"$out/source"
ls "$out"/*.deb
