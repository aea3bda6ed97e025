#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# A guest's console (run-vm.sh's console.log) in which Debian's 6.1 kernel
# reports the same CPU "stuck" twice at one instruction outside the
# module, at a site the kernel patches (a static key's or a static call's
# NOP, forward jump or call): a vCPU running an int3 the emulator kept
# from before text_poke_bp() finished (run-vm.sh says more). Prints "CPU
# N at SYMBOL+OFF/LEN" and exits 0 if so; exits 1 if not.

/soft lockup - CPU#[0-9]+ stuck/ {
	cpu = $0; sub(/.*CPU#/, "", cpu); sub(/ .*/, "", cpu)
	want = 1; rip = ""; next
}
want && /RIP: 0010:/ { rip = $0; sub(/.*RIP: 0010:/, "", rip); next }
want && /Code: / && rip != "" {
	want = 0
	if (rip ~ /\[posixtrace\]/)
		next
	code = $0; sub(/.*</, "", code)
	if (code ~ /^66> 90/ || code ~ /^0f> 1f 44 00 00/ ||
	    code ~ /^e[89]> / || code ~ /^eb> [0-7]/)
		if (seen[cpu " " rip]++) { print "CPU " cpu " at " rip; found = 1; exit }
}
END { exit !found }
