//! The library API a compiler driver uses: sessions, parsing, pipelines from
//! text and from the typed builder, diagnostics as values, printing.

use cclir::{Display, Error, PipelineSpec, Session, Severity, SourceLoc};

const PROGRAM: &str = "func.func @twice(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  %1 = arith.addi %a, %a : i32\n  %2 = arith.addi %0, %1 : i32\n  return %2 : i32\n}\n";

#[test]
fn text_pipeline_runs_upstream_passes() {
    let session = Session::new();
    let mut program = session.parse(PROGRAM, "twice.mlir").expect("parses");
    let pipeline = session.pipeline("builtin.module(func.func(cse))").expect("builds");
    session.run(&pipeline, &mut program).expect("runs");
    let text = program.to_text();
    assert_eq!(text.matches("arith.addi").count(), 2, "cse merged the duplicate:\n{text}");
}

#[test]
fn typed_builder_matches_textual_form() {
    let spec = PipelineSpec::module(|m| {
        m.nest("func.func", |f| f.pass("cse").pass_with_options("canonicalize", "max-iterations=2"))
    });
    assert_eq!(spec.to_text(), "builtin.module(func.func(cse,canonicalize{max-iterations=2}))");
    let session = Session::new();
    let mut program = session.parse(PROGRAM, "twice.mlir").unwrap();
    let pipeline = session.build(&spec).unwrap();
    session.run(&pipeline, &mut program).unwrap();
}

#[test]
fn parse_errors_are_located_values() {
    let session = Session::new();
    let error =
        session.parse("func.func @f() {\n  %0 = arith.addi %x, %x : i32\n}\n", "bad.mlir").err().expect("fails");
    let Error::Parse { diagnostics, .. } = &error else { panic!("{error:?}") };
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].severity, Severity::Error);
    assert_eq!(diagnostics[0].loc, SourceLoc::File { file: "bad.mlir".into(), line: 2, col: 19 });
    assert_eq!(diagnostics[0].message, "use of undeclared SSA value name");
    let rendered = session.render(error.diagnostics());
    assert_eq!(
        rendered,
        "bad.mlir:2:19: error: use of undeclared SSA value name\n  %0 = arith.addi %x, %x : i32\n                  ^\n"
    );
}

#[test]
fn dialect_verifier_rejects_bool_and_float_integers() {
    let session = Session::new();
    for ty in ["i1", "f32"] {
        let text = format!(
            "func.func @f(%p: {ty}, %l: i32) {{\n  %b = ccl.cal_all_to_all_v_blocks %p, %l : {ty}, i32\n  return\n}}\n"
        );
        let error = session.parse(&text, "t.mlir").err().expect("rejected");
        let first = &error.diagnostics()[0];
        assert_eq!(first.loc, SourceLoc::File { file: "t.mlir".into(), line: 2, col: 8 });
        assert_eq!(
            first.message,
            format!("'ccl.cal_all_to_all_v_blocks' op operand #0 must be signless integer wider than i1, or index, but got '{ty}'")
        );
    }
}

#[test]
fn unknown_pass_suggests_nearest_name() {
    let session = Session::new();
    let result = session.pipeline("builtin.module(canonicalise)").map(|_| ());
    match result {
        Err(Error::Pipeline { message, suggestion }) => {
            assert!(
                message.contains("'canonicalise' does not refer to a registered pass or pass pipeline"),
                "{message}"
            );
            assert_eq!(suggestion.as_deref(), Some("canonicalize"));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn implicit_module_wraps_several_functions() {
    let session = Session::new();
    let program = session.parse("func.func @a() {\n  return\n}\nfunc.func @b() {\n  return\n}\n", "two.mlir").unwrap();
    let text = program.to_text();
    assert!(text.starts_with("module {\n  func.func @a()"), "{text}");
    assert!(text.contains("func.func @b()"));
}

#[test]
fn registered_names_cover_upstream_and_rust_passes() {
    let names = cclir::registered_pass_names();
    assert!(names.len() > 200, "only {} names", names.len());
    for name in ["cse", "canonicalize", "symbol-dce", "ccl-insert-comm-fence", "ccl-pipeline"] {
        assert!(names.iter().any(|n| n == name), "{name} missing");
    }
}

#[test]
fn statistics_of_a_run_are_values_and_a_report() {
    let session = Session::new();
    let source = "func.func @o(%m: memref<64xf32, #ccl.window>, %c: memref<8xi32>) attributes {ccl.kind = \"orchestration\"} {\n  %p = arith.constant 8 : i32\n  %l = arith.constant 10 : i32\n  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32\n  ccl.all_to_all_v %m, %c, %m, %c, blocks %b : memref<64xf32, #ccl.window>, memref<8xi32>, memref<64xf32, #ccl.window>, memref<8xi32>, i32\n  return\n}\n";
    let mut program = session.parse(source, "o.mlir").unwrap();
    let pipeline = session.pipeline("builtin.module(func.func(cse),ccl-pipeline)").unwrap();
    session.run(&pipeline, &mut program).unwrap();
    let stats = pipeline.statistics();
    let names: Vec<&str> = stats.iter().map(|s| s.argument.as_str()).collect();
    assert_eq!(
        names,
        [
            "ccl-pipeline-nested-modules",
            "ccl-find-post-collective-kernels",
            "ccl-admit-launch-width",
            "ccl-insert-kernel-fence",
            "ccl-verify-comm-order"
        ]
    );
    let admit: Vec<(&str, u64)> = stats[2].counters.snapshot().into_iter().map(|(s, v)| (s.name, v)).collect();
    assert_eq!(admit, [("ops-folded", 1), ("ops-merged", 0), ("ops-lowered", 0), ("launches-stamped", 1)]);
    let report = pipeline.statistics_report(Display::Pipeline);
    assert!(
        // ccl-pipeline runs admission per function, so it prints nested.
        report.contains("'func.func' Pipeline\n  CclAdmitLaunchWidth\n    (S) 1 launches-stamped - launches stamped with launch_width\n"),
        "{report}"
    );
}
