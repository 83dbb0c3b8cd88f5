//! Small C programs with known verdicts through the predicate analysis with
//! CEGAR alone (`algorithm::cegar`, label `ERROR`): every program of
//! `tests/programs/predicate/` and `tests/programs/engine/` whose `expect:`
//! comment has a `cegar=` entry gives one of the verdicts it names (or, for
//! `error`, is refused by the front end); for some of them, what the
//! counterexample assumes, the reason of an UNKNOWN, and the refinements and
//! predicates it took. Also CEGAR under LDV's assumptions.

use std::path::Path;
use std::time::Duration;

use mpv::algorithm::cegar::{
    check_label, check_label_under_ldv_assumptions, CegarOptions, CegarResult,
};
use mpv::cfa::Program;
use mpv::frontend::{parse_file, FrontendOptions};
use mpv::report::Verdict;

use crate::common;

fn cegar(name: &str) -> CegarResult {
    cegar_at(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/programs/predicate")
            .join(name),
    )
}

/// CEGAR alone on the program at `path` (60 s, 50 refinements at most).
fn cegar_at(path: &Path) -> CegarResult {
    let p = parse_file(path, &FrontendOptions::default()).expect("parses");
    cegar_of(&p)
}

fn cegar_of(p: &Program) -> CegarResult {
    cegar_refining(p, true)
}

/// CEGAR alone, refining lazily or starting each run over.
fn cegar_refining(p: &Program, lazy_abstraction: bool) -> CegarResult {
    check_label(
        p,
        "ERROR",
        CegarOptions {
            work: Some(Duration::from_secs(60)),
            max_refinements: 50,
            lazy_abstraction,
        },
    )
}

/// CEGAR on every program of `tests/programs/DIR` with a `cegar=`
/// expectation (`keys`: those its programs may have): the programs whose
/// verdict is not one it names, and how many were checked.
fn unexpected_verdicts(dir: &str, keys: &[&str]) -> (Vec<String>, usize) {
    unexpected_verdicts_refining(dir, keys, true)
}

/// [`unexpected_verdicts`], refining lazily or starting each run over.
fn unexpected_verdicts_refining(dir: &str, keys: &[&str], lazy: bool) -> (Vec<String>, usize) {
    let mut checked = 0;
    let mut failures = Vec::new();
    for prog in common::test_programs(dir, keys) {
        let Some(want) = prog.expected("cegar") else {
            continue;
        };
        let (got, why) = match parse_file(&prog.path, &FrontendOptions::default()) {
            Ok(p) => {
                let r = cegar_refining(&p, lazy);
                (common::verdict_word(r.verdict), r.reason)
            }
            Err(e) => ("error", Some(e.to_string())),
        };
        if !want.admits(got) {
            failures.push(format!(
                "{dir}/{}: expected {}, got {got} ({})",
                prog.name(),
                want.text(),
                why.unwrap_or_default()
            ));
        }
        checked += 1;
    }
    (failures, checked)
}

