#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo guest after init.sh loaded the module, and tells the
# story make demo shows: a program traced live, a command's processes
# followed live as strace -f would, a command recorded into a log, the
# streams listed while one runs, the log dumped with a filter, then
# exported to CTF and read by babeltrace2, exported for Perfetto, drawn as
# a page, and a flight recorder's snapshot of a crash.
# Every line of it is a "# demo: "
# line, which demo.sh prints without the prefix; the rest of the guest's
# output (KTAP, the kernel log) is the test harness's. A command of the
# story that fails says its exit status and prints "# demo-failed: ", which
# makes demo.sh fail.
say() { printf '%s\n' "$*" | sed 's/^/# demo: /'; }
show() { sed 's/^/# demo:     /'; }
step() { say; say "$*"; }
# run 'COMMAND': print it as typed, then run it and show what it prints.
run() {
	say "  \$ $1"
	{ eval "$1" 2>&1; echo $? >/tmp/.demo-rc; } | show
	rc=$(cat /tmp/.demo-rc)
	[ "$rc" = 0 ] || failed "$1" "$rc"
}
# failed COMMAND STATUS: say it in the story, and to demo.sh.
failed() {
	say "    (exit status $2)"
	echo "# demo-failed: $1 (exit status $2)"
}

hostname demo 2>/dev/null
cd /tmp || exit 1
# demo.sh put babeltrace2's plugins in /bin, next to it.
export BABELTRACE_PLUGIN_PATH=/bin

say "posixtrace: the POSIX trace API (<trace.h>) for Linux, its module loaded"
say "in a QEMU guest running Linux $(uname -r)."
run 'posixtrace --version'

step "1. A program traced live: examples/analyzer starts examples/worker (two
threads calling posix_trace_event(), whose event types say what their data
holds: worker:u32,job:u32,...) and prints its events, as fields, as they come."
run 'analyzer worker 2'

step "2. posixtrace trace shows, as strace -f does, what the kernel does to a
command's processes (forks, execs, exits, signals), the program's own events
among them, as they happen (here a shell, worker in the background, a pipe)."
run "posixtrace trace --color=never -- sh -c 'worker 1 2 & echo hi | cat >/dev/null; wait'"

step "3. posixtrace record traces a command and the processes it starts into a
log (here a shell running worker twice), then sums up what it recorded:
per process, per event type, and the process tree with exit statuses."
run "posixtrace record -o demo.ptlog -- sh -c 'worker 3 100; worker 2'"

step "4. posixtrace list shows the streams while they run: a recording of
job_begin events only, in the background, listed, then left to finish."
say "  \$ posixtrace record -e job_begin -o live.ptlog -- worker 20 100 &"
posixtrace record -e job_begin -o live.ptlog -- worker 20 100 >live.out 2>&1 &
sleep 1
# What record said so far (its start line), then the rest once it ends.
said=$(wc -l <live.out)
show <live.out
run 'posixtrace list'
say "  \$ wait"
wait $!
rc=$?
tail -n +$((said + 1)) live.out | show
[ $rc = 0 ] || failed "posixtrace record -e job_begin ... &" $rc

step "5. posixtrace dump reads a log back, with or without the module: here
the jobs begun after the first 0.2 s, with times from the first event, and
their data as the fields the log's event formats name."
run 'posixtrace dump -e job_begin --since +0.2 --relative demo.ptlog'

step "6. posixtrace export writes the log as a CTF trace, which babeltrace2
(and Trace Compass) read: the first job_end events, in UTC, their fields
typed (worker and job integers, ms a double), then how many events it
read, as many as dump read."
run 'posixtrace export -o demo.ctf demo.ptlog'
if command -v babeltrace2 >/dev/null; then
	run 'babeltrace2 --clock-gmt --clock-date demo.ctf | grep job_end | head -n 2'
	run 'babeltrace2 demo.ctf | wc -l'
else
	say "  (babeltrace2 is not installed on the host: not shown here)"
fi

step "7. posixtrace export --format=chrome writes the same log for Perfetto
(ui.perfetto.dev) and chrome://tracing: a track per thread, its events as
instants with their fields, system calls as spans, and the tracks' names;
here, how many of each."
run 'posixtrace export --format=chrome -o demo.json demo.ptlog'
run 'grep -o "\"ph\":\"[iXM]\"" demo.json | sort | uniq -c'

step "8. posixtrace view draws the same timeline in one HTML page, which any
browser opens from disk with nothing fetched: lanes per thread, zoom, pan,
an event's fields on hover, counts per type and per process."
run 'posixtrace view -o demo.html demo.ptlog'
run 'wc -c < demo.html'

step "9. The flight recorder: record --loop keeps the last 1 MiB of events in
memory, writes nothing, and when a trigger fires (here the shell crashing
with SIGSEGV after its loop) writes what it holds as a log of its own."
# The crash is the story: record passes the shell's status (139) on.
say "  \$ posixtrace record --loop=1M --snapshot-on=SIGSEGV -o crash -- sh -c '...; kill -SEGV \$\$'"
posixtrace record --loop=1M --snapshot-on=SIGSEGV -o crash -- \
	sh -c 'for i in 1 2 3; do /bin/true; done; kill -SEGV $$' 2>&1 | show
run 'posixtrace dump --tree crash/snapshot-1.ptlog'
run 'posixtrace dump crash/snapshot-1.ptlog | grep -c posixtrace_proc_exec'

say
say "To try it on your machine: README.md, \"Install\" and \"A first trace\"."
