//! Small C programs with known verdicts through the predicate analysis with
//! CEGAR alone (`algorithm::cegar`), and through the whole `verify` pipeline.

use std::path::Path;
use std::time::Duration;

use mpv::algorithm::cegar::{
    check_label, check_label_under_ldv_assumptions, CegarLimits, CegarResult,
};
use mpv::frontend::{parse_file, FrontendOptions};
use mpv::report::Verdict;

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
    check_label(
        &p,
        "ERROR",
        CegarLimits {
            cpu: Some(Duration::from_secs(60)),
            max_refinements: 50,
        },
    )
}

fn verdict(name: &str) -> Verdict {
    cegar(name).verdict
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
fn loop_invariants_come_from_the_error_condition() {
    assert_eq!(verdict("equal_counters_true.c"), Verdict::True);
}

#[test]
fn pointers_into_structs() {
    assert_eq!(verdict("struct_pointer_true.c"), Verdict::True);
    assert_eq!(verdict("struct_pointer_false.c"), Verdict::False);
}

#[test]
fn function_pointer_tables() {
    assert_eq!(verdict("callback_true.c"), Verdict::True);
    assert_eq!(verdict("callback_false.c"), Verdict::False);
}

#[test]
fn nondet_values_and_assumptions() {
    assert_eq!(verdict("assume_true.c"), Verdict::True);
    assert_eq!(verdict("assume_false.c"), Verdict::False);
}

#[test]
fn environment_pointers_read_past_the_module_globals_and_may_alias_them() {
    assert_eq!(verdict("env_pointer_false.c"), Verdict::False);
    assert_eq!(verdict("env_pointer_alias_false.c"), Verdict::False);
}

#[test]
fn allocations_in_different_blocks_are_different_objects() {
    assert_eq!(verdict("two_allocations_false.c"), Verdict::False);
    assert_eq!(verdict("two_allocations_true.c"), Verdict::True);
}

#[test]
fn bit_fields_share_their_storage_unit() {
    assert_eq!(verdict("bitfield_true.c"), Verdict::True);
    assert_eq!(verdict("bitfield_false.c"), Verdict::False);
}

#[test]
fn kernel_atomic_operations_in_inline_assembly_are_exact() {
    // `lock; incl`, `lock; xaddl`, `lock; subl; sete` and a compiler
    // barrier: the counter is 5 before the subtraction.
    let r = cegar("atomic_asm_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
    let r = cegar("atomic_asm_true.c");
    assert_eq!(r.verdict, Verdict::True, "{:?}", r.reason);
    // `bts`, `btr` and `bts; sbb` on a bit string past its first word.
    let r = cegar("bitops_asm_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
    let r = cegar("bitops_asm_true.c");
    assert_eq!(r.verdict, Verdict::True, "{:?}", r.reason);
}

#[test]
fn small_memory_copies_are_exact_in_every_width() {
    let r = cegar("memcpy_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
    let r = cegar("memcpy_true.c");
    assert_eq!(r.verdict, Verdict::True, "{:?}", r.reason);
}

#[test]
fn bytes_copied_from_user_memory_are_any_bytes_once_the_copy_succeeds() {
    let r = cegar("user_copy_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert!(cex.assumptions.is_empty(), "{:?}", cex.assumptions);
    let r = cegar("user_copy_failed_unknown.c");
    assert_eq!(r.verdict, Verdict::Unknown, "{:?}", r.reason);
}

#[test]
fn error_paths_through_unmodelled_kernel_functions_name_the_assumption() {
    let r = cegar("extern_keeps_memory_false.c");
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
    let cex = r.counterexample.expect("a counterexample");
    assert_eq!(cex.assumptions.len(), 1, "{:?}", cex.assumptions);
    // Functions that write through their pointers are never assumed not to.
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    for name in ["extern_write_unknown.c", "memset_value_unknown.c"] {
        let r = cegar_at(&p.join(name));
        assert_eq!(r.verdict, Verdict::Unknown, "{name}: {:?}", r.reason);
    }
}

#[test]
fn printing_is_not_writing_memory() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine/print_false.c");
    let r = cegar_at(&p);
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
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
fn a_recursive_call_is_cut_to_its_effects_unless_a_property_observes_it() {
    // The cut call assigns a global / writes memory: both become arbitrary.
    assert_eq!(verdict("recursion_unknown.c"), Verdict::Unknown);
    assert_eq!(verdict("recursion_memory_unknown.c"), Verdict::Unknown);
    // It touches nothing the error depends on: proved.
    assert_eq!(verdict("recursion_true.c"), Verdict::True);
    // It may reach the error label itself: never proved.
    assert_eq!(verdict("recursion_observed_unknown.c"), Verdict::Unknown);
}

#[test]
fn the_engine_programs_agree_with_symbolic_execution() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    for (name, expected) in [
        ("ptr_true.c", Verdict::True),
        ("ptr_false.c", Verdict::False),
        ("offsetof_false.c", Verdict::False),
        ("fp_true.c", Verdict::True),
        ("fp_false.c", Verdict::False),
        ("loop_true.c", Verdict::True),
        ("loop_false.c", Verdict::False),
        ("overflow_false.c", Verdict::False),
        ("heap_true.c", Verdict::True),
        ("kzalloc_zero_false.c", Verdict::False),
        ("kzalloc_written_false.c", Verdict::False),
        ("layout_invariants_true.c", Verdict::True),
        ("layout_error_pointer_false.c", Verdict::False),
        ("packed_true.c", Verdict::True),
        ("packed_false.c", Verdict::False),
        ("cleanup_true.c", Verdict::True),
        ("cleanup_false.c", Verdict::False),
        ("cleanup_goto_false.c", Verdict::False),
        ("noreturn_true.c", Verdict::True),
        ("noreturn_false.c", Verdict::False),
        ("string_literal_true.c", Verdict::True),
        ("string_literal_false.c", Verdict::False),
        ("redefinition_true.c", Verdict::True),
    ] {
        let r = cegar_at(&dir.join(name));
        assert_eq!(r.verdict, expected, "{name}: {:?}", r.reason);
    }
    // Over-approximated operations never give a verdict they cannot support.
    for (name, not) in [
        ("extern_write_unknown.c", Verdict::True),
        ("memset_value_unknown.c", Verdict::False),
        ("memset_true.c", Verdict::False),
        ("kzalloc_unknown.c", Verdict::False),
        ("kzalloc_large_unknown.c", Verdict::False),
        ("kzalloc_large_unknown.c", Verdict::True),
        ("ptr_cast_unknown.c", Verdict::True),
        ("mixed_width_unknown.c", Verdict::False),
        ("union_width_unknown.c", Verdict::False),
        ("ptr_truncation_unknown.c", Verdict::False),
        ("layout_alloc_below_4g_unknown.c", Verdict::True),
        ("layout_global_first_page_unknown.c", Verdict::True),
        ("layout_order_unknown.c", Verdict::True),
        ("layout_alloc_below_4g_unknown.c", Verdict::False),
        ("layout_global_first_page_unknown.c", Verdict::False),
        ("layout_order_unknown.c", Verdict::False),
        ("strlen_unknown.c", Verdict::False),
    ] {
        let r = cegar_at(&dir.join(name));
        assert_ne!(r.verdict, not, "{name}: {:?}", r.reason);
    }
}

#[test]
fn kernel_writers_keep_a_path_exact_unless_it_reads_what_they_wrote() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    // sprintf and memcpy write d.name and d.cfg; the error reads d.users.
    let r = cegar_at(&dir.join("writers_false.c"));
    assert_eq!(r.verdict, Verdict::False, "{:?}", r.reason);
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
    let limits = CegarLimits {
        cpu: Some(Duration::from_secs(60)),
        max_refinements: 50,
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
