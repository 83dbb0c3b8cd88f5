//! `mpv verify` over `single.tsv`: verdicts per set against LDV's expected
//! ones. A wrong verdict (TRUE where LDV says false, FALSE where it says true)
//! is listed and fails the bench.
//!
//!     cargo bench --bench single                       # every task, 5 s each
//!     MPV_TIME_LIMIT=60 MPV_BENCH_SAMPLE=400 cargo bench --bench single

use std::collections::BTreeMap;
use std::time::Duration;

use mpv::algorithm::reachability::{self, Limits};
use mpv::frontend::{parse_file, FrontendOptions};
use mpv::report::Verdict;
use mpv::spec::prp;
use rayon::prelude::*;

#[path = "../tests/common/mod.rs"]
mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Verdict, analysis CPU seconds and reached states, or the error.
type TaskResult = Result<(Verdict, f64, usize), String>;

fn main() {
    let dir = common::corpus_dir();
    let limit: f64 = std::env::var("MPV_TIME_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let mut rows = common::manifest("single.tsv");
    if let Ok(n) = std::env::var("MPV_BENCH_SAMPLE") {
        let n: usize = n.parse().expect("MPV_BENCH_SAMPLE is a number");
        // Every expected-false task, then an even spread of the rest.
        let (f, t): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r[4] == "false");
        let step = (t.len() / n.saturating_sub(f.len()).max(1)).max(1);
        rows = f.into_iter().chain(t.into_iter().step_by(step)).collect();
    }
    let limits = Limits {
        cpu: Some(Duration::from_secs_f64(limit)),
        max_states: 1_000_000,
    };
    let results: Vec<(Vec<String>, TaskResult)> = rows
        .par_iter()
        .map(|r| {
            let res = (|| {
                let props = prp::load(&dir.join(&r[3])).map_err(|e| e.to_string())?;
                let p = parse_file(&dir.join(&r[1]), &FrontendOptions::default())
                    .map_err(|e| e.to_string())?;
                let (res, stats) = reachability::check(&p, &props, limits);
                Ok((res[0].verdict, stats.cpu.as_secs_f64(), stats.states))
            })();
            (r.clone(), res)
        })
        .collect();
    let mut table: BTreeMap<String, [usize; 5]> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut slow: Vec<(f64, String)> = Vec::new();
    for (r, res) in &results {
        let cell = table.entry(r[0].clone()).or_default();
        match res {
            Ok((v, cpu, _)) => {
                slow.push((*cpu, r[1].clone()));
                let i = match v {
                    Verdict::True => 0,
                    Verdict::False => 1,
                    Verdict::Unknown => 2,
                };
                cell[i] += 1;
                let is_wrong = (*v == Verdict::True && r[4] == "false")
                    || (*v == Verdict::False && r[4] == "true");
                if is_wrong {
                    cell[3] += 1;
                    wrong.push(format!("{} expected {} got {v:?}", r[1], r[4]));
                }
            }
            Err(_) => cell[4] += 1,
        }
    }
    println!("time limit {limit} s per task, {} tasks", results.len());
    println!(
        "{:<22} {:>6} {:>6} {:>8} {:>6} {:>6}",
        "set", "TRUE", "FALSE", "UNKNOWN", "WRONG", "error"
    );
    for (set, c) in &table {
        println!(
            "{set:<22} {:>6} {:>6} {:>8} {:>6} {:>6}",
            c[0], c[1], c[2], c[3], c[4]
        );
    }
    let total_cpu: f64 = slow.iter().map(|s| s.0).sum();
    println!("analysis CPU: {total_cpu:.1} s in total");
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (cpu, t) in slow.iter().take(5) {
        println!("slowest: {cpu:>6.2} s {t}");
    }
    for w in &wrong {
        println!("WRONG: {w}");
    }
    assert!(wrong.is_empty(), "{} wrong verdicts", wrong.len());
}
