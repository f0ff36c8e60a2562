#!/usr/bin/env python3
"""Runs cclir's tools over the bug corpus (bugs/) and prints the verdict table.

Every case is a folder bugs/<name>/ with buggy.mlir, fixed.mlir, README.md and
case.json (the report's source, the kind of finding the bug must produce, the
source lines it must name, the rank count and how the markers are placed).
For each pair it runs, on the program as it runs (markers "written": the file
as it is; "inserted": the file after ccl-insert-comm-fence):

  static   ccl-opt -p 'builtin.module(ccl-verify-comm-order{ranks=P})' (the marker
           rules and the synchronisation of the run on P ranks)
  signals  ccl-opt -p 'builtin.module(ccl-check-signals{ranks=P})' (the static
           analysis of signal discipline, docs/passes/check-signals.md)
  minimal  ccl-opt -p 'builtin.module(ccl-pipeline{placement=minimal ranks=P})' (its
           own checker included), then ccl-sim on its output: the fewest
           markers must keep the fix clean and the bug found
  por      ccl-sim --exhaustive (persistent sets, the default)
  plain    ccl-sim --exhaustive --no-reduction --por off (every interleaving)
  dpor     ccl-sim --exhaustive --por dpor
  reference  ccl-sim --reference (the reference semantics: every execution,
           no reduction; the ground truth the searches are held to)

A bug counts as found by a tool when the tool reports it (a data race or a
deadlock, as case.json says, for ccl-sim; any violation for the checker) at
one of the source lines case.json names; a fix counts as accepted when the
tool reports nothing. The table ends with a recall line (bugs found / bugs)
and a precision line (fixes accepted / fixes) per tool.

    python3 bench/bug_corpus.py                   # the table, markdown, on stdout
    python3 bench/bug_corpus.py --check           # also exit 1 if a verdict is not the one case.json expects
    python3 bench/bug_corpus.py --cases a,b       # only these cases
    python3 bench/bug_corpus.py --artifacts       # also write bugs/<name>/buggy.sarif and buggy.svg (ccl-sim's
                                                  # SARIF log and schedule diagram of the bug, default search)
    python3 bench/bug_corpus.py --json FILE       # every verdict, machine-readable
    python3 bench/bug_corpus.py --tools static,signals   # only these tools (the others print "-")

It uses the release build (cargo build --release; CCLIR_BENCH_BIN names
another directory of ccl-opt and ccl-sim) and runs from the repository root,
so reports name files as bugs/<name>/buggy.mlir.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("CCLIR_BENCH_BIN", os.path.join(ROOT, "target", "release"))
CORPUS = os.path.join(ROOT, "bugs")
VERIFY = "builtin.module(ccl-verify-comm-order{ranks=%d})"
SIGNALS = "builtin.module(ccl-check-signals{ranks=%d})"
INSERT = "builtin.module(ccl-insert-comm-fence)"
MINIMAL = "builtin.module(ccl-pipeline{placement=minimal ranks=%d})"
SIM_MODES = {
    "por": [],
    "plain": ["--no-reduction", "--por", "off"],
    "dpor": ["--por", "dpor"],
    "reference": ["--reference"],
}
KINDS = {"race": "error: data race", "deadlock": "error: deadlock"}
TIMEOUT = 600


def tool(name):
    return os.path.join(BIN, name)


def run(argv, keep_stdout=None):
    """Runs argv from the repository root; returns (exit code, report, seconds). The report is
    standard output and standard error together, unless `keep_stdout` names a file that
    standard output goes to instead."""
    start = time.monotonic()
    try:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "timeout after %d s" % TIMEOUT, time.monotonic() - start
    seconds = time.monotonic() - start
    if keep_stdout:
        with open(keep_stdout, "wb") as out_file:
            out_file.write(done.stdout)
        return done.returncode, done.stderr.decode(errors="replace"), seconds
    return done.returncode, done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace"), seconds


def located_lines(output, path):
    """The source lines of `path` that the report's error and notes name (not the schedule)."""
    lines = set()
    pattern = re.compile(re.escape(path) + r":(\d+):\d+: (?:error|note):")
    for text in output.splitlines():
        if text.startswith("schedule ("):
            break
        found = pattern.match(text)
        if found:
            lines.add(int(found.group(1)))
    return lines


def compile_program(case, path, pipeline, scratch):
    """The program as it runs: the file itself, or the file after `pipeline`.
    Returns (path to run, exit code of the pipeline, its output)."""
    if pipeline is None:
        return path, 0, ""
    stage = "minimal" if pipeline.startswith(MINIMAL.split("{")[0]) else "inserted"
    target = os.path.join(scratch, "%s.%s-%s.mlir" % (case["name"], os.path.basename(path)[:-5], stage))
    code, out, _ = run([tool("ccl-opt"), path, "--mlir-print-debuginfo", "-p", pipeline], keep_stdout=target)
    if code != 0:
        return None, code, out
    return target, 0, out


