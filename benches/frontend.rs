//! Front-end benchmark over the real LDV corpus: parses every task of
//! `single.tsv` and every input of `multi.tsv`, reports failures, parse+CFA
//! throughput (MB/s per core) and peak memory.
//!
//!     cargo bench --bench frontend                  # whole corpus
//!     MPV_BENCH_SAMPLE=200 cargo bench --bench frontend
//!     MPV_BENCH_REPEAT=3 cargo bench --bench frontend   # three passes, median
//!
//! The throughput is per-thread CPU time, which a busy host still slows
//! (runs on a shared 2-core VM varied by up to a fifth); repeated passes
//! report each figure and their median.
//!
//!     MPV_BENCH_PARSER=1 cargo bench --bench frontend   # and lang-c alone
//!
//! With `MPV_BENCH_PARSER`, each pass is followed by one of lang-c alone
//! over the same files (comments stripped as mpv does, the syntax tree
//! dropped, no pruning or lowering): the ceiling of parse+CFA, measured
//! under the same host conditions.
//!
//! The corpus is found through `$MPV_BENCH_DIR`, else unpacked with
//! `../shared/benchmarks/unpack.sh`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mpv::algorithm::sdc::thread_cpu_time;
use mpv::frontend::source::prepare;
use mpv::frontend::{parse_file_timed, FrontendOptions};
use rayon::prelude::*;

#[path = "../tests/it/common.rs"]
mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn tasks(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for (manifest, col) in [("single.tsv", 1), ("multi.tsv", 1)] {
        let text = std::fs::read_to_string(dir.join(manifest)).expect("manifest");
        for line in text.lines().skip(1) {
            if let Some(f) = line.split('\t').nth(col) {
                v.push(dir.join(f));
            }
        }
    }
    v.sort();
    v.dedup();
    v
}

fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

type Row = (
    PathBuf,
    u64,
    Duration,
    Result<(Duration, usize, bool), String>,
);

/// One pass over `all`: per file, its size, front-end CPU time, and CFA
/// time / pruned bytes / fallback (or the error); and the wall time.
fn measure(all: &[PathBuf], opts: &FrontendOptions) -> (Vec<Row>, Duration) {
    let wall = Instant::now();
    let results: Vec<Row> = all
        .par_iter()
        .map(|p| {
            let size = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
            let r = std::panic::catch_unwind(|| parse_file_timed(p, opts));
            match r {
                Ok(Ok((_, t))) => (
                    p.clone(),
                    size,
                    t.parse + t.cfa,
                    Ok((t.cfa, t.pruned_bytes, t.prune_fell_back)),
                ),
                Ok(Err(e)) => (p.clone(), size, Duration::ZERO, Err(e.to_string())),
                Err(_) => (p.clone(), size, Duration::ZERO, Err("PANIC".into())),
            }
        })
        .collect();
    (results, wall.elapsed())
}

