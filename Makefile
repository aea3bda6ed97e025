# SPDX-License-Identifier: GPL-2.0
#
# posixtrace: the POSIX Tracing option for Linux.
#
#   make                 module (for the running kernel, or KVER=<release>,
#                        or KERNELDIR=<dir>), library, tool; warnings are
#                        errors only with WERROR=-Werror
#   make check           install what is missing, build, test on Debian's
#                        6.1 and 6.12 and on a debug kernel (QEMU); every
#                        build with WERROR=-Werror
#   make check-quick     the same without DKMS and the debug kernel
#   make check-debug     only the debug kernel
#   make demo            boot a guest, load the module, and tell the story:
#                        a program traced live, record, list, dump,
#                        export and babeltrace2 (selftests/vm/demo.sh)
#   make mutants         the mutations of selftests/vm/mutants.list, each
#                        on its own module in the 6.12 guest: every one
#                        must be killed by the suite (about an hour; not
#                        part of make check). MUTANTS=PATTERN: some only
#   make bench           boot a guest, measure what posix_trace_event()
#                        costs against a null system call, and an LTTng-UST
#                        tracepoint next to it (bench/run.sh)
#   make bench-host      natively on this machine: the LTTng-UST tracepoint
#                        and our producer path against a faked kernel side
#                        (bench/run.sh --host)
#   make bench-rt        on Debian's PREEMPT_RT kernel: cyclictest's latency
#                        idle, under a workload, and under it traced
#                        (bench/run.sh --rt)
#   make install         library, headers, pkg-config file, tool, man
#                        pages, bash completion (DESTDIR, PREFIX, LIBDIR,
#                        INCLUDEDIR, BINDIR, MANDIR, BASHCOMPDIR)
#   make uninstall       removes exactly that (the same variables)
#   make deb             Debian packages into build/deb: posixtrace-dkms,
#                        libposixtrace-k1, libposixtrace-k-dev, posixtrace
#                        (selftests/vm/deb.sh; lintian must be clean)
#   make style           checkpatch --strict on the module

VERSION := 0.1.0
export VERSION
VM := selftests/vm

all: kmod ulib tools examples

kmod:
	$(MAKE) -C kmod

ulib:
	$(MAKE) -C ulib

tools: ulib
	$(MAKE) -C tools

examples: ulib
	$(MAKE) -C examples

selftests: ulib
	$(VM)/build-selftests.sh build/selftests

install: ulib tools
	$(MAKE) -C ulib install
	$(MAKE) -C tools install

uninstall:
	$(MAKE) -C ulib uninstall
	$(MAKE) -C tools uninstall

check:
	$(VM)/check.sh

check-quick:
	$(VM)/check.sh --quick

check-debug:
	$(VM)/check.sh --debug

demo:
	$(VM)/demo.sh

# Debian packages of debian/ into build/deb (debhelper, dh-dkms, lintian).
deb:
	$(VM)/deb.sh

mutants:
	$(VM)/mutants.sh $(MUTANTS)

# The module's failure points failed one call site at a time, under the
# debug kernel; the report in build/fault/report.txt.
fault:
	$(VM)/fault.sh

# A million random calls on the module under the debug kernel, and the log
# reader's fuzzer for ten minutes; the report in build/fuzz/report.txt.
fuzz:
	$(VM)/fuzz.sh $(FUZZ_ARGS)

bench:
	bench/run.sh

bench-host:
	bench/run.sh --host

bench-rt:
	bench/run.sh --rt

style:
	$(MAKE) -C kmod style

clean:
	-$(MAKE) -C kmod clean
	$(MAKE) -C ulib clean
	$(MAKE) -C tools clean
	$(MAKE) -C examples clean
	rm -rf build

.PHONY: all kmod ulib tools examples selftests install uninstall check \
	check-quick check-debug demo deb mutants fault fuzz bench bench-host \
	bench-rt style \
	clean
