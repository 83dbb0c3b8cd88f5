//! mpv's counterexamples against LDV's own error traces
//! (`ldv-linux-3.0/*_false.error_trace.txt`): for each trace, the task of
//! `single.tsv` it belongs to (the `.i` variant, then the `.cil.c` one unless
//! the first is FALSE) is verified and the calls
//! of LDV model functions (`ldv_*`) along mpv's counterexample are compared
//! with those along LDV's trace: the same calls in the same order agree.
//!
//!     cargo bench --bench traces          # MPV_TIME_LIMIT (default 60) per task
//!     MPV_TRACES_RESULTS=single.jsonl cargo bench --bench traces
//!
//! With `MPV_TRACES_RESULTS`, the verdicts and counterexamples come from a
//! results file of `mpv batch` (e.g. the single bench's) instead of new runs.

use std::process::Command;

#[path = "../tests/common/mod.rs"]
mod common;

/// `ldv_*` names in the order of LDV's `FunctionCall(...)` entries.
fn ldv_calls(trace: &str) -> Vec<String> {
    trace
        .split("FunctionCall(")
        .skip(1)
        .filter_map(|s| {
            let call = s.split('(').next()?;
            let name = call.rsplit("= ").next()?.trim();
            name.starts_with("ldv_").then(|| name.to_string())
        })
        .collect()
}

/// `ldv_*` functions called or entered along mpv's counterexample.
fn mpv_calls(cex: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for step in cex["steps"].as_array().into_iter().flatten() {
        let op = step["op"].as_str().unwrap_or("");
        let name = if let Some(f) = op.strip_prefix("enter ") {
            f.to_string()
        } else if op.starts_with("return from ") {
            continue;
        } else {
            let call = op.rsplit("= ").next().unwrap_or(op);
            match call.split_once('(') {
                Some((f, _)) if f.chars().all(|c| c.is_alphanumeric() || c == '_') => f.to_string(),
                _ => continue,
            }
        };
        if name.starts_with("ldv_") {
            out.push(name);
        }
    }
    out
}

fn main() {
    let dir = common::corpus_dir();
    let limit = std::env::var("MPV_TIME_LIMIT").unwrap_or_else(|_| "60".into());
    let set = dir.join("ldv-linux-3.0");
    let mut traces: Vec<_> = std::fs::read_dir(&set)
        .expect("ldv-linux-3.0")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".error_trace.txt"))
        .collect();
    traces.sort();
    // file name -> the verify JSON of a batch results file, if one is given.
    let recorded: Option<std::collections::HashMap<String, serde_json::Value>> =
        std::env::var("MPV_TRACES_RESULTS").ok().map(|f| {
            std::fs::read_to_string(&f)
                .expect("the results file")
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter_map(|v| {
                    let name = v["file"].as_str()?.rsplit('/').next()?.to_string();
                    Some((name, v))
                })
                .collect()
        });
    let (mut found, mut agree) = (0, 0);
    for t in &traces {
        let name = t
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".error_trace.txt", "");
        // The module comes as raw `.i` and as `.cil.c`: the first variant
        // mpv finds the violation in is compared.
        let variants: Vec<_> = ["cil.out.i.pp.i", "cil.out.i.pp.cil.c"]
            .iter()
            .map(|ext| set.join(format!("{name}.{ext}")))
            .filter(|t| t.exists())
            .collect();
        if variants.is_empty() {
            println!("{name}: no task file");
            continue;
        }
        let mut j = serde_json::Value::Null;
        for task in &variants {
            j = match &recorded {
                Some(results) => {
                    let file = task.file_name().unwrap().to_string_lossy().to_string();
                    results.get(&file).cloned().unwrap_or_default()
                }
                None => {
                    let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
                        .arg("verify")
                        .arg(task)
                        .arg("--prp")
                        .arg(set.join("ALL.prp"))
                        .args(["--time-limit", &limit, "--format", "json"])
                        .output()
                        .expect("mpv runs");
                    serde_json::from_slice(&out.stdout).unwrap_or_default()
                }
            };
            if j["properties"][0]["verdict"] == "false" {
                break;
            }
        }
        let p = &j["properties"][0];
        let theirs = ldv_calls(&std::fs::read_to_string(t).unwrap());
        let verdict = p["verdict"].as_str().unwrap_or("error");
        if verdict != "false" {
            println!("{name}: {verdict} ({})", p["reason"].as_str().unwrap_or(""));
            continue;
        }
        found += 1;
        let ours = mpv_calls(&p["counterexample"]);
        let same = ours == theirs;
        agree += same as usize;
        println!(
            "{name}: FALSE, {}\n  LDV: {}\n  mpv: {}",
            if same {
                "same model calls"
            } else {
                "different model calls"
            },
            theirs.join(" "),
            ours.join(" ")
        );
    }
    println!(
        "{} traces, {found} FALSE found by mpv, {agree} with the same model calls in the same order ({})",
        traces.len(),
        match std::env::var("MPV_TRACES_RESULTS") {
            Ok(f) => format!("results of {f}"),
            Err(_) => format!("time limit {limit} s"),
        }
    );
}
