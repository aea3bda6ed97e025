#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's one test command (make check). Installs what is missing,
# builds everything, checks the build itself (warnings, exported symbols,
# headers, checkpatch, sparse, DKMS), then boots each Debian kernel (6.1,
# 6.12, 6.12 with rings off, 6.12-rt) and the debug kernel under QEMU and
# runs the kselftests there.
#
#   check.sh          everything
#   check.sh --quick  no DKMS, no debug kernel
#   check.sh --debug  only the debug kernel
#
# Ends with one line "N passed, M failed" counting every test case on every
# kernel; the exit status is 0 only when nothing failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

MODE=full
case ${1:-} in
--quick) MODE=quick ;;
--debug) MODE=debug ;;
'') ;;
*) die "usage: $0 [--quick|--debug]" ;;
esac

LOGS=$BUILD_DIR/check
rm -rf "$LOGS" && mkdir -p "$LOGS"
PASSED=0 FAILED=0 SKIPPED=0 N=0
# What failed, by name: printed last, where the tail of a CI log shows it.
FAILURES=()
# Where the time went, printed last too: "SECONDS NAME" of every host
# case, "LABEL SECONDSs" of every guest.
HOST_TIMES=() GUEST_TIMES=()

# failure_reason LOG: a host case's reason for failing, in a line for
# the list at the end: its log's last line that says FAIL or error, else
# its last line (CI's record of a run is that list and little more).
failure_reason() {
	local why
	why=$(grep -E 'FAIL|[Ee]rror' "$1" | tail -n 1)
	[ -n "$why" ] || why=$(grep . "$1" | tail -n 1)
	printf '%.300s' "$why"
}

# host_case NAME COMMAND...: one test case run on the build host.
host_case() {
	local name=$1 log t0
	shift
	log=$LOGS/host.$name.log
	N=$((N + 1))
	t0=$SECONDS
	if "$@" >"$log" 2>&1; then
		PASSED=$((PASSED + 1))
		echo "ok $N host.$name"
	else
		FAILED=$((FAILED + 1))
		FAILURES+=("host.$name: $(failure_reason "$log")")
		echo "not ok $N host.$name"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
	HOST_TIMES+=("$((SECONDS - t0)) $name")
}

# The host cases that need no guest and no quiet machine run beside the
# guests, in a lane of their own at the lowest priority: a guest's
# emulator keeps one CPU and part of the other busy, and takes what it
# wants first; the lane has the rest, which would otherwise go unused.
# Its lines and results join the run's once both are done.
# lane_start COMMAND...: runs COMMAND (host cases) in the lane, a
# process group of its own, which goes with the run if the run ends
# first (an interrupt, an error): no package installed, no guest left
# running, behind it.
LANE_PID=''
trap '[ -z "$LANE_PID" ] || kill -TERM -- "-$LANE_PID" 2>/dev/null' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
lane_start() {
	set -m
	# shellcheck disable=SC2030 # the lane's own counts, sent back below
	(
		PASSED=0 FAILED=0 N=0 FAILURES=() HOST_TIMES=()
		renice -n 19 -p "$BASHPID" >/dev/null
		"$@"
		echo "LANE_PASSED=$PASSED LANE_FAILED=$FAILED"
		declare -p FAILURES HOST_TIMES |
			sed 's/^declare -a \([A-Z_]*\)=/LANE_\1=/'
	) >"$LOGS/lane.out" 2>&1 &
	LANE_PID=$!
	set +m
}
# lane_join: waits for the lane; prints its lines, numbered on from the
# run's, and adds its results to the run's.
# shellcheck disable=SC2031 # the run's counts, which the lane left alone
lane_join() {
	local LANE_PASSED=0 LANE_FAILED=1
	local -a LANE_FAILURES=("the lane beside the guests: it ended without its results (see $LOGS/lane.out)") LANE_HOST_TIMES=()
	[ -n "$LANE_PID" ] || return 0
	wait "$LANE_PID"
	LANE_PID=''
	awk -v n="$N" '/^LANE_/ { exit }
		/^(not )?ok [0-9]+ / { sub(/ok [0-9]+/, "ok " ++n) } { print }' "$LOGS/lane.out"
	# shellcheck source=/dev/null # what the lane wrote of its results
	. <(sed -n '/^LANE_/,$p' "$LOGS/lane.out")
	N=$((N + LANE_PASSED + LANE_FAILED))
	PASSED=$((PASSED + LANE_PASSED)) FAILED=$((FAILED + LANE_FAILED))
	FAILURES+=("${LANE_FAILURES[@]}") HOST_TIMES+=("${LANE_HOST_TIMES[@]}")
}

