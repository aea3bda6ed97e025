#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make mutants: does make check's suite kill the mutations of
# selftests/vm/mutants.list? For each entry: the entry's text replaced in
# a copy of kmod/, include/ and lib/ (the tree itself is never touched),
# the module built again for Debian's 6.12 kernel (incrementally: only
# what the replaced file touches), and the 6.12 guest suite run on it
# (run-vm.sh, the selftests make check runs, built once), the entry's
# "killer:" programs first. KILLED: a test case failed, or the guest or
# the module did; SURVIVED: the whole suite passed. The order decides
# only how soon a mutant is known killed, never the verdict.
#
#   mutants.sh [OPTIONS] [PATTERN]
#
#   PATTERN          only the entries whose name, file or why matches
#                    (grep -E)
#   --check          only check that every entry applies exactly once
#                    (no build, no guest)
#   --build          --check, and build every mutant (no guest)
#   --tests LIST     only these test programs (comma-separated, e.g.
#                    ring_test,live_reader_test): quicker while working
#                    on the list; the real run uses the whole suite
#   --full           run the whole suite on a mutant even after a test
#                    case failed (by default the guest is stopped at the
#                    first failure: the mutant is killed)
#   --no-baseline    skip the run of the unmutated module first
#   --deadline HH:MM start no guest after this time (UTC); the entries
#                    left are "not run"
#   --timeout SEC    a guest's time limit (default 420)
#
# Before each guest it waits until no qemu-system process runs on the
# machine (others' guests and benchmarks), one guest at a time.
#
# Ends with "mutants: N killed, M survived, K stale" (and the broken and
# not run, if any); exits non-zero if a mutant survived that is not
# marked "expect: survive", an entry is stale (its text is not in the
# file exactly once: the code changed, the entry must follow), a mutant
# did not build, or the suite failed without any mutation.
set -uo pipefail
# & in a replacement is a & (bash 5.2 would put the matched text there).
shopt -u patsub_replacement 2>/dev/null || true
. "$(dirname "$0")/lib.sh"

LIST=$VM_DIR/mutants.list
MODE=run PATTERN= TESTS= FULL=0 BASELINE=1 DEADLINE= TIMEOUT=420
while [ $# -gt 0 ]; do
	case $1 in
	--check) MODE=check; shift ;;
	--build) MODE=build; shift ;;
	--tests) TESTS=$2; shift 2 ;;
	--full) FULL=1; shift ;;
	--no-baseline) BASELINE=0; shift ;;
	--deadline) DEADLINE=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--list) LIST=$2; shift 2 ;;
	-h|--help) sed -n '3,/^set /p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) PATTERN=$1; shift ;;
	esac
done
[ -r "$LIST" ] || die "no list $LIST"

WORK=$BUILD_DIR/mutants
mkdir -p "$WORK"
# One run at a time in a build directory: they share the scratch copies.
exec 8>"$WORK/.lock"
flock -n 8 || die "another mutants.sh is running in $WORK"

# ---- the list -------------------------------------------------------

# The \n, \t and \\ of a find or replace field undone, into UNESC.
unescape() {
	local s=$1
	s=${s//\\\\/$'\001'}
	s=${s//\\n/$'\n'}
	s=${s//\\t/$'\t'}
	UNESC=${s//$'\001'/\\}
}

NAMES=() FILES=() FINDS=() REPLS=() WHYS=() EXPECTS=() KILLERS=()
parse_list() {
	local line key val lineno=0 name= file= find= repl= why= expect= killer=
	local have_repl=0
	flush_entry() {
		[ -n "$name$file$find$why" ] || return 0
		[ -n "$name" ] && [ -n "$file" ] && [ -n "$find" ] && [ $have_repl = 1 ] &&
			[ -n "$why" ] || die "$LIST:$lineno: entry '${name:-?}' lacks name, file, find, replace or why"
		local n
		for n in "${NAMES[@]}"; do
			[ "$n" != "$name" ] || die "$LIST: two entries named $name"
		done
		unescape "$find"
		FINDS+=("$UNESC")
		unescape "$repl"
		REPLS+=("$UNESC")
		NAMES+=("$name") FILES+=("$file") WHYS+=("$why") EXPECTS+=("$expect")
		KILLERS+=("$killer")
		name= file= find= repl= why= expect= killer= have_repl=0
	}
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		case $line in
		'#'*) continue ;;
		'') flush_entry; continue ;;
		esac
		key=${line%%:*}
		val=${line#*:}
		val=${val# }
		case $key in
		name) name=$val ;;
		file) file=$val ;;
		find) find=$val ;;
		replace) repl=$val have_repl=1 ;;
		why) why=$val ;;
		expect) expect=$val ;;
		killer) killer=$val ;;
		*) die "$LIST:$lineno: unknown field '$key'" ;;
		esac
	done <"$LIST"
	flush_entry
}

