#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo guest after init.sh loaded the module.
say() { echo "# demo: $*"; }
say "the module is loaded:"
grep posixtrace /proc/modules | sed 's/^/# demo:   /'
say "its device, world read-write:"
ls -l /dev/posixtrace | sed 's/^/# demo:   /'
say "the posixtrace tool asks it for its ABI version:"
posixtrace version | sed 's/^/# demo:   /'
say "what the kernel logged:"
dmesg | grep posixtrace | sed 's/^/# demo:   /'
