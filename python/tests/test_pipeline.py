"""Pipelines and the checker, with diagnostics as objects."""

import threading

import pytest

import cclir
from conftest import line_of


def fences(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip().startswith("ccl.fence"))


def test_run_pipeline_inserts_the_fence(put_without_fence):
    out = cclir.run_pipeline(put_without_fence, "builtin.module(ccl-insert-comm-fence)")
    assert fences(put_without_fence) == 0
    assert fences(out) == 1
    # The output is a program MLIR reads back, and the checker accepts it.
    cclir.verify(out)


def test_verify_reports_the_error_and_its_note(put_without_fence):
    with pytest.raises(cclir.DiagnosticError) as caught:
        cclir.verify(put_without_fence, filename="put-without-fence.mlir")
    diagnostics = caught.value.diagnostics
    # The put reaches the notify and the kernel's return, both unfenced.
    assert [d.message for d in diagnostics] == [
        "remote publish reaches a ccl.notify without ccl.fence",
        "remote publish reaches the function's return without ccl.fence",
    ]
    error = diagnostics[0]
    assert isinstance(error, cclir.Diagnostic)
    assert error.severity == "error"
    assert error.file == "put-without-fence.mlir"
    assert error.line == line_of(put_without_fence, "ccl.put %win")
    assert error.column == 5
    assert error.message == "remote publish reaches a ccl.notify without ccl.fence"
    (note,) = error.notes
    assert note.severity == "note"
    assert note.line == line_of(put_without_fence, "ccl.notify set")
    assert note.message == "the ccl.notify it reaches"
    # The exception's text is mlir-opt's, source line and caret included.
    assert "put-without-fence.mlir:" in str(caught.value)
    assert "^" in str(caught.value)
    assert str(error).startswith(f"put-without-fence.mlir:{error.line}:5: error: remote publish")


def test_a_parse_error_is_a_located_diagnostic():
    with pytest.raises(cclir.DiagnosticError) as caught:
        cclir.run_pipeline("func.func @f() {\n  %x = arith.constant : i32\n}\n", "builtin.module(cse)", filename="bad.mlir")
    (error,) = caught.value.diagnostics
    assert (error.severity, error.file, error.line) == ("error", "bad.mlir", 2)


def test_a_bad_pipeline_is_a_value_error(put_without_fence):
    with pytest.raises(ValueError, match="ccl-insert-comm-fenc"):
        cclir.run_pipeline(put_without_fence, "builtin.module(ccl-insert-comm-fenc)")


def test_a_failing_pass_is_a_diagnostic_error():
    program = """
func.func @main() attributes {ccl.kind = "orchestration"} {
  %p = arith.constant 0 : i32
  %l = arith.constant 8 : i32
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return
}
"""
    with pytest.raises(cclir.DiagnosticError) as caught:
        cclir.run_pipeline(program, "builtin.module(func.func(ccl-admit-launch-width))")
    (error,) = caught.value.diagnostics
    assert error.message == "P (rank count) must be positive, got 0"
    assert error.line == 5


def test_calls_run_in_parallel_threads(put_without_fence):
    """The GIL is released while MLIR runs: threads each get their answer."""
    results = []

    def work():
        results.append(cclir.run_pipeline(put_without_fence, "builtin.module(ccl-insert-comm-fence)"))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and len(set(results)) == 1
