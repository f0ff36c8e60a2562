//! The ccl ops: the queries (`ccl.rank`, `ccl.block_id`, `ccl.comm_size`),
//! the launch-width formula, and the ops the machine executes
//! (`cclir_sim::program::CclOp`). The last family: an op no family took is
//! reported here.

use crate::code::FunctionCode;
use crate::function::OpParts;
use crate::types::{ty_of, unsupported_type};
use cclir_dialect::ir;
use cclir_sim::program::{CclOp, Instr, Query, Reduce, Ty};
use cclir_sim::InputError;
use melior::ir::ValueLike;

/// Compiles `parts`, a ccl op, or reports that ccl-sim does not execute it.
pub(crate) fn compile(code: &mut FunctionCode, parts: OpParts<'_, '_>) -> Result<(), InputError> {
    let site = code.current_site;
    match parts.name {
        "ccl.rank" | "ccl.block_id" | "ccl.comm_size" => {
            let what = match parts.name {
                "ccl.rank" => Query::Rank,
                "ccl.block_id" => Query::BlockId,
                _ => Query::CommSize,
            };
            code.emit(Instr::Query { dst: parts.results[0], what, ty: parts.result_scalar(0)? });
        }
        "ccl.cal_all_to_all_v_blocks" => {
            let ty = parts.result_scalar(0)?;
            let (p, l) = (parts.operands[0], parts.operands[1]);
            code.emit(Instr::CalBlocks { site, dst: parts.results[0], p, l, ty });
        }
        _ => {
            let (op, name) = (parts.op, parts.name);
            let types = (0..parts.operands.len())
                .map(|i| ir::operand(op, i).r#type().to_string())
                .chain((0..parts.results.len()).map(|i| ir::result(op, i).r#type().to_string()));
            for text in types {
                if name.starts_with("ccl.") && matches!(ty_of(&text), Ty::Other(_)) {
                    return Err(parts.error(unsupported_type(name, &text)));
                }
            }
            code.emit(Instr::Ccl { site, op: ccl_op(&parts)? });
        }
    }
    Ok(())
}

/// The machine's form of ccl op `parts`.
fn ccl_op(parts: &OpParts<'_, '_>) -> Result<CclOp, InputError> {
    let OpParts { op, name, operands, results } = parts;
    let op = *op;
    let keyword = |attr: &str| ir::enum_keyword(op, attr).unwrap_or_default();
    Ok(match *name {
        "ccl.tile_store" => CclOp::TileStore { tile: operands[0], dst: operands[1], indices: operands[2..].to_vec() },
        "ccl.tensor_write" => {
            CclOp::TensorWrite { dst: operands[0], value: operands[1], indices: operands[2..].to_vec() }
        }
        "ccl.get" => CclOp::Get { dst: operands[0], src: operands[1], peer: operands[2] },
        "ccl.remote_store" => CclOp::RemoteStore { tile: operands[0], dst: operands[1], peer: operands[2] },
        "ccl.put" => CclOp::Put { dst: operands[0], src: operands[1], peer: operands[2] },
        "ccl.remote_load" => CclOp::RemoteLoad {
            result: results[0],
            src: operands[0],
            peer: operands[1],
            ty: ty_of(&ir::result(op, 0).r#type().to_string()),
        },
        "ccl.tile_load" => {
            let len = match ty_of(&ir::result(op, 0).r#type().to_string()) {
                Ty::Vector { len, .. } => len,
                _ => 1,
            };
            CclOp::TileLoad { result: results[0], src: operands[0], indices: operands[1..].to_vec(), len }
        }
        "ccl.read" => CclOp::Read { result: results[0], src: operands[0], indices: operands[1..].to_vec() },
        "ccl.notify" => CclOp::Notify {
            signal: operands[0],
            peer: operands[1],
            value: operands[2],
            add: keyword("op") == "atomic_add",
        },
        "ccl.wait" => CclOp::Wait { signal: operands[0], expected: operands[1], equal: keyword("cmp") == "eq" },
        "ccl.fence" => CclOp::Fence,
        "ccl.cacheinvalid" => CclOp::CacheInvalid { target: operands.first().copied() },
        "ccl.all_to_all_v" => CclOp::AllToAllV {
            send: operands[0],
            send_counts: operands[1],
            recv: operands[2],
            recv_counts: operands[3],
        },
        "ccl.all_reduce" => CclOp::AllReduce {
            src: operands[0],
            dst: operands[1],
            reduce: match keyword("reduce").as_str() {
                "max" => Reduce::Max,
                "min" => Reduce::Min,
                _ => Reduce::Sum,
            },
        },
        "ccl.barrier" => CclOp::Barrier,
        _ => return Err(parts.error(format!("ccl-sim does not execute '{name}'"))),
    })
}
