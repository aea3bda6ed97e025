#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages (make deb) as a user meets them, on this machine,
# as root. It purges any posixtrace packages first and last, installs
# nothing they only recommend, and leaves the build's dependencies
# (deb.sh's) installed:
#  1. an older version's four packages (the same files built as 0.0.9,
#     deb.sh 0.0.9) install with apt-get install ./*.deb, and DKMS builds
#     the module for every installed kernel that has headers;
#  2. this version's upgrade them: DKMS drops 0.0.9 and builds this one,
#     for each of those kernels, where modprobe finds it; nothing loads it
#     at boot;
#  3. a kernel whose headers arrive afterwards gets the module too: DKMS's
#     header_postinst.d hook, which the headers package runs, builds it
#     (the module removed for that kernel first, as if it had no headers);
#  4. a program builds against the -dev package (pkg-config) and links the
#     shared library the library package installed;
#  5. a 6.12 guest loads the module DKMS built and records that program
#     with the packaged posixtrace command;
#  6. the packages purge, and nothing of them is left: their files, the
#     DKMS tree and source, the built modules.
# Prints "ok N STEP" lines; exits non-zero at the first failure.
#
# usage: deb-test.sh     (POSIXTRACE_BUILD: where deb.sh builds)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "deb-test: needs root (it installs packages)"
PKGS=(posixtrace-dkms libposixtrace-k1 libposixtrace-k-dev posixtrace)
OLD=0.0.9
NEW=$(dpkg-parsechangelog -l "$TOP_DIR/debian/changelog" -S Version)
WORK=$BUILD_DIR/deb-test
N=0

ok() { N=$((N + 1)); echo "ok $N $*"; }
fail() { echo "not ok $((N + 1)) $*"; exit 1; }

debs() {
	local dir=$1 p
	for p in "${PKGS[@]}"; do
		compgen -G "$dir/${p}_*.deb" || die "no $p in $dir"
	done
}

purge() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${PKGS[@]}" \
		>/dev/null 2>&1 || true
}

# Kernels with headers: what DKMS builds for.
kernels() {
	local d
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] && basename "$(dirname "$d")"
	done
}

# The module DKMS installed for kernel $1, at version $2.
built_for() {
	local ko
	ko=$(find "/lib/modules/$1/updates/dkms" -name 'posixtrace.ko*' 2>/dev/null |
		head -n 1)
	[ -n "$ko" ] && dkms status "posixtrace/$2" -k "$1" 2>/dev/null |
		grep -q installed
}

trap purge EXIT
rm -rf "$WORK"
mkdir -p "$WORK"
purge
# This tree's packages (built again unless make deb just built them from
# it), and the old version's, always built afresh.
now=$(cd "$TOP_DIR" && { git rev-parse HEAD && git diff HEAD | sha256sum; } 2>/dev/null || echo none)
if [ "$now" = none ] || [ "$(cat "$BUILD_DIR/deb/source" 2>/dev/null)" != "$now" ]; then
	"$VM_DIR/deb.sh" >/dev/null
