#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# The guest's kernel log (run-vm.sh's console.log and ktap.txt) with the
# reports that are not the module's left out; run-vm.sh then looks for
# splats in what is left. awk -v splat=REGEX -v stalls="$(cat
# host-stalls.txt)" -f splat-filter.awk FILE...
#
# Two reports that are not the module's are left out of the splat check,
# and said so, but for any other splat line printed inside them:
#  - an OOM kill confined to a test's own memory cgroup (posixtrace-*,
#    with memory.max: memcg_test fills one) is what the kernel does there;
#    any other OOM report (a global one, another cgroup's, one cut short)
#    stays in;
#  - "irq 4: nobody cared" from the emulated UART's interrupt (the 8250
#    handler, threaded on PREEMPT_RT): seen once, at the end of a 6.12-rt
#    run, while the guest wrote its logs to the serial ports that share
#    the line; QEMU's UART under TCG, not the module.
# And what the guest's kernel says of a time the host stood still
# (run-vm.sh's boot() lists those times in host-stalls.txt): its soft lockups of no longer than the host stood still (and
# 30 s more: the watchdog's own period, and a report's delay), its RCU
# stalls, its hung tasks and their stack dumps, from 20 s before the
# host went on (the guest's clock starts after QEMU's) to 80 s after it
# (a hung task is told at the detector's next look, 60 s at most). Any
# other splat there stays in, and so does a lockup that goes on: it is
# told again, as longer, and its guest never finishes (a failure of its
# own).

BEGIN {
	nstalls = split(stalls, stall, "\n")
	for (i = 1; i <= nstalls; i++) {
		split(stall[i], f, " ")
		stall_end[i] = f[1]; stall_len[i] = f[2]
	}
}
function the_hosts_stall(line,    t, i, n) {
	if (!nstalls || line !~ splat ||
	    !match(line, /\[ *[0-9]+\.[0-9]+\]/))
		return 0
	t = substr(line, RSTART + 1, RLENGTH - 2) + 0
	for (i = 1; i <= nstalls; i++) {
		if (t < stall_end[i] - 20 || t > stall_end[i] + 80)
			continue
		if (match(line, /soft lockup - CPU#[0-9]+ stuck for [0-9]+s/)) {
			n = substr(line, RSTART, RLENGTH)
			sub(/.* for /, "", n)
			if (n + 0 > stall_len[i] + 30)
				continue
		} else if (line !~ /rcu.*detected stall|Call Trace:|INFO: task .* blocked for more than/) {
			continue
		}
		if (!told[i]++)
			print "# the host stood still " stall_len[i] \
			      " s: the guest's reports of it (left out)"
		return 1
	}
	return 0
}
the_hosts_stall($0) { next }
function flush_held() { printf "%s", held; held = ""; kind = "" }
function drop_held(what,    n, i, line) {
	print "# " what " (report left out)"
	n = split(held, line, "\n")
	for (i = 1; i <= n; i++)
		if (line[i] ~ splat && line[i] !~ /Call Trace:/ &&
		    line[i] !~ /nobody cared/)
			print line[i]
	held = ""; kind = ""
}
FNR == 1 && kind != "" { flush_held() }
/invoked oom-killer:|irq [0-9]+: nobody cared/ {
	if (kind != "")
		flush_held()
	kind = /nobody cared/ ? "irq" : "oom"
	held = $0 "\n"
	next
}
kind == "oom" {
	held = held $0 "\n"
	if (!/Killed process/)
		next
	if (held ~ /constraint=CONSTRAINT_MEMCG/ &&
	    held ~ /oom_memcg=\/posixtrace-/)
		drop_held("a memory cgroup of a test at its limit: OOM kill")
	else
		flush_held()
	next
}
kind == "irq" {
	held = held $0 "\n"
	if (!/Disabling IRQ #/)
		next
	if (held ~ /serial8250_interrupt|\] serial/)
		drop_held("the emulated UART's interrupt: nobody cared")
	else
		flush_held()
	next
}
{ print }
END { if (kind != "") flush_held() }
