//! Correctness witnesses of `mpv verify --witness-dir` for TRUE properties
//! of programs whose loop invariants are known: where they sit, what they
//! say, and that the format check holds them (and rejects broken ones).

use std::path::{Path, PathBuf};

use crate::correctness_format::check_invariant_set;

fn program(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/witness")
        .join(name)
}

/// Verifies `input` (against the property file its header names) with
/// witnesses into a fresh directory: the one property's verdict, its
/// correctness witness and that witness' text.
fn verify(input: &Path, tag: &str) -> (String, PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("mpv-correctness-{tag}-{}", std::process::id()));
    let j = crate::witness_cli::verify(input, &dir);
    let p = &j["properties"][0];
    let path = PathBuf::from(p["witnesses"][0].as_str().expect("a witness"));
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (p["verdict"].as_str().unwrap().to_string(), path, text)
}

/// The invariants of the TRUE program `name` (as the format check reads
/// them: line and value), with the program's path and the witness text.
fn true_invariants(name: &str) -> (PathBuf, String, Vec<(u64, String)>) {
    let input = program(name);
    let (verdict, _, text) = verify(&input, name);
    assert_eq!(verdict, "true", "{name}");
    let invariants = check_invariant_set(&text, &input).unwrap();
    (input, text, invariants)
}

/// Checks that the invariants of the TRUE program `name` are `expected`:
/// each the value at the line that contains its needle. The witness text.
fn expect_invariants(name: &str, expected: &[(&str, &str)]) -> String {
    let (input, text, invariants) = true_invariants(name);
    let expected: Vec<(u64, String)> = expected
        .iter()
        .map(|(needle, value)| (line_of(&input, needle), value.to_string()))
        .collect();
    assert_eq!(invariants, expected, "{name}: {text}");
    text
}

/// The 1-based line of `input` that contains `needle`.
fn line_of(input: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(input).unwrap();
    text.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1
}

#[test]
fn a_counting_loop_gets_the_values_of_its_counter_from_the_value_search() {
    let input = program("counting_loop_true.c");
    let (verdict, path, text) = verify(&input, "count");
    assert_eq!(verdict, "true");
    assert!(
        path.to_string_lossy()
            .ends_with("counting_loop_true.c.call_reach_error.correctness.yml"),
        "{}",
        path.display()
    );
    let invariants = check_invariant_set(&text, &input).unwrap();
    let counter: Vec<String> = (0..=10).map(|k| format!("i == {k}")).collect();
    assert_eq!(
        invariants,
        [(line_of(&input, "for (i = 0"), counter.join(" || "))],
        "{text}"
    );
}

#[test]
fn a_loop_of_unknown_bound_gets_what_the_predicate_analysis_knows() {
    expect_invariants("unknown_bound_loop_true.c", &[("for (i = 0", "i >= 0")]);
}

#[test]
fn explicit_values_give_the_flag_at_both_loops_without_the_callers_local() {
    // In `work`, `mode` (main's) is known but not in scope.
    let text = expect_invariants(
        "flag_loops_true.c",
        &[
            ("while (", "busy == 0 && rounds == 3U"),
            ("again:", "busy == 0 && rounds == 3U && mode == 7"),
        ],
    );
    let (loop_at, label_at) = (
        text.find("type: loop_invariant").unwrap(),
        text.find("type: location_invariant").unwrap(),
    );
    assert!(
        loop_at < label_at,
        "the `while` first, the label second: {text}"
    );
    assert!(text.contains("function: work"), "{text}");
}

#[test]
fn a_true_without_loops_claims_nothing() {
    let (_, text, invariants) = true_invariants("reach_error_true.c");
    assert_eq!(invariants, []);
    assert!(text.contains("entry_type: invariant_set"), "{text}");
    assert!(text.contains("content: []"), "{text}");
}

#[test]
fn the_format_check_rejects_broken_correctness_witnesses_and_validate_declines_them() {
    let input = program("flag_loops_true.c");
    let (_, _, text) = verify(&input, "broken");
    check_invariant_set(&text, &input).unwrap();
    let if_line = line_of(&input, "if (busy");
    let loop_line = line_of(&input, "while (");
    let broken = [
        text.replace("value: busy == 0", "value: busy == )"),
        text.replace(&format!("line: {loop_line}"), &format!("line: {if_line}")),
        text.replace(
            "entry_type: invariant_set",
            "entry_type: violation_sequence",
        ),
        text.replace("format: c_expression", "format: acsl"),
        text.replace("type: loop_invariant", "type: invariant"),
    ];
    for b in &broken {
        assert_ne!(b, &text);
        assert!(check_invariant_set(b, &input).is_err(), "{b}");
    }
    // mpv validate declines the witness as mpv wrote it.
    let dir = std::env::temp_dir().join(format!("mpv-correctness-validate-{}", std::process::id()));
    let j = crate::witness_cli::verify(&input, &dir);
    let written = j["properties"][0]["witnesses"][0]
        .as_str()
        .unwrap()
        .to_string();
    let (code, said) = crate::witness_cli::validate(&written, &input);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("correctness witnesses (invariant_set) are not validated by mpv"),
        "{said}"
    );
}

#[test]
fn a_loop_the_analysis_does_not_see_in_every_run_gets_no_invariant() {
    // `descend`'s nested call is cut: at its loop the explicit values saw
    // `depth == 0` only, which the nested call (depth 1) breaks.
    let text = expect_invariants("recursion_true.c", &[("while (__VERIFIER", "depth == 0")]);
    assert!(!text.contains("function: descend"), "{text}");
}
