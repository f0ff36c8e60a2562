"""Inputs the tests share: programs of the repository's lit suite."""

import pathlib

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` that holds ``needle``."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line and not line.lstrip().startswith("//"):
            return number
    raise AssertionError(f"{needle!r} is not in the program")


@pytest.fixture(scope="session")
def put_without_fence() -> str:
    """A put whose notify has no fence before it: the peer reads stale data."""
    return (REPOSITORY / "lit-tests/Sim/put-without-fence.mlir").read_text()
