//! A compiler driver that runs cclir in-process: parse a program, run the
//! ccl pipeline next to upstream passes, and get diagnostics as values.
//!
//!   cargo run --example compile_driver -- examples/moe_dispatch.mlir

use cclir::{PipelineSpec, Session};

fn main() -> std::process::ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| "examples/moe_dispatch.mlir".to_string());
    let session = Session::new();
    let spec = PipelineSpec::module(|m| m.pass("ccl-pipeline").nest("func.func", |f| f.pass("cse")));
    let result = session.parse_file(&path).and_then(|mut program| {
        let pipeline = session.build(&spec)?;
        session.run(&pipeline, &mut program)?;
        Ok(program.to_text())
    });
    match result {
        Ok(text) => {
            print!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            // Diagnostics are values: render them as mlir-opt does, or walk them.
            eprint!("{}", session.render(error.diagnostics()));
            if error.diagnostics().is_empty() {
                eprintln!("error: {error}");
            }
            std::process::ExitCode::FAILURE
        }
    }
}
