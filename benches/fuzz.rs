//! A longer run of the fuzz test (`tests/it/fuzz.rs`): fixed-seed mutants
//! of mpv's test programs, of `.i` modules of the LDV corpus (when it is
//! there) and of rule files run through the `mpv` binary; no run may panic,
//! crash, hang or fail without an `error:` line.
//!
//!     cargo bench --bench fuzz                       # 300 cases
//!     MPV_FUZZ_N=1000 MPV_FUZZ_SEED=7 cargo bench --bench fuzz
//!     MPV_FUZZ_JOBS=1 cargo bench --bench fuzz       # one run at a time
//!     MPV_FUZZ_VERBOSE=1 cargo bench --bench fuzz    # each run's exit and last line
//!
//! The cases are six in ten mutants of the test programs, one in ten of
//! corpus modules (of 8 modules; test programs instead without the corpus)
//! and three in ten of rule files, `MPV_FUZZ_JOBS` at a time (default: all
//! cores). Offending mutants are saved under `target/tmp/fuzz-failures/bench`
//! with the command that reproduces them; the bench lists each and the
//! distinct failures, and exits 1 if there is any.

#[path = "../tests/it/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../tests/it/fuzz.rs"]
mod fuzz;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v}: not a number"))
        })
        .unwrap_or(default)
}

fn main() {
    let n = env_or("MPV_FUZZ_N", 300) as usize;
    let seed = env_or("MPV_FUZZ_SEED", fuzz::SEED);
    let jobs = env_or(
        "MPV_FUZZ_JOBS",
        std::thread::available_parallelism().map_or(1, |n| n.get()) as u64,
    ) as usize;
    let inputs = fuzz::inputs(8);
    let corpus = if inputs.corpus.is_empty() { 0 } else { n / 10 };
    let rules = n * 3 / 10;
    let plan = fuzz::Plan {
        programs: n - corpus - rules,
        corpus,
        rules,
    };
    let cases = fuzz::cases(&inputs, &plan, seed);
    eprintln!(
        "fuzz: {} cases (seed {seed:#x}): {} of {} test programs, {} of {} corpus modules, \
         {} of {} rule files, {jobs} at a time",
        cases.len(),
        plan.programs,
        inputs.programs.len(),
        plan.corpus,
        inputs.corpus.len(),
        plan.rules,
        inputs.rules.len()
    );
    let start = std::time::Instant::now();
    let report = fuzz::run(&cases, jobs, "bench", true);
    println!(
        "{} cases in {:.0} s: {} accepted, {} refused with an error, {} failures",
        report.cases,
        start.elapsed().as_secs_f64(),
        report.accepted,
        report.refused,
        report.failures.len()
    );
    if !report.failures.is_empty() {
        println!("{}", report.describe());
        std::process::exit(1);
    }
}
