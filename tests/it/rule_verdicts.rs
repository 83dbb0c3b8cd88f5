//! Verdicts for every rule of the library on its own test program
//! (`tests/programs/rules/RULE.c`): verified from each `bad_ERROR` function
//! the rule is violated (FALSE, with a counterexample ending in an error
//! state of the rule), from each `safe_ERROR` function it holds (TRUE).
//! Together with `spec_rules.rs` (which walks the same programs' paths)
//! this checks the rule library end to end through LOOM weaving.

use std::path::Path;
use std::process::Command;

#[test]
fn bad_functions_violate_their_rule_and_safe_ones_do_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/programs/rules");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in &files {
        let rule = file.file_stem().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(file).unwrap();
        let entries: Vec<&str> = src
            .split("void ")
            .skip(1)
            .filter_map(|s| s.split('(').next())
            .filter(|n| n.starts_with("bad_") || n.starts_with("safe_"))
            .collect();
        for entry in entries {
            let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
                .arg("verify")
                .arg(file)
                .arg("--properties")
                .arg(root.join(format!("properties/{rule}.spec")))
                .args(["--entry", entry, "--strategy", "s0", "--time-limit", "30"])
                .args(["--format", "json"])
                .output()
                .expect("mpv runs");
            assert!(
                out.status.success(),
                "{rule} {entry}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let p = &j["properties"][0];
            let want = if entry.starts_with("bad_") {
                "false"
            } else {
                "true"
            };
            if p["verdict"] != want {
                failures.push(format!(
                    "{rule} {entry}: expected {want}, got {} ({})",
                    p["verdict"],
                    p["reason"].as_str().unwrap_or("")
                ));
            } else if want == "false" {
                assert_eq!(p["counterexample"]["property"], rule.as_str());
            }
            checked += 1;
        }
    }
    assert!(checked >= 90, "only {checked} functions found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
