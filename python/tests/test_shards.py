"""Sharded searches: the shards of a random search run exactly the whole
search's schedules and give its verdict, on local processes and on a local
Ray instance; a swarm's members each search everything in their own order."""

import subprocess
import sys

import pytest

import cclir
from cclir.shards import ShardResult, combine


@pytest.fixture(scope="session")
def fixed(put_without_fence) -> str:
    return cclir.run_pipeline(put_without_fence, "builtin.module(ccl-insert-comm-fence)")


@pytest.fixture(scope="module")
def ray():
    """A local Ray instance for this module's tests (skipped where Ray is not
    installed: scripts/test.sh installs it)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def whole_and_sharded(text, shards, cluster, **settings):
    whole = cclir.simulate(text, 2, threads=1, **settings)
    sharded = cclir.simulate_sharded(text, 2, shards, cluster=cluster, **settings)
    return whole, sharded


def assert_same_search(whole, sharded, shards):
    assert sharded.verdict == whole.verdict
    assert sharded.exit_code == whole.exit_code
    assert len(sharded.shards) == shards
    assert [s.shard for s in sharded.shards] == list(range(shards))


@pytest.mark.parametrize("cluster", ["processes", "ray"])
def test_shards_of_a_clean_search_run_its_schedules(fixed, cluster, request):
    if cluster == "ray":
        request.getfixturevalue("ray")
    whole, sharded = whole_and_sharded(fixed, 4, cluster, random=30, seed=5)
    assert whole.verdict == "clean" and whole.schedules == 30
    assert_same_search(whole, sharded, 4)
    assert sharded.ran_on == cluster
    # The union of the shards' schedules is the whole search's, schedule
    # by schedule (each digest is the actions it took).
    assert sharded.schedule_digests == dict(whole.schedule_digests)
    assert sorted(sharded.schedule_digests) == list(range(30))
    for shard in sharded.shards:
        assert sorted(shard.schedule_digests) == list(range(shard.shard, 30, 4))
        assert shard.schedules == len(shard.schedule_digests)
    assert sharded.states == whole.states


@pytest.mark.parametrize("cluster", ["processes", "ray"])
def test_shards_of_a_racy_search_report_its_finding(put_without_fence, cluster, request):
    if cluster == "ray":
        request.getfixturevalue("ray")
    # Seeds whose first schedules miss the race: the finding is a later
    # schedule's, and the shards must agree on which.
    runs = []
    for seed in range(8):
        whole, sharded = whole_and_sharded(put_without_fence, 3, cluster, random=40, seed=seed)
        assert whole.verdict == "race" and whole.run is not None
        assert_same_search(whole, sharded, 3)
        assert sharded.run == whole.run
        assert sharded.decided_by == whole.run % 3
        # Every schedule before the finding ran to its end in some shard.
        assert set(range(whole.run)) <= set(sharded.schedule_digests)
        runs.append(whole.run)
    assert max(runs) > 0, "some seed's race is found after its first schedule"


def test_swarm_members_each_decide(put_without_fence, fixed):
    racy = cclir.simulate_sharded(put_without_fence, 2, 3, cluster="processes", swarm=True)
    assert racy.verdict == "race" and racy.exit_code == 3
    assert all(s.verdict == "race" for s in racy.shards)
    clean = cclir.simulate_sharded(fixed, 2, 3, cluster="processes", swarm=True)
    assert clean.verdict == "clean" and clean.decided_by == 0
    # Every member explored the same states, in its own order.
    assert len({s.states for s in clean.shards}) == 1
    # Bounded members that finish nothing conclude nothing.
    cut = cclir.simulate_sharded(fixed, 2, 2, cluster="processes", swarm=True, max_states=1)
    assert cut.verdict == "no-conclusion" and cut.exit_code == 1


def test_verdicts_combine():
    def shard(k, verdict, run=None, digests=None):
        return ShardResult(k, verdict, 10, None, run, digests or {}, None)

    # The lowest-numbered schedule's finding wins, whichever shard it is in.
    result = combine([shard(0, "race", run=8), shard(1, "deadlock", run=5), shard(2, "clean")], False, "processes")
    assert (result.verdict, result.run, result.decided_by, result.exit_code) == ("deadlock", 5, 1, 3)
    # A finding is conclusive even where another shard reached a bound.
    result = combine([shard(0, "no-conclusion"), shard(1, "race", run=3)], False, "processes")
    assert result.verdict == "race"
    # No finding and a bound: nothing can be concluded.
    result = combine([shard(0, "no-conclusion"), shard(1, "clean", digests={1: 7})], False, "processes")
    assert result.verdict == "no-conclusion" and result.exit_code == 1
    # A swarm is decided by any member that finished.
    result = combine([shard(0, "no-conclusion"), shard(1, "clean")], True, "processes")
    assert (result.verdict, result.decided_by) == ("clean", 1)


def test_bad_requests(put_without_fence):
    with pytest.raises(ValueError, match="shards must be a positive integer"):
        cclir.simulate_sharded(put_without_fence, 2, 0, random=4)
    with pytest.raises(ValueError, match="random=N"):
        cclir.simulate_sharded(put_without_fence, 2, 2)
    with pytest.raises(ValueError, match="pass shards=N"):
        cclir.simulate_sharded(put_without_fence, 2, 2, random=4, shard="0/2")
    with pytest.raises(ValueError, match="--por dpor"):
        cclir.simulate_sharded(put_without_fence, 2, 2, swarm=True, por="dpor")
    with pytest.raises(cclir.DiagnosticError):
        cclir.simulate_sharded("func.func @main( {", 2, 2, random=4, cluster="processes")
    with pytest.raises(ValueError, match="K must be below N"):
        cclir.simulate(put_without_fence, 2, random=4, shard="2/2")


def shards_cli(*args):
    return subprocess.run([sys.executable, "-m", "cclir.shards", *map(str, args)], capture_output=True, text=True,
                          check=False)


def test_the_command_line(tmp_path, fixed, put_without_fence):
    clean = tmp_path / "clean.mlir"
    clean.write_text(fixed)
    run = shards_cli(clean, "--ranks", 2, "--shards", 2, "--random", 6, "--cluster", "processes")
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout.splitlines()[-1] == "clean on processes: 6 random schedules run to their end"
    racy = tmp_path / "racy.mlir"
    racy.write_text(put_without_fence)
    run = shards_cli(racy, "--ranks", 2, "--shards", 2, "--random", 40, "--cluster", "processes")
    assert run.returncode == 3
    assert "data race" in run.stderr
    missing = shards_cli(tmp_path / "none.mlir", "--ranks", 2, "--shards", 2, "--random", 2)
    assert missing.returncode == 1 and "error:" in missing.stderr
