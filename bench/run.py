#!/usr/bin/env python3
"""Benchmarks ccl-opt against upstream mlir-opt with the ccl dialect plugin.

For each generated input (ccl-gen), on the same file in the same run and
interleaved, it times:
  * ccl-opt --pass-pipeline='builtin.module(ccl-pipeline{placement=minimal})'
    (PIPELINE below: the full pipeline that accepts ccl-gen's programs)
  * ccl-opt with no pass (parse, verify, print: the ODS dialect's own cost)
  * mlir-opt --load-dialect-plugin=libccl_dialect_plugin.so (parse, verify,
    print only): the baseline of every ratio
and records wall time and peak RSS of each child (wait4's rusage).
It reports ratios of medians, a scaling table and a threading comparison,
writes bench/results.json and draws docs/benchmarks.png.

    python3 bench/run.py            # the full matrix (minutes)
    python3 bench/run.py --quick    # a small smoke run
    python3 bench/run.py --instructions 100000   # also count instructions
        of the three on a 100k-op program (callgrind; minutes per run)
    python3 bench/run.py --sizes 1000000 --repeats 9   # only the size table,
        for the sizes given (the budget's 1M-op row alone, in about two
        minutes); written to bench/results-sizes.json, no plot
    python3 bench/run.py --old-build DIR   # also time an older build's
        ccl-opt (DIR/ccl-opt, DIR/ccl-gen) on its own generator's program of
        the largest size: parse+verify+print, e.g. the IRDL-era build
"""

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM = os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
BIN = os.path.join(ROOT, "target", "release")
PLUGIN = os.path.join(BIN, "libccl_dialect_plugin.so")
# The budget's full pipeline: admission, insertion, the sink and the
# checker. With the rules' placement (`ccl-pipeline`) the checker rejects
# ccl-gen's programs: the origin's rules leave plain buffers' write-backs
# in flight together (docs/passes/verify-comm-order.md), so that run would
# time thousands of diagnostics, not a compilation.
PIPELINE = "builtin.module(ccl-pipeline{placement=minimal})"
TIMING_ROW = re.compile(r"^\s+(?:[\d.]+ \(\s*[\d.]+%\)\s+)?([\d.]+) \(\s*[\d.]+%\)\s+(\S.*)$")


def run_measured(argv, stdout_path):
    """Runs argv with stdout to stdout_path; returns (seconds, peak RSS in
    MiB, its stderr). A failing run ends the benchmark. Stderr goes to a
    file, not a pipe: a child that writes more than a pipe holds would
    block on it while this waits for the child."""
    with open(stdout_path, "wb") as out, tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        err = errors.read().decode(errors="replace")
    if child.returncode != 0:
        sys.exit(f"bench: {' '.join(argv)} failed ({child.returncode}):\n{err[:2000]}")
    return elapsed, usage.ru_maxrss / 1024.0, err


def timing_rows(report):
    """Wall seconds by row name in MLIR's `--mlir-timing` report (analysis
    rows, "(A) ...", left out)."""
    rows = {}
    for line in report.splitlines():
        # "  user (pct)  wall (pct)  name" with threads, "  wall (pct)  name" without.
        match = TIMING_ROW.match(line)
        if match and not match.group(2).startswith("(A)"):
            rows[match.group(2).strip()] = float(match.group(1))
    return rows


def generate(path, ops, depth, functions, seed=1, bin_dir=BIN):
    with open(path, "wb") as out:
        subprocess.run(
            [os.path.join(bin_dir, "ccl-gen"), "--seed", str(seed), "--ops", str(ops),
             "--depth", str(depth), "--functions", str(functions)],
            stdout=out, check=True)


