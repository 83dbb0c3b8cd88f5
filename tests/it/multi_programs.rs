//! Several rules at once on small programs with known verdicts (the
//! `expect:` line of each file in `tests/programs/multi/`), under every
//! decomposition strategy and the baseline: some rules violated, some not,
//! several violations on one path, a violation inside a loop, an
//! irrelevant rule. Every verdict must be the expected one.

use std::path::Path;
use std::process::Command;

use crate::common::{self, Expectation};

const STRATEGIES: [&str; 6] = ["baseline", "s0", "s1", "s2", "s3", "s4"];

fn verify(program: &Path, rules: &[Expectation], strategy: &str) -> serde_json::Value {
    let props = Path::new(env!("CARGO_MANIFEST_DIR")).join("properties");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpv"));
    cmd.arg("verify").arg(program);
    for e in rules {
        cmd.arg("--properties")
            .arg(props.join(format!("{}.spec", e.key)));
    }
    let out = cmd
        .args([
            "--strategy",
            strategy,
            "--time-limit",
            "60",
            "--format",
            "json",
        ])
        .output()
        .expect("mpv runs");
    assert!(
        out.status.success(),
        "{}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

#[test]
fn every_strategy_gives_the_expected_verdict_for_every_rule() {
    let mut failures = Vec::new();
    let progs = common::test_programs("multi", &[]);
    assert!(progs.len() >= 4, "the multi-rule programs are there");
    for prog in &progs {
        for strategy in STRATEGIES {
            let j = verify(&prog.path, &prog.expect, strategy);
            assert_eq!(j["strategy"], strategy);
            for want in &prog.expect {
                let rule = &want.key;
                let p = j["properties"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["id"] == rule.as_str())
                    .unwrap_or_else(|| panic!("{rule} in the output"));
                let got = p["verdict"].as_str().unwrap_or("");
                if !want.admits(got) {
                    failures.push(format!(
                        "{} {strategy} {rule}: expected {}, got {got} ({})",
                        prog.name(),
                        want.text(),
                        p["reason"].as_str().unwrap_or("")
                    ));
                }
                if got == "false" {
                    let cex = &p["counterexample"];
                    assert_eq!(
                        cex["property"],
                        rule.as_str(),
                        "the counterexample names its property"
                    );
                    assert!(!cex["steps"].as_array().unwrap().is_empty());
                }
            }
            let partitions = j["stats"]["partitions"].as_array().unwrap();
            // Properties no step of the program can drive towards an
            // error are decided before any analysis run.
            let analysed = j["properties"].as_array().unwrap().iter().any(|p| {
                !p["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("syntactic check"))
            });
            assert_eq!(
                !partitions.is_empty(),
                analysed,
                "an analysis run exactly when some property needs one"
            );
            if strategy == "baseline" {
                assert!(
                    partitions
                        .iter()
                        .all(|r| r["properties"].as_array().unwrap().len() == 1),
                    "baseline runs one property at a time"
                );
            }
            if strategy == "s0" && analysed {
                assert_eq!(partitions.len(), 1, "S0 is one partition");
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `mpv verify` of `program` with the bundled library under S0, or with
/// only the rule `select`: the reached states.
fn reached_states(program: &Path, select: Option<&str>) -> u64 {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpv"));
    cmd.arg("verify").arg(program);
    if let Some(r) = select {
        cmd.args(["--select", r]);
    }
    let out = cmd
        .args(["--strategy", "s0", "--format", "json"])
        .output()
        .expect("mpv runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    j["stats"]["reached_states"]
        .as_u64()
        .expect("a state count")
}

#[test]
fn the_whole_library_together_reaches_no_more_states_than_twice_its_rules_alone() {
    // Automata that branch on the same call share its outcome: the joint
    // state space grows with the sum of the rules', not their product.
    let prog = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/multi/two_violations_one_path.c");
    let rules: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("properties"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "spec"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
    assert!(rules.len() >= 18, "the bundled library");
    let alone: u64 = rules.iter().map(|r| reached_states(&prog, Some(r))).sum();
    let together = reached_states(&prog, None);
    assert!(
        together <= 2 * alone,
        "{together} states together, {alone} in the sum of the rules alone"
    );
}

#[test]
fn the_text_trace_shows_where_the_rule_changes_its_control_state() {
    // 32_1 on the README example: the trace's lines say where the rule's
    // automaton leaves its initial state and where it enters its error.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rule = mpv::spec::library::load(&root.join("properties/32_1.spec"))
        .unwrap()
        .remove(0);
    let initial = &rule.states[rule.initial as usize].name;
    let error = rule
        .states
        .iter()
        .find(|s| matches!(s.kind, mpv::spec::automaton::StateKind::Error { .. }))
        .map(|s| &s.name)
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("verify")
        .arg(root.join("tests/programs/multi/two_violations_one_path.c"))
        .args(["--select", "32_1", "--trace"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let leaves = format!("{}: {initial} -> ", rule.name);
    let enters = format!(" -> {error}");
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle));
    let (Some(a), Some(b)) = (line_of(&leaves), line_of(&enters)) else {
        panic!("no moves `{leaves}`, `{enters}` in\n{text}");
    };
    assert!(a < b, "{text}");
    assert!(
        text.lines().nth(b).unwrap().contains("mutex_lock"),
        "{text}"
    );
}
