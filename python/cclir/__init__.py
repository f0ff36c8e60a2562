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
  :class:`SimulationResult`.
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

__all__ = [
    "Access",
    "Diagnostic",
    "DiagnosticError",
    "Executed",
    "MarkerCounts",
    "Race",
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
    "verify",
]
