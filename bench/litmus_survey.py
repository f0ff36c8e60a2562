#!/usr/bin/env python3
"""Runs ccl-sim on the litmus programs (ccl-gen --litmus SEED) and holds its
reduced searches against the unreduced one.

For each seed: the program is generated, checked by ccl-opt (parse and
verify), and, raw and after ccl-insert-comm-fence, run by ccl-sim
exhaustively (and, with `--variants`, after the minimal placement: the insert
pass then ccl-sink-comm-markers) in the unreduced mode (`--no-reduction --por off`: every ccl
op a scheduling point, every interleaving; the baseline until the reference
interpreter, `ccl-sim --reference`, lands: `--baseline` names the flags) and in
each reduced mode (`--por on`, the default; `--por dpor`; `--por off`
without `--no-reduction`). It prints the verifier's count, the baseline's
verdicts (clean, race, deadlock, runtime error, no conclusion) raw and
inserted, its states (median, p90, p99, max) and time, and every seed where a
reduced mode's verdict differs from the baseline's: a finding (race,
deadlock or runtime error) in one and not in the other, or a different kind
of finding (a program may have several; each search stops at its first, so
a different kind is listed apart, as information).

    python3 bench/litmus_survey.py                         # seeds 0..999, every mode
    python3 bench/litmus_survey.py --seeds 0:200 --modes baseline
    python3 bench/litmus_survey.py --baseline '--reference' --json out.json

It needs the release build (cargo build --release) and writes
target/litmus_survey.json (or --json FILE): every run, for analysis.
"""

import argparse
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("CCLIR_BENCH_BIN", os.path.join(ROOT, "target", "release"))
INSERT = "builtin.module(ccl-insert-comm-fence)"
# The minimal placement without the checker (which rejects the programs that race whatever the markers).
MINIMAL = "builtin.module(ccl-insert-comm-fence,func.func(ccl-sink-comm-markers))"
VARIANTS = {"inserted": INSERT, "minimal": MINIMAL}
RANKS = re.compile(r"^// ccl-gen --litmus \d+: run with ccl-sim --ranks (\d+)")
CLEAN = re.compile(r"no race: (\d+) states explored")
FOUND = re.compile(r"found after (\d+) states")
LIMIT = re.compile(r"\((\d+) states generated")
VERDICTS = ["clean", "race", "deadlock", "runtime error", "no conclusion", "input error", "timeout"]
FINDINGS = {"race", "deadlock", "runtime error"}


def tool(name):
    return os.path.join(BIN, name)


def classify(code, output):
    """A ccl-sim run's verdict and the states it explored (None if unsaid)."""
    states = None
    for pattern in (CLEAN, FOUND, LIMIT):
        m = pattern.search(output)
        if m:
            states = int(m.group(1))
            break
    if code == 0:
        return "clean", states
    if code == 3:
        if "error: deadlock" in output:
            return "deadlock", states
        return "race", states
    if code == 1:
        if "no conclusion" in output:
            return "no conclusion", states
        if "schedule (" in output:
            return "runtime error", states
        return "input error", states
    return f"exit {code}", states


def simulate(program, ranks, flags, args):
    command = [tool("ccl-sim"), "-", "--ranks", str(ranks), "--exhaustive", "--threads", "1",
               "--max-states", str(args.max_states)] + flags
    start = time.monotonic()
    try:
        run = subprocess.run(command, input=program, capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "timeout", "states": None, "seconds": args.timeout}
    seconds = time.monotonic() - start
    verdict, states = classify(run.returncode, (run.stdout + run.stderr).decode(errors="replace"))
    return {"verdict": verdict, "states": states, "seconds": round(seconds, 4)}


