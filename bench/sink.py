#!/usr/bin/env python3
"""What ccl-sink-comm-markers saves and what it costs.

Markers executed per launch (ccl-sim counts what a run executes), the
rules' placement (ccl-pipeline) against the minimal one
(ccl-pipeline{placement=minimal}), on:
  * the MoE example (examples/moe_dispatch.mlir) at 1,024 rows: its three
    kernels launched once per rank on 8 ranks by a small harness (the
    example's own orchestration waits for a signal nobody sends; the harness
    stages the received count and that signal first);
  * the lowered all_to_all_v protocol (ccl-gen --all-to-all-v P,B) at
    P = 2, 4, 8 with B = P and 2P, on random schedules;
  * the 300 generated exchange programs (ccl-gen --exchange SEED), summed.
And the pass's compile time at 1M ops: the minimal pipeline beside
mlir-opt --load-dialect-plugin (parse, verify, print) in the same run,
interleaved, with the pass's own row of --mlir-timing. (The rules'
pipeline is not timed: its checker rejects ccl-gen's programs.)

    python3 bench/sink.py                 # everything (about 10 minutes)
    python3 bench/sink.py --markers       # the marker counts only
    python3 bench/sink.py --compile-time --ops 1000000 --rounds 7
    python3 bench/sink.py --instructions 100000   # callgrind: the minimal
        pipeline against mlir-opt, in instructions (one thread; minutes)
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import BIN, LLVM, PLUGIN, ROOT, generate_sized, instructions, run_measured, timing_rows  # noqa: E402

RULES = "builtin.module(ccl-pipeline)"
MINIMAL = "builtin.module(ccl-pipeline{placement=minimal})"
LOWERED_RULES = "builtin.module(ccl-pipeline{lower-collectives=true})"
LOWERED_MINIMAL = "builtin.module(ccl-pipeline{lower-collectives=true placement=minimal})"
KINDS = ("fences", "region invalidates", "whole-GM invalidates", "lines written back")
KERNEL_LINE = re.compile(r"^ccl-sim:\s+@(\S+): launches (\d+), (.*)$")
COUNT = re.compile(r"(fences|region invalidates|whole-GM invalidates|lines written back) (\d+)(?:\s*(?:-|\.\.)\s*(\d+))?")

# The MoE harness: the example's kernels, launched once each at ROWS rows
# after a kernel that stages what the exchange would have delivered (the
# received row count) and the signal the experts wait for.
MOE_HARNESS = """
func.func @bench_stage(%recv_counts: memref<8xi32>, %landed: memref<8xi32, #ccl.window>, %rows: index)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %me = ccl.rank : i32
  %one = arith.constant 1 : i32
  %count = arith.index_cast %rows : index to i32
  ccl.tensor_write %recv_counts[%c0], %count : memref<8xi32>, i32
  ccl.notify set %landed, %me, %one : memref<8xi32, #ccl.window>, i32, i32
  return
}
func.func @bench(%tokens: memref<1024x64xf32>, %send: memref<1024x64xf32, #ccl.window>,
                 %recv: memref<1024x64xf32, #ccl.window>, %recv_counts: memref<8xi32>,
                 %out: memref<1024x64xf32, #ccl.window>, %home: memref<1024x64xf32, #ccl.window>,
                 %ready: memref<8xi32, #ccl.window>, %landed: memref<8xi32, #ccl.window>,
                 %done: memref<8xi32, #ccl.window>, %rows: index) attributes {ccl.kind = "orchestration"} {
  %owner = ccl.rank : i32
  func.call @bench_stage(%recv_counts, %landed, %rows) : (memref<8xi32>, memref<8xi32, #ccl.window>, index) -> ()
  func.call @dispatch_pack(%tokens, %send, %ready, %rows)
      : (memref<1024x64xf32>, memref<1024x64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index) -> ()
  func.call @expert_ffn(%recv, %recv_counts, %out, %landed, %rows)
      : (memref<1024x64xf32, #ccl.window>, memref<8xi32>, memref<1024x64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index) -> ()
  func.call @combine_send(%out, %home, %done, %owner, %rows)
      : (memref<1024x64xf32, #ccl.window>, memref<1024x64xf32, #ccl.window>, memref<8xi32, #ccl.window>, i32, index) -> ()
  return
}
"""
MOE_KERNELS = ("dispatch_pack", "expert_ffn", "combine_send")


def build():
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "ccl-opt", "--bin", "ccl-gen", "--bin", "ccl-sim"],
                   cwd=ROOT, check=True)


def tool(name):
    return os.path.join(BIN, name)


def run(argv, stdin=None):
    result = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench: {' '.join(argv)} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return result.stdout


def optimize(text, pipeline):
    return run([tool("ccl-opt"), "-", "-p", pipeline], stdin=text)


def counts(ranks, text, *extra):
    """ccl-sim's count of what a run executes: per kernel, launches and
    (min, max) of each kind over the schedules explored."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as program:
        program.write(text)
    try:
        output = run([tool("ccl-sim"), program.name, "--ranks", str(ranks), *extra])
    finally:
        os.unlink(program.name)
    kernels = {}
    for line in output.splitlines():
        match = KERNEL_LINE.match(line)
        if not match:
            continue
        name, launches, rest = match.group(1), int(match.group(2)), match.group(3)
        found = {kind: (int(low), int(high or low)) for kind, low, high in COUNT.findall(rest)}
        kernels[name] = {"launches": launches, **found}
    if not kernels:
        sys.exit(f"bench: ccl-sim printed no counts per kernel:\n{output}")
    return kernels


def per_launch(kernels, names):
    """(min, max) markers of each kind per launch, summed over `names`."""
    total = {}
    for kind in KINDS:
        low = sum(kernels[n][kind][0] / kernels[n]["launches"] for n in names)
        high = sum(kernels[n][kind][1] / kernels[n]["launches"] for n in names)
        total[kind] = (low, high)
    return total


def span(pair):
    low, high = pair
    text = f"{low:,.0f}" if low == int(low) else f"{low:,.2f}"
    if high != low:
        text += f"-{high:,.0f}" if high == int(high) else f"-{high:,.2f}"
    return text


def ratio(rules, minimal):
    return "-" if minimal == 0 else f"{rules / minimal:,.0f}x" if rules / minimal >= 10 else f"{rules / minimal:.2f}x"


MORE = []


def report(title, rules, minimal):
    for kind in KINDS[:3]:
        if minimal[kind][1] > rules[kind][1]:
            MORE.append(f"{title}: {kind} {span(minimal[kind])} minimal against {span(rules[kind])}")
    print(f"| {title} | " + " | ".join(f"{span(rules[k])} / {span(minimal[k])}" for k in KINDS)
          + f" | {ratio(rules['fences'][1], minimal['fences'][1])} |")


def positions(source, entry, names):
    """`--arg` options for the arguments `names` (name -> value) of `entry`,
    by position: the optimized program is printed with its arguments
    renamed %arg0, %arg1, ..."""
    signature = source[source.index(f"func.func @{entry}("):]
    signature = signature[:signature.index(")")]
    order = re.findall(r"%(\w+):", signature)
    return [option for name, value in names.items() for option in ("--arg", f"{order.index(name)}={value}")]


def moe(rows):
    example = open(os.path.join(ROOT, "examples", "moe_dispatch.mlir")).read()
    runs = {
        # The example as shipped, one layer; its exchange delivers no rows
        # (the send counts stay zero), so @expert_ffn runs none.
        f"MoE example, {rows:,} rows, one layer": (
            example, ["--entry", "moe_layers", *positions(example, "moe_layers", {"rows": rows, "layers": 1, "owner": 1})]),
        # Each kernel once at `rows` rows, the experts' included.
        f"MoE kernels, {rows:,} rows each (bench harness)": (
            example + MOE_HARNESS, ["--entry", "bench", *positions(MOE_HARNESS, "bench", {"rows": rows})]),
    }
    for title, (source, options) in runs.items():
        results = {}
        for name, pipeline in (("rules", RULES), ("minimal", MINIMAL)):
            kernels = counts(8, optimize(source, pipeline), *options, "--random", "1")
            results[name] = per_launch(kernels, MOE_KERNELS)
        report(f"{title} (the 3 kernels, a launch of each)", results["rules"], results["minimal"])


def all_to_all_v(p, b, runs):
    source = run([tool("ccl-gen"), "--all-to-all-v", f"{p},{b}"])
    results = {}
    for name, pipeline in (("rules", LOWERED_RULES), ("minimal", LOWERED_MINIMAL)):
        kernels = counts(p, optimize(source, pipeline), "--random", str(runs), "--seed", "1")
        results[name] = {k: per_launch(kernels, [k]) for k in kernels}
    for kernel in sorted(results["rules"]):
        report(f"all_to_all_v P = {p}, B = {b}: @{kernel}", results["rules"][kernel], results["minimal"][kernel])


def exchanges(cases):
    sums = {"rules": {k: [0, 0] for k in KINDS}, "minimal": {k: [0, 0] for k in KINDS}}
    for seed in range(cases):
        source = run([tool("ccl-gen"), "--exchange", str(seed)])
        ranks = int(re.search(r"--ranks (\d+)", source.splitlines()[0]).group(1))
        for name, pipeline in (("rules", RULES), ("minimal", MINIMAL)):
            kernels = counts(ranks, optimize(source, pipeline))
            for kernel in kernels.values():
                for kind in KINDS:
                    sums[name][kind][0] += kernel[kind][0]
                    sums[name][kind][1] += kernel[kind][1]
    rules = {k: tuple(v) for k, v in sums["rules"].items()}
    minimal = {k: tuple(v) for k, v in sums["minimal"].items()}
    report(f"{cases} exchange programs (sums over every run, exhaustive)", rules, minimal)


def markers(args):
    print("Markers executed per launch, the rules' placement / the minimal one "
          "(a-b: the least and the most over the schedules run):\n")
    print("| program | " + " | ".join(KINDS) + " | fences, rules / minimal |")
    print("|---|" + "---|" * (len(KINDS) + 1))
    moe(args.rows)
    for p in (2, 4, 8):
        for b in (p, 2 * p):
            all_to_all_v(p, b, args.runs)
    exchanges(args.cases)
    print("\nNever more markers:", "yes" if not MORE else "NO:\n  " + "\n  ".join(MORE))


def compile_time(args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input.mlir")
        generate_sized(path, args.ops)
        commands = {
            "mlir-opt": [os.path.join(LLVM, "mlir-opt"), f"--load-dialect-plugin={PLUGIN}", path],
            # The rules' pipeline is left out: its checker rejects ccl-gen's
            # programs (bench/run.py, PIPELINE), so it would time diagnostics.
            "minimal": [tool("ccl-opt"), path, "-p", MINIMAL],
        }
        names = list(commands)
        runs = {name: [] for name in names}
        sink = os.path.join(tmp, "out")
        for round_index in range(args.rounds):
            # Rotating the order spreads the machine's drift over all three.
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                wall, _, report_text = run_measured([*commands[name], "--mlir-timing"], sink)
                runs[name].append((wall, timing_rows(report_text)))

    def wall(name):
        return statistics.median(w for w, _ in runs[name])

    base = wall("mlir-opt")
    print(f"\nCompile time at {args.ops:,} ops ({args.rounds} rounds, medians; threads on):")
    for name in names:
        print(f"  {name:9} {wall(name):.3f} s  {wall(name) / base:.3f} of mlir-opt")
    row = statistics.median(rows.get("CclSinkCommMarkers", 0.0) for _, rows in runs["minimal"])
    print(f"  CclSinkCommMarkers (its --mlir-timing row): {row:.3f} s = "
          f"{100 * row / wall('minimal'):.1f}% of the minimal pipeline's wall time")


def instruction_counts(ops):
    """The minimal pipeline and mlir-opt in instructions (callgrind, one
    thread) on the size-`ops` program: the same count on every run. (The
    rules' pipeline is left out: its checker rejects the program.)"""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input.mlir")
        generate_sized(path, ops)
        # Valgrind cannot read the release build's DWARF 5 (bench/run.py).
        ccl_opt = os.path.join(tmp, "ccl-opt-nodebug")
        subprocess.run(["strip", "--strip-debug", "-o", ccl_opt, tool("ccl-opt")], check=True)
        base = instructions([os.path.join(LLVM, "mlir-opt"), f"--load-dialect-plugin={PLUGIN}", path])
        minimal = instructions([ccl_opt, path, "-p", MINIMAL])
    print(f"\nInstructions at {ops:,} ops: mlir-opt {base:,}, minimal {minimal:,} ({minimal / base:.3f})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--markers", action="store_true", help="only the marker counts")
    parser.add_argument("--compile-time", action="store_true", help="only the compile time")
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3, help="random schedules per protocol size")
    parser.add_argument("--cases", type=int, default=300, help="exchange programs")
    parser.add_argument("--ops", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--instructions", type=int, metavar="OPS", help="only the instruction counts at OPS ops")
    args = parser.parse_args()
    build()
    if args.instructions:
        instruction_counts(args.instructions)
        return
    both = not (args.markers or args.compile_time)
    if args.markers or both:
        markers(args)
    if args.compile_time or both:
        compile_time(args)


if __name__ == "__main__":
    main()
