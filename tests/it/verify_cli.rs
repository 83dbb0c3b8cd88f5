//! `mpv verify` end to end: the JSON schema, sound TRUE for unreachable error
//! locations, FALSE with a counterexample for reachable ones, clear errors.

use std::path::{Path, PathBuf};
use std::process::Command;

fn prog(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/verify")
        .join(name)
}

fn verify(file: &Path, extra: &[&str]) -> (bool, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("verify")
        .arg(file)
        .arg("--prp")
        .arg(prog("error_label.prp"))
        .args(["--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.success(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn error_reachable_through_a_callback_is_not_proved() {
    let (ok, j, err) = verify(&prog("callback_reaches_error.c"), &[]);
    assert!(ok, "{err}");
    let p = &j["properties"][0];
    assert_eq!(p["id"], "label:ERROR");
    assert_eq!(p["verdict"], "false", "x > 3 is possible");
    assert!(p["counterexample"]["steps"]
        .as_array()
        .is_some_and(|s| !s.is_empty()));
    assert_eq!(p["relevant"], true);
    for key in [
        "parse_s",
        "cfa_s",
        "analysis_cpu_s",
        "total_cpu_s",
        "peak_rss_mb",
        "reached_states",
    ] {
        assert!(j["stats"][key].is_number(), "stats.{key}");
    }
}

#[test]
fn error_in_a_function_never_called_is_true() {
    let (ok, j, err) = verify(&prog("dead_error.c"), &[]);
    assert!(ok, "{err}");
    assert_eq!(j["properties"][0]["verdict"], "true");
    assert_eq!(j["properties"][0]["relevant"], true);
}

#[test]
fn limits_give_unknown_with_the_reason() {
    let (ok, j, _) = verify(&prog("dead_error.c"), &["--time-limit", "0"]);
    assert!(ok);
    assert_eq!(j["properties"][0]["verdict"], "unknown");
    let reason = j["properties"][0]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("timeout"), "{reason}");
}

#[test]
fn bad_input_gives_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("mpv-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.c");
    std::fs::write(&bad, "int main(void) {\n  return 0\n}\n").unwrap();
    let (ok, _, err) = verify(&bad, &[]);
    assert!(!ok);
    assert!(err.contains("bad.c:3:1: syntax error"), "{err}");
    let (ok, _, err) = verify(&dir.join("missing.c"), &[]);
    assert!(!ok);
    assert!(
        err.contains("missing.c") && err.contains("No such file"),
        "{err}"
    );
    let (ok, _, err) = verify(&prog("dead_error.c"), &["--select", "label:NOPE"]);
    assert!(!ok);
    assert!(err.contains("no property `label:NOPE`"), "{err}");
}

#[test]
fn an_error_behind_a_constant_bound_loop_is_found_under_explicit_values() {
    // Predicate abstraction alone needs a refinement per iteration of the
    // 60-iteration initialisation loop; the search under explicit values
    // unrolls it and the exact re-execution confirms the path.
    let (ok, j, err) = verify(&prog("table_init_false.c"), &["--time-limit", "20"]);
    assert!(ok, "{err}");
    let p = &j["properties"][0];
    assert_eq!(p["verdict"], "false", "{p}");
    let steps = p["counterexample"]["steps"].as_array().expect("steps");
    let in_loop = steps
        .iter()
        .filter(|s| s["op"].as_str().is_some_and(|o| o.contains("table[i]")))
        .count();
    assert_eq!(in_loop, 60, "every iteration is on the path");
}

#[test]
fn a_call_through_a_pointer_keeps_candidates_whose_address_unreachable_code_takes() {
    // With a time limit, the bug-hunting variant (the case of `bad` cut)
    // comes first. Without `bad`, ERROR is unreachable there, but the cut
    // is reachable (o->cb may be `bad`), so that TRUE must not be
    // reported: the module's own run reaches ERROR through `bad`.
    let (ok, j, err) = verify(&prog("pointer_candidate_false.c"), &["--time-limit", "10"]);
    assert!(ok, "{err}");
    assert_eq!(j["properties"][0]["verdict"], "false", "{j}");
    let reason = j["properties"][0]["reason"].as_str().unwrap_or_default();
    assert!(!reason.contains("bug-hunting variant"), "{j}");
    let partitions = j["stats"]["partitions"].as_array().unwrap();
    let runs: Vec<_> = partitions.iter().map(|p| &p["bug_hunting"]).collect();
    assert_eq!(runs.first(), Some(&&serde_json::json!(true)), "{j}");
    assert_eq!(
        runs.last(),
        Some(&&serde_json::json!(false)),
        "the module's run: {j}"
    );
    let (ok, j, err) = verify(&prog("pointer_candidate_false.c"), &[]);
    assert!(ok, "{err}");
    assert_eq!(j["properties"][0]["verdict"], "false", "{j}");
}