def survey_seed(seed, modes, args):
    text = subprocess.run([tool("ccl-gen"), "--litmus", str(seed)], check=True, capture_output=True).stdout
    ranks = int(RANKS.match(text.decode()).group(1))
    result = {"seed": seed, "ranks": ranks}
    check = subprocess.run([tool("ccl-opt"), "-", "-o", "-"], input=text, capture_output=True)
    result["verifies"] = check.returncode == 0
    if not result["verifies"]:
        result["error"] = check.stderr.decode(errors="replace")[:2000]
        return result
    programs = {}
    for variant in args.variants:
        if variant == "raw":
            programs["raw"] = text
            continue
        placed = subprocess.run([tool("ccl-opt"), "-", "-p", VARIANTS[variant]], input=text, capture_output=True)
        if placed.returncode == 0:
            programs[variant] = placed.stdout
        else:
            result[f"{variant}_error"] = placed.stderr.decode(errors="replace")[:2000]
    for variant, program in programs.items():
        result[variant] = {name: simulate(program, ranks, flags, args) for name, flags in modes.items()}
    return result


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def summarize(results, modes, baseline_name, variants):
    lines = []
    verified = sum(1 for r in results if r["verifies"])
    lines.append(f"programs: {len(results)}, verify under ccl-opt: {verified}")
    for variant in variants:
        runs = [r[variant][baseline_name] for r in results if variant in r]
        counts = {v: sum(1 for x in runs if x["verdict"] == v) for v in VERDICTS}
        others = sorted({x["verdict"] for x in runs} - set(VERDICTS))
        counts.update({o: sum(1 for x in runs if x["verdict"] == o) for o in others})
        shown = ", ".join(f"{k} {n}" for k, n in counts.items() if n)
        states = [x["states"] for x in runs if x["states"] is not None]
        seconds = [x["seconds"] for x in runs]
        lines.append(f"{variant} ({baseline_name}): {shown}")
        if states:
            lines.append(
                f"  states: median {percentile(states, 50)}, p90 {percentile(states, 90)}, "
                f"p99 {percentile(states, 99)}, max {max(states)}; "
                f"time: {sum(seconds):.1f} s in all, median {statistics.median(seconds):.3f} s, max {max(seconds):.2f} s"
            )
    for name in modes:
        if name == baseline_name:
            continue
        differ, kinds, inconclusive = [], [], []
        for r in results:
            for variant in variants:
                if variant not in r:
                    continue
                base, other = r[variant][baseline_name]["verdict"], r[variant][name]["verdict"]
                if base not in FINDINGS | {"clean"} or other not in FINDINGS | {"clean"}:
                    if base != other:
                        inconclusive.append((r["seed"], variant, base, other))
                elif (base in FINDINGS) != (other in FINDINGS):
                    differ.append((r["seed"], variant, base, other))
                elif base != other:
                    kinds.append((r["seed"], variant, base, other))
        runs = sum(1 for r in results for v in variants if v in r)
        lines.append(f"{name}: {len(differ)} of {runs} runs differ from {baseline_name} "
                     f"(finding vs none); {len(kinds)} report another kind of finding; "
                     f"{len(inconclusive)} without a verdict in one of them")
        for seed, variant, base, other in differ:
            lines.append(f"  seed {seed} {variant}: {baseline_name} {base}, {name} {other}")
        for seed, variant, base, other in kinds:
            lines.append(f"  (kind) seed {seed} {variant}: {baseline_name} {base}, {name} {other}")
        for seed, variant, base, other in inconclusive:
            lines.append(f"  (no verdict) seed {seed} {variant}: {baseline_name} {base}, {name} {other}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="0:1000", help="FIRST:END (END excluded)")
    parser.add_argument("--modes", default="baseline,on,dpor,off",
                        help="comma-separated: baseline, on, dpor, off (plain --por off)")
    parser.add_argument("--variants", default="raw,inserted",
                        help="comma-separated: raw, inserted (the rules' markers), minimal (then ccl-sink-comm-markers)")
    parser.add_argument("--baseline", default="--no-reduction --por off",
                        help="ccl-sim flags of the search the others are held against")
    parser.add_argument("--max-states", type=int, default=1_000_000)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per ccl-sim run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", default=os.path.join(ROOT, "target", "litmus_survey.json"),
                        help="where to write every run (default target/litmus_survey.json)")
    args = parser.parse_args()
    first, end = (int(x) for x in args.seeds.split(":"))
    args.variants = args.variants.split(",")
    for variant in args.variants:
        if variant != "raw" and variant not in VARIANTS:
            sys.exit(f"litmus_survey.py: unknown variant '{variant}' (raw, inserted, minimal)")
    known = {"baseline": args.baseline.split(), "on": ["--por", "on"], "dpor": ["--por", "dpor"],
             "off": ["--por", "off"]}
    modes = {}
    for name in args.modes.split(","):
        if name not in known:
            sys.exit(f"litmus_survey.py: unknown mode '{name}' (baseline, on, dpor, off)")
        modes[name] = known[name]
    if "baseline" not in modes:
        sys.exit("litmus_survey.py: --modes must include baseline")
    for name in ("ccl-gen", "ccl-opt", "ccl-sim"):
        if not os.path.exists(tool(name)):
            sys.exit(f"litmus_survey.py: {tool(name)} is missing: cargo build --release")
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda s: survey_seed(s, modes, args), range(first, end)))
    summary = summarize(results, modes, "baseline", args.variants)
    summary += f"\nwall time: {time.monotonic() - start:.0f} s ({args.jobs} jobs)"
    print(summary)
    with open(args.json, "w") as out:
        json.dump({"seeds": [first, end], "modes": {k: " ".join(v) for k, v in modes.items()},
                   "results": results, "summary": summary}, out, indent=1)
    for variant in args.variants:
        failed = [r["seed"] for r in results if f"{variant}_error" in r]
        if failed:
            print(f"seeds ccl-opt cannot place {variant} markers in: {failed}", file=sys.stderr)
    not_verified = [r["seed"] for r in results if not r["verifies"]]
    if not_verified:
        print(f"seeds that do not verify: {not_verified}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
