//! Scalar and vector arithmetic (`arith`, `index`): binary ops, casts,
//! constants, comparisons, `arith.select`.

use crate::code::FunctionCode;
use crate::function::OpParts;
use crate::types::unsupported_type;
use cclir_dialect::ir;
use cclir_sim::program::{BinOp, CastOp, Instr, Pred, Scalar, Ty, Wrap};
use cclir_sim::value::{wrap, Val};
use cclir_sim::InputError;
use melior::ir::attribute::{FloatAttribute, IntegerAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;
use std::sync::Arc;

/// Compiles `parts` if it is arithmetic; whether it was.
pub(crate) fn compile(code: &mut FunctionCode, parts: &OpParts<'_, '_>) -> Result<bool, InputError> {
    let OpParts { op, name, operands, results } = parts;
    let (op, name) = (*op, *name);
    if let Some(bin) = binary_op(name) {
        let ty = parts.result_scalar(0)?;
        // `overflow<nsw, nuw>`: an overflow is poison in MLIR.
        let flags = op.attribute("overflowFlags").map(|a| a.to_string()).unwrap_or_default();
        let wrap = Wrap { nsw: flags.contains("nsw"), nuw: flags.contains("nuw") };
        code.emit(Instr::Binary { dst: results[0], op: bin, lhs: operands[0], rhs: operands[1], ty, wrap });
        return Ok(true);
    }
    if let Some(cast) = cast_op(name) {
        let (from, to) = (parts.operand_scalar(0)?, parts.result_scalar(0)?);
        code.emit(Instr::Cast { dst: results[0], src: operands[0], op: cast, from, to });
        return Ok(true);
    }
    match name {
        "arith.constant" | "index.constant" | "index.bool.constant" => {
            let value = constant(op, &parts.result_ty(0)).ok_or_else(|| match parts.result_ty(0) {
                Ty::Other(text) => parts.error(unsupported_type(name, &text)),
                _ => parts.error("ccl-sim cannot read this constant"),
            })?;
            code.emit(Instr::Const { dst: results[0], value });
        }
        "arith.cmpi" | "arith.cmpf" | "index.cmp" => {
            let pred = predicate(op).ok_or_else(|| parts.error("unknown comparison predicate"))?;
            let ty = parts.operand_scalar(0)?;
            code.emit(Instr::Cmp { dst: results[0], pred, lhs: operands[0], rhs: operands[1], ty });
        }
        "arith.select" => {
            code.emit(Instr::Select { dst: results[0], cond: operands[0], on_true: operands[1], on_false: operands[2] })
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn constant(op: OperationRef<'_, '_>, ty: &Ty) -> Option<Val> {
    let value = op.attribute("value").ok()?;
    match ty {
        Ty::Scalar(Scalar::Int(bits)) => {
            let int = IntegerAttribute::try_from(value).ok()?.value();
            Some(Val::Int(wrap(int, *bits)))
        }
        Ty::Scalar(Scalar::Float(_)) => Some(Val::float(FloatAttribute::try_from(value).ok()?.value())),
        Ty::Vector { element, len } => {
            // A splat `dense<x>`: read x from the printed form.
            let text = value.to_string();
            let inner = text.strip_prefix("dense<")?.split('>').next()?.trim();
            let bits = match element {
                Scalar::Int(b) => wrap(inner.parse::<i64>().ok()?, *b) as u64,
                Scalar::Float(_) => inner.parse::<f64>().ok()?.to_bits(),
            };
            Some(Val::Vector(Arc::from(vec![bits; *len])))
        }
        _ => None,
    }
}

fn predicate(op: OperationRef<'_, '_>) -> Option<Pred> {
    let name = ir::op_name(op);
    if name == "index.cmp" {
        let text = op.attribute("pred").ok()?.to_string();
        let keyword = text.trim_start_matches("#index<cmp_predicate").trim_end_matches('>').trim().to_string();
        return int_predicate_named(&keyword);
    }
    let value = ir::i64_attr(op, "predicate")?;
    if name == "arith.cmpi" {
        return [
            Pred::Eq,
            Pred::Ne,
            Pred::Slt,
            Pred::Sle,
            Pred::Sgt,
            Pred::Sge,
            Pred::Ult,
            Pred::Ule,
            Pred::Ugt,
            Pred::Uge,
        ]
        .get(value as usize)
        .copied();
    }
    // arith.cmpf: false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true.
    let (lt, eq, gt, unordered) = match value {
        0 => (false, false, false, false),
        1 => (false, true, false, false),
        2 => (false, false, true, false),
        3 => (false, true, true, false),
        4 => (true, false, false, false),
        5 => (true, true, false, false),
        6 => (true, false, true, false),
        7 => (true, true, true, false),
        8 => (false, true, false, true),
        9 => (false, false, true, true),
        10 => (false, true, true, true),
        11 => (true, false, false, true),
        12 => (true, true, false, true),
        13 => (true, false, true, true),
        14 => (false, false, false, true),
        _ => (true, true, true, true),
    };
    Some(Pred::F { lt, eq, gt, unordered })
}

fn int_predicate_named(keyword: &str) -> Option<Pred> {
    Some(match keyword {
        "eq" => Pred::Eq,
        "ne" => Pred::Ne,
        "slt" => Pred::Slt,
        "sle" => Pred::Sle,
        "sgt" => Pred::Sgt,
        "sge" => Pred::Sge,
        "ult" => Pred::Ult,
        "ule" => Pred::Ule,
        "ugt" => Pred::Ugt,
        "uge" => Pred::Uge,
        _ => return None,
    })
}

fn binary_op(name: &str) -> Option<BinOp> {
    Some(match name {
        "arith.addi" | "index.add" => BinOp::Add,
        "arith.subi" | "index.sub" => BinOp::Sub,
        "arith.muli" | "index.mul" => BinOp::Mul,
        "arith.divsi" | "index.divs" => BinOp::DivS,
        "arith.divui" | "index.divu" => BinOp::DivU,
        "arith.remsi" | "index.rems" => BinOp::RemS,
        "arith.remui" | "index.remu" => BinOp::RemU,
        "arith.ceildivsi" | "index.ceildivs" => BinOp::CeilDivS,
        "arith.floordivsi" | "index.floordivs" => BinOp::FloorDivS,
        "arith.andi" | "index.and" => BinOp::And,
        "arith.ori" | "index.or" => BinOp::Or,
        "arith.xori" | "index.xor" => BinOp::Xor,
        "arith.shli" | "index.shl" => BinOp::Shl,
        "arith.shrsi" | "index.shrs" => BinOp::ShrS,
        "arith.shrui" | "index.shru" => BinOp::ShrU,
        "arith.maxsi" | "index.maxs" => BinOp::MaxS,
        "arith.minsi" | "index.mins" => BinOp::MinS,
        "arith.maxui" | "index.maxu" => BinOp::MaxU,
        "arith.minui" | "index.minu" => BinOp::MinU,
        "arith.addf" => BinOp::AddF,
        "arith.subf" => BinOp::SubF,
        "arith.mulf" => BinOp::MulF,
        "arith.divf" => BinOp::DivF,
        "arith.maxnumf" | "arith.maximumf" => BinOp::MaxF,
        "arith.minnumf" | "arith.minimumf" => BinOp::MinF,
        _ => return None,
    })
}

fn cast_op(name: &str) -> Option<CastOp> {
    Some(match name {
        "arith.index_cast" | "arith.extsi" | "arith.trunci" | "index.casts" => CastOp::IntSigned,
        "arith.index_castui" | "arith.extui" | "index.castu" => CastOp::IntUnsigned,
        "arith.sitofp" => CastOp::SignedToFloat,
        "arith.uitofp" => CastOp::UnsignedToFloat,
        "arith.fptosi" => CastOp::FloatToSigned,
        "arith.fptoui" => CastOp::FloatToUnsigned,
        "arith.extf" | "arith.truncf" => CastOp::Float,
        "arith.negf" => CastOp::NegF,
        _ => return None,
    })
}