def static_verdict(program, source, expected_lines, ranks):
    code, out, seconds = run([tool("ccl-opt"), program, "-p", VERIFY % ranks])
    lines = located_lines(out, source)
    if code == 0:
        verdict = "clean"
    elif code == 1 and " error: " in out:
        verdict = "found" if lines & expected_lines else "flagged"
    else:
        verdict = "error"
    return {"verdict": verdict, "code": code, "lines": sorted(lines), "seconds": seconds,
            "errors": out.count(": error: ")}


def signals_verdict(program, source, expected_lines, ranks):
    """ccl-check-signals: found when it reports an error naming an expected line (a bug it shows by a
    schedule), flagged when its errors name other lines, clean when it reports none; "no conclusion"
    when it could not follow the program (a warning, exit 0)."""
    code, out, seconds = run([tool("ccl-opt"), program, "-p", SIGNALS % ranks])
    lines = located_lines(out, source)
    if code == 0:
        verdict = "no conclusion" if "no conclusion" in out else "clean"
    elif code == 1 and " error: " in out:
        verdict = "found" if lines & expected_lines else "flagged"
    else:
        verdict = "error"
    rules = sorted(set(re.findall(r"\((R[1-8])\)", out)))
    return {"verdict": verdict, "code": code, "lines": sorted(lines), "seconds": seconds,
            "errors": out.count(": error: "), "rules": rules}


SKIPPED = {"verdict": "-", "code": None, "lines": [], "seconds": 0}


def sim_verdict(program, source, case, mode, artifacts=None, variant=None):
    argv = [tool("ccl-sim"), program, "--ranks", str(case["ranks"])] + case.get("search", []) + SIM_MODES[mode]
    if artifacts:
        stem = os.path.join("bugs", case["name"], variant)
        argv += ["--sarif", stem + ".sarif", "--diagram", stem + ".svg"]
    code, out, seconds = run(argv)
    lines = located_lines(out, source)
    finding = next((kind for kind, text in KINDS.items() if text in out), None)
    states = re.search(r"(?:found after|no race:) (\d+) states", out)
    if code == 0:
        verdict = "clean"
    elif code == 3 and finding == case["kind"]:
        wanted = set(case["lines"])
        hit = wanted <= lines if case["kind"] == "race" else bool(wanted & lines)
        verdict = "found" if hit else "elsewhere"
    elif code == 3:
        verdict = "other " + (finding or "finding")
    elif code is None:
        verdict = "timeout"
    else:
        verdict = "no conclusion" if "no conclusion" in out else "error"
    return {"verdict": verdict, "code": code, "lines": sorted(lines), "seconds": seconds,
            "states": int(states.group(1)) if states else None, "finding": finding,
            "first": out.splitlines()[0] if out else ""}


def evaluate(case, artifacts, scratch, tools):
    results = {}
    for variant in ("buggy", "fixed"):
        source = os.path.join("bugs", case["name"], variant + ".mlir")
        expected_lines = set(case.get("static_lines", case["lines"])) if variant == "buggy" else set()
        signal_lines = set(case.get("signals_lines", case["lines"])) if variant == "buggy" else set()
        as_run, code, out = compile_program(case, source, INSERT if case["markers"] == "inserted" else None,
                                            scratch)
        entry = {name: SKIPPED for name in TOOLS}
        if as_run is None:
            entry["static"] = {"verdict": "error", "code": code, "lines": [], "seconds": 0, "errors": 0}
            results[variant] = entry
            continue
        if "static" in tools:
            entry["static"] = static_verdict(as_run, source, expected_lines, case["ranks"])
        if "signals" in tools:
            entry["signals"] = signals_verdict(as_run, source, signal_lines, case["ranks"])
        for mode in SIM_MODES:
            if mode in tools:
                entry[mode] = sim_verdict(as_run, source, case, mode,
                                          artifacts if (artifacts and mode == "por" and variant == "buggy") else None,
                                          variant)
        if "minimal" not in tools:
            results[variant] = entry
            continue
        minimal, code, out = compile_program(case, source, MINIMAL % case["ranks"], scratch)
        if minimal is None:
            # The pipeline's own checker rejected its output (or it failed): that is a static finding.
            lines = located_lines(out, source)
            entry["minimal"] = {"verdict": "found" if lines & expected_lines else "flagged",
                                "code": code, "lines": sorted(lines), "seconds": 0, "static": True}
        else:
            entry["minimal"] = sim_verdict(minimal, source, case, "por")
            # A missing marker written into the program is what the pipeline exists to place:
            # its output being clean is the repair, not a miss.
            if (variant == "buggy" and case["markers"] == "written" and entry["static"]["verdict"] == "found"
                    and entry["minimal"]["verdict"] == "clean"):
                entry["minimal"]["verdict"] = "repaired"
        results[variant] = entry
    return results


TOOLS = ["static", "signals"] + list(SIM_MODES) + ["minimal"]