# Line and branch coverage of kmod/ over the debug guests (their gcov
# counts), per file, in $LOGS/coverage.txt with every uncovered block and
# why no test runs it (coverage-unreached.txt); the table is shown here
# too. Fails only when a guest brought no counts: which lines a run reaches
# varies with its races, and make check must not.
coverage_report() {
	local table rc=0
	table=$("$VM_DIR/coverage.py" --explained "$VM_DIR/coverage-unreached.txt" \
		"$BUILD_DIR/kmod-debug/kmod" \
		"$LOGS/coverage.txt" "$BUILD_DIR/vm-debug/export/gcov.tar" \
		"$BUILD_DIR/vm-debug.rings-off/export/gcov.tar") || rc=1
	printf '%s\n' "$table"
	COVERAGE_TABLE=$table
	return $rc
}

# view's pages of the host's logs; screenshots in $LOGS/view.
view_pages() {
	local work rc=0
	work=$(mktemp -d) || return 1
	"$TOP_DIR/tools/tests/dump_logs" "$work" >/dev/null &&
		"$TOP_DIR/tools/tests/big_log" 20000 "$work/server-20k.ptlog" &&
		"$TOP_DIR/tools/tests/view-test.sh" "$LOGS/view" "$work"/*.ptlog \
			"$TOP_DIR"/fuzz/corpus/*.ptl || rc=1
	rm -rf "$work"
	return $rc
}

view_million_events() {
	local work rc=0
	work=$(mktemp -d) || return 1
	# The page (28 MB) goes; its screenshot stays.
	"$TOP_DIR/tools/tests/big_log" 1000000 "$work/server-1m.ptlog" &&
		"$TOP_DIR/tools/tests/view-test.sh" --load "$work/out" \
			"$work/server-1m.ptlog" || rc=1
	mkdir -p "$LOGS/view" && cp "$work"/out/*.png "$LOGS/view/" 2>/dev/null
	rm -rf "$work"
	return $rc
}

# Fails when the command succeeds but printed a compiler warning.
no_warnings() {
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ $rc = 0 ] && ! grep -qi 'warning:' <<<"$out"
}

exported_symbols_match_map() {
	local got want
	got=$(nm -D --defined-only "$TOP_DIR/ulib/libposixtrace-k.so.1" |
		awk '$2 == "T" || $2 == "D" || $2 == "B" {sub(/@.*/, "", $3); print $3}' | sort)
	want=$(sed -n '/global:/,/local:/p' "$TOP_DIR/ulib/libposixtrace-k.map" |
		grep -Eo '^[[:space:]]+[a-z_0-9]+;' | tr -d ' \t;' | sort)
	echo "exported: $got"
	[ -n "$got" ] && [ "$got" = "$want" ]
}

soname_is_versioned() {
	readelf -d "$TOP_DIR/ulib/libposixtrace-k.so.1" |
		grep -q 'Library soname: \[libposixtrace-k.so.1\]'
}

uapi_header_is_c90() {
	local h
	for h in "$TOP_DIR"/include/uapi/linux/posixtrace*.h; do
		echo "$h"
		gcc -std=c90 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only \
			-I"$TOP_DIR/include/uapi" -x c "$h" || return 1
	done
}

public_headers_compile() {
	local h
	for h in trace.h posixtrace-k.h; do
		echo "#include <$h>" | gcc -std=c11 -pedantic-errors -Wall -Wextra \
			-Werror -I"$TOP_DIR/include" -fsyntax-only -x c - || return 1
		echo "#include <$h>" | g++ -Wall -Wextra -Werror \
			-I"$TOP_DIR/include" -fsyntax-only -x c++ - || return 1
	done
}

