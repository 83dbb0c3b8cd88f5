//! `mpv verify` over `single.tsv`: verdicts per set and per rule against
//! LDV's expected ones. A wrong verdict (TRUE where LDV says false, FALSE
//! where it says true) is listed and fails the bench. Per-task results go to
//! `bench-out/single.tsv` (task, expected, verdict, CPU, reason).
//!
//!     cargo bench --bench single                       # every task, 5 s each
//!     MPV_TIME_LIMIT=60 MPV_BENCH_SAMPLE=400 cargo bench --bench single
//!
//! `MPV_BENCH_SAMPLE=N` (seed `MPV_BENCH_SEED`, default 1) takes a sample
//! stratified by set, rule and expected verdict; `MPV_BENCH_SET=S` keeps one set.

use std::collections::BTreeMap;
use std::time::Duration;

use mpv::algorithm::verify::{verify_labels, VerifyLimits};
use mpv::frontend::{parse_file, FrontendOptions};
use mpv::report::Verdict;
use mpv::spec::prp;
use rayon::prelude::*;

#[path = "../tests/common/mod.rs"]
mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tasks whose expected verdict contradicts C semantics, with the reason
/// (checked by hand); a disagreement on them is reported, not counted wrong.
const DISPUTED: &[(&str, &str)] = &[(
    "ldv-regression/test26_false.c",
    "`global` has static storage, so global.a == global.b == 0 (C11 6.7.9p10); assign(&pd->b, &pd->b) writes b to itself; pd->a != global.b is false, ERROR is unreachable",
)];

/// Verdict, analysis CPU seconds and the reason, or the error.
type TaskResult = Result<(Verdict, f64, String), String>;

fn main() {
    let dir = common::corpus_dir();
    let limit: f64 = std::env::var("MPV_TIME_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let mut rows = common::manifest("single.tsv");
    if let Ok(n) = std::env::var("MPV_BENCH_SAMPLE") {
        let n: usize = n.parse().expect("MPV_BENCH_SAMPLE is a number");
        let seed: u64 = std::env::var("MPV_BENCH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        rows = stratified_sample(rows, n, seed);
    }
    if let Ok(only) = std::env::var("MPV_BENCH_SET") {
        rows.retain(|r| r[0] == only);
    }
    let limits = VerifyLimits {
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
                let (res, work) = verify_labels(&p, &props, limits);
                let reason = res[0].reason.clone().unwrap_or_default();
                Ok((res[0].verdict, work.cpu.as_secs_f64(), reason))
            })();
            (r.clone(), res)
        })
        .collect();
    // [TRUE, FALSE, UNKNOWN, wrong, error, expected known]
    let mut by_set: BTreeMap<String, [usize; 6]> = BTreeMap::new();
    let mut by_rule: BTreeMap<String, [usize; 6]> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut slow: Vec<(f64, String)> = Vec::new();
    let mut log = String::from("task\texpected\tverdict\tcpu_s\treason\n");
    for (r, res) in &results {
        let count = |cell: &mut [usize; 6]| {
            if r[4] != "unknown" {
                cell[5] += 1;
            }
            match res {
                Ok((v, _, _)) => {
                    cell[match v {
                        Verdict::True => 0,
                        Verdict::False => 1,
                        Verdict::Unknown => 2,
                    }] += 1;
                    if ((*v == Verdict::True && r[4] == "false")
                        || (*v == Verdict::False && r[4] == "true"))
                        && !DISPUTED.iter().any(|d| d.0 == r[1])
                    {
                        cell[3] += 1;
                    }
                }
                Err(_) => cell[4] += 1,
            }
        };
        count(by_set.entry(r[0].clone()).or_default());
        count(by_rule.entry(r[2].clone()).or_default());
        match res {
            Ok((v, cpu, reason)) => {
                slow.push((*cpu, r[1].clone()));
                if (*v == Verdict::True && r[4] == "false")
                    || (*v == Verdict::False && r[4] == "true")
                {
                    match DISPUTED.iter().find(|d| d.0 == r[1]) {
                        Some((_, why)) => {
                            println!("DISPUTED: {} expected {} got {v:?}: {why}", r[1], r[4])
                        }
                        None => wrong.push(format!("{} expected {} got {v:?}", r[1], r[4])),
                    }
                }
                log.push_str(&format!("{}\t{}\t{v:?}\t{cpu:.2}\t{reason}\n", r[1], r[4]));
            }
            Err(e) => log.push_str(&format!("{}\t{}\terror\t0\t{e}\n", r[1], r[4])),
        }
    }
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-out");
    let _ = std::fs::create_dir_all(&out);
    let _ = std::fs::write(out.join("single.tsv"), log);
    println!("time limit {limit} s per task, {} tasks", results.len());
    for (what, table) in [("set", &by_set), ("rule", &by_rule)] {
        println!(
            "{what:<22} {:>6} {:>6} {:>8} {:>6} {:>6} {:>9}",
            "TRUE", "FALSE", "UNKNOWN", "WRONG", "error", "solved%"
        );
        for (k, c) in table {
            let solved = 100.0 * (c[0] + c[1] - c[3]) as f64 / c[5].max(1) as f64;
            println!(
                "{k:<22} {:>6} {:>6} {:>8} {:>6} {:>6} {solved:>8.1}%",
                c[0], c[1], c[2], c[3], c[4]
            );
        }
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

/// A fixed-seed sample of about `n` rows stratified by (set, rule,
/// expected verdict): every expected-false task outside `revisions`, and from
/// every stratum the same share (at least one task), picked by a seeded hash.
fn stratified_sample(rows: Vec<Vec<String>>, n: usize, seed: u64) -> Vec<Vec<String>> {
    let hash = |s: &str| {
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
        for b in s.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        h
    };
    let mut strata: BTreeMap<(String, String, String), Vec<Vec<String>>> = BTreeMap::new();
    let mut out = Vec::new();
    for r in rows {
        if r[4] == "false" && r[0] != "revisions" {
            out.push(r);
        } else {
            strata
                .entry((r[0].clone(), r[2].clone(), r[4].clone()))
                .or_default()
                .push(r);
        }
    }
    let rest: usize = strata.values().map(Vec::len).sum();
    let share = n.saturating_sub(out.len()) as f64 / rest.max(1) as f64;
    for (_, mut group) in strata {
        group.sort_by_key(|r| hash(&r[1]));
        let k = ((group.len() as f64 * share).round() as usize).clamp(1, group.len());
        out.extend(group.into_iter().take(k));
    }
    out
}
