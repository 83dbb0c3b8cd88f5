//! Violation witnesses of `mpv verify --witness-dir` on the test programs,
//! checked against the formats: SV-COMP YAML 2.0 (required keys and their
//! types; every segment ends in exactly one `follow` waypoint, the last one
//! in the `target`; locations inside the input file) and GraphML 1.0 (the
//! graph keys, one entry and one violation node, edges between declared
//! nodes at lines of the input file); and the correctness witness of every
//! TRUE (`correctness_format.rs`). The programs are discovered from
//! `tests/programs/{verify,engine,multi,witness}`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::correctness_format::check_invariant_set;
use crate::witness_format::{check_graphml, check_yaml};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// The property options of a program: the directory's property file, the
/// one its header names (`prp: FILE`), or none (the bundled rules).
fn property_args(file: &Path) -> Vec<PathBuf> {
    let dir = file.parent().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    if let Some(i) = text.find("prp: ") {
        let name = text[i + 5..].split_whitespace().next().unwrap();
        return vec![dir.join(name)];
    }
    ["error_label.prp", "error.prp"]
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.exists())
        .collect()
}

fn programs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in ["verify", "engine", "multi", "witness"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(d))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// `mpv validate` of `witness`: its exit code and line.
pub fn validate(witness: &str, file: &Path) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpv"));
    cmd.arg("validate").arg("--witness").arg(witness).arg(file);
    for p in property_args(file) {
        cmd.arg("--prp").arg(p);
    }
    let out = cmd.args(["--time-limit", "20"]).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// Runs `mpv verify` with witnesses into `dir`: the JSON report.
