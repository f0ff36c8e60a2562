"""cclir: collective-communication passes on MLIR, from Python.

The functions are the Rust library's (the same code as ``ccl-opt`` and
``ccl-sim``); those that run MLIR or the simulator release the GIL while
they run.

- :func:`cal_all_to_all_v_blocks` and the lane mapping (:func:`lanes_per_peer`,
  :func:`lane_of_block`, :func:`peers_of_block`, :func:`flat_lane_slice`): the
  formula ``ccl-admit-launch-width`` folds;
- :func:`run_pipeline` and :func:`verify`: MLIR pipelines and the checker,
  failing with :class:`DiagnosticError`, whose ``.diagnostics`` are
  :class:`Diagnostic` objects;
- :func:`simulate`: ``ccl-sim``'s search for data races, returning a
  :class:`SimulationResult`;
- :func:`simulate_sharded`: the same search split into shards (random
  schedules or a swarm), run on Ray or on local processes
  (:mod:`cclir.shards`).
"""

from ._cclir import (
    Access,
    Diagnostic,
    DiagnosticError,
    Executed,
    MarkerCounts,
    Race,
    SimulationResult,
    Step,
    __version__,
    cal_all_to_all_v_blocks,
    flat_lane_slice,
    lane_of_block,
    lanes_per_peer,
    peers_of_block,
    run_pipeline,
    simulate,
    verify,
)

# The sharded search is imported when first used: `python -m cclir.shards`
# runs that module as a script, which must not be imported before.
_SHARDS = ("ShardResult", "ShardedResult", "simulate_sharded")


def __getattr__(name: str):
    if name in _SHARDS:
        from . import shards

        return getattr(shards, name)
    raise AttributeError(f"module 'cclir' has no attribute {name!r}")


__all__ = [
    "Access",
    "Diagnostic",
    "DiagnosticError",
    "Executed",
    "MarkerCounts",
    "Race",
    "ShardResult",
    "ShardedResult",
    "SimulationResult",
    "Step",
    "__version__",
    "cal_all_to_all_v_blocks",
    "flat_lane_slice",
    "lane_of_block",
    "lanes_per_peer",
    "peers_of_block",
    "run_pipeline",
    "simulate",
    "simulate_sharded",
    "verify",
]
