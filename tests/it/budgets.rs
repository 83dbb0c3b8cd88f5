//! Budgets inside an analysis count work, not CPU time: symbolic execution
//! of every program of `tests/programs/budget/`, cut off by a small budget,
//! stops at the same step in every run. Each run has a thread of its own,
//! so a Z3 context and a work meter of its own.

use std::path::Path;
use std::time::Duration;

use mpv::algorithm::symexec::check_label;
use mpv::frontend::{parse_file, FrontendOptions};

/// Where a run under `budget` stopped: its steps, solver calls and bound.
fn cut_off(path: &Path, budget: Duration) -> (u64, u64, u32, String) {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let options = FrontendOptions {
            entry: "main".into(),
            ..FrontendOptions::default()
        };
        let p = parse_file(&path, &options).expect("the program parses");
        let r = check_label(&p, "ERROR", Some(budget));
        let s = r.stats;
        (
            s.transitions,
            s.solver_calls,
            s.bound,
            format!("{:?}", r.verdict),
        )
    })
    .join()
    .expect("the run ends")
}

#[test]
fn a_budget_cuts_symbolic_execution_at_the_same_step_every_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/budget");
    let mut programs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/programs/budget")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 2);
    for path in &programs {
        let budget = Duration::from_millis(150);
        let first = cut_off(path, budget);
        assert!(first.0 > 100, "{}: {first:?} did some work", path.display());
        assert_eq!(
            first.3,
            "Unknown",
            "{}: the budget cut it off",
            path.display()
        );
        for _ in 0..2 {
            assert_eq!(cut_off(path, budget), first, "{}", path.display());
        }
    }
}
