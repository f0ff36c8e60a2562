//! `cal_all_to_all_v_blocks` and the lane mapping, with the origin's
//! contract: the operands are exactly `int` (a `bool`, a float or an `int`
//! subclass is a `TypeError`), a value outside the domain is a
//! `ValueError`. The answers are the Rust functions the passes fold and
//! lower (`cclir::passes::admit_launch_width`), called, not copied.

use cclir::passes::admit_launch_width::{formula, lanes};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// `value` as an exact `int` that fits `i128`; `what` names it in errors
/// (`cal_all_to_all_v_blocks: P (rank count)`).
fn exact_int(value: &Bound<'_, PyAny>, what: &str) -> PyResult<i128> {
    if !value.is_exact_instance_of::<PyInt>() {
        let type_name = value.get_type().name()?;
        return Err(PyTypeError::new_err(format!("{what} must be int, got {type_name}")));
    }
    value.extract::<i128>().map_err(|_| PyOverflowError::new_err(format!("{what} does not fit 128 bits")))
}

/// An exact `int` that must not be negative, as a `u64`.
fn count(value: &Bound<'_, PyAny>, function: &str, name: &str, positive: bool) -> PyResult<u64> {
    let n = exact_int(value, &format!("{function}: {name}"))?;
    if n < 0 || (positive && n == 0) {
        let bound = if positive { "must be positive" } else { "must be >= 0" };
        return Err(PyValueError::new_err(format!("{function}: {name} {bound}, got {n}")));
    }
    u64::try_from(n).map_err(|_| PyOverflowError::new_err(format!("{function}: {name} does not fit 64 bits")))
}

fn value_error(function: &str, error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{function}: {error}"))
}

/// The admitted all_to_all_v launch width B = CalAllToAllVBlocks(P, L): L
/// when L < P, else the largest multiple of P not above L.
///
/// Raises TypeError unless p and l are exactly int (not bool, float or an
/// int subclass) and ValueError unless both are positive.
#[pyfunction]
fn cal_all_to_all_v_blocks(p: &Bound<'_, PyAny>, l: &Bound<'_, PyAny>) -> PyResult<i128> {
    const NAME: &str = "cal_all_to_all_v_blocks";
    let p = exact_int(p, &format!("{NAME}: P (rank count)"))?;
    let l = exact_int(l, &format!("{NAME}: L (requested core_num)"))?;
    formula::blocks(p, l).map_err(|error| value_error(NAME, error))
}

/// The launch of an admitted width: ValueError for a width
/// CalAllToAllVBlocks cannot yield for P.
fn lane_map(function: &str, p: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<lanes::LaneMap> {
    let p = count(p, function, "P (rank count)", true)?;
    let b = count(b, function, "B (launch width)", true)?;
    lanes::LaneMap::new(p, b).map_err(|error| value_error(function, error))
}

fn block_of(function: &str, map: &lanes::LaneMap, block: &Bound<'_, PyAny>) -> PyResult<u64> {
    let block = exact_int(block, &format!("{function}: block_idx"))?;
    match u64::try_from(block) {
        Ok(block) if block < map.blocks() => Ok(block),
        _ => Err(PyValueError::new_err(format!(
            "{function}: block {block} is outside the launch width {}",
            map.blocks()
        ))),
    }
}

/// Lanes per peer, K: B // P when B >= P, else 0 (each block then serves
/// several peers whole).
#[pyfunction]
fn lanes_per_peer(p: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(lane_map("lanes_per_peer", p, b)?.lanes_per_peer())
}

/// The (peer, lane) block `block_idx` of a launch of B blocks on P ranks
/// serves: (block_idx // K, block_idx % K), or (block_idx, 0) when B < P.
#[pyfunction]
fn lane_of_block(p: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, block_idx: &Bound<'_, PyAny>) -> PyResult<(u64, u64)> {
    const NAME: &str = "lane_of_block";
    let map = lane_map(NAME, p, b)?;
    let lane = map.block_lane(block_of(NAME, &map, block_idx)?).map_err(|error| value_error(NAME, error))?;
    Ok((lane.peer, lane.lane))
}

/// Every peer block `block_idx` serves, ascending: [block_idx // K] when
/// B >= P, else block_idx, block_idx + B, ... below P.
#[pyfunction]
fn peers_of_block(p: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, block_idx: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    const NAME: &str = "peers_of_block";
    let map = lane_map(NAME, p, b)?;
    map.peers_of_block(block_of(NAME, &map, block_idx)?).map_err(|error| value_error(NAME, error))
}

/// The [begin, end) of a valid_elems-element payload that lane `lane` of
/// `k` moves: e = ceil(valid_elems / k), begin = min(lane * e,
/// valid_elems), end = min(begin + e, valid_elems). k = 0 (blocks serving
/// whole peers, B < P) is the single lane 0 moving everything.
#[pyfunction]
fn flat_lane_slice(
    valid_elems: &Bound<'_, PyAny>,
    k: &Bound<'_, PyAny>,
    lane: &Bound<'_, PyAny>,
) -> PyResult<(u64, u64)> {
    const NAME: &str = "flat_lane_slice";
    let valid_elems = count(valid_elems, NAME, "valid_elems", false)?;
    let k = count(k, NAME, "k", false)?;
    let lane = count(lane, NAME, "lane", false)?;
    let slice = lanes::flat_lane_slice(valid_elems, k, lane).map_err(|error| value_error(NAME, error))?;
    Ok((slice.start, slice.end))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(cal_all_to_all_v_blocks, module)?)?;
    module.add_function(wrap_pyfunction!(lanes_per_peer, module)?)?;
    module.add_function(wrap_pyfunction!(lane_of_block, module)?)?;
    module.add_function(wrap_pyfunction!(peers_of_block, module)?)?;
    module.add_function(wrap_pyfunction!(flat_lane_slice, module)?)?;
    Ok(())
}
