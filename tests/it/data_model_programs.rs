//! The data model (`--data-model ilp32|lp64`): every program of
//! `tests/programs/data_model/` names, in its `expect:` comment, its
//! verdicts under ILP32 (`ilp32=`) and under LP64 (`lp64=`). Each is checked
//! three ways: `mpv verify` end to end, CEGAR alone and bounded symbolic
//! execution on the exact encoding (the last two may also be UNKNOWN, never
//! the opposite verdict).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use mpv::algorithm::{cegar, symexec};
use mpv::frontend::{parse_file, FrontendOptions};
use mpv::ir::DataModel;

use crate::common;

/// `mpv verify` of the label `ERROR` under `model`: the verdict word.
fn verify(path: &Path, model: &str) -> String {
    let prp = path.with_file_name("error.prp");
    let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("verify")
        .arg(path)
        .arg("--prp")
        .arg(prp)
        .args(["--data-model", model, "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    json["properties"][0]["verdict"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

/// CEGAR alone and symbolic execution under `model`.
fn engines(path: &Path, model: DataModel) -> [&'static str; 2] {
    let options = FrontendOptions {
        data_model: model,
        ..FrontendOptions::default()
    };
    let p = parse_file(path, &options).expect("parses");
    let c = cegar::check_label(
        &p,
        "ERROR",
        cegar::CegarOptions {
            work: Some(Duration::from_secs(30)),
            max_refinements: 30,
            lazy_abstraction: true,
        },
    );
    let s = symexec::check_label(&p, "ERROR", Some(Duration::from_secs(20)));
    [
        common::verdict_word(c.verdict),
        common::verdict_word(s.verdict),
    ]
}

#[test]
fn every_program_gives_its_verdict_under_each_data_model() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for prog in common::test_programs("data_model", &["ilp32", "lp64"]) {
        for (key, model) in [("ilp32", DataModel::Ilp32), ("lp64", DataModel::Lp64)] {
            let want = prog
                .expected(key)
                .unwrap_or_else(|| panic!("{}: no `{key}=`", prog.name()));
            let got = verify(&prog.path, key);
            if !want.admits(&got) {
                failures.push(format!(
                    "{} ({key}): mpv verify gives {got}, expected {}",
                    prog.name(),
                    want.text()
                ));
            }
            for (engine, got) in ["cegar", "symexec"].iter().zip(engines(&prog.path, model)) {
                if !(want.admits(got) || got == "unknown") {
                    failures.push(format!(
                        "{} ({key}): {engine} gives {got}, expected {}",
                        prog.name(),
                        want.text()
                    ));
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} programs × models");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
