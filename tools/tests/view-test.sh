#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# view-test.sh [--load|--perf] OUT LOG...: posixtrace view's pages in
# Debian's chromium (view/view-test.mjs says what is checked, and what
# --load and --perf do), screenshots kept in OUT. playwright-core, the
# only package the test needs from npm, is installed beside it from its
# lock file on first use (view-test.sh --install: that alone, so that
# runs side by side do not both install it). POSIXTRACE: the command
# (default: the tree's tools/posixtrace).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
install_only=
[ "${1-}" != --install ] || install_only=1
perf=()
if [ "${1-}" = --perf ] || [ "${1-}" = --load ]; then
	perf=("$1")
	shift
fi
[ -n "$install_only" ] || [ $# -ge 2 ] ||
	{ echo "usage: view-test.sh [--load|--perf] OUT LOG... | --install" >&2; exit 2; }
command -v node >/dev/null || { echo "view-test: node not found (deps.sh installs it)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "view-test: /usr/bin/chromium not found (deps.sh installs it)" >&2; exit 1; }
if [ ! -d "$here/view/node_modules/playwright-core" ]; then
	(cd "$here/view" && npm ci --no-audit --no-fund --loglevel=error)
fi
[ -z "$install_only" ] || exit 0
out=$1
shift
exec node "$here/view/view-test.mjs" "${perf[@]}" \
	--tool "${POSIXTRACE:-$here/../posixtrace}" --out "$out" "$@"
