#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fault-sites.sh [--count] [KMOD_DIR]: the module's failure points, the
# denominator of fault injection (fault_test): every call in kmod/*.c of
# a function that allocates (slab, vmalloc, pages, netlink messages) or
# copies from or to user space, one line each, "FILE:LINE FUNCTION CALLEE"
# (FUNCTION: the module's function it is in). --count prints how many,
# and how many of each callee. A grep, not a compiler: a call in a macro
# that expands to several counts once, and comments are skipped only when
# the line starts one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
count=''
if [ "${1-}" = --count ]; then
	count=1
	shift
fi
kmod=${1:-$here/../../kmod}

callees='kmalloc|kzalloc|kcalloc|kmalloc_array|kvmalloc|kvzalloc|kvcalloc'
callees+='|kvmalloc_array|kvrealloc|krealloc|vmalloc|vzalloc|vmalloc_user'
callees+='|alloc_page|alloc_pages|__get_free_page|__get_free_pages'
callees+='|get_zeroed_page|kmem_cache_alloc|kmem_cache_zalloc|kstrdup'
callees+='|kstrndup|kmemdup|genlmsg_new|nlmsg_new|alloc_skb'
callees+='|copy_from_user|copy_to_user|get_user|put_user|__get_user'
callees+='|__put_user|strncpy_from_user|clear_user|copy_struct_from_user'
callees+='|memdup_user|vmemdup_user|strndup_user|copy_from_user_nofault'
callees+='|strncpy_from_user_nofault|__copy_from_user_inatomic'
callees+='|alloc_percpu|alloc_percpu_gfp|__alloc_percpu|vmap|vm_map_ram'
callees+='|kmalloc_node|kzalloc_node|kcalloc_node|kvmalloc_node|kvzalloc_node'
callees+='|krealloc_array|__vmalloc|__vmalloc_node|vmalloc_node|vzalloc_node'

sites() {
	local f
	for f in "$kmod"/*.c; do
		awk -v file="$(basename "$f")" \
			-v re="(^|[^a-zA-Z0-9_.>])($callees)[[:space:]]*\\(" '
			# A function starts at column 0: "type name(" or "name(".
			/^[a-zA-Z_][a-zA-Z0-9_ *]*\(/ && !/;[[:space:]]*$/ {
				fn = $0
				sub(/\(.*/, "", fn)
				n = split(fn, w, /[ *]+/)
				fn = w[n]
			}
			/^[[:space:]]*(\/\*|\*)/ { next }
			{
				line = $0
				while (match(line, re)) {
					callee = substr(line, RSTART, RLENGTH)
					sub(/[[:space:]]*\($/, "", callee)
					sub(/^[^a-zA-Z_]/, "", callee)
					print file ":" FNR " " fn " " callee
					line = substr(line, RSTART + RLENGTH)
				}
			}' "$f"
	done
}

if [ -n "$count" ]; then
	sites | awk '{ print $3 }' | sort | uniq -c | sort -k1,1nr |
		awk '{ n += $1; line[NR] = "  " $2 " " $1 }
			END {
				printf "%d failure points\n", n
				for (i = 1; i <= NR; i++)
					print line[i]
			}'
else
	sites
fi
