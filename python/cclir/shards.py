"""ccl-sim's search split into shards, run on Ray or on local processes.

A search of ``N`` random schedules splits into ``shards`` parts: part ``K``
runs the schedules numbered ``K`` modulo ``shards`` (``ccl-sim --shard
K/N``), each exactly as the whole search runs it. A swarm (``swarm=True``)
runs the exhaustive search once per shard, each in an order of its own
(bounded by ``max_states`` or ``max_time``, as Spin's swarm runs are).

The parts' verdicts combine into the whole search's:

- random schedules: the finding of the lowest-numbered schedule that found
  one (the whole search reports that one too); else "no-conclusion" if a
  part reached a bound; else "clean", with every part's schedules;
- a swarm: a finding of any member (the lowest-numbered member's); else
  "clean" if a member finished its search (each member explores every
  schedule); else "no-conclusion".

The shards run on Ray when it is installed (``cluster=None``), on the Ray
cluster at an address (``cluster="auto"`` or ``"ray://host:10001"``; every
node needs ``cclir`` installed), or on local processes
(``cluster="processes"``).

From the command line::

    python -m cclir.shards FILE --ranks 2 --shards 4 --random 1000 [--cluster ADDRESS]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import multiprocessing
import os
import sys
from typing import Any, Optional

from ._cclir import DiagnosticError, simulate

__all__ = ["ShardResult", "ShardedResult", "simulate_sharded", "main"]

# ccl-sim's exit code of each verdict.
_EXIT_CODES = {"clean": 0, "race": 3, "deadlock": 3, "runtime-error": 1, "no-conclusion": 1}
_FINDINGS = ("race", "deadlock", "runtime-error")


@dataclasses.dataclass(frozen=True)
class ShardResult:
    """What one shard found (plain data: it crosses process and machine
    boundaries)."""

    shard: int
    verdict: str
    states: int
    #: Random schedules run to their end (None for a swarm member or a finding).
    schedules: Optional[int]
    #: The finding's random schedule, by number from 0.
    run: Optional[int]
    #: Each random schedule run to its end: its number and digest.
    schedule_digests: dict[int, int]
    #: ccl-sim's message for the finding or the bound.
    message: Optional[str]


@dataclasses.dataclass(frozen=True)
class ShardedResult:
    """The shards' verdicts combined (module docs)."""

    verdict: str
    exit_code: int
    #: The shard whose finding (or, for a clean swarm, whose finished search) is the verdict's.
    decided_by: Optional[int]
    #: The finding's random schedule, by number from 0.
    run: Optional[int]
    #: States stepped through or explored, summed over the shards.
    states: int
    #: The random schedules run to their end, from every shard.
    schedule_digests: dict[int, int]
    shards: list[ShardResult]
    #: "ray" or "processes".
    ran_on: str


def _run_shard(text: str, ranks: int, filename: str, index: int, count: int, settings: dict[str, Any]) -> ShardResult:
    result = simulate(text, ranks, filename=filename, shard=f"{index}/{count}", **settings)
    return ShardResult(
        shard=index,
        verdict=result.verdict,
        states=result.states,
        schedules=result.schedules,
        run=result.run,
        schedule_digests=dict(result.schedule_digests),
        message=result.diagnostic.message if result.diagnostic is not None else None,
    )


def combine(results: list[ShardResult], swarm: bool, ran_on: str) -> ShardedResult:
    """The whole search's verdict from its shards' (module docs)."""
    results = sorted(results, key=lambda r: r.shard)
    found = [r for r in results if r.verdict in _FINDINGS]
    states = sum(r.states for r in results)
    digests: dict[int, int] = {}
    for r in results:
        digests.update(r.schedule_digests)
    if found:
        first = min(found, key=lambda r: (r.run if r.run is not None else 0, r.shard))
        verdict, decided_by, run = first.verdict, first.shard, first.run
    elif swarm:
        finished = [r for r in results if r.verdict == "clean"]
        verdict = "clean" if finished else "no-conclusion"
        decided_by, run = (finished[0].shard if finished else None), None
    elif any(r.verdict == "no-conclusion" for r in results):
        verdict, decided_by, run = "no-conclusion", None, None
    else:
        verdict, decided_by, run = "clean", None, None
    return ShardedResult(
        verdict=verdict,
        exit_code=_EXIT_CODES[verdict],
        decided_by=decided_by,
        run=run,
        states=states,
        schedule_digests=digests,
        shards=results,
        ran_on=ran_on,
    )