def generate_sized(path, ops, bin_dir=BIN):
    """The program of the size matrix: depth 4, a function per 1000 ops."""
    generate(path, ops, depth=4, functions=max(1, ops // 1000), bin_dir=bin_dir)


def compare(path, repeats, extra=(), parse_only=False):
    """Interleaved runs of the tools on one file; medians and peaks."""
    ours, theirs, parse, our_mem, their_mem, parse_mem = [], [], [], [], [], []
    sink = path + ".out"
    for _ in range(repeats):
        t, m, _ = run_measured([os.path.join(BIN, "ccl-opt"), path,
                             f"--pass-pipeline={PIPELINE}", *extra], sink)
        ours.append(t)
        our_mem.append(m)
        t, m, _ = run_measured([os.path.join(LLVM, "mlir-opt"), f"--load-dialect-plugin={PLUGIN}", path], sink)
        theirs.append(t)
        their_mem.append(m)
        if parse_only:
            t, m, _ = run_measured([os.path.join(BIN, "ccl-opt"), path], sink)
            parse.append(t)
            parse_mem.append(m)
    os.unlink(sink)
    # Runs of a pair are adjacent, so their ratio cancels most of the
    # machine's drift; the spread of the pairs shows how much is left.
    pairs = [a / b for a, b in zip(ours, theirs)]
    row = {
        "ccl_opt_s": statistics.median(ours),
        "mlir_opt_s": statistics.median(theirs),
        "ratio": statistics.median(ours) / statistics.median(theirs),
        "pair_ratio_median": statistics.median(pairs),
        "pair_ratio_min": min(pairs),
        "pair_ratio_max": max(pairs),
        "ccl_opt_peak_mib": max(our_mem),
        "mlir_opt_peak_mib": max(their_mem),
        "memory_ratio": max(our_mem) / max(their_mem),
    }
    if parse_only:
        row["ccl_opt_parse_s"] = statistics.median(parse)
        row["parse_ratio"] = statistics.median(parse) / statistics.median(theirs)
        row["ccl_opt_parse_peak_mib"] = max(parse_mem)
    return row


def instructions(argv):
    """Instructions executed by argv under callgrind (one thread): the same
    count on every run of the same binaries and input, however loaded the
    machine is."""
    result = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv,
                             "--mlir-disable-threading", "-o", os.devnull],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench: callgrind of {' '.join(argv)} failed:\n{result.stderr[-2000:]}")
    for line in result.stderr.splitlines():
        if "I   refs:" in line:
            return int(line.split("I   refs:")[1].replace(",", ""))
    sys.exit("bench: no instruction count in callgrind's report")


def instruction_ratios(ops, tmp):
    """The pipeline and ccl-opt without passes against the baseline, in
    instructions, on the size-`ops` program."""
    path = os.path.join(tmp, f"instructions-{ops}.mlir")
    generate_sized(path, ops)
    # Valgrind 3.19 cannot read the DWARF 5 of the release build's
    # debuginfo, so it runs a copy without it (symbols stay).
    tool = os.path.join(tmp, "ccl-opt-nodebug")
    subprocess.run(["strip", "--strip-debug", "-o", tool, os.path.join(BIN, "ccl-opt")], check=True)
    pipeline = instructions([tool, path, f"--pass-pipeline={PIPELINE}"])
    no_passes = instructions([tool, path])
    baseline = instructions([os.path.join(LLVM, "mlir-opt"), f"--load-dialect-plugin={PLUGIN}", path])
    return {"ops": ops, "pipeline": pipeline, "no_passes": no_passes, "mlir_opt": baseline,
            "ratio": pipeline / baseline, "no_pass_ratio": no_passes / baseline}


def old_build(old_dir, ops, repeats, tmp):
    """An older build's ccl-opt on its own generator's program (the same
    seed and shape; the text differs where the dialect's syntax did),
    parse+verify+print, against this build's on this generator's."""
    old_path = os.path.join(tmp, "old.mlir")
    new_path = os.path.join(tmp, "new.mlir")
    generate_sized(old_path, ops, bin_dir=old_dir)
    generate_sized(new_path, ops)
    old, new, old_mem, new_mem = [], [], [], []
    sink = os.path.join(tmp, "sink")
    for _ in range(repeats):
        t, m, _ = run_measured([os.path.join(old_dir, "ccl-opt"), old_path], sink)
        old.append(t)
        old_mem.append(m)
        t, m, _ = run_measured([os.path.join(BIN, "ccl-opt"), new_path], sink)
        new.append(t)
        new_mem.append(m)
    return {"ops": ops, "old_s": statistics.median(old), "new_s": statistics.median(new),
            "ratio": statistics.median(new) / statistics.median(old),
            "old_peak_mib": max(old_mem), "new_peak_mib": max(new_mem)}


def insert_seconds(argv):
    """Wall time of ccl-insert-comm-fence from MLIR's timing report (Phase A,
    the per-kernel part, runs on MLIR's thread pool inside it)."""
    result = subprocess.run(argv + ["--mlir-timing", "-o", os.devnull], capture_output=True, text=True, check=True)
    rows = timing_rows(result.stderr)
    if "CclInsertCommFence" not in rows:
        sys.exit("bench: no CclInsertCommFence row in the timing report")
    return rows["CclInsertCommFence"]


def insert_threading(path, repeats):
    """Only ccl-insert-comm-fence, MLIR's thread pool on and off."""
    argv = [os.path.join(BIN, "ccl-opt"), path, "--pass-pipeline=builtin.module(ccl-insert-comm-fence)"]
    on, off = [], []
    for _ in range(repeats):
        on.append(insert_seconds(argv))
        off.append(insert_seconds(argv + ["--mlir-disable-threading"]))
    return {"threads_s": statistics.median(on), "no_threads_s": statistics.median(off),
            "speedup": statistics.median(off) / statistics.median(on)}


def plot(results, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench: matplotlib missing (pip install matplotlib); no plot drawn", file=sys.stderr)
        return
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    size = results["size"]
    axes[0].loglog([r["ops"] for r in size], [r["ccl_opt_s"] for r in size], "o-", label="ccl-opt, minimal pipeline")
    axes[0].loglog([r["ops"] for r in size], [r["mlir_opt_s"] for r in size], "s--", label="mlir-opt parse+verify+print")
    axes[0].set_xlabel("ops")
    axes[0].set_ylabel("seconds (median)")
    axes[0].set_title("Time against program size")
    axes[0].legend()
    depth = results["depth"]
    axes[1].plot([r["depth"] for r in depth], [r["ratio"] for r in depth], "o-")
    axes[1].set_xlabel("loop nesting depth")
    axes[1].set_ylabel("ccl-opt / mlir-opt")
    axes[1].set_title(f"Nesting at {depth[0]['ops']} ops")
    funcs = results["functions"]
    axes[2].semilogx([r["functions"] for r in funcs], [r["ratio"] for r in funcs], "o-", label="time")
    axes[2].semilogx([r["functions"] for r in funcs], [r["memory_ratio"] for r in funcs], "s--", label="peak memory")
    axes[2].set_xlabel("functions")
    axes[2].set_ylabel("ccl-opt / mlir-opt")
    axes[2].set_title("Function count")
    axes[2].legend()
    fig.suptitle(results["machine"])
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--old-build", metavar="DIR", help="an older build's release directory to compare against")
    parser.add_argument("--instructions", type=int, metavar="OPS",
                        help="also count instructions (valgrind's callgrind, one thread) on an OPS-op program")
    parser.add_argument("--sizes", metavar="OPS[,OPS...]",
                        type=lambda text: [int(ops) for ops in text.split(",")],
                        help="only the size table, for these sizes (no depth, function or threading rows, no plot)")
    args = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "ccl-opt", "--bin", "ccl-gen"], cwd=ROOT, check=True)

    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    depths = [1, 50, 200] if not args.quick else [1, 20]
    function_counts = [1, 100, 10_000] if not args.quick else [1, 100]
    repeats = 2 if args.quick else args.repeats
    depth_ops = 20_000 if args.quick else 100_000
    if args.sizes:
        sizes, depths, function_counts = args.sizes, [], []

    results = {
        "machine": f"{platform.node()}: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
                   f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2**30} GiB",
        "size": [], "depth": [], "functions": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for ops in sizes:
            path = os.path.join(tmp, f"size-{ops}.mlir")
            generate_sized(path, ops)
            row = {"ops": ops, **compare(path, repeats, parse_only=True)}
            results["size"].append(row)
            print(f"size {ops:>9}: ratio {row['ratio']:.2f} (pairs {row['pair_ratio_min']:.2f}-{row['pair_ratio_max']:.2f})  ccl-opt {row['ccl_opt_s']:.3f}s  mlir-opt {row['mlir_opt_s']:.3f}s  "
                  f"mem {row['ccl_opt_peak_mib']:.0f}/{row['mlir_opt_peak_mib']:.0f} MiB  "
                  f"no-pass ratio {row['parse_ratio']:.2f}", flush=True)
        for depth in depths:
            path = os.path.join(tmp, f"depth-{depth}.mlir")
            generate(path, depth_ops, depth=depth, functions=8)
            row = {"depth": depth, "ops": depth_ops, **compare(path, repeats)}
            results["depth"].append(row)
            print(f"depth {depth:>4}: ratio {row['ratio']:.2f}  ccl-opt {row['ccl_opt_s']:.3f}s", flush=True)
        for functions in function_counts:
            path = os.path.join(tmp, f"functions-{functions}.mlir")
            generate(path, depth_ops, depth=3, functions=functions)
            row = {"functions": functions, "ops": depth_ops, **compare(path, repeats)}
            results["functions"].append(row)
            print(f"functions {functions:>6}: ratio {row['ratio']:.2f}  memory {row['memory_ratio']:.2f}", flush=True)
        if not args.sizes:
            path = os.path.join(tmp, "kernels.mlir")
            generate(path, depth_ops * (1 if args.quick else 5), depth=3, functions=256)
            results["threading"] = insert_threading(path, repeats)
            print(f"insert pass threading speedup: {results['threading']['speedup']:.2f}x", flush=True)
        if args.instructions:
            results["instructions"] = counted = instruction_ratios(args.instructions, tmp)
            print(f"instructions at {args.instructions} ops: ratio {counted['ratio']:.3f}, "
                  f"no passes {counted['no_pass_ratio']:.3f}", flush=True)
        if args.old_build:
            results["old_build"] = old_build(args.old_build, sizes[-1], repeats, tmp)
            print(f"against {args.old_build}: ratio {results['old_build']['ratio']:.2f}", flush=True)

    big = results["size"]
    if len(big) >= 2:
        results["scaling_last_step"] = big[-1]["ccl_opt_s"] / big[-2]["ccl_opt_s"]
    if len(results["depth"]) >= 2:
        results["depth_ratio"] = results["depth"][-1]["ccl_opt_s"] / results["depth"][0]["ccl_opt_s"]
    name = "results-sizes.json" if args.sizes else "results-quick.json" if args.quick else "results.json"
    with open(os.path.join(ROOT, "bench", name), "w") as f:
        json.dump(results, f, indent=2)
    if not args.sizes:
        plot(results, os.path.join(ROOT, "docs", "benchmarks-quick.png" if args.quick else "benchmarks.png"))
    print(json.dumps({k: v for k, v in results.items() if k not in ("size", "depth", "functions")}, indent=2))


if __name__ == "__main__":
    main()
