//! The `ccl-opt` command line.

/// The message mlir-opt prints for an I/O error (LLVM's wording).
pub fn io_message(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => {
            let text = error.to_string();
            text.split(" (os error").next().unwrap_or(&text).to_string()
        }
    }
}

/// Temporary entry point: `ccl-opt FILE [--pass-pipeline=P]`; replaced by the full driver.
pub fn main(args: Vec<String>) -> i32 {
    let session = crate::Session::new();
    let file = args.iter().skip(1).find(|a| !a.starts_with('-')).cloned().unwrap_or_default();
    let pipeline = args.iter().find_map(|a| a.strip_prefix("--pass-pipeline=")).map(str::to_string);
    let result = (|| {
        let mut program = session.parse_file(&file)?;
        if let Some(text) = pipeline {
            let built = session.pipeline(&text)?;
            session.run(&built, &mut program)?;
        }
        print!("{}", program.to_text());
        Ok::<(), crate::Error>(())
    })();
    match result {
        Ok(()) => 0,
        Err(error) => {
            if error.diagnostics().is_empty() {
                eprintln!("{error}");
            } else {
                eprint!("{}", session.render(error.diagnostics()));
            }
            1
        }
    }
}
