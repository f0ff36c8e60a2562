#!/usr/bin/env python3
"""Sorts the bytecode fuzz target's artifacts into upstream's and ours.

    fuzz/classify_bytecode.py [--bin DIR] [--timeout S] [--limit KB] ARTIFACT...

Each artifact is read as the target reads it (MLIR's magic number put in
front where it is missing) and run through upstream
`mlir-opt --load-dialect-plugin` (parse, verify, print) and through
`ccl-opt -p 'builtin.module(ccl-pipeline)'`, both under an address-space
limit (`ulimit -v`, default 4000000 KB: an allocation of gigabytes fails at
once instead of paging) and a timeout (default 5 s). A run ends as `ok`,
`error` (a non-zero exit), `crash` (a signal) or `hang` (still running at
the timeout). An artifact is ours when ccl-opt crashes or hangs and
mlir-opt does not. Prints one line per artifact, then the count of each
kind: both fates and what the crash or error says (LLVM's fatal error, or
the innermost MLIR frame of the stack dump), numbers elided.

--bin DIR  where ccl-opt and libccl_dialect_plugin.so are (default:
           target/release, else target/debug, of the repository).
Exit status 1 if any artifact is ours.
"""
import collections
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

MAGIC = b"ML\xefR"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(command, limit_kb, timeout):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_kb * 1024, limit_kb * 1024))

    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                   preexec_fn=limit, start_new_session=True)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = None
        stderr.seek(0)
        text = stderr.read().decode(errors="replace")
    if code is None:
        return "hang", ""
    if code == 0:
        return "ok", ""
    return ("crash" if code < 0 else "error"), signature(text)


def signature(stderr):
    """What a failed run says, with the numbers and paths elided."""
    for line in stderr.splitlines():
        if line.startswith("LLVM ERROR:"):
            return re.sub(r"\d+", "N", line)
    for line in stderr.splitlines():
        frame = re.match(r"\s*#\d+ 0x[0-9a-f]+ (.*)", line)
        handler = ("PrintStackTrace", "SignalHandler", "RunSignalHandlers", "cclir::mlir::crash", "cclir_dialect::ffi::crash", "cclir_process::crash")
        if frame and ("mlir::" in frame.group(1) or "llvm::hashing" in frame.group(1)) \
                and not any(name in frame.group(1) for name in handler):
            return re.sub(r"\(/[^)]*\)|\s+\S+:\d+:\d+$", "", frame.group(1)).strip()[:160]
    for line in stderr.splitlines():
        error = re.search(r"error: (.*)", line)
        if error:
            return re.sub(r"\d+", "N", error.group(1))[:160]
    return ""


def main():
    argv = sys.argv[1:]
    bin_dir, timeout, limit_kb = None, 5.0, 4000000
    while argv and argv[0].startswith("--"):
        flag = argv.pop(0)
        if flag == "--bin":
            bin_dir = argv.pop(0)
        elif flag == "--timeout":
            timeout = float(argv.pop(0))
        elif flag == "--limit":
            limit_kb = int(argv.pop(0))
        else:
            sys.exit(f"classify_bytecode.py: unknown flag {flag}")
    if bin_dir is None:
        candidates = [os.path.join(REPO, "target", p) for p in ("release", "debug")]
        bin_dir = next((d for d in candidates if os.path.exists(os.path.join(d, "ccl-opt"))), candidates[-1])
    ccl_opt = os.path.join(bin_dir, "ccl-opt")
    plugin = os.path.join(bin_dir, "libccl_dialect_plugin.so")
    mlir_opt = shutil.which("mlir-opt") or "/usr/lib/llvm-22/bin/mlir-opt"
    kinds = collections.Counter()
    ours = 0
    with tempfile.TemporaryDirectory() as scratch:
        input_path = os.path.join(scratch, "input.mlirbc")
        output = os.path.join(scratch, "out")
        for artifact in argv:
            with open(artifact, "rb") as f:
                data = f.read()
            with open(input_path, "wb") as f:
                f.write(data if data.startswith(MAGIC) else MAGIC + data)
            theirs = run([mlir_opt, f"--load-dialect-plugin={plugin}", input_path, "-o", output], limit_kb, timeout)
            mine = run([ccl_opt, input_path, "-p", "builtin.module(ccl-pipeline)", "-o", output], limit_kb, timeout)
            verdict = "OURS" if mine[0] in ("crash", "hang") and theirs[0] not in ("crash", "hang") else ""
            ours += verdict == "OURS"
            print(f"{os.path.basename(artifact)}\tmlir-opt {theirs[0]}\tccl-opt {mine[0]}\t{mine[1] or theirs[1]}"
                  f"\t{verdict}", flush=True)
            kinds[(theirs[0], mine[0], mine[1] or theirs[1], verdict)] += 1
    print("\ncount\tmlir-opt\tccl-opt\twhat it says")
    for (theirs, mine, what, verdict), count in kinds.most_common():
        print(f"{count}\t{theirs}\t{mine}\t{what}\t{verdict}")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
