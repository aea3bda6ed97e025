#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Does the tree's uapi keep ABI 1.0? Everything a 1.0 program compiled in
# from the headers 1.0 released (abi/1.0/linux/, never edited), printed by
# one C program built twice, against those headers and against the tree's
# (include/uapi), and compared line by line:
#
#   member S.M OFF SIZE   every 1.0 struct member: the same offset and size
#   size S N              a 1.0 struct: as large, or larger (members are
#                         added at the end)
#   const NAME V          a number: the same, but for the few that grow
#                         with a minor version (below)
#   str NAME V            a string: the same; an event format may gain
#                         fields at its end
#   ioctl NAME T NR DIR   a command: the same type, number and direction
#                         (its size part follows its struct, and the
#                         module dispatches without it)
#   name ARRAY I S        an event type's name: the same
#
#   layout.sh TOP_DIR [CC]
#
# Prints what differs, and "abi 1.0: N lines kept" or fails.
set -euo pipefail

top=${1:?usage: layout.sh TOP_DIR [CC]}
cc=${2:-cc}
frozen=$top/selftests/abi/1.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The printing program, made from the frozen headers' text.
gen() {
	awk '
	function flush_define(    name, val) {
		name = dname; val = dval
		dname = ""
		gsub(/\/\*[^*]*\*\//, "", val)
		sub(/^[ \t]+/, "", val)
		if (name == "" || name ~ /^_/ || name ~ /_H$/)
			return
		if (name ~ /^POSIXTRACE_IOC_/ && name != "POSIXTRACE_IOC_MAGIC") {
			printf "\tprintf(\"ioctl %s %%u %%u %%u\\n\", (unsigned)_IOC_TYPE(%s), (unsigned)_IOC_NR(%s), (unsigned)_IOC_DIR(%s));\n", name, name, name, name
		} else if (val ~ /^\{/) {
			printf "\t{ static const char *const a[] = %s;\n\t  for (unsigned i = 0; i < sizeof(a) / sizeof(a[0]); i++) if (a[i]) printf(\"name %s %%u %%s\\n\", i, a[i]); }\n", name, name
		} else if (val ~ /"/) {
			printf "\tprintf(\"str %s %%s\\n\", %s);\n", name, name
		} else {
			printf "\tprintf(\"const %s %%lld\\n\", (long long)(%s));\n", name, name
		}
	}
	# A define, its continuation lines joined; function-like ones skipped.
	cont {
		line = $0; sub(/\\$/, "", line); dval = dval " " line
		if ($0 !~ /\\$/) { cont = 0; flush_define() }
		next
	}
	/^#define [A-Z_0-9]+[ \t]/ || /^#define [A-Z_0-9]+$/ {
		dname = $2; dval = $0
		sub(/^#define [A-Z_0-9]+[ \t]*/, "", dval)
		if ($0 ~ /\\$/) { sub(/\\$/, "", dval); cont = 1; next }
		flush_define(); next
	}
	/^struct posixtrace_[a-z_0-9]+ \{$/ { st = $2; next }
	st && /^\};/ {
		printf "\tprintf(\"size %s %%zu\\n\", sizeof(struct %s));\n", st, st
		st = ""; next
	}
	st && /^\t[a-z_0-9 ]+[ \t]+[a-z_0-9]+(\[[^]]*\])?;/ {
		m = $0; sub(/;.*/, "", m); sub(/\[.*/, "", m); sub(/.*[ \t]/, "", m)
		printf "\tprintf(\"member %s.%s %%zu %%zu\\n\", offsetof(struct %s, %s), sizeof(((struct %s *)0)->%s));\n", st, m, st, m, st, m
		next
	}
	/^enum posixtrace_[a-z_0-9]+ \{$/ { en = 1; next }
	en && /^\};/ { en = 0; next }
	en && /^\t_*POSIXTRACE_[A-Z_0-9]+/ {
		m = $1; sub(/[,=].*/, "", m)
		printf "\tprintf(\"const %s %%lld\\n\", (long long)(%s));\n", m, m
	}
	' "$frozen/linux/posixtrace.h" "$frozen/linux/posixtrace_netlink.h"
}

{
	echo '#include <stddef.h>'
	echo '#include <stdio.h>'
	echo '#include <linux/posixtrace.h>'
	echo '#include <linux/posixtrace_netlink.h>'
	echo 'int main(void)'
	echo '{'
	gen
	echo '	return 0;'
	echo '}'
} > "$work/layout.c"

"$cc" -std=gnu11 -Wall -Werror -I"$frozen" -o "$work/frozen" "$work/layout.c"
"$cc" -std=gnu11 -Wall -Werror -I"$top/include/uapi" -o "$work/tree" \
	"$work/layout.c"
"$work/frozen" > "$work/frozen.txt"
"$work/tree" > "$work/tree.txt"

# What a minor version may make larger: the version, the classes that
# exist, the kernel types that exist, netlink's counts.
awk '
	# The key: the kind and the name, and for a name its index.
	function key_of() { return $1 == "name" ? $1 " " $2 " " $3 : $1 " " $2 }
	NR == FNR { k = key_of(); tree[k] = substr($0, length(k) + 2); next }
	{
		key = key_of(); want = substr($0, length(key) + 2)
		if (!(key in tree)) { print "gone: " $0; bad++; next }
		got = tree[key]
		if (got == want) { kept++; next }
		if ($1 == "size" && got + 0 >= want + 0) { kept++; next }
		if ($1 == "const" && got + 0 >= want + 0 &&
		    ($2 ~ /^POSIXTRACE_ABI_MINOR$|^POSIXTRACE_KERNEL_ALL$|^POSIXTRACE_KERNEL_PRIVILEGED$|^POSIXTRACE_EVENT_KERNEL_END$/ ||
		     $2 ~ /NL_.*_MAX$/)) { kept++; next }
		if ($1 == "str" && $2 ~ /_FORMAT$/ &&
		    substr(got, 1, length(want) + 1) == want ",") { kept++; next }
		print "changed: " $0 " -> " got; bad++
	}
	END {
		if (bad) { printf "abi 1.0: %d lines changed or gone\n", bad; exit 1 }
		printf "abi 1.0: %d lines kept\n", kept
	}
' "$work/tree.txt" "$work/frozen.txt"