pub fn verify(file: &Path, dir: &Path) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpv"));
    cmd.arg("verify").arg(file);
    for p in property_args(file) {
        cmd.arg("--prp").arg(p);
    }
    let out = cmd
        .args(["--time-limit", "10", "--format", "json", "--witness-dir"])
        .arg(dir)
        .output()
        .unwrap();
    if out.status.code() == Some(1) && out.stdout.is_empty() {
        // Input mpv refuses (a redefinition, ...): no result, no witness.
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("mpv: error:"), "{}: {err}", file.display());
        return serde_json::json!({ "properties": [] });
    }
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_false_property_has_witnesses_in_both_formats() {
    let dir = std::env::temp_dir().join(format!("mpv-witness-test-{}", std::process::id()));
    let files = programs();
    let chunks: Vec<&[PathBuf]> = files.chunks(files.len().div_ceil(2)).collect();
    let reports: Vec<(PathBuf, serde_json::Value)> = std::thread::scope(|s| {
        let hs: Vec<_> = chunks
            .iter()
            .map(|c| {
                s.spawn(|| {
                    c.iter()
                        .map(|f| (f.clone(), verify(f, &dir)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, j) in &reports {
        let props = j["properties"].as_array().unwrap();
        let falses: Vec<_> = props.iter().filter(|p| p["verdict"] == "false").collect();
        let name = file.file_name().unwrap().to_string_lossy();
        if name.ends_with("_false.c") && falses.is_empty() {
            problems.push(format!("{name}: no FALSE, so no witness to check"));
        }
        // Every TRUE has its correctness witness.
        for p in props.iter().filter(|p| p["verdict"] == "true") {
            let ws: Vec<&str> = p["witnesses"]
                .as_array()
                .map(|a| a.iter().filter_map(|w| w.as_str()).collect())
                .unwrap_or_default();
            match ws[..] {
                [w] if w.ends_with(".correctness.yml") => {
                    let text = std::fs::read_to_string(w).unwrap();
                    checked += 1;
                    if let Err(e) = check_invariant_set(&text, file) {
                        problems.push(format!("{w}: {e}"));
                    }
                }
                _ => problems.push(format!("{name} {}: witnesses {ws:?}", p["id"])),
            }
        }
        for p in falses {
            let ws: Vec<&str> = p["witnesses"]
                .as_array()
                .map(|a| a.iter().filter_map(|w| w.as_str()).collect())
                .unwrap_or_default();
            if ws.len() != 2 {
                problems.push(format!("{name} {}: witnesses {ws:?}", p["id"]));
                continue;
            }
            for w in ws {
                let text = std::fs::read_to_string(w).unwrap();
                let r = match w.ends_with(".yml") {
                    true => check_yaml(&text, file),
                    false => check_graphml(&text, file),
                };
                checked += 1;
                if let Err(e) = r {
                    problems.push(format!("{w}: {e}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!("{checked} witnesses checked");
    // Every YAML violation witness replays to a confirmed violation.
    let mut yaml: Vec<(String, PathBuf)> = Vec::new();
    for (file, j) in &reports {
        for p in j["properties"].as_array().unwrap() {
            if p["verdict"] != "false" {
                continue;
            }
            for w in p["witnesses"].as_array().into_iter().flatten() {
                let w = w.as_str().unwrap();
                if w.ends_with(".yml") {
                    yaml.push((w.to_string(), file.clone()));
                }
            }
        }
    }
    let half = yaml.len().div_ceil(2).max(1);
    let failures: Vec<String> = std::thread::scope(|s| {
        let hs: Vec<_> = yaml
            .chunks(half)
            .map(|c| {
                s.spawn(move || {
                    c.iter()
                        .map(|(w, f)| validate(w, f))
                        .filter(|(code, _)| *code != 0)
                        .map(|(code, line)| format!("exit {code}: {line}"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{} witnesses replayed and confirmed", yaml.len());
}

#[test]
fn a_witness_going_the_other_way_at_a_branch_is_not_confirmed() {
    let input = root().join("witness/reach_error_false.c");
    let dir = std::env::temp_dir().join(format!("mpv-witness-replay-{}", std::process::id()));
    let j = verify(&input, &dir);
    let yml = j["properties"][0]["witnesses"][0]
        .as_str()
        .unwrap()
        .to_string();
    let text = std::fs::read_to_string(&yml).unwrap();
    assert_eq!(
        validate(&yml, &input).0,
        0,
        "the witness as written is confirmed"
    );
    let flipped = dir.join("flipped.yml");
    std::fs::write(
        &flipped,
        text.replacen("value: 'true'", "value: 'false'", 1),
    )
    .unwrap();
    let (code, line) = validate(flipped.to_str().unwrap(), &input);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 2, "{line}");
    assert!(line.contains("not confirmed"), "{line}");
}

#[test]
fn a_violation_under_ldv_assumptions_is_replayed_under_them() {
    let input = root().join("witness/ldv_assumption_false.c");
    let dir = std::env::temp_dir().join(format!("mpv-witness-ldv-{}", std::process::id()));
    let j = verify(&input, &dir);
    let yml = j["properties"][0]["witnesses"][0]
        .as_str()
        .unwrap()
        .to_string();
    let text = std::fs::read_to_string(&yml).unwrap();
    let (code, line) = validate(&yml, &input);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(text.contains("configuration: ldv-assumptions"), "{text}");
    assert!(text.contains("do not change the module"), "{text}");
    assert_eq!(code, 0, "{line}");
    assert!(line.contains("under LDV's assumptions"), "{line}");
}

#[test]
fn the_format_check_rejects_broken_witnesses() {
    let input = root().join("witness/reach_error_false.c");
    let dir = std::env::temp_dir().join(format!("mpv-witness-broken-{}", std::process::id()));
    let j = verify(&input, &dir);
    let ws = j["properties"][0]["witnesses"].as_array().unwrap();
    let yml = std::fs::read_to_string(ws[0].as_str().unwrap()).unwrap();
    let graphml = std::fs::read_to_string(ws[1].as_str().unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    check_yaml(&yml, &input).unwrap();
    check_graphml(&graphml, &input).unwrap();
    assert!(check_yaml(&yml.replace("type: target", "type: branching"), &input).is_err());
    assert!(check_yaml(&yml.replace("action: follow", "action: avoid"), &input).is_err());
    assert!(check_yaml(&yml.replace("line: ", "line: 9999"), &input).is_err());
    assert!(check_yaml(
        &yml.replace("format_version: '2.0'", "format_version: 2"),
        &input
    )
    .is_err());
    assert!(check_graphml(
        &graphml.replace(
            ">true</data>\n  </node>\n  <edge",
            ">false</data>\n  </node>\n  <edge"
        ),
        &input
    )
    .is_err());
    assert!(check_graphml(
        &graphml.replace("<data key=\"startline\">", "<data key=\"startline\">9999"),
        &input
    )
    .is_err());
}
