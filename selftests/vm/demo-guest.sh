#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo guest after init.sh loaded the module.
say() { echo "# demo: $*"; }
show() { sed 's/^/# demo:   /'; }
say "the module is loaded, its device is world read-write:"
ls -l /dev/posixtrace | show
posixtrace version | show
say
say "examples/selftrace: a process traces itself and reads its events back"
selftrace 2>&1 | show
say
say "examples/analyzer runs examples/worker (two threads, instrumented with"
say "posix_trace_event) as a child, traces it from the analyzer process, and"
say "prints the worker's events as they arrive:"
analyzer worker 2>&1 | show
say
say "what the kernel logged:"
dmesg | grep 'posixtrace:' | show
