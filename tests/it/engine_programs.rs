//! Small C programs with known verdicts through `mpv verify` (bounded
//! symbolic execution on the exact bit-vector encoding).

use std::path::Path;

use mpv::algorithm::symexec::check_label;
use mpv::frontend::{parse_file, FrontendOptions};
use mpv::report::Verdict;

fn verdict(name: &str) -> Verdict {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/engine")
        .join(name);
    let p = parse_file(
        &path,
        &FrontendOptions {
            entry: "main".into(),
            ..FrontendOptions::default()
        },
    )
    .expect("parses");
    check_label(&p, "ERROR", Some(std::time::Duration::from_secs(20))).verdict
}

#[test]
fn pointers_and_structs() {
    assert_eq!(verdict("ptr_false.c"), Verdict::False);
    assert_eq!(verdict("ptr_true.c"), Verdict::True);
}

#[test]
fn function_pointers() {
    assert_eq!(verdict("fp_false.c"), Verdict::False);
    assert_eq!(verdict("fp_true.c"), Verdict::True);
}

#[test]
fn bounded_loops_and_wrap_around() {
    assert_eq!(verdict("loop_true.c"), Verdict::True);
    assert_eq!(verdict("loop_false.c"), Verdict::False);
    assert_eq!(verdict("overflow_false.c"), Verdict::False);
}

#[test]
fn heap_objects_do_not_alias() {
    assert_eq!(verdict("heap_true.c"), Verdict::True);
}

#[test]
fn kernel_writers_of_a_constant_span_change_only_that_span() {
    // memset(p, 0, n) zeroes.
    assert_eq!(verdict("memset_true.c"), Verdict::True);
    // memset and copy_from_user leave the global device alone.
    assert_eq!(verdict("span_keeps_memory_true.c"), Verdict::True);
}

#[test]
fn unbounded_loops_stay_unknown() {
    assert_eq!(verdict("unbounded_unknown.c"), Verdict::Unknown);
}

#[test]
fn external_calls_and_zeroing_allocators_are_never_trusted_for_a_verdict() {
    // The external call may write x: not TRUE.
    assert_eq!(verdict("extern_write_unknown.c"), Verdict::Unknown);
    // memset of an unknown value writes unknown bytes: not FALSE.
    assert_eq!(verdict("memset_value_unknown.c"), Verdict::Unknown);
    // kzalloc's zeroed memory is modelled as arbitrary: not FALSE.
    assert_eq!(verdict("kzalloc_unknown.c"), Verdict::Unknown);
    // The integer value of a pointer depends on the layout: not TRUE.
    assert_ne!(verdict("ptr_cast_unknown.c"), Verdict::True);
}

#[test]
fn overlapping_accesses_of_different_widths_are_never_a_counterexample() {
    // Memory is one array per access width: a byte read of an int (or of a
    // union's other member) is unrelated to the write in the encoding.
    assert_eq!(verdict("mixed_width_unknown.c"), Verdict::Unknown);
    assert_eq!(verdict("union_width_unknown.c"), Verdict::Unknown);
}

#[test]
fn integer_values_of_addresses_depend_on_the_layout() {
    // Some layout reaches ERROR, another does not: neither verdict.
    for name in [
        "layout_alloc_below_4g_unknown.c",
        "layout_global_first_page_unknown.c",
        "layout_order_unknown.c",
    ] {
        assert_eq!(verdict(name), Verdict::Unknown, "{name}");
    }
    // What holds in every layout is decided.
    assert_eq!(verdict("layout_invariants_true.c"), Verdict::True);
    assert_eq!(verdict("layout_error_pointer_false.c"), Verdict::False);
}

#[test]
fn sizes_and_builtins_are_the_compilers() {
    assert_eq!(verdict("sizeof_initialiser_false.c"), Verdict::False);
    assert_eq!(verdict("sizeof_initialiser_true.c"), Verdict::True);
    // A variable-length array's size is not modelled: never TRUE.
    assert_ne!(verdict("sizeof_vla_unknown.c"), Verdict::True);
    assert_eq!(verdict("constant_p_false.c"), Verdict::False);
    assert_eq!(verdict("constant_p_true.c"), Verdict::True);
}

#[test]
fn truncated_addresses_depend_on_the_layout() {
    assert_ne!(verdict("ptr_truncation_unknown.c"), Verdict::False);
    // Offsets from a null pointer do not.
    assert_eq!(verdict("offsetof_false.c"), Verdict::False);
}

#[test]
fn layout_attributes_are_gccs() {
    // packed, aligned(N) and #pragma pack change sizes and offsets.
    assert_eq!(verdict("packed_false.c"), Verdict::False);
    assert_eq!(verdict("packed_true.c"), Verdict::True);
}

#[test]
fn cleanup_functions_run_when_their_scope_is_left() {
    assert_eq!(verdict("cleanup_false.c"), Verdict::False);
    assert_eq!(verdict("cleanup_goto_false.c"), Verdict::False);
    assert_eq!(verdict("cleanup_true.c"), Verdict::True);
}

#[test]
fn a_call_of_a_noreturn_function_ends_the_path() {
    assert_eq!(verdict("noreturn_false.c"), Verdict::False);
    assert_eq!(verdict("noreturn_true.c"), Verdict::True);
}

#[test]
fn string_literal_bytes_are_known() {
    assert_eq!(verdict("string_literal_false.c"), Verdict::False);
    assert_eq!(verdict("string_literal_true.c"), Verdict::True);
    // strlen of a string that is not a literal is not modelled.
    assert_eq!(verdict("strlen_unknown.c"), Verdict::Unknown);
}

#[test]
fn a_second_definition_is_an_error_naming_both() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    for (name, what, second, first) in [
        ("redefinition_unknown.c", "`main`", 7, 2),
        ("redefinition_global_unknown.c", "`g`", 6, 5),
    ] {
        let err = parse_file(&dir.join(name), &FrontendOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{name}: accepted"))
            .to_string();
        assert!(
            err.contains(&format!("{name}:{second}: redefinition of {what}"))
                && err.contains(&format!(
                    "first defined at {}:{first}",
                    dir.join(name).display()
                )),
            "{err}"
        );
    }
    // Declarations, tentative definitions and GNU extern inline bodies are not.
    assert_eq!(verdict("redefinition_true.c"), Verdict::True);
}
