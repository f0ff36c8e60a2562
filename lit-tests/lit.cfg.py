# lit configuration for cclir's golden tests: `ccl-opt ... | FileCheck %s`.
#
# Run with LLVM's own lit:  /usr/lib/llvm-22/bin/lit -sv lit-tests
# `cargo test --test lit` builds ccl-opt and runs this suite.

import os
import shlex
import shutil
import sys

import lit.formats

config.name = "cclir"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(config.test_source_root)

# Build outputs go outside the source tree.
target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(repo_root, "target"))
profile = os.environ.get("CCLIR_PROFILE", "debug")
config.test_exec_root = os.path.join(target_dir, "lit", profile)

llvm_bin = os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
cclir_bin = os.environ.get("CCLIR_BIN_DIR", os.path.join(target_dir, profile))

# Our tools first, then LLVM's FileCheck, not, count, split-file, mlir-opt.
path = os.pathsep.join([cclir_bin, llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
# GLIBC_TUNABLES: a run can vary malloc's behaviour (the corrupted-bytecode
# tests must not depend on the heap's layout).
for passthrough in ["HOME", "TMPDIR", "LANG", "LC_ALL", "GLIBC_TUNABLES"]:
    if passthrough in os.environ:
        config.environment[passthrough] = os.environ[passthrough]

# The ccl dialect for upstream mlir-opt, built next to ccl-opt by build.rs:
#   mlir-opt --load-dialect-plugin=%ccl_plugin
plugin = os.path.join(cclir_bin, "libccl_dialect_plugin.so")
config.substitutions.append(("%ccl_plugin", plugin))
config.environment["CCL_PLUGIN"] = plugin

# %parity ARGS: upstream mlir-opt and ccl-opt print the same bytes and exit
# with the same code (Driver/Inputs/parity.py).
config.substitutions.append(("%parity", "python3 " + os.path.join(config.test_source_root, "Driver", "Inputs", "parity.py")))
# %ends ARGS: how ccl-opt ends, beside mlir-opt, on input that crashes or
# hangs upstream's code (Driver/Inputs/ends.py).
config.substitutions.append(("%ends", "python3 " + os.path.join(config.test_source_root, "Driver", "Inputs", "ends.py")))
# %expect-exit CODE COMMAND ARG...: COMMAND must exit with exactly CODE (`not`
# only asserts non-zero); its output passes through (Sim/Inputs/expect_exit.py).
expect_exit = os.path.join(config.test_source_root, "Sim", "Inputs", "expect_exit.py")
config.substitutions.append(("%expect-exit", shlex.quote(sys.executable) + " " + shlex.quote(expect_exit)))
config.substitutions.append(("%repo", repo_root))
config.substitutions.append(("%examples", os.path.join(repo_root, "examples")))

for tool in ["ccl-opt", "ccl-gen", "ccl-lsp-server", "ccl-reduce", "ccl-sim"]:
    if os.path.exists(os.path.join(cclir_bin, tool)):
        config.available_features.add(tool)
for tool in ["mlir-opt", "FileCheck", "not", "split-file"]:
    if shutil.which(tool, path=path):
        config.available_features.add(tool)
if os.geteuid() == 0:
    # root ignores file permissions; unreadable-file tests cannot fail as root.
    config.available_features.add("root")