# make install into a scratch root, then build an example the way a user
# would: with the installed pkg-config file, headers and library only.
install_and_build_against_it() {
	local root=$BUILD_DIR/install-root pcdir
	rm -rf "$root"
	make -C "$TOP_DIR" --no-print-directory install DESTDIR="$root" PREFIX=/usr || return 1
	pcdir=$root/usr/lib/pkgconfig
	grep -qx 'prefix=/usr' "$pcdir/posixtrace-k.pc" || return 1
	# include/linux is linux-libc-dev's: nothing of ours goes there.
	[ ! -e "$root/usr/include/linux" ] || return 1
	echo '#include <linux/posixtrace_log.h>' | PKG_CONFIG_PATH=$pcdir \
		PKG_CONFIG_SYSROOT_DIR=$root sh -c 'cc -fsyntax-only $(pkg-config --cflags posixtrace-k) -x c -' ||
		return 1
	PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$root \
		sh -c 'cc -std=c11 -Wall -Werror -o "$1" "$2" $(pkg-config --cflags --libs posixtrace-k)' \
		sh "$root/selftrace" "$TOP_DIR/examples/selftrace.c" || return 1
	# grep reads all of it: with -q it may exit while ldd still writes,
	# whose SIGPIPE pipefail then takes for a failure.
	LD_LIBRARY_PATH=$root/usr/lib ldd "$root/selftrace" |
		grep "$root/usr/lib/libposixtrace-k.so.1" >/dev/null || return 1
	# The command, its man page, and a --help for every subcommand.
	[ -x "$root/usr/bin/posixtrace" ] && [ -f "$root/usr/share/man/man1/posixtrace.1" ] || return 1
	# Again no grep -q: record's --help is longer than stdio's buffer, and
	# its second write would meet a grep already gone.
	local c
	for c in version record dump export list monitor view; do
		"$root/usr/bin/posixtrace" "$c" --help | grep "usage: posixtrace $c" >/dev/null ||
			return 1
	done
}

# make uninstall removes exactly what make install put in a scratch root:
# with the default layout and with every directory variable set, nothing
# is left but empty directories and a file of someone else's, and a
# second uninstall finds nothing to fail on.
install_then_uninstall() {
	local root=$BUILD_DIR/uninstall-root vars left n
	for vars in "PREFIX=/usr" "PREFIX=/opt/pt LIBDIR=/opt/pt/lib64 \
INCLUDEDIR=/opt/pt/inc BINDIR=/opt/pt/sbin MANDIR=/opt/pt/man \
BASHCOMPDIR=/opt/pt/bash"; do
		echo "== $vars"
		rm -rf "$root"
		# shellcheck disable=SC2086 # the variables, one a word
		make -C "$TOP_DIR" --no-print-directory install DESTDIR="$root" $vars || return 1
		n=$(find "$root" ! -type d | wc -l)
		echo "installed $n files"
		[ "$n" -gt 10 ] || return 1
		[ -f "$root/usr/share/bash-completion/completions/posixtrace" ] ||
			[ -f "$root/opt/pt/bash/posixtrace" ] || return 1
		mkdir -p "$root/usr/lib" && echo other >"$root/usr/lib/other.so"
		# shellcheck disable=SC2086
		make -C "$TOP_DIR" --no-print-directory uninstall DESTDIR="$root" $vars || return 1
		# shellcheck disable=SC2086
		make -C "$TOP_DIR" --no-print-directory uninstall DESTDIR="$root" $vars || return 1
		left=$(find "$root" ! -type d ! -path "$root/usr/lib/other.so")
		if [ -n "$left" ] || [ ! -f "$root/usr/lib/other.so" ]; then
			echo "left behind, or removed what is not ours:"
			printf '%s\n' "$left"
			return 1
		fi
		echo "left: $(find "$root" -type d | wc -l) empty directories"
	done
}

# complete_posixtrace WORD...: what tools/posixtrace.bash-completion offers
# on the command line "posixtrace WORD...", completing the last word; on
# one line, sorted.
complete_posixtrace() {
	bash -c 'src=$1; shift; . "$src" || exit 1
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_posixtrace || exit 1
		printf "%s\n" "${COMPREPLY[@]}"' sh \
		"$TOP_DIR/tools/posixtrace.bash-completion" \
		"$TOP_DIR/tools/posixtrace" "$@" | LC_ALL=C sort | paste -sd ' '
}

