#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's layering, checked on its objects: file A depends on file B
# when A's object uses a symbol B's defines. Prints each dependency and
# each cycle (a set of files that all reach one another), and fails on a
# cycle that is not declared below, or when a file outside the stream
# core includes stream_core.h, the definition of struct posixtrace_stream.
#
# Usage: kmod-deps.sh BUILT_KMOD_DIR
set -euo pipefail

dir=${1:?usage: $0 BUILT_KMOD_DIR}
core="stream.c stream_record.c stream_read.c flush.c links.c"
# The cycles the design has, each the set of its files in sorted order;
# Documentation/dev-tools/posixtrace-design.rst says why. The stream core:
# its files share struct posixtrace_stream, and the drain that takes
# records into it is asked for by the core and hands records back to it;
# the log's thread (flush.c) takes records as a reader (stream_read.c).
declared="drain flush links stream stream_read stream_record"

objs=$(cd "$dir" && ls *.o | grep -v -e '\.mod\.o$' -e '^posixtrace\.o$')
[ -n "$objs" ] || { echo "no objects in $dir" >&2; exit 1; }

for o in $objs; do
	nm "$dir/$o" | awk -v f="${o%.o}" '
		NF == 3 && $2 ~ /^[TDBR]$/ { print "def", f, $3 }
		NF == 2 && $1 == "U" { print "use", f, $2 }'
done | awk -v declared="$declared" '
	$1 == "def" { def[$3] = $2; files[$2] = 1; next }
	{ use[NR] = $2 " " $3 }
	END {
		for (i in use) {
			split(use[i], u, " ")
			if ((u[2] in def) && def[u[2]] != u[1])
				reach[u[1], def[u[2]]] = 1
		}
		n = 0
		for (f in files)
			name[++n] = f
		for (i = 1; i <= n; i++) {
			line = ""
			for (j = 1; j <= n; j++)
				if ((name[i], name[j]) in reach)
					line = line " " name[j]
			print name[i] " ->" line
		}
		for (k = 1; k <= n; k++)
			for (i = 1; i <= n; i++)
				for (j = 1; j <= n; j++)
					if (((name[i], name[k]) in reach) &&
					    ((name[k], name[j]) in reach))
						reach[name[i], name[j]] = 1
		nd = split(declared, d, ";")
		for (i = 1; i <= nd; i++)
			ok[d[i]] = 1
		bad = 0
		for (i = 1; i <= n; i++) {
			if (done[i])
				continue
			size = 1; delete member
			member[1] = name[i]
			for (j = i + 1; j <= n; j++)
				if (((name[i], name[j]) in reach) &&
				    ((name[j], name[i]) in reach)) {
					member[++size] = name[j]; done[j] = 1
				}
			if (size == 1)
				continue
			# Sorted, so that it compares with the declared list.
			for (a = 2; a <= size; a++)
				for (b = a; b > 1 && member[b - 1] > member[b]; b--) {
					t = member[b]; member[b] = member[b - 1]; member[b - 1] = t
				}
			cyc = member[1]
			for (a = 2; a <= size; a++)
				cyc = cyc " " member[a]
			if (cyc in ok) {
				print "cycle of " size " (declared): " cyc
			} else {
				print "cycle of " size " NOT DECLARED: " cyc
				bad = 1
			}
		}
		print bad ? "undeclared cycles: the layering is broken" : "no undeclared cycle"
		exit bad
	}'

bad=0
for f in "$dir"/*.c "$dir"/*.h; do
	case " $core stream_core.h " in *" ${f##*/} "*) continue ;; esac
	if grep -q '#include "stream_core.h"' "$f"; then
		echo "${f##*/} includes stream_core.h but is not in the stream core"
		bad=1
	fi
done
exit $bad
