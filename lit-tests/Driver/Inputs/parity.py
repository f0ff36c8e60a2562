#!/usr/bin/env python3
"""Runs upstream mlir-opt and ccl-opt with the same arguments and fails
unless both print the same bytes (stdout, stderr) and exit with the same
code.

    parity.py [--plugin] [--stdin FILE] [--suggestion] -- ARG...

--plugin     mlir-opt gets --load-dialect-plugin=$CCL_PLUGIN (ccl inputs;
             the Rust passes are then absent, so parse/verify/print only).
--stdin F    both read F on standard input.
--suggestion ccl-opt's one addition: after an unknown pass it prints
             "did you mean" (a note); it must be there, and is dropped
             before comparing.

In ARG, {out} is an output file and {dir} an output directory, each tool
its own: their contents must be equal too. The tools name themselves in
some messages (llvm::cl's "mlir-opt: ..."), so each tool's name and path
are replaced by TOOL before comparing.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def run(tool, args, stdin, scratch):
    out = os.path.join(scratch, "out")
    directory = os.path.join(scratch, "dir")
    expanded = [a.replace("{out}", out).replace("{dir}", directory) for a in args]
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as source:
        done = subprocess.run([tool] + expanded, stdin=source, capture_output=True, cwd=scratch)
    results = {"exit code": str(done.returncode).encode()}
    for name, data in [("stdout", done.stdout), ("stderr", done.stderr)]:
        for spelling in [tool, os.path.basename(tool)]:
            data = data.replace(spelling.encode(), b"TOOL")
        results[name] = data.replace(scratch.encode(), b"SCRATCH")
    if os.path.exists(out):
        with open(out, "rb") as f:
            results["{out}"] = f.read()
    if os.path.isdir(directory):
        for root, _, files in os.walk(directory):
            for name in sorted(files):
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    results["{dir}" + path[len(directory):]] = f.read()
    return results


def main():
    argv = sys.argv[1:]
    plugin, stdin, suggestion = False, None, False
    while argv and argv[0] != "--":
        flag = argv.pop(0)
        if flag == "--plugin":
            plugin = True
        elif flag == "--suggestion":
            suggestion = True
        elif flag == "--stdin":
            stdin = os.path.abspath(argv.pop(0))
        else:
            sys.exit(f"parity.py: unknown flag {flag}")
    args = argv[1:]
    upstream = ["mlir-opt"] + ([f"--load-dialect-plugin={os.environ['CCL_PLUGIN']}"] if plugin else [])
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        theirs = run_with(upstream, args, stdin, a)
        ours = run_with(["ccl-opt"], args, stdin, b)
    if suggestion:
        lines = ours["stderr"].split(b"\n")
        kept = [l for l in lines if not (l.startswith(b"<unknown>:0: note: did you mean '") and l.endswith(b"'?"))]
        if len(kept) != len(lines) - 1:
            print("== ccl-opt printed no (or more than one) 'did you mean' note")
            return 1
        ours["stderr"] = b"\n".join(kept)
    if theirs == ours:
        return 0
    for key in sorted(set(theirs) | set(ours)):
        if theirs.get(key) != ours.get(key):
            print(f"== {key} differs for: {' '.join(args)}")
            print("-- mlir-opt:\n" + theirs.get(key, b"<none>").decode(errors="replace"))
            print("-- ccl-opt:\n" + ours.get(key, b"<none>").decode(errors="replace"))
    return 1


def run_with(command, args, stdin, scratch):
    tool = shutil.which(command[0])
    if not tool:
        sys.exit(f"parity.py: {command[0]} is not on PATH")
    return run(tool, command[1:] + args, stdin, scratch)


if __name__ == "__main__":
    sys.exit(main())
