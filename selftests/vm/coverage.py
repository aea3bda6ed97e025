#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Line and branch coverage of the module, per file, from guests' gcov data.

usage: coverage.py [--min PCT] [--explained FILE] OBJDIR REPORT GCOV_TAR...
                   [--and OBJDIR GCOV_TAR...]...

OBJDIR is the module's build directory (kmod/ of a build made with
GCOV_PROFILE=y: its .gcno files); each GCOV_TAR is the gcov.tar a guest
exported (selftests/vm/init.sh): the module's .gcda files, under the same
absolute path as OBJDIR. Counts of every run are added up, per line and per
branch, with gcov's own JSON (gcov -b -j), so nothing but gcc is needed.
Each --and adds the runs of another build of the same sources (make fuzz's
module, say, to make check's): their lines are matched by file and number.

Only the project's sources count: OBJDIR's files and ../lib's, not the
kernel headers inlined into them. A header of ours inlined into several
files counts each line once (hit if any file ran it) and each branch once
per file that compiled it, as gcov does.

REPORT gets the table and every uncovered block (a run of instrumented
lines none of which ran, within one function), as FILE:FIRST-LAST FUNCTION,
followed by why no test runs it: the line "FILE:FUNCTION REASON" of the
--explained FILE (selftests/vm/coverage-unreached.txt), or "unexplained";
then the explanations of functions the runs covered whole: stale, unless
they explain a race that other runs may miss. Standard output gets the
table, each line starting with "# ", and names those explanations. The
exit status is 1 when a tar cannot be read or holds no counts of the
module, and with --min, when all lines together fall below PCT percent.
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict


def gcov_json(src, objdir):
    """gcov's JSON for one source file, its .gcno/.gcda in objdir."""
    out = subprocess.run(["gcov", "-b", "-j", "-t", "-o", objdir, src],
                         check=True, capture_output=True, text=True,
                         cwd=objdir).stdout
    return json.loads(out)


def run_dirs(objdir, tars, tmp):
    """One directory per run: OBJDIR's .gcno files and that run's .gcda."""
    gcnos = [f for f in os.listdir(objdir) if f.endswith(".gcno")]
    for i, path in enumerate(tars):
        ext = os.path.join(tmp, "x%d" % i)
        try:
            with tarfile.open(path) as tar:
                # Only files and directories, kept inside ext.
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(ext, filter="data")
                else:
                    tar.extractall(ext, members=[
                        m for m in tar if (m.isfile() or m.isdir()) and
                        not m.name.startswith("/") and
                        ".." not in m.name.split("/")])
        except (OSError, tarfile.TarError) as e:
            sys.exit("coverage: %s: %s" % (path, e))
        # The guest kept the build's absolute path.
        gcdas = os.path.join(ext, objdir.lstrip("/"))
        found = [f for f in os.listdir(gcdas)] if os.path.isdir(gcdas) else []
        found = [f for f in found if f.endswith(".gcda")]
        if not found:
            sys.exit("coverage: %s holds no .gcda under %s" % (path, objdir))
        run = os.path.join(tmp, "r%d" % i)
        os.mkdir(run)
        for f in gcnos:
            os.symlink(os.path.join(objdir, f), os.path.join(run, f))
        for f in found:
            os.rename(os.path.join(gcdas, f), os.path.join(run, f))
        yield run


def explanations(path):
    """FILE:FUNCTION -> why no test runs it, from the --explained file."""
    why = {}
    if path:
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    key, _, reason = line.strip().partition(" ")
                    why[key] = reason.strip()
    return why


def add_build(objdir, tars, tmp, lines, func, branches):
    """Add the counts of the runs in tars, of the build in objdir."""
    objdir = os.path.realpath(objdir)
    root = os.path.dirname(objdir)
    ours = (objdir + "/", os.path.join(root, "lib") + "/")
    sources = sorted(f[:-5] + ".c" for f in os.listdir(objdir)
                     if f.endswith(".gcno") and not f.startswith("."))
    scratch = tempfile.mkdtemp(dir=tmp)
    for run in run_dirs(objdir, tars, scratch):
        for src in sources:
            data = gcov_json(os.path.join(objdir, src), run)
            for f in data["files"]:
                name = f["file"]
                if not name.startswith(ours):
                    continue
                name = os.path.relpath(name, root)
                for ln in f["lines"]:
                    key = (name, ln["line_number"])
                    lines[key] += ln["count"]
                    func.setdefault(key, ln.get("function_name", "?"))
                    for j, b in enumerate(ln["branches"]):
                        branches[key + (src, j)] += b["count"]


def main(argv):
    minimum = explained = None
    while argv[:1] in (["--min"], ["--explained"]):
        if argv[0] == "--min":
            minimum = float(argv[1])
        else:
            explained = argv[1]
        argv = argv[2:]
    if len(argv) < 3 or argv[2] == "--and":
        sys.exit(__doc__.strip().splitlines()[2])
    report = argv.pop(1)
    # [OBJDIR, TAR...] groups, split at each --and.
    builds = [[]]
    for arg in argv:
        if arg == "--and":
            builds.append([])
        else:
            builds[-1].append(arg)
    if any(len(b) < 2 for b in builds):
        sys.exit(__doc__.strip().splitlines()[2])
    why = explanations(explained)

    lines = defaultdict(int)  # (file, line) -> count
    func = {}                 # (file, line) -> function
    branches = defaultdict(int)  # (file, line, tu, index) -> count
    with tempfile.TemporaryDirectory() as tmp:
        for build in builds:
            add_build(build[0], build[1:], tmp, lines, func, branches)
    runs = sum(len(b) - 1 for b in builds)

    per_file = defaultdict(lambda: [0, 0, 0, 0])
    for (name, _), count in lines.items():
        per_file[name][0] += 1
        per_file[name][1] += count > 0
    for (name, *_), count in branches.items():
        per_file[name][2] += 1
        per_file[name][3] += count > 0

    def pct(hit, total):
        return 100.0 * hit / total if total else 100.0

    table = ["%-24s %6s %6s %7s %6s %6s %7s" %
             ("file", "lines", "hit", "line%", "branch", "taken", "branch%")]
    totals = [0, 0, 0, 0]
    for name in sorted(per_file):
        n = per_file[name]
        totals = [a + b for a, b in zip(totals, n)]
        table.append("%-24s %6d %6d %6.1f%% %6d %6d %6.1f%%" %
                     (name, n[0], n[1], pct(n[1], n[0]),
                      n[2], n[3], pct(n[3], n[2])))
    table.append("%-24s %6d %6d %6.1f%% %6d %6d %6.1f%%" %
                 ("all", totals[0], totals[1], pct(totals[1], totals[0]),
                  totals[2], totals[3], pct(totals[3], totals[2])))

    blocks = []
    uncovered = set()
    for name in sorted(per_file):
        keys = sorted(k for k in lines if k[0] == name)
        start = prev = None
        for _, ln in keys + [(name, None)]:
            missed = ln is not None and lines[(name, ln)] == 0
            same = (missed and start is not None and
                    func[(name, ln)] == func[(name, start)])
            if start is not None and not same:
                fn = func[(name, start)]
                key = "%s:%s" % (name, fn)
                uncovered.add(key)
                blocks.append(("%s:%d-%d %s" % (name, start, prev, fn),
                               why.get(key)))
                start = None
            if missed and start is None:
                start = ln
            prev = ln

    unexplained = sum(1 for _, w in blocks if not w)
    # An explanation of a function these runs covered whole: stale, unless
    # what it explains is a race that other runs may miss.
    stale = sorted(set(why) - uncovered)
    with open(report, "w") as out:
        out.write("# gcov coverage of the module over %d run(s)\n" % runs)
        out.write("\n".join(table) + "\n\n")
        out.write("# uncovered blocks (%d, %d unexplained): "
                  "FILE:FIRST-LAST FUNCTION: why\n" %
                  (len(blocks), unexplained))
        out.write("".join("%s: %s\n" % (b, w or "unexplained")
                          for b, w in blocks))
        out.write("\n# explained but covered in these runs (%d): a "
                  "race's explanation may hold in other runs; any other "
                  "no longer holds\n" % len(stale))
        out.write("".join("%s\n" % k for k in stale))
    for row in table:
        print("# " + row)
    print("# uncovered blocks: %d (%d unexplained), listed in %s" %
          (len(blocks), unexplained, report))
    if stale:
        print("# explained but covered in these runs: %s" %
              ", ".join(stale))
    if minimum is not None and pct(totals[1], totals[0]) < minimum:
        print("# below the goal of %.1f%% of lines" % minimum)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