fi
"$VM_DIR/deb.sh" "$OLD" >/dev/null
mapfile -t KERNELS < <(kernels)
[ ${#KERNELS[@]} -gt 0 ] || die "no kernel headers installed"

# Install version $2's packages from $1 as a user would; DKMS must have
# built the module for every kernel with headers.
install_version() {
	local pkgs
	mapfile -t pkgs < <(debs "$1")
	[ ${#pkgs[@]} = ${#PKGS[@]} ] || fail "the $2 packages were built"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${pkgs[@]}" >"$WORK/install-$2.log" 2>&1 ||
		{ tail -n 20 "$WORK/install-$2.log"; fail "install $2"; }
	for k in "${KERNELS[@]}"; do
		built_for "$k" "$2" || fail "DKMS built $2 for $k"
	done
}

# 1. The old version.
install_version "$BUILD_DIR/deb-$OLD" "$OLD"
ok "install $OLD: DKMS built it for ${KERNELS[*]}"

# 2. The upgrade.
install_version "$BUILD_DIR/deb" "$NEW"
st=$(dkms status posixtrace 2>/dev/null || true)
[[ $st == *"$OLD"* ]] && fail "DKMS still has $OLD"
for p in "${PKGS[@]}"; do
	[ "$(dpkg-query -W -f='${Version}' "$p")" = "$NEW" ] || fail "$p is $NEW"
done
# modprobe finds it (DKMS ran depmod); nothing loads it at boot.
for k in "${KERNELS[@]}"; do
	modinfo -k "$k" -n posixtrace | grep -q /updates/dkms/ ||
		fail "modprobe finds the DKMS module for $k"
done
grep -rqs posixtrace /etc/modules-load.d /etc/modules &&
	fail "the module is not loaded at boot unless the administrator says so"
ok "upgrade to $NEW: DKMS built it for ${KERNELS[*]}, $OLD gone; modprobe finds it, boot does not load it"

# 3. Headers installed afterwards: the kernel's header hook runs DKMS.
late=${KERNELS[0]}
dkms remove "posixtrace/$NEW" -k "$late" >/dev/null 2>&1 || true
built_for "$late" "$NEW" && fail "the module for $late is still there"
[ -x /etc/kernel/header_postinst.d/dkms ] || fail "no DKMS header hook"
/etc/kernel/header_postinst.d/dkms "$late" >"$WORK/hook.log" 2>&1 || true
built_for "$late" "$NEW" || { tail -n 20 "$WORK/hook.log"; fail "the header hook built it for $late"; }
ok "headers of $late installed afterwards: DKMS's hook built the module"

# 4. A program against the installed -dev package.
cc -o "$WORK/selftrace" "$TOP_DIR/examples/selftrace.c" \
	$(pkg-config --cflags --libs posixtrace-k) ||
	fail "build examples/selftrace.c with pkg-config posixtrace-k"
lib=$(ldd "$WORK/selftrace" | awk '/libposixtrace-k/ {print $3}')
[ "$(readlink -f "$lib")" = "$(readlink -f "$(dpkg -L libposixtrace-k1 |
	grep 'libposixtrace-k\.so\.')")" ] ||
	fail "selftrace links the packaged library (ldd says '$lib')"
ok "a program builds against libposixtrace-k-dev and links $lib"

# 5. A guest loads the DKMS-built module and records the program with the
# packaged tool.
rel=$(meta_release linux-headers-6.12-amd64)
ko=$(find "/lib/modules/$rel/updates/dkms" -name 'posixtrace.ko*' | head -n 1)
[ -n "$ko" ] || fail "a DKMS-built module for $rel"
case $ko in
*.xz) xz -dc "$ko" >"$WORK/posixtrace.ko" ;;
*.zst) zstd -qdc "$ko" >"$WORK/posixtrace.ko" ;;
*) cp "$ko" "$WORK/posixtrace.ko" ;;
esac
cat >"$WORK/guest.sh" <<'EOF'
#!/bin/sh
cd /tmp || exit 1
posixtrace record -q -o t.ptlog -- selftrace >/dev/null 2>&1
echo "# deb: record exited $?"
echo "# deb: $(posixtrace dump t.ptlog | grep -c ' greeting ') greetings"
EOF
chmod +x "$WORK/guest.sh"
"$VM_DIR/run-vm.sh" --label deb --kernel "/boot/vmlinuz-$rel" \
	--module "$WORK/posixtrace.ko" --out "$WORK/vm" --timeout 600 \
	--demo "$WORK/guest.sh" --bin /usr/bin/posixtrace \
	--bin "$WORK/selftrace" >"$WORK/vm.log" 2>&1 || true
grep -q '# deb: record exited 0' "$WORK/vm.log" &&
	grep -Eq '# deb: [1-9][0-9]* greetings' "$WORK/vm.log" ||
	{ grep '# deb:' "$WORK/vm.log"; fail "the guest records selftrace with the packaged module and tool"; }
ok "a $rel guest loads the DKMS-built module and records it: $(sed -n 's/.*# deb: \([0-9]* greetings\).*/\1/p' "$WORK/vm.log")"

# 6. Purge: nothing left.
for p in "${PKGS[@]}"; do
	dpkg -L "$p" | while read -r f; do
		if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi
	done
done | sort -u >"$WORK/files"
purge
trap - EXIT
left=$(while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi
done <"$WORK/files")
[ -z "$left" ] || { echo "$left"; fail "purge removes every file"; }
[ ! -e "/usr/src/posixtrace-$NEW" ] || fail "purge removes the DKMS source"
[ ! -e /var/lib/dkms/posixtrace ] || fail "purge removes the DKMS tree"
[ -z "$(find /lib/modules/*/updates -name 'posixtrace.ko*' 2>/dev/null)" ] ||
	fail "purge removes the built modules"
st=$(dpkg -l "${PKGS[@]}" 2>/dev/null || true)
grep -q '^[ir]' <<<"$st" && fail "the packages are gone"
ok "purge leaves nothing: $(wc -l <"$WORK/files") files, the DKMS tree, the modules"
