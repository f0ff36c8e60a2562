//! The SARIF 2.1.0 logs of ccl-sim and ccl-opt: each validates against
//! the schema (tests/data/sarif-schema-2.1.0.json), and says what the text
//! report says: a race as a result at the access that found it, the other
//! access a related location, the schedule a code flow with one thread flow
//! per rank and block holding that thread's steps and its racing access at
//! the right lines.

use cclir::generator::protocol::all_to_all_v_program;
use cclir::sim::{self, Options, Outcome};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

mod tools;
use tools::{repository, scratch};

/// The schema's errors for `log` (empty when it validates).
fn schema_errors(log: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repository().join("tests/data/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    validator.iter_errors(log).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

fn assert_valid(log: &Value) {
    let errors = schema_errors(log);
    assert!(errors.is_empty(), "the log does not validate: {errors:#?}\n{log:#}");
}

/// The 1-based line of `needle` in `text`, outside comments.
fn line_of(text: &str, needle: &str) -> u64 {
    text.lines().position(|l| l.contains(needle) && !l.trim_start().starts_with("//")).expect(needle) as u64 + 1
}

fn line(location: &Value) -> u64 {
    location["physicalLocation"]["region"]["startLine"].as_u64().expect("a located location")
}

fn ccl_sim(args: &[&str]) -> (i32, String) {
    tools::run(env!("CARGO_BIN_EXE_ccl-sim"), args)
}

/// The log at `path`, which validates against the schema.
fn read_log(path: &Path) -> Value {
    let log =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the log was written")).expect("the log is JSON");
    assert_valid(&log);
    log
}

/// ccl-sim's log of `input` (a repository path) on two ranks, where it
/// finds something (exit 3), with the input's text and ccl-sim's report.
fn ccl_sim_finding(input: &str, name: &str) -> (Value, String, String) {
    let text = std::fs::read_to_string(repository().join(input)).unwrap();
    let path = scratch(name);
    let (code, stderr) = ccl_sim(&[input, "--ranks", "2", "--sarif", path.to_str().unwrap()]);
    assert_eq!(code, 3, "{stderr}");
    (read_log(&path), text, stderr)
}

/// The thread flows of the first result's code flow, by id.
fn thread_flows(log: &Value) -> Vec<(String, Vec<&Value>)> {
    log["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"]
        .as_array()
        .expect("thread flows")
        .iter()
        .map(|flow| (flow["id"].as_str().unwrap().to_string(), flow["locations"].as_array().unwrap().iter().collect()))
        .collect()
}

/// The racing access in a thread flow: its line.
fn racing_line(locations: &[&Value]) -> Option<u64> {
    locations
        .iter()
        .find(|l| l["kinds"].as_array().is_some_and(|k| k.iter().any(|k| k == "danger")))
        .map(|l| line(&l["location"]))
}

#[test]
fn ccl_sim_reports_a_stale_read_as_a_located_result_with_thread_flows() {
    let input = "lit-tests/Sim/put-without-fence.mlir";
    let (log, text, stderr) = ccl_sim_finding(input, "put.sarif");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "ccl-sim");
    assert_eq!(run["invocations"][0]["exitCode"], 3);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "data-race");
    assert_eq!(result["level"], "error");
    let (read, put) = (line_of(&text, "%v = ccl.read %win"), line_of(&text, "ccl.put %win"));
    // Located as the text report: the error at the stale read, the notes at
    // the read and the put.
    assert_eq!(line(&result["locations"][0]), read);
    assert_eq!(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], input);
    let first_line = stderr.lines().next().unwrap();
    assert!(first_line.ends_with(result["message"]["text"].as_str().unwrap()), "{first_line}");
    let related: Vec<u64> = result["relatedLocations"].as_array().unwrap().iter().map(line).collect();
    assert_eq!(related, vec![read, put]);
    // One flow per thread that took part, with its racing access.
    let flows = thread_flows(&log);
    let ids: Vec<&str> = flows.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["rank 0 block 0", "rank 1 block 0"]);
    assert_eq!(racing_line(&flows[0].1), Some(put));
    assert_eq!(racing_line(&flows[1].1), Some(read));
    let flow = &run["results"][0]["codeFlows"][0]["threadFlows"][1];
    assert_eq!((flow["properties"]["rank"].as_u64(), flow["properties"]["block"].as_u64()), (Some(1), Some(0)));
    // Every flow in schedule order; the schedule's steps are all there.
    let mut orders = Vec::new();
    for (_, locations) in &flows {
        let order: Vec<i64> = locations.iter().map(|l| l["executionOrder"].as_i64().unwrap()).collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
        orders.extend(order);
    }
    let steps: i64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("schedule (")?.split(' ').next()?.parse().ok())
        .expect("the report's schedule line");
    assert!(steps >= 2, "{stderr}");
    for step in 1..=steps {
        assert!(orders.contains(&step), "step {step} is in no thread flow: {orders:?}");
    }
}

