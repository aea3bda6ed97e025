#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fault-map.sh KO: the module's failure points as the machine code has
# them, for fault_test's site by site walk (selftests/vm/fault.sh). One
# line per call, in the module's text, of a function that allocates or
# copies from or to user space:
#
#   SECTION OFFSET SOURCE CALLEE
#
# OFFSET: the call's return address in SECTION, in hex, which is what a
# stack trace holds while the callee runs, so that fault injection's
# stack filter (require-start = the address, require-end = one more)
# fails this call and no other. SOURCE: FILE:LINE of the call in kmod/,
# through any inline function of the kernel's (kzalloc is one), as
# fault-sites.sh names it. CALLEE: the function called. The module must
# be built with -g (debug info for addr2line).
#
# Callees: the allocators and user copies that fault injection can fail
# (failslab, fail_page_alloc, fail_usercopy), and the kernel's functions
# the module calls that allocate on its behalf (a file, a descriptor, a
# work queue, page tables for a mapping, a netlink message's copy).
set -euo pipefail

ko=${1:?usage: fault-map.sh KO}
[ -r "$ko" ] || { echo "fault-map.sh: $ko: not readable" >&2; exit 1; }
# No grep -q: readelf would write on into a closed pipe (pipefail).
readelf -S "$ko" | grep '\.debug_info' >/dev/null || {
	echo "fault-map.sh: $ko has no debug info (build it with KCFLAGS=-g)" >&2
	exit 1
}

callees='__kmalloc_cache_noprof|__kmalloc_cache_node_noprof|__kmalloc_noprof'
callees+='|__kmalloc_node_noprof|__kvmalloc_node_noprof|__vmalloc_noprof'
callees+='|vmalloc_noprof|vzalloc_noprof|vmalloc_user_noprof|krealloc_noprof'
callees+='|kvrealloc_noprof|kstrdup|kstrndup|kmemdup_noprof|__alloc_pages_noprof'
callees+='|alloc_pages_noprof|get_zeroed_page_noprof|__get_free_pages_noprof'
callees+='|kmem_cache_alloc_noprof|__alloc_skb|pcpu_alloc_noprof|vmap'
callees+='|_copy_from_user|_copy_to_user|strncpy_from_user|memdup_user'
callees+='|vmemdup_user|strndup_user'
# On the module's behalf.
callees+='|anon_inode_getfile|get_unused_fd_flags|filp_open|alloc_workqueue'
callees+='|kthread_create_on_node|vm_insert_page|vm_insert_pages'
callees+='|remap_pfn_range|kernel_write|vfs_fallocate|netlink_unicast'
callees+='|netlink_broadcast_filtered|tracepoint_probe_register'
callees+='|tracepoint_probe_register_prio|genl_register_family'

# SECTION CALL_OFFSET RETURN_OFFSET CALLEE, from the disassembly: a call
# with its relocation on the next line, its return address the address
# of the instruction after it. A tail call (a jmp) leaves no return
# address of its own: the calls of the function it ends stand for it,
# "SECTION JMP_OFFSET RETURN_OFFSET CALLEE" with the jmp's offset (its
# source) and each of those calls' return address.
calls() {
	objdump -dr --no-show-raw-insn "$ko" | awk -v re="^($callees)$" '
		/^Disassembly of section / {
			sec = $4; sub(/:$/, "", sec); pend = ""; next
		}
		/^[0-9a-f]+ <.*>:$/ {
			fn = $2; gsub(/[<>:]/, "", fn); next
		}
		/^ *[0-9a-f]+:\t/ {
			addr = $1; sub(/:$/, "", addr)
			if (pend != "") {
				if (callee ~ re)
					print sec, pend, addr, callee
				else
					callers[callee] = callers[callee] " " sec "," addr
				pend = ""
			}
			insn = $2
			op = (insn == "call" || insn == "jmp") ? addr : ""
			next
		}
		op != "" && /R_X86_64_(PLT32|PC32)/ {
			target = $3; sub(/[-+]0x[0-9a-f]+$/, "", target)
			if (insn == "jmp" && target ~ re) {
				tails[fn] = tails[fn] " " sec "," op "," target
			} else if (insn == "call") {
				pend = op; callee = target
			}
			op = ""
		}
		END {
			for (f in tails) {
				nt = split(tails[f], t, " ")
				nc = split(callers[f], c, " ")
				for (i = 1; i <= nt; i++) {
					split(t[i], tj, ",")
					for (j = 1; j <= nc; j++) {
						split(c[j], cj, ",")
						# The jmp is in one section, the call in
						# another maybe: the call names both.
						print cj[1] "@" tj[1], tj[2], cj[2], tj[3]
					}
				}
			}
		}'
}

# The call's line in kmod/: the first frame, innermost out, in a file of
# the module's own (addr2line -i walks out of the kernel's inline ones).
source_of() {
	addr2line -j "$1" -e "$ko" -i "0x$2" |
		sed -n 's|^.*/kmod/\([a-z_0-9]*\.c\):\([0-9]*\).*$|\1:\2|p' | head -n 1
}

# For a tail call, SECTION is "CALL_SECTION@JMP_SECTION".
calls | sort -u | while read -r sec call ret callee; do
	src=$(source_of "${sec#*@}" "$call")
	echo "${sec%@*} $ret ${src:-?} $callee"
done
