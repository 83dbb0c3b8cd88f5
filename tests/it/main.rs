//! mpv's integration tests, one test binary (the library and Z3 are linked
//! once): one module per area. The small C programs they verify are in
//! `tests/programs/`, the one-node Slurm cluster script in `tests/slurm/`;
//! `common` finds the LDV corpus (`../shared/benchmarks` or
//! `$MPV_BENCH_DIR`), which the `*_corpus` modules read.

mod common;

mod batch_cli;
mod batch_corpus;
mod budgets;
mod correctness_cli;
mod correctness_format;
mod correctness_runs;
mod data_model_programs;
mod engine_programs;
mod eval_cli;
mod frontend_cfa;
mod frontend_corpus;
mod frontend_errors;
mod fuzz;
mod html_report;
mod multi_programs;
mod predicate_programs;
mod rule_verdicts;
mod slurm;
mod spec_corpus;
mod spec_fuzz;
mod spec_rules;
mod spec_spc;
mod verify_cli;
mod witness_cli;
mod witness_format;