#[test]
fn an_error_the_bug_hunting_variant_finds_is_reported_without_a_second_run() {
    let (ok, j, err) = verify(&prog("hunt_false.c"), &["--time-limit", "10"]);
    assert!(ok, "{err}");
    assert_eq!(j["properties"][0]["verdict"], "false", "{j}");
    let partitions = j["stats"]["partitions"].as_array().unwrap();
    assert!(
        partitions.iter().all(|p| p["bug_hunting"] == true),
        "only the bug-hunting run: {j}"
    );
    let reason = j["properties"][0]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("bug-hunting variant"), "{j}");
}

#[test]
fn a_proof_on_the_bug_hunting_variant_holds_once_its_cut_is_unreachable() {
    let (ok, j, err) = verify(&prog("hunt_cut_true.c"), &["--time-limit", "10"]);
    assert!(ok, "{err}");
    assert_eq!(j["properties"].as_array().unwrap().len(), 1, "{j}");
    assert_eq!(j["properties"][0]["verdict"], "true", "{j}");
    let reason = j["properties"][0]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("bug-hunting variant"), "{j}");
    let partitions = j["stats"]["partitions"].as_array().unwrap();
    assert!(
        partitions.iter().all(|p| p["bug_hunting"] == true),
        "no run on the module: {j}"
    );
    // The same program verified without the variant agrees.
    let (ok, j, err) = verify(&prog("hunt_cut_true.c"), &[]);
    assert!(ok, "{err}");
    assert_eq!(j["properties"][0]["verdict"], "true", "{j}");
}

#[test]
fn output_that_cannot_be_written_is_a_clear_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system
    };
    let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("verify")
        .arg(prog("callback_reaches_error.c"))
        .arg("--prp")
        .arg(prog("error_label.prp"))
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write to standard output") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn limits_that_are_not_positive_finite_seconds_are_refused() {
    for bad in ["nan", "inf", "-1", "1e30"] {
        let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
            .arg("verify")
            .arg(prog("callback_reaches_error.c"))
            .arg(format!("--time-limit={bad}"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("--time-limit") && !err.contains("panicked"),
            "{err}"
        );
    }
}

#[test]
fn deep_nesting_is_parsed_or_refused_with_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("mpv-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str, src: String| {
        let f = dir.join(name);
        std::fs::write(&f, src).unwrap();
        verify(&f, &[])
    };
    // Thousands of levels, as generated code has them: parsed.
    let n = 10_000;
    let parens = format!(
        "int main(void) {{ int x = {}1{}; if (x) {{ ERROR: ; }} return 0; }}",
        "(".repeat(n),
        ")".repeat(n)
    );
    let (ok, j, err) = run("parens.c", parens);
    assert!(ok, "{err}");
    assert_eq!(j["properties"][0]["verdict"], "false");
    let blocks = format!(
        "int main(void) {{ int x = 0; {}x++;{} return 0; }}",
        "{".repeat(n),
        "}".repeat(n)
    );
    let (ok, j, err) = run("blocks.c", blocks);
    assert!(ok, "{err}");
    assert_eq!(j["properties"][0]["verdict"], "true");
    // Beyond what the front end parses: an error naming file:line.
    let n = 200_000;
    let deep = format!(
        "int main(void) {{ int y; int x = {}y; return x; }}",
        "!".repeat(n)
    );
    let (ok, _, err) = run("deep.c", deep);
    assert!(
        !ok && err.contains("deep.c:1:") && err.contains("nested deeper"),
        "{err}"
    );
}

#[test]
fn properties_starting_at_different_entries_are_not_verified_from_one() {
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mpv"))
            .arg("verify")
            .arg(prog("dead_error.c"))
            .arg("--prp")
            .arg(prog("two_entries.prp"))
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("two_entries.prp:2") && err.contains("other()"),
        "{err}"
    );
    assert!(run(&["--select", "label:ERROR"]).status.success());
}