# The bash completion, in a directory holding logs, another file and a
# directory: commands, options (as --help lists them), option values, log
# files, pids, and the command record runs.
# The command and the library built with AddressSanitizer and UBSan (in a
# copy of their sources), then dump-test.sh's every case run with them:
# each log it synthesizes, damaged ones included, through dump, export
# (CTF, LTTng, Chrome) and the rest; a sanitizer's report on stderr, or
# its exit status, fails the case it comes from.
dump_tool_tests_asan() {
	local dir=$BUILD_DIR/asan
	local flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	cp -r "$TOP_DIR/tools" "$TOP_DIR/ulib" "$TOP_DIR/lib" "$TOP_DIR/include" \
		"$dir"/ || return 1
	make -s -C "$dir/ulib" clean >/dev/null && make -s -C "$dir/tools" clean >/dev/null &&
		make -s -C "$dir/tools" posixtrace tests/dump_logs \
			CFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" || return 1
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$dir/tools/tests/dump-test.sh"
}

bash_completion_completes() {
	local dir bad=0 got
	dir=$(mktemp -d) || return 1
	touch "$dir/a.ptlog" "$dir/b.ptl" "$dir/c.txt" && mkdir "$dir/sub" || return 1
	expect() {
		local want=$1
		shift
		got=$(cd "$dir" && complete_posixtrace "$@")
		if [ "$got" = "$want" ]; then
			echo "ok: posixtrace $*|: $got"
		else
			echo "posixtrace $*|: got '$got', want '$want'"
			bad=1
		fi
	}
	expect "dump export help list monitor record trace version view" ''
	expect "--help --version -V -h" -
	expect "dump" help d
	expect "--full-data" dump --fu
	expect "--force --format --help --output -f -h -o" export -
	expect "--color --help --id --json -h -i -j" list -
	expect "always" list --color al
	expect "always auto never" dump --color ''
	expect "--help --json -h -j" monitor -
	expect "--help -h" version -
	expect "a.ptlog b.ptl sub" dump ''
	expect "a.ptlog b.ptl sub" dump -x --since +1 ''
	expect "" dump a.ptlog ''
	expect "" dump -e ''
	expect "a.ptlog b.ptl c.txt sub" export -o ''
	expect "a.ptlog b.ptl c.txt sub" export --output = ''
	expect "chrome" export --format ch
	expect "--output=sub" export --output=s
	expect "a.ptlog b.ptl sub" export -o out ''
	expect "--force --help --output -f -h -o" view -
	expect "a.ptlog b.ptl c.txt sub" view -o ''
	expect "a.ptlog b.ptl sub" view -o out.html ''
	expect "append loop until-full" record --log-policy ''
	expect "exit-status" record --loop 1M --snapshot-on ex
	expect "SIGSEGV" record --snapshot-on SIGS
	expect "all none proc sched signal syscall" record --kernel ''
	expect "proc" trace -k pr
	expect "a.ptlog b.ptl sub" trace --replay ''
	expect "echo" trace -o x.txt ech
	got=$(complete_posixtrace record -o x -p "$$")
	grep -qw "$$" <<<"$got" || { echo "record -p $$: not in '$got'"; bad=1; }
	expect "echo" record -o x.ptlog --name n ech
	expect "a.ptlog b.ptl c.txt sub" record -o x -- ls ''
	got=$(cd "$dir" && complete_posixtrace record -)
	for o in --output --pid --stream-size --log-policy --no-inherit --loop \
		--snapshot-on -o -p; do
		grep -qw -- "$o" <<<"$got" || { echo "record -: no $o in $got"; bad=1; }
	done
	# c.txt is offered when no log is there to complete
	rm "$dir/a.ptlog" "$dir/b.ptl"
	expect "c.txt sub" dump ''
	rm -rf "$dir"
	return $bad
}

# The CTF trace export writes is named: babeltrace2 shows it by the
# exporting machine's hostname, and its environment has the stream's name.
export_names_trace() {
	local dir out
	dir=$(mktemp -d) || return 1
	"$TOP_DIR/tools/posixtrace" export -o "$dir/ctf" \
		"$TOP_DIR/fuzz/corpus/kernel-golden.ptl" || return 1
	out=$(babeltrace2 "$dir/ctf" -c sink.text.details \
		--params='with-metadata=false,color="never"' 2>&1)
	rm -rf "$dir"
	grep -E '^ +(Trace `|trace_name:|hostname:)' <<<"$out"
	grep -qxF "  Trace \`$(hostname)\`:" <<<"$out" &&
		grep -qxE ' +trace_name: golden' <<<"$out"
}

# The symbols ulib/libposixtrace-k.map exports, one a line.
map_symbols() {
	sed -n '/global:/,/local:/p' "$TOP_DIR/ulib/libposixtrace-k.map" |
		grep -Eo '^[[:space:]]+[a-z_0-9]+;' | tr -d ' \t;' | sort
}