SHORT = {"-": "-", "found": "found", "clean": "clean", "flagged": "flagged*", "elsewhere": "elsewhere*", "timeout": "timeout",
         "no conclusion": "no concl.", "error": "error", "repaired": "repaired"}


def cell(buggy, fixed):
    return "%s / %s" % (SHORT.get(buggy["verdict"], buggy["verdict"]), SHORT.get(fixed["verdict"], fixed["verdict"]))


def expectation_failures(case, results, tools):
    """Verdicts that differ from what case.json says each tool gives today: `expect` names the
    verdict on the bug of the checker (always) and of any other tool that does not find it."""
    failures = []
    expect = case.get("expect", {})
    for tool_name in [t for t in TOOLS if t in tools]:
        wanted_bug = expect.get(tool_name, "found")
        got_bug = results["buggy"][tool_name]["verdict"]
        if got_bug != wanted_bug:
            failures.append("%s: %s on the bug, expected %s" % (tool_name, got_bug, wanted_bug))
        got_fix = results["fixed"][tool_name]["verdict"]
        if got_fix != "clean":
            failures.append("%s: %s on the fix, expected clean" % (tool_name, got_fix))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="comma-separated case names (default: every folder of bugs/)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a verdict differs from case.json's")
    parser.add_argument("--artifacts", action="store_true",
                        help="write each bug's SARIF log and schedule diagram beside it (ccl-sim, default search)")
    parser.add_argument("--json", help="write every verdict to this file")
    parser.add_argument("--tools", help="comma-separated tools to run (default: all of %s)" % ",".join(TOOLS))
    args = parser.parse_args()
    tools = args.tools.split(",") if args.tools else TOOLS
    unknown_tools = [t for t in tools if t not in TOOLS]
    if unknown_tools:
        sys.exit("bug_corpus.py: no such tool: %s" % ", ".join(unknown_tools))

    names = sorted(d for d in os.listdir(CORPUS) if os.path.isfile(os.path.join(CORPUS, d, "case.json")))
    if args.cases:
        wanted = args.cases.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            sys.exit("bug_corpus.py: no such case: %s" % ", ".join(unknown))
        names = wanted

    cases, all_results, failures = [], {}, {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            with open(os.path.join(CORPUS, name, "case.json")) as f:
                case = json.load(f)
            case["name"] = name
            cases.append(case)
            results = evaluate(case, args.artifacts, scratch, tools)
            all_results[name] = results
            failures[name] = expectation_failures(case, results, tools)
            print("ran %s" % name, file=sys.stderr)

    print("| case | report | kind | ranks | static | signals | ccl-sim | ccl-sim plain | ccl-sim dpor | reference "
          "| minimal pipeline | time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        r = all_results[case["name"]]
        seconds = sum(r[v][t]["seconds"] for v in ("buggy", "fixed") for t in TOOLS)
        print("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %.2f |" % (
            case["name"], case["report"], case["kind"], case["ranks"],
            cell(r["buggy"]["static"], r["fixed"]["static"]),
            cell(r["buggy"]["signals"], r["fixed"]["signals"]),
            cell(r["buggy"]["por"], r["fixed"]["por"]),
            cell(r["buggy"]["plain"], r["fixed"]["plain"]),
            cell(r["buggy"]["dpor"], r["fixed"]["dpor"]),
            cell(r["buggy"]["reference"], r["fixed"]["reference"]),
            cell(r["buggy"]["minimal"], r["fixed"]["minimal"]),
            seconds))
    print()
    bugs = len(cases)
    for t in [t for t in TOOLS if t in tools]:
        verdicts = [all_results[c["name"]]["buggy"][t]["verdict"] for c in cases]
        found = verdicts.count("found")
        repaired = verdicts.count("repaired")
        accepted = sum(all_results[c["name"]]["fixed"][t]["verdict"] == "clean" for c in cases)
        note = " (%d more repaired: the pipeline places the missing marker)" % repaired if repaired else ""
        print("- %s: recall %d/%d bugs found%s, precision %d/%d fixes accepted" % (t, found, bugs, note, accepted,
                                                                                  bugs))
    for pair in (("static", "signals"), ("static", "por")):
        if all(t in tools for t in pair):
            either = sum(any(all_results[c["name"]]["buggy"][t]["verdict"] == "found" for t in pair) for c in cases)
            label = {"por": "ccl-sim (default search)"}.get(pair[1], pair[1])
            print("- %s or %s: recall %d/%d bugs found" % (pair[0], label, either, bugs))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": {c["name"]: all_results[c["name"]] for c in cases}}, f, indent=1)
    bad = {name: f for name, f in failures.items() if f}
    if bad:
        print(file=sys.stderr)
        for name, problems in bad.items():
            for problem in problems:
                print("%s: %s" % (name, problem), file=sys.stderr)
        if args.check:
            sys.exit(1)


if __name__ == "__main__":
    main()