/// One pass of lang-c alone over `all`: bytes of the files it parsed and
/// the CPU seconds it took (comment stripping and dropping the tree
/// included, as in [`measure`]).
fn measure_parser(all: &[PathBuf]) -> (u64, f64) {
    all.par_iter()
        .map(|p| {
            let Ok(bytes) = std::fs::read(p) else {
                return (0, 0.0);
            };
            let text = String::from_utf8_lossy(&bytes);
            let t0 = thread_cpu_time();
            let clean = prepare(&text);
            let config = lang_c::driver::Config::with_gcc();
            let parsed = std::panic::catch_unwind(|| {
                lang_c::driver::parse_preprocessed(&config, clean).is_ok()
            });
            let cpu = (thread_cpu_time() - t0).as_secs_f64();
            match parsed {
                Ok(true) => (bytes.len() as u64, cpu),
                _ => (0, 0.0),
            }
        })
        .reduce(|| (0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

fn main() {
    let dir = common::corpus_dir();
    let mut all = tasks(&dir);
    if let Ok(n) = std::env::var("MPV_BENCH_SAMPLE") {
        let n: usize = n.parse().expect("MPV_BENCH_SAMPLE is a number");
        let step = (all.len() / n.max(1)).max(1);
        all = all.into_iter().step_by(step).collect();
    }
    // MPV_BENCH_ALL_FUNCTIONS=1 parses every top-level item, as `mpv cfa --all-functions`.
    let opts = FrontendOptions {
        prune: std::env::var_os("MPV_BENCH_ALL_FUNCTIONS").is_none(),
        ..FrontendOptions::default()
    };
    let repeat: usize = std::env::var("MPV_BENCH_REPEAT")
        .ok()
        .map(|n| n.parse().expect("MPV_BENCH_REPEAT is a number"))
        .unwrap_or(1)
        .max(1);
    let parser_alone = std::env::var_os("MPV_BENCH_PARSER").is_some();
    let mut passes = Vec::new();
    let mut parser_passes = Vec::new();
    let (results, wall) = loop {
        let (results, wall) = measure(&all, &opts);
        let (bytes, cpu) = results
            .iter()
            .filter(|r| r.3.is_ok())
            .fold((0u64, 0f64), |(b, c), r| (b + r.1, c + r.2.as_secs_f64()));
        let rate = bytes as f64 / 1e6 / cpu.max(1e-9);
        passes.push(rate);
        if repeat > 1 {
            println!("pass {}:       {rate:.2} MB/s per core", passes.len());
        }
        if parser_alone {
            let (bytes, cpu) = measure_parser(&all);
            let rate = bytes as f64 / 1e6 / cpu.max(1e-9);
            println!(
                "pass {}:       lang-c alone {rate:.2} MB/s per core ({cpu:.1} s)",
                passes.len()
            );
            parser_passes.push(rate);
        }
        if passes.len() == repeat {
            break (results, wall);
        }
    };
    let ok: Vec<_> = results.iter().filter(|r| r.3.is_ok()).collect();
    let bytes: u64 = ok.iter().map(|r| r.1).sum();
    let cpu: f64 = ok.iter().map(|r| r.2.as_secs_f64()).sum();
    let cfa: f64 = ok
        .iter()
        .map(|r| r.3.as_ref().map_or(0.0, |t| t.0.as_secs_f64()))
        .sum();
    let pruned: usize = ok.iter().map(|r| r.3.as_ref().map_or(0, |t| t.1)).sum();
    let fell_back: Vec<_> = ok
        .iter()
        .filter(|r| r.3.as_ref().is_ok_and(|t| t.2))
        .collect();
    println!(
        "files:        {} ({} ok, {} failed)",
        results.len(),
        ok.len(),
        results.len() - ok.len()
    );
    println!(
        "input:        {:.1} MB, of which {:.1} MB ({:.0} %) unreachable top-level items left out before parsing",
        bytes as f64 / 1e6,
        pruned as f64 / 1e6,
        100.0 * pruned as f64 / (bytes as f64).max(1.0)
    );
    println!(
        "parse+CFA:    {:.1} s summed over files, {:.2} MB/s per core",
        cpu,
        bytes as f64 / 1e6 / cpu.max(1e-9)
    );
    println!(
        "  of which:   parse {:.1} s ({:.2} MB/s), CFA {:.1} s ({:.2} MB/s)",
        cpu - cfa,
        bytes as f64 / 1e6 / (cpu - cfa).max(1e-9),
        cfa,
        bytes as f64 / 1e6 / cfa.max(1e-9)
    );
    println!(
        "wall:         {:.1} s on {} threads",
        wall.as_secs_f64(),
        rayon::current_num_threads()
    );
    if repeat > 1 {
        passes.sort_by(f64::total_cmp);
        println!(
            "median:       {:.2} MB/s per core over {repeat} passes (lowest {:.2}, highest {:.2}; the figures above are the last pass)",
            passes[repeat / 2],
            passes[0],
            passes[repeat - 1]
        );
    }
    if !parser_passes.is_empty() {
        parser_passes.sort_by(f64::total_cmp);
        println!(
            "lang-c alone: {:.2} MB/s per core (median of {} passes; comment stripping, parsing, dropping the tree)",
            parser_passes[parser_passes.len() / 2],
            parser_passes.len()
        );
    }
    let mut largest: Vec<_> = ok.iter().collect();
    largest.sort_by_key(|r| std::cmp::Reverse(r.1));
    for r in largest.iter().take(5) {
        println!(
            "largest:      {:>8.1} KB {:>7.1} ms {}",
            r.1 as f64 / 1e3,
            r.2.as_secs_f64() * 1e3,
            r.0.display()
        );
    }
    println!(
        "peak memory:  {:.1} MB (VmHWM of the whole run)",
        vm_hwm_kb() as f64 / 1e3
    );
    println!(
        "pruning:      {} files parsed whole after the pruned text failed",
        fell_back.len()
    );
    for r in &fell_back {
        println!("FELL BACK    {}", r.0.display());
    }
    for r in results.iter().filter(|r| r.3.is_err()) {
        println!("FAILED {}: {}", r.0.display(), r.3.as_ref().unwrap_err());
    }
}