# Every exported symbol has a section 3 page in DIR (ulib/man by default):
# its own, or a .so link to its family's page, whose NAME section names it.
man_pages_cover_map() {
	local dir=${1:-$TOP_DIR/ulib/man} syms sym page target bad=0
	syms=$(map_symbols)
	[ -n "$syms" ] || return 1
	for sym in $syms; do
		page=$dir/$sym.3
		if [ ! -s "$page" ]; then
			echo "$sym: no page $page"
			bad=1
			continue
		fi
		target=$(sed -n '1s|^\.so man3/||p' "$page")
		[ -z "$target" ] || page=$dir/$target
		if ! sed -n '/^\.SH NAME/,/^\.SH /p' "$page" 2>/dev/null |
			grep -qw -- "$sym"; then
			echo "$sym: ${page##*/} does not name it"
			bad=1
		fi
	done
	echo "$(wc -w <<<"$syms") symbols, $(ls "$dir" | wc -l) pages in $dir"
	return $bad
}

# Every page of ulib/man renders without a warning, its .so link followed
# as man finds it in an installed man3 directory.
man_pages_render_cleanly() {
	local tmp page err bad=0
	tmp=$(mktemp -d) || return 1
	mkdir "$tmp/man3" && cp "$TOP_DIR"/ulib/man/*.3 "$tmp/man3/" || bad=1
	for page in "$tmp"/man3/*.3; do
		page=man3/${page##*/}
		# stderr must stay empty, and the page must render to something.
		err=$(cd "$tmp" && {
			out=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$page")
		} 2>&1 && [ -n "$out" ] || echo "renders to nothing")
		if [ -n "$err" ]; then
			printf '%s:\n%s\n' "$page" "$err"
			bad=1
		fi
	done
	rm -rf "$tmp"
	[ $bad = 0 ] && echo "every page renders cleanly"
}

# make install puts a page for every exported symbol in $(MANDIR)/man3.
man_pages_install() {
	local root=$BUILD_DIR/man-install-root
	rm -rf "$root"
	make -C "$TOP_DIR/ulib" --no-print-directory install-man \
		DESTDIR="$root" PREFIX=/usr || return 1
	man_pages_cover_map "$root/usr/share/man/man3"
}

checkpatch_strict() {
	make -C "$TOP_DIR/kmod" --no-print-directory style \
		CHECKPATCH="$(ksft_tree)/scripts/checkpatch.pl" KERNELDIR=/nonexistent
}

# The module for one kernel (lib.sh), with the extra warnings of W=1, and
# every warning an error.
# build_module_strict RELEASE KDIR [MAKE ARGUMENTS...]
build_module_strict() {
	no_warnings build_module "$@" W=1 KCFLAGS=-Werror
}

sparse_clean() {
	local dst=$BUILD_DIR/sparse
	rm -rf "$dst" && mkdir -p "$dst"
	cp -r "$TOP_DIR/kmod" "$TOP_DIR/include" "$TOP_DIR/lib" "$dst"/
	local out
	out=$(make -C "$dst/kmod" --no-print-directory check \
		KERNELDIR="/usr/src/linux-headers-$1" 2>&1)
	printf '%s\n' "$out"
	! grep -E '(warning|error):' <<<"$out"
}

# guest_failures LABEL OUT: the guest's failed cases, each named with its
# program, and the first line of any kernel splat (run-vm.sh's splat.txt)
# with where it struck (splat-summary.txt).
guest_failures() {
	local line
	while IFS= read -r line; do
		FAILURES+=("$line")
	done < <(awk -v l="$1" '
		/^\[[^]]*\] # selftest: / { prog = $NF }
		/^\[[^]]*\] not ok [0-9]+ / {
			name = $0; sub(/^\[[^]]*\] not ok [0-9]+ /, "", name)
			print l " " (name ~ /^vm\.|^exit\./ ? "" : prog " ") name
		}' "$LOGS/vm.$1.log")
	if [ -s "$2/splat.txt" ]; then
		FAILURES+=("$1 splat: $(head -n 1 "$2/splat.txt")")
		[ ! -s "$2/splat-summary.txt" ] ||
			FAILURES+=("$1 splat at: $(head -n 1 "$2/splat-summary.txt")")
	fi
	if ! grep -q '\] not ok ' "$LOGS/vm.$1.log"; then
		# The program that had begun and not ended, if any.
		line=$(awk '/\] # selftest: / { p = $NF }
			/\] # time: / { p = "" }
			END { if (p != "") print ", during " p }' "$LOGS/vm.$1.log")
		FAILURES+=("$1: the run failed outside any test case$line (see vm.$1.log)")
	fi
}

