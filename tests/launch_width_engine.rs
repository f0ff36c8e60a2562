//! "The folded constant and the lowered arith form can never disagree."
//!
//! The pass folds constant `ccl.cal_all_to_all_v_blocks` ops with the Rust
//! formula (`formula::blocks`) and, with `lower-dynamic=true`, expands the
//! others into arith ops generated from the same formula definition
//! (`formula::cal_all_to_all_v_blocks_in`). This test runs both paths
//! through the real pass for every (P, L) in 1..=256 x 1..=256:
//! - run time: the dynamic form of `(P, L) -> B`, lowered by the pass, then
//!   to LLVM by upstream passes, compiled once by MLIR's JIT and called;
//! - compile time: 65536 constant cal ops folded by the pass, read back as
//!   the `launch_width` the pass stamps on the launches they feed;
//!
//! and checks both against `formula::blocks`.

use cclir::{dialect::ffi::jit::IntegerJit, passes::admit_launch_width::formula, Session};
use melior::{
    ir::{attribute::IntegerAttribute, operation::OperationLike, Module},
    utility::register_all_llvm_translations,
};
use std::fmt::Write;

const RANGE: std::ops::RangeInclusive<i64> = 1..=256;

/// (P type, L type): equal types, P narrower, P wider, index on either side.
const TYPE_PAIRS: &[(&str, &str)] =
    &[("i64", "i64"), ("i32", "i64"), ("i64", "i16"), ("index", "i32"), ("i16", "index")];

fn expected(p: i64, l: i64) -> i64 {
    formula::blocks(p as i128, l as i128).expect("positive operands") as i64
}

fn function_name(p_ty: &str, l_ty: &str) -> String {
    format!("width_{p_ty}_{l_ty}")
}

#[test]
fn lowered_form_computes_the_formula_for_every_p_and_l() {
    let session = Session::new();
    register_all_llvm_translations(session.context());

    let mut source = String::new();
    for (p_ty, l_ty) in TYPE_PAIRS {
        writeln!(
            source,
            "func.func @{}(%p: {p_ty}, %l: {l_ty}) -> {l_ty} attributes {{llvm.emit_c_interface}} {{\n  \
             %b = ccl.cal_all_to_all_v_blocks %p, %l : {p_ty}, {l_ty}\n  \
             return %b : {l_ty}\n}}",
            function_name(p_ty, l_ty)
        )
        .unwrap();
    }
    let mut program = session.parse(&source, "dynamic.mlir").expect("the dynamic form parses");

    // First the pass alone: every cal op must be expanded into arith.
    let admit = session.pipeline("builtin.module(ccl-admit-launch-width{lower-dynamic=true})").unwrap();
    session.run(&admit, &mut program).expect("admission succeeds");
    let lowered = program.to_text();
    assert!(!lowered.contains("ccl."), "every cal op is lowered:\n{lowered}");
    for op in ["arith.cmpi slt", "arith.divsi", "arith.muli", "arith.select"] {
        assert_eq!(lowered.matches(op).count(), TYPE_PAIRS.len(), "one {op} per function:\n{lowered}");
    }

    let to_llvm = session
        .pipeline("builtin.module(convert-arith-to-llvm, convert-func-to-llvm, reconcile-unrealized-casts)")
        .unwrap();
    session.run(&to_llvm, &mut program).expect("lowering to LLVM succeeds");
    let module = Module::from_operation(program.operation().clone()).expect("a module");
    let jit = IntegerJit::new(&module, 2).expect("the JIT compiles the module");

    for (p_ty, l_ty) in TYPE_PAIRS {
        let mut mismatches = Vec::new();
        for p in RANGE {
            for l in RANGE {
                let got = jit.call(&function_name(p_ty, l_ty), &[p, l]).expect("the JIT calls it");
                if got != expected(p, l) {
                    mismatches.push((p, l, got, expected(p, l)));
                }
            }
        }
        assert!(
            mismatches.is_empty(),
            "({p_ty}, {l_ty}): (P, L, JIT, formula): {:?}",
            &mismatches[..mismatches.len().min(8)]
        );
    }
}

#[test]
fn folded_constants_are_the_formula_for_every_p_and_l() {
    let session = Session::new();
    let mut source = String::from(
        "func.func @grid(%s: memref<?xi8>, %c: memref<?xi32>) attributes {ccl.kind = \"orchestration\"} {\n",
    );
    for v in RANGE {
        writeln!(source, "  %p{v} = arith.constant {v} : i32\n  %l{v} = arith.constant {v} : i64").unwrap();
    }
    for p in RANGE {
        for l in RANGE {
            writeln!(
                source,
                "  %b_{p}_{l} = ccl.cal_all_to_all_v_blocks %p{p}, %l{l} : i32, i64\n  \
                 ccl.all_to_all_v %s, %c, %s, %c, blocks %b_{p}_{l} : \
                 memref<?xi8>, memref<?xi32>, memref<?xi8>, memref<?xi32>, i64"
            )
            .unwrap();
        }
    }
    source.push_str("  return\n}\n");
    let mut program = session.parse(&source, "grid.mlir").expect("the grid parses");
    let admit = session.pipeline("builtin.module(ccl-admit-launch-width)").unwrap();
    session.run(&admit, &mut program).expect("admission succeeds");

    let mut widths = Vec::new();
    program.operation().walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("ccl.all_to_all_v") {
            let width = op.attribute("launch_width").expect("every launch is stamped");
            widths.push(IntegerAttribute::try_from(width).expect("an integer").value());
        }
        melior::ir::operation::WalkResult::Advance
    });
    let grid: Vec<(i64, i64)> = RANGE.flat_map(|p| RANGE.map(move |l| (p, l))).collect();
    assert_eq!(widths.len(), grid.len());
    for (&(p, l), &width) in grid.iter().zip(&widths) {
        assert_eq!(width, expected(p, l), "P={p} L={l}");
    }
    assert!(!program.to_text().contains("ccl.cal_all_to_all_v_blocks"), "every constant cal op is folded");
}
