"""Type stubs of the extension module ``cclir._cclir`` (python/src/)."""

from typing import Literal, Mapping, Optional, Union

__version__: str

def cal_all_to_all_v_blocks(p: int, l: int) -> int:
    """B = CalAllToAllVBlocks(P, L): L when L < P, else the largest multiple of P not above L.

    Raises TypeError unless both are exactly int (not bool, float or an int
    subclass), ValueError unless both are positive.
    """

def lanes_per_peer(p: int, b: int) -> int:
    """K = B // P when B >= P, else 0; ValueError for a B CalAllToAllVBlocks cannot yield for P."""

def lane_of_block(p: int, b: int, block_idx: int) -> tuple[int, int]:
    """The (peer, lane) block ``block_idx`` serves."""

def peers_of_block(p: int, b: int, block_idx: int) -> list[int]:
    """Every peer block ``block_idx`` serves, ascending."""

def flat_lane_slice(valid_elems: int, k: int, lane: int) -> tuple[int, int]:
    """The [begin, end) of the payload lane ``lane`` of ``k`` moves (k = 0: one lane moves all)."""

class Diagnostic:
    """One diagnostic of MLIR's engine, with its notes (file None at an unknown location)."""

    severity: Literal["error", "warning", "note", "remark"]
    file: Optional[str]
    line: int
    column: int
    message: str
    notes: list["Diagnostic"]

class DiagnosticError(Exception):
    """MLIR rejected the input or a pass failed."""

    diagnostics: list[Diagnostic]

def run_pipeline(text: str, pipeline: str, *, filename: str = "<input>") -> str:
    """Parses ``text``, runs ``pipeline`` (``builtin.module(...)``) and returns the printed result.

    Raises DiagnosticError (input or pass failure) or ValueError (a pipeline MLIR cannot parse).
    """

def verify(text: str, *, filename: str = "<input>") -> None:
    """Runs the checker (ccl-verify-comm-order) alone; DiagnosticError with its errors."""

class Access:
    """One access of a race (block None: the host)."""

    rank: int
    block: Optional[int]
    write: bool
    op: str
    protocol_step: Optional[str]
    file: Optional[str]
    line: int
    column: int
    kernel: Optional[str]
    launch: Optional[int]
    step: Optional[int]
    text: str

class Race:
    kind: Literal["unordered", "stale-read"]
    place: str
    first: Access
    second: Access

class Step:
    number: int
    kind: Literal["step", "land", "collective"]
    threads: list[tuple[int, Optional[int]]]
    op: Optional[str]
    file: Optional[str]
    line: int
    column: int
    text: str

class MarkerCounts:
    launches: int
    fences: int
    region_invalidates: int
    whole_invalidates: int
    lines_written_back: int
    markers: int

class Executed:
    min: MarkerCounts
    max: MarkerCounts

class SimulationResult:
    verdict: Literal["clean", "race", "deadlock", "runtime-error", "no-conclusion"]
    exit_code: int
    states: int
    schedules: Optional[int]
    schedule_digests: dict[int, int]
    run: Optional[int]
    diagnostic: Optional[Diagnostic]
    race: Optional[Race]
    schedule: list[Step]
    executed: Optional[Executed]
    executed_by_kernel: dict[str, Executed]

def simulate(
    text: str,
    ranks: int,
    *,
    filename: str = "<input>",
    # ccl-sim's settings: cclir_sim::options::SETTINGS, their one definition
    # (`CCLIR_BLESS=1 cargo test --test sim_options` writes this list).
    # settings-begin
    entry: Optional[str] = None,
    args: Optional[Mapping[str, Union[int, float, bool, str]]] = None,
    exhaustive: bool = False,
    random: Optional[int] = None,
    seed: int = 0,
    max_states: int = 2000000,
    max_steps: int = 1000000,
    max_memory: Optional[int] = None,
    threads: Optional[int] = None,
    exact: bool = False,
    fingerprint: int = 128,
    engine: str = "dfs",
    por: str = "on",
    max_time: Optional[float] = None,
    swarm: bool = False,
    shard: Optional[str] = None,
    no_reduction: bool = False,
    reference: bool = False,
    # settings-end
) -> SimulationResult:
    """Runs ccl-sim on ``text`` over ``ranks`` ranks (every schedule, or ``random`` seeded ones).

    The keywords are ``ccl-sim``'s settings with the same defaults (``ccl-sim --help``).
    """

def simulate_keywords() -> list[str]:
    """The keywords of :func:`simulate` after ``ranks``, ``name: type = default`` each, from ccl-sim's settings."""
