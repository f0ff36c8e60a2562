//! What lit cannot see: the order of the steps in the built kernel read
//! from the ops' named locations (not from printed text), the count bound
//! of each count type, and what a run declares changed. (That the page's
//! step tables are the protocols is tests/pass_docs.rs's.)

use super::{count_max, protocol, LowerStatistics, INFO};
use crate::{
    framework::{Counters, OptionValues, PassContext},
    ir,
    test_support::{context, function, parse, TestHost},
};
use melior::{
    ir::{operation::OperationLike, r#type::IntegerType, Module, OperationRef, Type},
    Context,
};

/// A module with one admitted collective over P = 4 ranks at width `blocks`.
fn program(blocks: i64) -> String {
    format!(
        r#"
        func.func @entry(%send: memref<8x4xf32, #ccl.window>, %sc: memref<4xi32, #ccl.window>,
                         %recv: memref<8x4xf32, #ccl.window>, %rc: memref<4xi32>,
                         %sig: memref<4x8xi32, #ccl.window>) attributes {{ccl.kind = "orchestration"}} {{
          %b = arith.constant {blocks} : i32
          ccl.all_to_all_v %send, %sc, %recv, %rc, blocks %b, signal %sig {{launch_width = {blocks} : i64}}
            : memref<8x4xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8x4xf32, #ccl.window>, memref<4xi32>, i32, memref<4x8xi32, #ccl.window>
          return
        }}
    "#
    )
}

/// A context with the pass's dependent dialects loaded, as a pass manager
/// loads them before the run.
fn loaded_context() -> Context {
    let context = context();
    for dialect in INFO.dependent_dialects {
        context.get_or_load_dialect(dialect);
    }
    context
}

/// Runs the pass (with `late-snapshot` as given) on `module`: whether it
/// declared everything preserved, and the statistics.
fn run(module: &Module<'_>, late_snapshot: bool) -> (bool, Vec<(&'static str, u64)>) {
    let counters = Counters::new(LowerStatistics::SPECS);
    let mut pass = (INFO.create)(OptionValues(&[late_snapshot as i64]), &counters);
    let host = TestHost::default();
    let mut cx = PassContext::new(&host);
    pass.run(module.as_operation(), &mut cx).expect("the pass succeeds");
    assert!(host.reports.borrow().is_empty(), "{:?}", host.reports.borrow());
    assert!(module.as_operation().verify(), "the lowered module verifies");
    (cx.preserved_all(), counters.snapshot().into_iter().map(|(spec, value)| (spec.name, value)).collect())
}

/// The step of every op of `kernel` that has one, in walk (program) order,
/// with runs of one step folded: the step list as the kernel runs it.
fn steps_in_order(kernel: OperationRef<'_, '_>) -> Vec<String> {
    let prefix = format!("loc(\"{}.", super::ARGUMENT);
    let mut steps: Vec<String> = Vec::new();
    ir::walk_nested(kernel, |op| {
        let location = op.location().to_string();
        if let Some(rest) = location.strip_prefix(&prefix) {
            let step = rest.split('"').next().unwrap_or_default().to_string();
            if steps.last() != Some(&step) {
                steps.push(step);
            }
        }
        ir::Walk::Advance
    });
    steps
}

#[test]
fn the_kernel_runs_the_steps_of_its_protocol_in_order_for_every_lane_mapping() {
    for (blocks, name) in
        [(2, "__ccl_all_to_all_v_p4_b2"), (4, "__ccl_all_to_all_v_p4_b4"), (8, "__ccl_all_to_all_v_p4_b8")]
    {
        for (late, list) in [(false, protocol::PROTOCOL), (true, protocol::LATE_SNAPSHOT)] {
            let context = loaded_context();
            let module = parse(&context, &program(blocks));
            run(&module, late);
            let kernel = function(&module, name);
            assert_eq!(steps_in_order(kernel), protocol::step_names(list), "B = {blocks}, late-snapshot = {late}");
            let recorded = kernel.attribute(super::kernel::ATTR_PROTOCOL).expect("the kernel records its protocol");
            assert_eq!(recorded, super::protocol_attribute(&context, list));
        }
    }
}

#[test]
fn a_run_declares_what_it_changed_and_a_rerun_changes_nothing() {
    let context = loaded_context();
    let module = parse(&context, &program(8));
    let (preserved, counts) = run(&module, false);
    assert!(!preserved);
    assert_eq!(counts, [("collectives-lowered", 1), ("kernels-created", 1), ("kernels-reused", 0)]);
    let text = module.as_operation().to_string();
    let (preserved, counts) = run(&module, false);
    assert!(preserved, "a rerun preserves everything, so MLIR skips verify-each");
    assert_eq!(module.as_operation().to_string(), text);
    assert_eq!(counts, [("collectives-lowered", 0), ("kernels-created", 0), ("kernels-reused", 0)]);
}

#[test]
fn the_count_bound_is_the_largest_value_of_the_count_type() {
    let context = context();
    let int = |width| -> Type<'_> { IntegerType::new(&context, width).into() };
    assert_eq!(count_max(int(2)), Some(1));
    assert_eq!(count_max(int(8)), Some(127));
    assert_eq!(count_max(int(32)), Some(i32::MAX as i64));
    assert_eq!(count_max(int(64)), Some(i64::MAX));
    assert_eq!(count_max(int(128)), Some(i64::MAX));
    assert_eq!(count_max(Type::index(&context)), Some(i64::MAX));
    assert_eq!(count_max(int(1)), None, "i1 is a bool, not a count");
    assert_eq!(count_max(IntegerType::unsigned(&context, 32).into()), None);
    assert_eq!(count_max(Type::float32(&context)), None);
}
