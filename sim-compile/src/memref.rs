//! Memory (`memref`): views (subview, collapse, expand, cast) and
//! allocations.

use crate::code::FunctionCode;
use crate::error_at;
use crate::function::OpParts;
use cclir_dialect::ir;
use cclir_sim::program::{Instr, Operand, Reg, Ty, ViewKind};
use cclir_sim::InputError;
use melior::ir::attribute::{ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

/// Compiles `parts` if it is a memref op; whether it was.
pub(crate) fn compile(code: &mut FunctionCode, parts: &OpParts<'_, '_>) -> Result<bool, InputError> {
    let OpParts { op, name, operands, results } = parts;
    let op = *op;
    match *name {
        "memref.subview" => code.emit(Instr::View { dst: results[0], src: operands[0], kind: subview(parts)? }),
        "memref.collapse_shape" => {
            let groups = reassociation(op).ok_or_else(|| parts.error("cannot read the reassociation"))?;
            code.emit(Instr::View { dst: results[0], src: operands[0], kind: ViewKind::Collapse { groups } });
        }
        "memref.expand_shape" => {
            let groups = reassociation(op).ok_or_else(|| parts.error("cannot read the reassociation"))?;
            let Ty::MemRef { shape, .. } = parts.result_ty(0) else { return Err(parts.error("not a memref")) };
            if shape.iter().any(Option::is_none) {
                return Err(parts.error("ccl-sim needs the static result shape of memref.expand_shape"));
            }
            let sizes: Vec<Vec<i64>> =
                groups.iter().map(|g| g.iter().map(|d| shape[*d].expect("static")).collect()).collect();
            code.emit(Instr::View { dst: results[0], src: operands[0], kind: ViewKind::Expand { groups: sizes } });
        }
        "memref.cast" => code.emit(Instr::View { dst: results[0], src: operands[0], kind: ViewKind::Same }),
        "memref.alloc" | "memref.alloca" => {
            let Ty::MemRef { element, shape } = parts.result_ty(0) else { return Err(parts.error("not a memref")) };
            let Some(shape) = shape.into_iter().collect::<Option<Vec<i64>>>() else {
                return Err(parts.error("ccl-sim needs static shapes: this allocation has a dynamic size"));
            };
            let site = code.current_site;
            code.emit(Instr::Alloc { dst: results[0], site, element, shape });
        }
        "memref.dealloc" => code.emit(Instr::Dealloc { src: operands[0] }),
        _ => return Ok(false),
    }
    Ok(true)
}

/// A `memref.subview`'s offsets, sizes and strides, and the dimensions a
/// rank-reducing one drops.
fn subview(parts: &OpParts<'_, '_>) -> Result<ViewKind, InputError> {
    let (op, operands) = (parts.op, &parts.operands);
    let offsets = mixed_operands(op, "static_offsets", 1, operands)?;
    let sizes = mixed_operands(op, "static_sizes", 2, operands)?;
    let strides = mixed_operands(op, "static_strides", 3, operands)?;
    let source_rank = offsets.len();
    let result_rank = match parts.result_ty(0) {
        Ty::MemRef { shape, .. } => shape.len(),
        _ => source_rank,
    };
    // A rank-reducing subview drops static unit sizes, leftmost first.
    let mut dropped = Vec::new();
    let mut extra = source_rank.saturating_sub(result_rank);
    for (i, size) in sizes.iter().enumerate() {
        if extra > 0 && *size == Operand::Static(1) {
            dropped.push(i);
            extra -= 1;
        }
    }
    Ok(ViewKind::Subview { offsets, sizes, strides, dropped })
}

pub(crate) fn dense_i64(op: OperationRef<'_, '_>, name: &str) -> Option<Vec<i64>> {
    let attribute = DenseI64ArrayAttribute::try_from(op.attribute(name).ok()?).ok()?;
    (0..attribute.len()).map(|i| attribute.element(i).ok()).collect()
}

/// Static values of `attr`, with the dynamic ones (`i64::MIN`) taken in order
/// from operand segment `segment`.
fn mixed_operands(
    op: OperationRef<'_, '_>,
    attr: &str,
    segment: usize,
    operands: &[Reg],
) -> Result<Vec<Operand>, InputError> {
    let statics = dense_i64(op, attr).ok_or_else(|| error_at(op, format!("cannot read {attr}")))?;
    let mut dynamic = ir::operand_segment(op, segment).map(|r| operands[r].to_vec()).unwrap_or_default().into_iter();
    statics
        .into_iter()
        .map(|value| {
            if value == i64::MIN {
                dynamic.next().map(Operand::Reg).ok_or_else(|| error_at(op, format!("too few dynamic {attr}")))
            } else {
                Ok(Operand::Static(value))
            }
        })
        .collect()
}

fn reassociation(op: OperationRef<'_, '_>) -> Option<Vec<Vec<usize>>> {
    let groups = ArrayAttribute::try_from(op.attribute("reassociation").ok()?).ok()?;
    (0..groups.len())
        .map(|g| {
            let group = ArrayAttribute::try_from(groups.element(g).ok()?).ok()?;
            (0..group.len())
                .map(|d| IntegerAttribute::try_from(group.element(d).ok()?).ok().map(|i| i.value() as usize))
                .collect()
        })
        .collect()
}
