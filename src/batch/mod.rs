//! Batch verification: many modules, each in its own `mpv verify` process
//! under OS-enforced CPU and memory limits, `jobs` at a time, results
//! appended durably as one JSON line per task (resumable after a kill), and
//! the summary of a results file (`mpv report`).
//!
//! * [`tasks`]: what a task is, its stable key, directories of modules,
//!   fixed-seed stratified samples; [`manifest`] (TSV, single- and
//!   multi-rule shapes) and [`taskdef`] (SV-COMP `.yml`) read task lists.
//! * [`isolate`]: one child process under rlimits and a watchdog, and what
//!   became of it ([`isolate::Status`]).
//! * [`results`]: the results file (append + fsync per line, torn-line
//!   recovery, `flock`) and the result line of a task.
//! * [`runner`]: the worker threads; [`progress`]: bar or plain lines.
//! * [`summary`]: per-set and per-rule tables, scores, resources, the
//!   slowest and the wrong verdicts; [`html`]: the same as an HTML report
//!   with a page per FALSE result (`mpv report --html`).
//! * [`array`]: a batch split into the chunks of a job array in a shared
//!   directory, the chunks' results merged; [`slurm`]: submitting it as a
//!   Slurm job array (`sbatch`, `squeue`).

pub mod array;
pub mod html;
pub mod isolate;
pub mod manifest;
pub mod progress;
pub mod results;
pub mod runner;
pub mod slurm;
pub mod summary;
pub mod taskdef;
pub mod tasks;

pub use runner::{run, Config, Summary};
pub use tasks::Task;