/// The old all_to_all_v order (the snapshot after Barrier B), P = 2, B = 1,
/// every schedule: through the library, as ccl-sim builds its log.
#[test]
fn the_old_orders_race_names_the_snapshot_and_the_restaging_write() {
    let text = all_to_all_v_program(2, 1, 1, 2);
    let session = cclir::Session::new();
    let mut program = session.parse(&text, "protocol.mlir").unwrap();
    let late =
        "builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)";
    session.run(&session.pipeline(late).unwrap(), &mut program).unwrap();
    let options = Options { ranks: 2, ..Options::default() };
    let (machine, outcome) = sim::simulate(program.operation_ref(), &options).unwrap();
    let Outcome::Found { schedule, .. } = &outcome else { panic!("the old order does not race: {outcome:?}") };
    let (trace, _) = sim::trace::replay(&machine, schedule);
    let summary = sim::summary::summarize(&machine, &outcome, Some(&trace));
    let log = serde_json::from_str::<Value>(&sim::sarif::log(&summary, 3).to_json()).unwrap();
    assert_valid(&log);
    let race = summary.race.as_ref().unwrap();
    let (read, write) = if race.first.write { (&race.second, &race.first) } else { (&race.first, &race.second) };
    assert_eq!((read.op.as_str(), read.protocol_step.as_deref()), ("ccl.remote_load", Some("snapshot")));
    assert_eq!(write.op, "ccl.tensor_write");
    let all_to_all_v = line_of(&text, "ccl.all_to_all_v");
    let stage_write = line_of(&text, "ccl.tensor_write %sc");
    let flows = thread_flows(&log);
    let flow = |thread: String| flows.iter().find(|(id, _)| *id == thread).map(|(_, l)| l.clone()).unwrap();
    // The snapshot is the lowered first call's, located at that call; the
    // write is @stage's restaging for the second call.
    assert_eq!(racing_line(&flow(read.thread.to_string())), Some(all_to_all_v));
    assert_eq!(racing_line(&flow(write.thread.to_string())), Some(stage_write));
    assert_ne!(read.thread.rank, write.thread.rank);
    assert_eq!((read.thread.block, write.thread.block), (Some(0), Some(0)));
    // Each thread's flow holds exactly its steps of the schedule.
    for (id, locations) in &flows {
        let steps = summary.schedule.iter().filter(|s| s.threads.iter().any(|t| t.to_string() == *id)).count();
        let danger = locations.iter().filter(|l| l["importance"] == "essential").count();
        assert_eq!(locations.len(), steps + danger, "{id}");
    }
}