def _ray_module(cluster: Optional[str]):
    """Ray, started or joined as `cluster` asks, or None for local processes."""
    if cluster == "processes":
        return None
    try:
        import ray
    except ImportError:
        if cluster is not None:
            raise ValueError(f"simulate_sharded: cluster={cluster!r} needs Ray, which is not installed") from None
        return None
    if not ray.is_initialized():
        ray.init(address=cluster, include_dashboard=False, log_to_driver=False)
    return ray


def simulate_sharded(
    text: str,
    ranks: int,
    shards: int,
    *,
    filename: str = "<input>",
    cluster: Optional[str] = None,
    **settings: Any,
) -> ShardedResult:
    """Runs ccl-sim's search on `text` as `shards` shards and combines their
    verdicts. `settings` are :func:`cclir.simulate`'s (``random=1000`` or
    ``swarm=True`` with its bounds); each shard runs on one thread unless
    ``threads`` says otherwise.

    Raises ValueError for a bad count or settings, DiagnosticError when the
    text does not parse or uses what ccl-sim does not model.
    """
    if not isinstance(shards, int) or isinstance(shards, bool) or shards < 1:
        raise ValueError(f"simulate_sharded: shards must be a positive integer, not {shards!r}")
    if "shard" in settings:
        raise ValueError("simulate_sharded: each shard's 'shard' is set here; pass shards=N instead")
    swarm = bool(settings.get("swarm"))
    if not swarm and settings.get("random") is None:
        raise ValueError("simulate_sharded: shards split random schedules (random=N) or a swarm (swarm=True)")
    settings.setdefault("threads", 1)
    # Bad input fails here, once, rather than in every shard: a search cut
    # at its first state checks the text and the settings.
    check = {**settings, "max_states": 1} if swarm else {**settings, "random": 1, "max_states": 1}
    simulate(text, ranks, filename=filename, shard=f"0/{shards}", **check)
    ray = _ray_module(cluster)
    if ray is not None:
        task = ray.remote(num_cpus=settings["threads"])(_run_shard)
        futures = [task.remote(text, ranks, filename, k, shards, settings) for k in range(shards)]
        results = ray.get(futures)
        return combine(results, swarm, "ray")
    workers = min(shards, os.cpu_count() or 1)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(_run_shard, text, ranks, filename, k, shards, settings) for k in range(shards)]
        results = [future.result() for future in futures]
    return combine(results, swarm, "processes")


def main(argv: Optional[list[str]] = None) -> int:
    """`python -m cclir.shards`: a sharded search from the command line; the
    exit code is ccl-sim's for the verdict."""
    parser = argparse.ArgumentParser(prog="python -m cclir.shards", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="the ccl program")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--shards", type=int, required=True)
    parser.add_argument("--random", type=int, help="random schedules, split over the shards")
    parser.add_argument("--swarm", action="store_true", help="a swarm of exhaustive searches, one a shard")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-states", type=int)
    parser.add_argument("--max-time", type=float)
    parser.add_argument("--threads", type=int, default=1, help="threads of each shard")
    parser.add_argument("--cluster", help="a Ray address, or 'processes' (default: Ray if installed)")
    options = parser.parse_args(argv)
    settings: dict[str, Any] = {"seed": options.seed, "threads": options.threads}
    for key in ("random", "max_states", "max_time"):
        if getattr(options, key) is not None:
            settings[key] = getattr(options, key)
    if options.swarm:
        settings["swarm"] = True
    try:
        with open(options.file, encoding="utf-8") as source:
            text = source.read()
        result = simulate_sharded(
            text, options.ranks, options.shards, filename=options.file, cluster=options.cluster, **settings
        )
    except (OSError, ValueError) as error:
        print(f"python -m cclir.shards: error: {error}", file=sys.stderr)
        return 1
    except DiagnosticError as error:
        print(str(error), file=sys.stderr)
        return 1
    for shard in result.shards:
        line = f"shard {shard.shard}/{options.shards}: {shard.verdict}, {shard.states} states"
        if shard.schedules is not None:
            line += f", {shard.schedules} schedules"
        if shard.run is not None:
            line += f", found in random schedule {shard.run + 1}"
        print(line)
    summary = f"{result.verdict} on {result.ran_on}: {len(result.schedule_digests)} random schedules run to their end"
    if result.run is not None:
        summary += f"; the finding is random schedule {result.run + 1}'s (shard {result.decided_by})"
    elif result.decided_by is not None:
        summary += f"; swarm member {result.decided_by} finished its search"
    print(summary)
    found = next((s for s in result.shards if s.shard == result.decided_by and s.message), None)
    if found is not None:
        print(found.message, file=sys.stderr)
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
