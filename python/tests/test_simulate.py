"""ccl-sim from Python: a racy program and its fixed form."""

import ast
import threading

import pytest

import cclir
from conftest import REPOSITORY, line_of


def test_the_put_without_fence_races(put_without_fence):
    result = cclir.simulate(put_without_fence, 2, filename="put-without-fence.mlir")
    assert isinstance(result, cclir.SimulationResult)
    assert result.verdict == "race"
    assert result.exit_code == 3
    assert result.states > 0
    race = result.race
    assert race.kind == "stale-read"
    assert race.place == "element 0 of argument #0 of @main on rank 1"
    read, write = race.second, race.first
    assert (read.rank, read.block, read.write, read.op) == (1, 0, False, "ccl.read")
    assert read.line == line_of(put_without_fence, "%v = ccl.read %win")
    assert (write.rank, write.block, write.write, write.op) == (0, 0, True, "ccl.put")
    assert write.line == line_of(put_without_fence, "ccl.put %win")
    assert (write.kernel, write.launch) == ("kernel", 1)
    # The schedule, as ccl-sim prints it: the notify, then the read (whose
    # wait passes as soon as it holds, in the same step).
    assert [step.number for step in result.schedule] == [1, 2]
    assert all(step.text for step in result.schedule)
    assert result.schedule[-1].threads == [(1, 0)]
    assert result.schedule[-1].op == "ccl.read"
    assert read.step == 2
    assert result.diagnostic.severity == "error"
    assert result.diagnostic.message.startswith("data race: stale read of element 0")
    assert len(result.diagnostic.notes) == 2
    assert result.executed is None


def test_the_fixed_program_is_clean(put_without_fence):
    fixed = cclir.run_pipeline(put_without_fence, "builtin.module(ccl-insert-comm-fence)")
    result = cclir.simulate(fixed, 2)
    assert result.verdict == "clean"
    assert result.exit_code == 0
    assert result.race is None and result.schedule == []
    assert result.executed.min.fences == 1 and result.executed.max.fences == 1
    assert result.executed.min.whole_invalidates == 1
    assert result.executed_by_kernel["kernel"].min.launches == 2


def test_random_schedules_find_the_race(put_without_fence):
    result = cclir.simulate(put_without_fence, 2, random=50, seed=3)
    assert result.verdict == "race"
    assert result.schedules is None


def test_a_bound_is_no_conclusion(put_without_fence):
    result = cclir.simulate(put_without_fence, 2, max_states=1)
    assert result.verdict == "no-conclusion"
    assert result.exit_code == 1
    assert "no conclusion" in result.diagnostic.message


def test_bad_options_and_inputs():
    with pytest.raises(ValueError, match="ranks must be between 1 and 64"):
        cclir.simulate("module {}", 0)
    with pytest.raises(ValueError, match="exhaustive and random exclude each other"):
        cclir.simulate("module {}", 2, exhaustive=True, random=3)
    with pytest.raises(ValueError, match="invalid value '32' for fingerprint: expected 64 or 128"):
        cclir.simulate("module {}", 2, fingerprint=32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_state'"):
        cclir.simulate("module {}", 2, max_state=3)
    with pytest.raises(cclir.DiagnosticError) as caught:
        cclir.simulate("func.func @main() {\n  ccl.bogus\n}\n", 2)
    assert caught.value.diagnostics[0].line == 2


def test_the_gil_is_released_while_the_simulator_runs():
    """Another Python thread runs while simulate searches."""
    program = (REPOSITORY / "docs/images/old-order-race.mlir").read_text()
    lowered = cclir.run_pipeline(program, "builtin.module(ccl-pipeline{lower-collectives=true})")
    done = threading.Event()
    results = []

    def work():
        results.append(cclir.simulate(lowered, 2))
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    spins = 0
    while not done.is_set():
        spins += 1
    worker.join()
    assert results[0].verdict == "clean" and results[0].states == 41  # P = 2, B = 1 with the partial-order reduction
    # Had the call held the GIL, this thread could not have run meanwhile.
    assert spins > 1000, spins


def test_the_keywords_are_the_settings_the_stub_declares():
    """simulate's keywords come from ccl-sim's settings; the stub (checked
    against the settings by tests/sim_options.rs) declares the same ones
    with the same defaults."""
    stub = ast.parse((REPOSITORY / "python/cclir/_cclir.pyi").read_text())
    function = next(node for node in stub.body if isinstance(node, ast.FunctionDef) and node.name == "simulate")
    declared = [
        f"{arg.arg}: {ast.unparse(arg.annotation)} = {ast.unparse(default)}"
        for arg, default in zip(function.args.kwonlyargs, function.args.kw_defaults)
        if arg.arg != "filename"
    ]
    def unparsed(line):
        arguments = ast.parse(f"def f(*, {line}): pass").body[0].args
        return f"{arguments.kwonlyargs[0].arg}: {ast.unparse(arguments.kwonlyargs[0].annotation)} = {ast.unparse(arguments.kw_defaults[0])}"

    assert declared == [unparsed(line) for line in cclir._cclir.simulate_keywords()]
    # Each keyword is taken, and its default gives what leaving it out gives.
    fixed = "func.func @main() attributes {ccl.kind = \"orchestration\"} {\n  return\n}\n"
    defaults = {arg.arg: ast.literal_eval(default) for arg, default in zip(function.args.kwonlyargs, function.args.kw_defaults)}
    assert cclir.simulate(fixed, 2, **defaults).states == cclir.simulate(fixed, 2).states
