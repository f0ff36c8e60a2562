"""The launch-width formula and the lane mapping, with the origin's contract."""

import pytest

import cclir

# The worked table of docs/semantics.md: (P, L) -> B.
WORKED_TABLE = [(8, 1, 1), (8, 7, 7), (8, 8, 8), (8, 10, 8), (8, 15, 8), (8, 16, 16), (16, 7, 7), (16, 16, 16)]


@pytest.mark.parametrize(("p", "l", "b"), WORKED_TABLE)
def test_worked_table(p, l, b):
    assert cclir.cal_all_to_all_v_blocks(p, l) == b


def test_definition_by_cases():
    for p in range(1, 25):
        for l in range(1, 100):
            b = cclir.cal_all_to_all_v_blocks(p, l)
            assert b == (l if l < p else (l // p) * p)


def test_huge_operands():
    assert cclir.cal_all_to_all_v_blocks(3, 2**100) == 2**100 - 2**100 % 3
    with pytest.raises(OverflowError):
        cclir.cal_all_to_all_v_blocks(3, 2**200)


class Count(int):
    """An int subclass: rejected as the origin rejects it."""


@pytest.mark.parametrize("bad", [True, False, 8.0, Count(8), "8", None])
def test_operands_must_be_exactly_int(bad):
    with pytest.raises(TypeError, match=r"P \(rank count\) must be int, got"):
        cclir.cal_all_to_all_v_blocks(bad, 8)
    with pytest.raises(TypeError, match=r"L \(requested core_num\) must be int, got"):
        cclir.cal_all_to_all_v_blocks(8, bad)


def test_type_error_names_the_type():
    with pytest.raises(TypeError, match="must be int, got bool"):
        cclir.cal_all_to_all_v_blocks(True, 8)
    with pytest.raises(TypeError, match="must be int, got float"):
        cclir.cal_all_to_all_v_blocks(8, 2.5)


@pytest.mark.parametrize("p", [0, -1, -(2**70)])
def test_rank_count_must_be_positive(p):
    with pytest.raises(ValueError, match=rf"^cal_all_to_all_v_blocks: P \(rank count\) must be positive, got {p}$"):
        cclir.cal_all_to_all_v_blocks(p, 8)


@pytest.mark.parametrize("l", [0, -3])
def test_core_num_must_be_positive(l):
    with pytest.raises(ValueError, match=rf"^cal_all_to_all_v_blocks: L \(requested core_num\) must be positive, got {l}$"):
        cclir.cal_all_to_all_v_blocks(8, l)


def test_lane_mapping_worked_points():
    assert cclir.lanes_per_peer(8, 8) == 1
    assert cclir.lanes_per_peer(8, 16) == 2
    assert cclir.lanes_per_peer(16, 7) == 0
    assert cclir.lane_of_block(8, 16, 5) == (2, 1)
    assert cclir.lane_of_block(8, 16, 15) == (7, 1)
    assert cclir.lane_of_block(4, 2, 1) == (1, 0)
    assert cclir.peers_of_block(16, 7, 2) == [2, 9]
    assert cclir.peers_of_block(16, 7, 1) == [1, 8, 15]
    assert cclir.peers_of_block(8, 1, 0) == list(range(8))
    assert [cclir.flat_lane_slice(10, 3, lane) for lane in range(3)] == [(0, 4), (4, 8), (8, 10)]
    assert [cclir.flat_lane_slice(2, 4, lane) for lane in range(4)] == [(0, 1), (1, 2), (2, 2), (2, 2)]
    assert cclir.flat_lane_slice(10, 0, 0) == (0, 10)


@pytest.mark.parametrize(("p", "l"), [(p, l) for p in range(1, 17) for l in range(1, 40)])
def test_every_admitted_width_partitions_peers_or_lanes(p, l):
    b = cclir.cal_all_to_all_v_blocks(p, l)
    k = cclir.lanes_per_peer(p, b)
    if k == 0:
        owned = sorted(q for idx in range(b) for q in cclir.peers_of_block(p, b, idx))
        assert owned == list(range(p))
    else:
        pairs = {cclir.lane_of_block(p, b, idx) for idx in range(b)}
        assert pairs == {(q, lane) for q in range(p) for lane in range(k)}


def test_lane_mapping_rejects_what_the_formula_cannot_yield():
    # The origin maps block 5 of a 6-block launch on 4 ranks to "peer 5".
    with pytest.raises(ValueError, match="launch width 6 is not admissible for 4 ranks"):
        cclir.lane_of_block(4, 6, 5)
    with pytest.raises(ValueError, match=r"lanes_per_peer: P \(rank count\) must be positive, got 0"):
        cclir.lanes_per_peer(0, 4)
    with pytest.raises(ValueError, match=r"B \(launch width\) must be positive, got -1"):
        cclir.lanes_per_peer(4, -1)
    with pytest.raises(ValueError, match="block 8 is outside the launch width 8"):
        cclir.lane_of_block(4, 8, 8)
    with pytest.raises(ValueError, match="block -1 is outside the launch width 8"):
        cclir.peers_of_block(4, 8, -1)
    with pytest.raises(ValueError, match="lane 3 is outside the 3 lane"):
        cclir.flat_lane_slice(5, 3, 3)
    with pytest.raises(ValueError, match="valid_elems must be >= 0, got -1"):
        cclir.flat_lane_slice(-1, 2, 0)
    with pytest.raises(TypeError, match="must be int, got bool"):
        cclir.flat_lane_slice(8, True, 0)
    with pytest.raises(TypeError, match="must be int, got float"):
        cclir.lanes_per_peer(2.5, 4)