#[test]
fn every_predicate_program_gives_its_expected_verdict() {
    let (failures, checked) = unexpected_verdicts("predicate", &["cegar"]);
    assert!(checked >= 30, "only {checked} programs with `cegar=`");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn starting_each_run_over_after_a_refinement_gives_the_same_verdicts() {
    let (failures, checked) = unexpected_verdicts_refining("predicate", &["cegar"], false);
    assert!(checked >= 30, "only {checked} programs with `cegar=`");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_engine_program_with_a_cegar_verdict_gives_it() {
    let (failures, checked) = unexpected_verdicts("engine", &["symexec", "cegar"]);
    assert!(checked >= 40, "only {checked} programs with `cegar=`");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_lock_model_around_a_loop_needs_a_loop_head_predicate() {
    let r = cegar("mutex_loop_true.c");
    assert_eq!(r.verdict, Verdict::True, "{:?}", r.reason);
    assert!(
        r.stats.refinements > 0,
        "the first abstract path is spurious"
    );
    assert!(r.stats.predicates > 0);
}

#[test]
fn a_lock_held_across_iterations_is_a_real_violation() {
    let r = cegar("mutex_loop_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert_eq!(cex.property, "label:ERROR");
    // The path goes through the early return of handler and locks twice.
    let ops: Vec<&str> = cex.steps.iter().map(|s| s.op.as_str()).collect();
    let locks = ops
        .iter()
        .filter(|o| o.contains("enter mutex_lock"))
        .count();
    assert!(locks >= 2, "two lock calls on the path: {ops:?}");
    assert!(cex.steps.iter().all(|s| s.line > 0 && !s.file.is_empty()));
}

#[test]
fn kernel_atomic_operations_in_inline_assembly_are_exact() {
    // `lock; incl`, `lock; xaddl`, `lock; subl; sete` and a compiler
    // barrier: the counter is 5 before the subtraction.
    let r = cegar("atomic_asm_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
    // `bts`, `btr` and `bts; sbb` on a bit string past its first word.
    let r = cegar("bitops_asm_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
    // `bswapl` and `bswapq` (`__arch_swab32`, `__arch_swab64`).
    let r = cegar("byteswap_asm_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
}

#[test]
fn small_memory_copies_are_exact_in_every_width() {
    let r = cegar("memcpy_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
}

#[test]
fn bytes_copied_from_user_memory_are_any_bytes_once_the_copy_succeeds() {
    let r = cegar("user_copy_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
}

#[test]
fn error_paths_through_unmodelled_kernel_functions_name_the_assumption() {
    let r = cegar("extern_keeps_memory_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert_eq!(cex.assumptions.len(), 1, "{:?}", cex.assumptions);
}

#[test]
fn formatting_into_a_new_string_writes_no_memory_of_the_module() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine/kasprintf_false.c");
    let r = cegar_at(&p);
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert_eq!(cex.assumptions.len(), 1, "{:?}", cex.assumptions);
}

#[test]
fn a_read_through_unmodelled_memory_names_the_call_that_made_it_so() {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine/havoc_address_unknown.c");
    let r = cegar_at(&p);
    assert_eq!(r.verdict, Verdict::Unknown, "{:?}", r.reason);
    let why = r.reason.unwrap_or_default();
    assert!(why.contains("whose address depends"), "{why}");
    assert!(
        why.contains("unmodelled since") && why.contains("setup(&d)"),
        "{why}"
    );
}

#[test]
fn a_read_of_what_a_kernel_writer_wrote_is_named_in_the_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    // The error reads what memcpy wrote: its values are not modelled.
    let r = cegar_at(&dir.join("writers_read_unknown.c"));
    assert_eq!(r.verdict, Verdict::Unknown, "{:?}", r.reason);
    assert!(
        r.reason
            .as_deref()
            .is_some_and(|w| w.contains("reads bytes a kernel function wrote")),
        "{:?}",
        r.reason
    );
}

#[test]
fn length_results_of_kernel_writers_are_arbitrary_only_under_ldv_assumptions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    // strlcat's result is unused: the path is exact as it is.
    let r = cegar_at(&dir.join("strlcat_false.c"));
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
    // snprintf's result is used: a counterexample under the assumption
    // that it is any non-negative value, which the result lists.
    assert_false_assuming(cegar_at(&dir.join("length_result_false.c")), "snprintf");
}

/// `r` is FALSE with a counterexample that lists an assumption mentioning
/// `what`.
fn assert_false_assuming(r: CegarResult, what: &str) {
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(
        cex.assumptions.iter().any(|a| a.contains(what)),
        "{:?}",
        cex.assumptions
    );
}

#[test]
fn unmodelled_values_the_error_does_not_depend_on_keep_a_counterexample() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    for name in ["writer_irrelevant_false.c", "float_irrelevant_false.c"] {
        let r = cegar_at(&dir.join(name));
        assert_eq!(r.verdict, Verdict::False, "{name}: {:?}", r.reason);
        let cex = r.counterexample.expect("a counterexample");
        assert!(cex.assumptions.is_empty(), "{name}: {:?}", cex.assumptions);
    }
    // The error needs the unmodelled values, or a write goes to an
    // unmodelled address: real or not, it is not known.
    for name in [
        "writer_dependent_unknown.c",
        "float_dependent_unknown.c",
        "havoc_address_unknown.c",
    ] {
        let r = cegar_at(&dir.join(name));
        assert_eq!(r.verdict, Verdict::Unknown, "{name}: {:?}", r.reason);
        assert!(
            r.reason
                .as_deref()
                .is_some_and(|w| w.contains("over-approximated")),
            "{name}: {:?}",
            r.reason
        );
    }
}

#[test]
fn an_analysis_under_ldv_assumptions_names_them_and_proves_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let limits = CegarOptions {
        work: Some(Duration::from_secs(60)),
        max_refinements: 50,
        lazy_abstraction: true,
    };
    let under = |path: &Path| {
        let p = parse_file(path, &FrontendOptions::default()).expect("parses");
        check_label_under_ldv_assumptions(&p, "ERROR", limits)
    };
    // The path needs the kernel function to leave `d` alone.
    let keeps = dir.join("predicate/extern_keeps_memory_false.c");
    assert_false_assuming(under(&keeps), "memory");
    // A program the analysis proves safe: not under the assumptions.
    let safe = dir.join("engine/ptr_true.c");
    assert_eq!(cegar_at(&safe).verdict, Verdict::True);
    assert_eq!(under(&safe).verdict, Verdict::Unknown);
}

#[test]
fn a_path_infeasible_inside_an_untracked_block_needs_no_more_predicates() {
    let r = cegar("block_conflict_true.c");
    assert_eq!(r.verdict, Verdict::True, "{:?}", r.reason);
    // `x > 0` where the block starts, and deciding the block's
    // satisfiability where it ends: not the predicates of `a` and `b`.
    assert_eq!(r.stats.predicates, 1, "{:?}", r.stats);
}

#[test]
fn refinement_that_unrolls_a_counter_takes_the_whole_path() {
    let r = cegar("delay_loop_true.c");
    assert_eq!(r.verdict, Verdict::True, "{:?}", r.reason);
    // The loop runs 100 times: unrolled one value per refinement, it
    // would need more refinements than `cegar` allows.
    assert!(r.stats.refinements < 50, "{:?}", r.stats);
}

#[test]
fn refinement_prefers_a_reason_that_does_not_count_a_loop() {
    let r = cegar("init_loop_then_lock_true.c");
    assert_eq!(r.verdict, Verdict::True, "{:?}", r.reason);
    // The lock's state refutes the error paths; the loop's count, which
    // also does, would take a refinement per iteration.
    assert!(r.stats.refinements <= 2, "{:?}", r.stats);
}

#[test]
fn an_unknown_after_a_step_that_is_no_over_approximation_names_the_step() {
    let r = cegar("recursion_observed_unknown.c");
    assert_eq!(r.verdict, Verdict::Unknown);
    let why = r.reason.unwrap_or_default();
    assert!(
        why.contains("recursion_observed_unknown.c:8: ") && why.contains("walk("),
        "{why}"
    );
}