# run_vm LABEL BZIMAGE MODULE [run-vm.sh OPTION...] (--rings-off,
# --append ARGS): boot and add the guest's counts to ours.
# Each guest reads the logs the one before it wrote (another kernel), and
# the host exports each guest's logs as CTF and checks babeltrace2 reads
# them as the library does, and as Chrome's Trace Event Format against
# dump --json.
IMPORT=
run_vm() {
	local label=$1 out=$BUILD_DIR/vm-$1 line p f s log t0=$SECONDS
	"$VM_DIR/run-vm.sh" --label "$label" --kernel "$2" --module "$3" "${@:4}" \
		--tests "$BUILD_DIR/selftests" --out "$out" ${IMPORT:+--import "$IMPORT"} \
		--bin "$TOP_DIR/tools/posixtrace" --bin "$(command -v genl-ctrl-list)" |
		tee "$LOGS/vm.$label.log"
	line=$(tail -n 1 "$LOGS/vm.$label.log")
	if [[ $line =~ :\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
	else
		p=0 f=1 s=0
	fi
	PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
	GUEST_TIMES+=("$label $((SECONDS - t0))s")
	[ "$f" = 0 ] || guest_failures "$label" "$out"
	host_case "logs_exported.$label" compgen -G "$out/export/*.ptlog"
	for log in "$out"/export/*.ptlog; do
		[ -f "$log" ] || continue
		host_case "lttng_export.$label.$(basename "$log" .ptlog)" \
			"$TOP_DIR/tools/tests/lttng-export.sh" "$log"
		host_case "chrome_check.$label.$(basename "$log" .ptlog)" \
			"$TOP_DIR/tools/tests/chrome-check.py" "$log"
		host_case "view_page.$label.$(basename "$log" .ptlog)" \
			"$TOP_DIR/tools/tests/view-test.sh" \
			"$LOGS/view.$label" "$log"
		# Debian's babeltrace2 (2.0.4) shows an empty string field
		# with the value the same field had in the event of its class
		# before (the CTF holds the empty string): a log of system
		# calls, whose paths are mostly empty, is checked against
		# the LTTng export's counts only.
		[[ $log == *.lttng.ptlog ]] && continue
		host_case "bt2_compare.$label.$(basename "$log" .ptlog)" \
			"$TOP_DIR/tools/tests/bt2-compare.sh" "$log"
		host_case "python_bt2.$label.$(basename "$log" .ptlog)" \
			"$TOP_DIR/tools/tests/python-bt2.sh" "$log"
	done
	IMPORT=$out/export
}

"$VM_DIR/deps.sh" || die "installing dependencies failed"
# Every build here treats a warning as an error (the Makefiles add
# $(WERROR) to their flags; a user's build leaves it empty), besides the
# no_warnings wrappers that fail a build case on any warning printed.
export WERROR=-Werror
mapfile -t KERNELS < <(test_kernels)
RT_KERNEL=$(rt_kernel)

echo "TAP version 13"
host_case build_ulib no_warnings make -C "$TOP_DIR/ulib" --no-print-directory
host_case build_tools no_warnings make -C "$TOP_DIR/tools" --no-print-directory
host_case build_examples no_warnings make -C "$TOP_DIR/examples" --no-print-directory
host_case build_bench no_warnings make -C "$TOP_DIR/bench" --no-print-directory O="$BUILD_DIR/bench"
# The fake kernel under the library's own code: every event arrives, every read
# in order (its exit status); a moment, not a measurement.
host_case producer_host_runs "$BUILD_DIR/bench/producer_host" -r 1 -t 0.05
host_case exported_symbols_match_map exported_symbols_match_map
host_case soname_is_versioned soname_is_versioned
host_case uapi_header_is_c90 uapi_header_is_c90
host_case uapi_keeps_abi_1_0 "$TOP_DIR/selftests/abi/layout.sh" "$TOP_DIR"
# The syzkaller description of the ABI against the header: every struct's
# layout, command and constant (syzkaller itself cannot run here).
host_case syzlang_matches_the_abi "$TOP_DIR/selftests/syzkaller/check.py"
host_case public_headers_compile public_headers_compile
host_case install_and_build_against_it install_and_build_against_it
host_case install_then_uninstall install_then_uninstall
host_case bash_completion bash_completion_completes
host_case man_pages_cover_map man_pages_cover_map
host_case man_pages_render_cleanly man_pages_render_cleanly
host_case man_pages_install man_pages_install
host_case build_selftests no_warnings "$VM_DIR/build-selftests.sh" "$BUILD_DIR/selftests"
# Trace logs are read without the module: the reader's own tests, then a
# short libFuzzer run over it (seeds in fuzz/corpus).
host_case ulib_host_tests make -C "$TOP_DIR/ulib" --no-print-directory test
if [ $MODE != debug ]; then
	for rel in "${KERNELS[@]}" "$RT_KERNEL"; do
		host_case "build_module.$rel" build_module_strict "$rel" "/usr/src/linux-headers-$rel"
	done
	# Layering: no dependency cycle of more than the stream core's four
	# files, and no file outside the core sees the stream's fields.
	host_case kmod_layering "$VM_DIR/kmod-deps.sh" "$BUILD_DIR/kmod-${KERNELS[-1]}/kmod"
fi

# The tools' tests, the seed logs' exports, the view's pages, checkpatch,
# sparse and the Debian packages: in the lane beside the guests.
beside_the_guests() {
	# posixtrace dump on synthesized logs: filters, formats, damaged logs.
	host_case dump_tool_tests make -C "$TOP_DIR/tools" --no-print-directory test
	host_case dump_tool_tests_asan dump_tool_tests_asan
	# posixtrace export against dump through babeltrace2, on the seed logs
	# (the guests' logs are compared the same way after each run_vm).
	host_case export_names_trace export_names_trace
	for log in "$TOP_DIR"/fuzz/corpus/*.ptl; do
		host_case "bt2_compare.corpus.$(basename "$log" .ptl)" \
			"$TOP_DIR/tools/tests/bt2-compare.sh" "$log"
		# The Chrome export against dump --json (Perfetto's format).
		host_case "chrome_check.corpus.$(basename "$log" .ptl)" \
			"$TOP_DIR/tools/tests/chrome-check.py" "$log"
		# The CTF export read in Python (examples/ctf_fields.py, python3-bt2).
		host_case "python_bt2.corpus.$(basename "$log" .ptl)" \
			"$TOP_DIR/tools/tests/python-bt2.sh" "$log"
	done
	# posixtrace view's pages in Debian's chromium: the dump tests' logs, the
	# seed logs, a server's log of 20,000 events (several chunks of the page's
	# data), all against export --format=chrome; and a page of a million events
	# loaded, drawn and counted (its speed is make bench's).
	host_case view_pages view_pages
	host_case view_million_events view_million_events
	host_case log_reader_fuzz make -C "$TOP_DIR/fuzz" --no-print-directory run \
		FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
	[ $MODE != debug ] || return 0
	host_case checkpatch_strict checkpatch_strict
	host_case "sparse.${KERNELS[-1]}" sparse_clean "${KERNELS[-1]}"
	# The Debian packages (make deb; lintian clean), then installed,
	# upgraded and purged here, DKMS building the module for every
	# kernel, and a guest loading what it built.
	[ $MODE = full ] || return 0
	host_case deb_packages "$VM_DIR/deb.sh"
	host_case deb_install_upgrade_purge "$VM_DIR/deb-test.sh"
}
# view-test.sh installs playwright-core on first use: done here, before
# the lane and the guests' cases could both.
"$TOP_DIR/tools/tests/view-test.sh" --install >/dev/null ||
	log "view-test.sh --install failed: the view's cases will say why"
# What the lane would otherwise do while the guests run, and must not:
# install deb.sh's tools (apt, beside builds that use the toolchain), and
# wait for the debug kernel's build (make -j at nice 0, which would starve
# the lane's steps that have wall-clock limits). Built here, it takes the
# same time; cached, none.
[ $MODE != full ] || "$VM_DIR/deb.sh" --deps ||
	die "installing the tools of make deb failed"
if [ $MODE != quick ]; then
	DKDIR=$BUILD_DIR/check/debug-kernel.path
	host_case debug_kernel sh -c "'$VM_DIR/debug-kernel.sh' > '$DKDIR'"
fi
lane_start beside_the_guests

if [ $MODE != debug ]; then
	# What the host and the emulator do is told from what the guest
	# does: a host that stands still, a CPU stuck at a stale int3.
	rel=${KERNELS[-1]}
	host_case vm_harness "$VM_DIR/harness-test.sh" \
		"/boot/vmlinuz-$rel" "$BUILD_DIR/kmod-$rel/kmod/posixtrace.ko"
	for rel in "${KERNELS[@]}"; do
		run_vm "$rel" "/boot/vmlinuz-$rel" "$BUILD_DIR/kmod-$rel/kmod/posixtrace.ko"
	done
	# Every event by system call: the kbufs get what the rings got.
	rel=${KERNELS[-1]}
	run_vm "$rel.rings-off" "/boot/vmlinuz-$rel" \
		"$BUILD_DIR/kmod-$rel/kmod/posixtrace.ko" --rings-off
	# PREEMPT_RT: spinlocks sleep there; the hooks must take none.
	run_vm "$RT_KERNEL" "/boot/vmlinuz-$RT_KERNEL" \
		"$BUILD_DIR/kmod-$RT_KERNEL/kmod/posixtrace.ko"
fi

if [ $MODE != quick ]; then
	kdir=$(tail -n 1 "$DKDIR" 2>/dev/null)
	if [ -n "$kdir" ] && [ -d "$kdir" ]; then
		# The debug guests' module counts what it runs (gcov): the
		# two runs together are make check's coverage of kmod/.
		host_case build_module.debug build_module_strict debug "$kdir" GCOV_PROFILE=y
		# Freed memory poisoned (pages 0xaa, kmalloc objects 0x6b) and
		# none zeroed when allocated: what leak_test looks for in
		# every byte the module gives out. The module's objects and
		# its netlink messages are all kmalloc's: poisoning every
		# cache (slub_debug=P) would cost each guest half as long
		# again, these a seventh.
		poison="init_on_alloc=0 init_on_free=0 page_poison=1 slub_debug=P,kmalloc-*"
		# A debug guest is the slowest, and slower still beside the
		# lane: twice run-vm.sh's default before it counts as hung.
		run_vm debug "$kdir/arch/x86/boot/bzImage" "$BUILD_DIR/kmod-debug/kmod/posixtrace.ko" \
			--append "$poison" --timeout 1200
		run_vm debug.rings-off "$kdir/arch/x86/boot/bzImage" \
			"$BUILD_DIR/kmod-debug/kmod/posixtrace.ko" --rings-off \
			--append "$poison" --timeout 1200
		host_case coverage coverage_report
	fi
fi

lane_join

# Where the time went: the run's, each guest's (its run-vm.sh), the host
# cases' (the four slowest named), and the slowest test programs of every
# guest.
echo "# time: $((SECONDS / 60)) min $((SECONDS % 60)) s in all; guests:" \
	"$(printf '%s, ' "${GUEST_TIMES[@]}" | sed 's/, $//')"
printf '%s\n' "${HOST_TIMES[@]}" | sort -n -r | awk '
	{ all += $1 } NR <= 4 { top = top (NR > 1 ? ", " : "") $2 " " $1 "s" }
	END { printf "# host cases: %d s in all; slowest: %s\n", all, top }'
echo "# slowest test programs (guest, program, seconds):"
for log in "$LOGS"/vm.*.log; do
	[ -f "$log" ] || continue
	sed -n 's/^\[\(.*\)\] # time: \(.*\) \([0-9.]*\) s$/\1 \2 \3/p' "$log"
done | sort -k3,3 -g -r | head -n 6 | sed 's/^/#   /'
if [ -n "${COVERAGE_TABLE:-}" ]; then
	echo "# coverage of kmod/ by the debug guests, per file in $LOGS/coverage.txt:"
	printf '%s\n' "$COVERAGE_TABLE" | sed -n '1p;/^# all /p;/^# uncovered /p;/^# explained but /p'
fi
echo "# skipped: $SKIPPED"
if [ ${#FAILURES[@]} != 0 ]; then
	echo "# failed (${#FAILURES[@]}):"
	printf '#   %s\n' "${FAILURES[@]:0:12}"
	[ ${#FAILURES[@]} -le 12 ] || echo "#   ... and $((${#FAILURES[@]} - 12)) more"
fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