# count_in TEXT FIND: how many times FIND occurs in TEXT.
count_in() {
	local text=$1 find=$2 rest
	rest=${text//"$find"/}
	echo $(((${#text} - ${#rest}) / ${#find}))
}

# read_file FILE: its bytes into FILE_TEXT, trailing newlines kept.
read_file() {
	FILE_TEXT=$(cat "$1" && printf x) || return 1
	FILE_TEXT=${FILE_TEXT%x}
}

# apply I DIR: entry I applied to DIR's copy of its file. Prints why
# not and returns 1 if its text is there 0 or 2+ times (stale).
apply() {
	local i=$1 dir=$2 f text n
	f=$dir/${FILES[$i]}
	[ -f "$f" ] || { echo "no file ${FILES[$i]}"; return 1; }
	read_file "$f" || return 1
	text=$FILE_TEXT
	n=$(count_in "$text" "${FINDS[$i]}")
	if [ "$n" != 1 ]; then
		echo "its text is in ${FILES[$i]} $n times, not once"
		return 1
	fi
	printf '%s' "${text/"${FINDS[$i]}"/"${REPLS[$i]}"}" >"$f"
	# It must have changed something.
	! cmp -s "$f" "$SNAP/${FILES[$i]}" || { echo "replacing changes nothing"; return 1; }
}

# The tree's kmod/, include/ and lib/ as they are when the run begins: the
# baseline and every mutant are built from this one copy, whatever is
# edited in the tree meanwhile.
SNAP=$WORK/snapshot
rm -rf "$SNAP" && mkdir -p "$SNAP"
cp -r "$TOP_DIR/kmod" "$TOP_DIR/include" "$TOP_DIR/lib" "$SNAP"/

# The copy every module is built in, baseline and mutants alike: each
# mutant is applied to it and taken back out after (restore), its file
# then newer than its objects, so that kbuild builds again only what the
# mutated file touches, for the mutant and for the next one.
SRC=$WORK/src
rm -rf "$SRC" && mkdir -p "$SRC"
cp -r "$SNAP/kmod" "$SNAP/include" "$SNAP/lib" "$SRC"/
restore() {
	cp "$SNAP/${FILES[$1]}" "$SRC/${FILES[$1]}"
}

parse_list
SEL=()
for i in "${!NAMES[@]}"; do
	if [ -z "$PATTERN" ] ||
		printf '%s\n' "${NAMES[$i]}" "${FILES[$i]}" "${WHYS[$i]}" | grep -Eq -- "$PATTERN"; then
		SEL+=("$i")
	fi
done
[ ${#SEL[@]} -gt 0 ] || die "no entry matches '$PATTERN'"
log "mutants: ${#SEL[@]} of ${#NAMES[@]} entries of $LIST"

REL=$(meta_release linux-headers-6.12-amd64) || die "no Debian 6.12 kernel (make check installs it)"
KDIR=/usr/src/linux-headers-$REL
KERNEL=/boot/vmlinuz-$REL

# build LOG: the module in $SRC as it is now, as lib.sh's build_module
# builds it; the module is $KO.
KO=$SRC/kmod/posixtrace.ko
build() {
	make -C "$SRC/kmod" --no-print-directory KERNELDIR="$KDIR" \
		-j"$(nproc)" module >"$1" 2>&1
}

# The test program whose case failed first in guest OUT ("vm" if none
# had begun: the module did not load, say).
killer_of() {
	awk '/^# selftest: / { prog = $3 }
	     /^not ok [0-9]+ / { print prog ? prog : "vm"; exit }' \
		"$1/ktap.log" 2>/dev/null | tr -d '\r'
}

# ---- the guests -----------------------------------------------------

past_deadline() {
	[ -n "$DEADLINE" ] || return 1
	[ "$(date -u +%H%M)" -ge "${DEADLINE/:/}" ]
}

# Until no qemu-system runs here, looking every 20 s; false if the
# deadline passed meanwhile.
wait_for_quiet_machine() {
	local said=0
	while pgrep -f qemu-system >/dev/null; do
		[ $said = 1 ] || log "mutants: waiting for other QEMU guests to finish"
		said=1
		sleep 20
	done
	! past_deadline
}

TESTDIR=
prepare_tests() {
	local all=$BUILD_DIR/selftests t
	log "mutants: building the selftests (build-selftests.sh $all)"
	make -C "$TOP_DIR/ulib" --no-print-directory >"$WORK/ulib.log" 2>&1 ||
		die "the library does not build: $WORK/ulib.log"
	make -C "$TOP_DIR/tools" --no-print-directory >"$WORK/tools.log" 2>&1 ||
		die "the tool does not build: $WORK/tools.log"
	"$VM_DIR/build-selftests.sh" "$all" >"$WORK/selftests.log" 2>&1 ||
		die "the selftests do not build: $WORK/selftests.log"
	TESTDIR=$all
	if [ -n "$TESTS" ]; then
		TESTDIR=$WORK/tests
		rm -rf "$TESTDIR" && mkdir -p "$TESTDIR"
		for t in ${TESTS//,/ }; do
			[ -x "$all/$t" ] || die "no test program $t in $all"
			ln -s "$all/$t" "$TESTDIR/$t"
		done
	fi
}

# guest LABEL MODULE OUT [FIRST]: the 6.12 suite on MODULE, the test
# programs FIRST (comma-separated) before the rest. Stops the guest at
# the first failed test case unless --full (or FULL_RUN=1). Returns
# run-vm.sh's status; the first failure is in OUT/first-failure.
guest() {
	local label=$1 ko=$2 out=$3 first=${4:-} pid child qemu_wrap
	local full=${FULL_RUN:-$FULL}
	wait_for_quiet_machine || return 200
	rm -rf "$out"
	"$VM_DIR/run-vm.sh" --label "$label" --kernel "$KERNEL" --module "$ko" \
		--tests "$TESTDIR" --out "$out" --timeout "$TIMEOUT" \
		--bin "$TOP_DIR/tools/posixtrace" --bin "$(command -v genl-ctrl-list)" \
		${first:+--first "$first"} >"$out.log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		[ "$full" = 1 ] && continue
		# grep reads the file itself: tr, writing on into a grep -q
		# that stopped, would die of SIGPIPE, which pipefail reports.
		if grep -Eq '^not ok [0-9]+ ' "$out/ktap.log" 2>/dev/null; then
			# Ours: run-vm.sh's timeout(1), which passes the signal
			# on to its QEMU.
			for child in $(pgrep -P "$pid"); do
				qemu_wrap=$(pgrep -P "$child" -f qemu-system >/dev/null && echo "$child")
				[ -n "$qemu_wrap" ] && kill "$qemu_wrap" 2>/dev/null
			done
			break
		fi
	done
	wait "$pid"
	local rc=$?
	{ grep -Em1 '^not ok [0-9]+ ' "$out/ktap.log" 2>/dev/null | tr -d '\r' ||
		grep -Em1 'timed out|stopped before|splat' "$out.log" ||
		tail -n 1 "$out.log"; } >"$out/first-failure" 2>/dev/null
	return $rc
}

# ---- the run --------------------------------------------------------

RESULTS=$WORK/results.txt
: >"$RESULTS"
# Each killed mutant's killer, "NAME PROGRAM": what its killer: field
# should say (the entries whose field says otherwise are counted).
KILLERS_SEEN=$WORK/killers.txt
: >"$KILLERS_SEEN"
NEW_KILLERS=0
KILLED=0 SURVIVED=0 SURVIVED_OK=0 STALE=0 BROKEN=0 NOTRUN=0

result() {
	printf '%-40s %-9s %s\n' "$1" "$2" "$3" | tee -a "$RESULTS"
}

if [ $MODE = run ]; then
	[ -r "$KERNEL" ] || die "cannot read $KERNEL"
	prepare_tests
	if [ $BASELINE = 1 ]; then
		log "mutants: the unmutated module first (the whole suite)"
		build "$WORK/build-baseline.log" ||
			die "the unmutated module does not build: $WORK/build-baseline.log"
		FULL_RUN=1 guest baseline "$KO" "$WORK/vm-baseline"
		rc=$?
		[ $rc != 200 ] || die "past the deadline $DEADLINE UTC before the baseline ran"
		if [ $rc != 0 ]; then
			tail -n 5 "$WORK/vm-baseline.log" >&2
			die "the suite fails without any mutation ($WORK/vm-baseline.log): no mutant can be judged"
		fi
		log "mutants: baseline $(tail -n 1 "$WORK/vm-baseline.log")"
	fi
fi

# One mutant of entry $1 in $SRC: applied, built, run, judged.
one_mutant() {
	local i=$1 name=${NAMES[$1]} start out rc killer
	if ! why=$(apply "$i" "$SRC"); then
		STALE=$((STALE + 1))
		result "$name" STALE "$why"
		return
	fi
	# What it changes, for a reader of the results.
	(cd "$WORK" && diff -u "$SNAP/${FILES[$i]}" "$SRC/${FILES[$i]}" \
		>"$WORK/$name.diff")
	if [ $MODE = check ]; then
		result "$name" APPLIES "${FILES[$i]} ($WORK/$name.diff)"
		return
	fi
	if [ $MODE = run ] && past_deadline; then
		NOTRUN=$((NOTRUN + 1))
		result "$name" "NOT RUN" "past the deadline $DEADLINE UTC"
		return
	fi
	start=$(date +%s)
	if ! build "$WORK/build-$name.log"; then
		BROKEN=$((BROKEN + 1))
		result "$name" BROKEN "does not build: $WORK/build-$name.log"
		return
	fi
	if [ $MODE = build ]; then
		result "$name" BUILDS "${FILES[$i]} ($(($(date +%s) - start))s)"
		return
	fi
	out=$WORK/vm-$name
	guest "mutant-$name" "$KO" "$out" "${KILLERS[$i]}"
	rc=$?
	if [ $rc = 200 ]; then
		NOTRUN=$((NOTRUN + 1))
		result "$name" "NOT RUN" "past the deadline $DEADLINE UTC"
	elif [ $rc = 0 ]; then
		if [[ ${EXPECTS[$i]} == survive* ]]; then
			SURVIVED_OK=$((SURVIVED_OK + 1))
			result "$name" SURVIVED "(expected: ${EXPECTS[$i]#survive}) $(($(date +%s) - start))s"
		else
			SURVIVED=$((SURVIVED + 1))
			result "$name" SURVIVED "${WHYS[$i]} ($(($(date +%s) - start))s)"
		fi
	else
		KILLED=$((KILLED + 1))
		killer=$(killer_of "$out")
		echo "$name ${killer:-?}" >>"$KILLERS_SEEN"
		[ "${KILLERS[$i]}" = "$killer" ] || NEW_KILLERS=$((NEW_KILLERS + 1))
		result "$name" KILLED "${killer:-?}: $(head -c 150 "$out/first-failure") ($(($(date +%s) - start))s)"
	fi
}

for i in "${SEL[@]}"; do
	one_mutant "$i"
	restore "$i"
done

case $MODE in
check)
	echo "mutants: $((${#SEL[@]} - STALE)) apply, $STALE stale"
	[ $STALE = 0 ]
	exit
	;;
build)
	echo "mutants: $((${#SEL[@]} - STALE - BROKEN)) build, $BROKEN broken, $STALE stale"
	[ $STALE = 0 ] && [ $BROKEN = 0 ]
	exit
	;;
esac
line="mutants: $KILLED killed, $((SURVIVED + SURVIVED_OK)) survived, $STALE stale"
[ $SURVIVED_OK = 0 ] || line+=" ($SURVIVED_OK survived as expected)"
[ $BROKEN = 0 ] || line+=", $BROKEN broken"
[ $NOTRUN = 0 ] || line+=", $NOTRUN not run"
echo "$line"
echo "mutants: results in $RESULTS"
[ $NEW_KILLERS = 0 ] ||
	echo "mutants: $NEW_KILLERS killed by another program than their killer: field says ($KILLERS_SEEN)"
[ $SURVIVED = 0 ] && [ $STALE = 0 ] && [ $BROKEN = 0 ] && [ $NOTRUN = 0 ]