#[test]
fn a_clean_run_is_a_log_without_results_and_a_bound_a_notification() {
    let input = "lit-tests/Sim/cost.mlir";
    let clean = scratch("clean.sarif");
    let (code, stderr) = ccl_sim(&[input, "--ranks", "2", "--entry", "main_once", "--sarif", clean.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let log = read_log(&clean);
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);

    let bounded = scratch("bounded.sarif");
    let (code, stderr) = ccl_sim(&[
        "lit-tests/Sim/put-without-fence.mlir",
        "--ranks",
        "2",
        "--max-states",
        "1",
        "--sarif",
        bounded.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    let log = read_log(&bounded);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notification = &invocation["toolExecutionNotifications"][0];
    assert!(notification["message"]["text"].as_str().unwrap().contains("no conclusion"));
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn an_input_error_is_a_result() {
    let input = "lit-tests/Sim/parse-error.mlir";
    let path = scratch("parse.sarif");
    let (code, stderr) = ccl_sim(&[input, "--ranks", "2", "--sarif", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    let log = read_log(&path);
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "input-error");
    let error_line: u64 = stderr.split(':').nth(1).unwrap().parse().unwrap();
    assert_eq!(line(&result["locations"][0]), error_line);
}

#[test]
fn a_log_that_cannot_be_written_is_an_error_and_a_device_stays_a_device() {
    let (code, stderr) =
        ccl_sim(&["lit-tests/Sim/put-without-fence.mlir", "--ranks", "2", "--sarif", "/nonexistent-dir/x.sarif"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("ccl-sim: error: cannot open output file '/nonexistent-dir/x.sarif'"), "{stderr}");
    let (code, _) = ccl_sim(&["lit-tests/Sim/put-without-fence.mlir", "--ranks", "2", "--sarif", "/dev/null"]);
    assert_eq!(code, 3);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}

#[test]
fn the_schema_rejects_what_is_not_sarif() {
    // The validation can fail: a log without its version is not SARIF.
    let mut log: Value = serde_json::from_str(
        &cclir::sarif::Log::new(
            "t",
            Vec::new(),
            Vec::new(),
            cclir::sarif::Invocation {
                execution_successful: true,
                exit_code: None,
                tool_execution_notifications: Vec::new(),
            },
        )
        .to_json(),
    )
    .unwrap();
    assert_valid(&log);
    log.as_object_mut().unwrap().remove("version");
    assert!(!schema_errors(&log).is_empty());
}

/// Runs ccl-opt with `args`; returns its exit code and stderr.
fn ccl_opt(args: &[&str]) -> (i32, String) {
    tools::run(env!("CARGO_BIN_EXE_ccl-opt"), args)
}

#[test]
fn ccl_opt_reports_the_checkers_error_with_its_note_as_a_related_location() {
    let input = "lit-tests/Sim/put-without-fence.mlir";
    let text = std::fs::read_to_string(repository().join(input)).unwrap();
    let path = scratch("checker.sarif");
    let (code, stderr) =
        ccl_opt(&[input, "-p", "builtin.module(ccl-verify-comm-order)", "--sarif", path.to_str().unwrap()]);
    assert_eq!(code, 1);
    // The diagnostics print as usual too.
    assert!(stderr.contains("error: remote publish reaches a ccl.notify without ccl.fence"), "{stderr}");
    let log = read_log(&path);
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "ccl-opt");
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{log:#}");
    let error = &results[0];
    assert_eq!(error["level"], "error");
    assert_eq!(error["message"]["text"], "remote publish reaches a ccl.notify without ccl.fence");
    assert_eq!(line(&error["locations"][0]), line_of(&text, "ccl.put %win"));
    assert_eq!(error["locations"][0]["physicalLocation"]["region"]["startColumn"], 5);
    let note = &error["relatedLocations"][0];
    assert_eq!(note["message"]["text"], "the ccl.notify it reaches");
    assert_eq!(line(note), line_of(&text, "ccl.notify set"));
    assert_eq!(results[1]["message"]["text"], "remote publish reaches the function's return without ccl.fence");
}

#[test]
fn ccl_opt_logs_parse_errors_clean_runs_and_says_when_it_cannot_write() {
    let parse = scratch("parse-opt.sarif");
    let (code, _) = ccl_opt(&["lit-tests/Sim/parse-error.mlir", &format!("--sarif={}", parse.display())]);
    assert_eq!(code, 1);
    let log = read_log(&parse);
    assert_eq!(log["runs"][0]["results"][0]["message"]["text"], "expected ':'");
    assert_eq!(line(&log["runs"][0]["results"][0]["locations"][0]), 18);

    let clean = scratch("clean-opt.sarif");
    let output = Command::new(env!("CARGO_BIN_EXE_ccl-opt"))
        .args([
            "lit-tests/Sim/put-without-fence.mlir",
            "-p",
            "builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)",
        ])
        .arg(format!("--sarif={}", clean.display()))
        .current_dir(repository())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("ccl.fence"), "the output is printed as usual");
    let log = read_log(&clean);
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], true);

    let (code, stderr) = ccl_opt(&["lit-tests/Sim/put-without-fence.mlir", "--sarif=/nonexistent-dir/x.sarif"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("cannot open output file '/nonexistent-dir/x.sarif'"), "{stderr}");

    let help = Command::new(env!("CARGO_BIN_EXE_ccl-opt")).arg("--help").output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("--sarif=<file>"), "--help lists --sarif");
}

#[test]
fn ccl_opt_logs_each_split_chunks_errors_at_the_whole_files_lines() {
    // --split-input-file: the first chunk reaches the checker, the second
    // does not parse; both are results, located in the whole file.
    let checked = std::fs::read_to_string(repository().join("lit-tests/Sim/put-without-fence.mlir")).unwrap();
    let text = format!("{checked}// -----\nfunc.func @f() {{\n  %x = arith.constant : i32\n}}\n");
    let input = scratch("split.mlir");
    std::fs::write(&input, &text).unwrap();
    let path = scratch("split.sarif");
    let (code, stderr) = ccl_opt(&[
        input.to_str().unwrap(),
        "--split-input-file",
        "-p",
        "builtin.module(ccl-verify-comm-order)",
        &format!("--sarif={}", path.display()),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error: expected attribute value"), "{stderr}");
    let log = read_log(&path);
    let results: Vec<(&str, u64)> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["message"]["text"].as_str().unwrap(), line(&r["locations"][0])))
        .collect();
    let put = line_of(&text, "ccl.put %win");
    assert_eq!(
        results,
        [
            ("remote publish reaches a ccl.notify without ccl.fence", put),
            ("remote publish reaches the function's return without ccl.fence", put),
            ("expected attribute value", line_of(&text, "%x = arith.constant : i32")),
        ]
    );
}

#[test]
fn ccl_opt_logs_an_input_its_pre_check_rejects_before_the_parser() {
    // Corrupted bytecode never reaches MLIR's reader: the pre-check's error
    // and its note are the log's result, as they are the printed report.
    let input = "lit-tests/Driver/Inputs/bytecode/offsets-overflow-end.mlirbc";
    let path = scratch("bytecode.sarif");
    let (code, stderr) = ccl_opt(&[input, &format!("--sarif={}", path.display())]);
    assert_eq!(code, 1);
    assert!(stderr.contains("offsets-overflow-end.mlirbc:0:0: error: the dialect group at file offset 59"), "{stderr}");
    let log = read_log(&path);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{log:#}");
    assert_eq!(results[0]["level"], "error");
    assert!(results[0]["message"]["text"].as_str().unwrap().starts_with("the dialect group at file offset 59"));
    let uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
    assert!(uri.ends_with("offsets-overflow-end.mlirbc"), "{uri}");
    assert_eq!(results[0]["relatedLocations"][0]["message"]["text"], "in bytecode version 6 produced by: MLIR22.1.8");
    assert_eq!(log["runs"][0]["invocations"][0]["exitCode"], 1);
}

#[test]
fn a_deadlock_is_a_result_at_the_first_stuck_op_with_the_others_related() {
    let input = "lit-tests/Sim/deadlock.mlir";
    let (log, text, _) = ccl_sim_finding(input, "deadlock.sarif");
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "deadlock");
    assert!(result["message"]["text"].as_str().unwrap().starts_with("deadlock: no step is possible"));
    let wait = line_of(&text, "ccl.wait ge %sig");
    assert_eq!(line(&result["locations"][0]), wait);
    let related: Vec<(u64, &str)> = result["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (line(l), l["message"]["text"].as_str().unwrap()))
        .collect();
    // Each stuck block at its wait, with the cell and its value; then each
    // host, waiting for its launch.
    let stuck = |rank: u32| {
        format!(
            "rank {rank} block 0 waits at 'ccl.wait' for element 0 of argument #0 of @main on rank {rank} to be >= 1: \
             it holds 0; no notify of the program can write it; launch 1 of @waiter"
        )
    };
    assert_eq!(related.len(), 4, "{related:?}");
    assert_eq!(related[..2], [(wait, stuck(0).as_str()), (wait, stuck(1).as_str())]);
    let call = line_of(&text, "call @waiter");
    for (rank, (at, note)) in related[2..].iter().enumerate() {
        assert_eq!(*at, call, "{note}");
        assert!(note.starts_with(&format!("rank {rank} host waits for its launch of @waiter to finish")), "{note}");
    }
}
