//! mpv's counterexamples against LDV's own error traces
//! (`ldv-linux-3.0/*_false.error_trace.txt`): for each trace, the task of
//! `single.tsv` it belongs to (the `.i` variant, then the `.cil.c` one unless
//! the first is FALSE) is verified and the calls
//! of LDV model functions (`ldv_*`) along mpv's counterexample are compared
//! with those along LDV's trace: the same calls in the same order agree.
//! BLAST's traces show some model functions only through their locals
//! (`var@ldv_f`, inlined, no `FunctionCall`); a second count leaves those
//! functions out of mpv's list before comparing.
//!
//!     cargo bench --bench traces          # MPV_TIME_LIMIT (default 60) per task
//!     MPV_TRACES_RESULTS=single.jsonl cargo bench --bench traces
//!
//! With `MPV_TRACES_RESULTS`, the verdicts and counterexamples come from a
//! results file of `mpv batch` (e.g. the single bench's) instead of new runs.

use std::process::Command;

#[path = "../tests/it/common.rs"]
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

/// `ldv_*` functions BLAST's trace shows executing only through their
/// locals (`var@ldv_f`), never as a `FunctionCall`: it inlined them.
fn inlined_in_trace(trace: &str, called: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in trace.split('@').skip(1) {
        let f: String = part
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if f.starts_with("ldv_") && !called.contains(&f) && !out.contains(&f) {
            out.push(f);
        }
    }
    out
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
    let (mut found, mut agree, mut agree_inlined) = (0, 0, 0);
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
        let text = std::fs::read_to_string(t).unwrap();
        let theirs = ldv_calls(&text);
        let inlined = inlined_in_trace(&text, &theirs);
        let verdict = p["verdict"].as_str().unwrap_or("error");
        if verdict != "false" {
            println!("{name}: {verdict} ({})", p["reason"].as_str().unwrap_or(""));
            continue;
        }
        found += 1;
        let ours = mpv_calls(&p["counterexample"]);
        let same = ours == theirs;
        let ours_visible: Vec<String> = ours
            .iter()
            .filter(|f| !inlined.contains(f))
            .cloned()
            .collect();
        let same_inlined = ours_visible == theirs;
        agree += same as usize;
        agree_inlined += same_inlined as usize;
        println!(
            "{name}: FALSE, {}\n  LDV: {}\n  mpv: {}",
            if same {
                "same model calls".to_string()
            } else if same_inlined {
                format!(
                    "same model calls but for {} (in LDV's trace only as a variable scope)",
                    inlined.join(", ")
                )
            } else {
                "different model calls".to_string()
            },
            theirs.join(" "),
            ours.join(" ")
        );
    }
    println!(
        "{} traces, {found} FALSE found by mpv, {agree} with the same model calls in the same order, {agree_inlined} when the functions LDV's trace shows only as variable scopes are left out ({})",
        traces.len(),
        match std::env::var("MPV_TRACES_RESULTS") {
            Ok(f) => format!("results of {f}"),
            Err(_) => format!("time limit {limit} s"),
        }
    );
}
