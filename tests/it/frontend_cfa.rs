//! CFA construction of tricky C constructs, checked on the structure of the
//! CFA (printed edge operations, loop heads, reachability).

use std::collections::HashSet;
use std::path::Path;

use mpv::cfa::print::op_to_string;
use mpv::cfa::{EdgeOp, LocId, Program};
use mpv::frontend::{parse_file, parse_source, parse_source_timed, FrontendOptions};

fn program() -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/frontend/constructs.c");
    parse_file(&path, &FrontendOptions::default()).expect("constructs.c parses")
}

/// The printed operations of the edges of function `f`.
fn ops(p: &Program, f: &str) -> Vec<String> {
    let fid = p.func_by_name(f).unwrap();
    p.edges
        .iter()
        .filter(|e| p.loc(e.from).func == fid)
        .map(|e| op_to_string(p, &e.op))
        .collect()
}

fn has(p: &Program, f: &str, op: &str) -> bool {
    ops(p, f).iter().any(|o| o == op)
}

/// Locations reachable from `from` in the CFA of its function.
fn reachable(p: &Program, from: LocId) -> HashSet<LocId> {
    let mut seen = HashSet::from([from]);
    let mut work = vec![from];
    while let Some(l) = work.pop() {
        for &e in p.outgoing(l) {
            let to = p.edge(e).to;
            if seen.insert(to) {
                work.push(to);
            }
        }
    }
    seen
}

fn edge_with(p: &Program, f: &str, op: &str) -> mpv::cfa::Edge {
    let fid = p.func_by_name(f).unwrap();
    p.edges
        .iter()
        .find(|e| p.loc(e.from).func == fid && op_to_string(p, &e.op) == op)
        .unwrap_or_else(|| panic!("{f}: no edge `{op}` in {:?}", ops(p, f)))
        .clone()
}

#[test]
fn switch_falls_through_to_the_next_case() {
    let p = program();
    assert!(has(&p, "fallthrough", "[x == 1]"));
    assert!(has(&p, "fallthrough", "[!(x == 1)]"));
    assert!(has(&p, "fallthrough", "[x == 2]"));
    let case1 = edge_with(&p, "fallthrough", "r = r + 1;");
    let case2 = edge_with(&p, "fallthrough", "r = r + 2;");
    // From the end of case 1 the code of case 2 is reached without a test.
    let mut l = case1.to;
    loop {
        if l == case2.from {
            break;
        }
        let out = p.outgoing(l);
        assert_eq!(out.len(), 1, "fall-through has no branching");
        assert!(matches!(p.edge(out[0]).op, EdgeOp::Skip));
        l = p.edge(out[0]).to;
    }
    // `break` skips the default case.
    assert!(!reachable(&p, case2.to).contains(&edge_with(&p, "fallthrough", "r = 9;").from));
}

#[test]
fn goto_into_a_loop_body_and_one_loop_head() {
    let p = program();
    let f = p.func_by_name("goto_into_loop").unwrap();
    let heads = p
        .locations
        .iter()
        .filter(|l| l.func == f && l.loop_head)
        .count();
    assert_eq!(heads, 1);
    let inside = p
        .locations
        .iter()
        .position(|l| l.func == f && l.labels == ["inside"])
        .unwrap();
    let entry = p.func(f).body.as_ref().unwrap().entry;
    assert!(reachable(&p, entry).contains(&LocId(inside as u32)));
    // The increment `i++` is only reachable through the loop condition.
    let inc = edge_with(&p, "goto_into_loop", "i = i + 1;");
    let cond = edge_with(&p, "goto_into_loop", "[i < n]");
    assert_eq!(inc.from, cond.to);
}

#[test]
fn logical_operators_in_conditions_short_circuit() {
    let p = program();
    let and_test = edge_with(&p, "short_circuit", "[a]");
    let call = edge_with(&p, "short_circuit", "__tmp = ext(a);");
    assert_eq!(call.from, and_test.to, "ext(a) is only called when a holds");
    assert!(has(&p, "short_circuit", "[__tmp]"));
    // `a || ext(2)`: ext(2) only when a is false.
    let call2 = edge_with(&p, "short_circuit", "__tmp = ext(2);");
    let not_a: Vec<_> = p
        .edges
        .iter()
        .filter(|e| op_to_string(&p, &e.op) == "[!(a)]")
        .map(|e| e.to)
        .collect();
    assert!(not_a.contains(&call2.from));
}

#[test]
fn compound_assignments_become_plain_assignments() {
    let p = program();
    assert!(has(&p, "compound", "x = x * 3;"));
    assert!(has(&p, "compound", "x = x << 1;"));
    assert!(has(&p, "compound", "p = p + 2;"));
    assert!(has(&p, "compound", "*p = *p - x;"));
}

#[test]
fn comma_operator_and_post_increment_keep_the_order_of_effects() {
    let p = program();
    let o = ops(&p, "comma_and_post");
    let pos = |s: &str| {
        o.iter()
            .position(|x| x == s)
            .unwrap_or_else(|| panic!("no `{s}` in {o:?}"))
    };
    assert!(pos("y = 1;") < pos("x = y + 2;"));
    assert!(pos("__tmp = x;") < pos("x = x + 1;"));
    assert!(pos("x = x + 1;") < pos("y = __tmp;"));
}

#[test]
fn calls_in_conditions_are_evaluated_before_the_test() {
    let p = program();
    let call = edge_with(&p, "call_in_condition", "__tmp = ext(v);");
    let test = edge_with(&p, "call_in_condition", "[__tmp > 0]");
    assert_eq!(call.to, test.from);
    // The loop condition calls ext in every iteration: the call is after the loop head.
    let f = p.func_by_name("call_in_condition").unwrap();
    let head = p
        .locations
        .iter()
        .position(|l| l.func == f && l.loop_head)
        .map(|i| LocId(i as u32))
        .unwrap();
    let loop_call = edge_with(&p, "call_in_condition", "__tmp = ext(v + 1);");
    assert_eq!(loop_call.from, head);
}

#[test]
fn function_pointer_calls_split_over_compatible_address_taken_functions() {
    let p = program();
    let o = ops(&p, "pointers");
    assert!(o.contains(&"[fp == &a1]".to_string()), "{o:?}");
    assert!(o.contains(&"[fp == &a2]".to_string()));
    assert!(o.contains(&"__tmp = a1(3);".to_string()));
    assert!(o.contains(&"__tmp = a2(3);".to_string()));
    assert!(
        !o.iter().any(|x| x.contains("b2")),
        "b2 has another arity and is not address-taken"
    );
    assert_eq!(
        o.iter().filter(|x| x.contains("unknown target")).count(),
        1,
        "one fallback edge"
    );
}

#[test]
fn statement_expressions_yield_their_last_value() {
    let p = program();
    let o = ops(&p, "stmt_expr");
    let pos = |s: &str| {
        o.iter()
            .position(|x| x == s)
            .unwrap_or_else(|| panic!("no `{s}` in {o:?}"))
    };
    assert!(pos("t = 3;") < pos("__tmp = t + 1;"));
    assert!(pos("__tmp = t + 1;") < pos("x = __tmp;"));
}

#[test]
fn designated_initialisers_zero_the_rest() {
    let p = program();
    let o = ops(&p, "designated");
    for want in [
        "v.a = 0;",
        "v.b = 0;",
        "v.c = 2;",
        "v.a = 1;",
        "arr[2] = 7;",
        "arr[3] = 1;",
        "arr[0] = 0;",
    ] {
        assert!(o.contains(&want.to_string()), "no `{want}` in {o:?}");
    }
    let pos = |s: &str| o.iter().position(|x| x == s).unwrap();
    assert!(pos("v.c = 0;") < pos("v.c = 2;"), "zero-fill comes first");
}

#[test]
fn start_function_initialises_globals_then_calls_the_entry() {
    let src = "int g; int h = 5; int *q = &h; extern int ext; int main(void) { return g + *q; }";
    let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    let o = ops(&p, "__mpv_start");
    assert_eq!(o, vec!["g = 0;", "h = 5;", "q = &h;", "main();", "return;"]);
    assert!(
        p.var(
            p.vars
                .iter()
                .position(|v| v.name == "h")
                .map(|i| mpv::ir::VarId(i as u32))
                .unwrap()
        )
        .address_taken
    );
}

#[test]
fn labels_positions_and_errors() {
    let src = "#line 40 \"drv.c\"\nvoid ldv_error(void) { LDV_ERROR: goto LDV_ERROR; }\nint main(void) { ldv_error(); return 0; }";
    let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    let l = p
        .locations
        .iter()
        .find(|l| l.labels == ["LDV_ERROR"])
        .unwrap();
    assert!(l.loop_head, "the error label loops to itself");
    assert_eq!(p.file_name(l.pos), "drv.c");
    assert_eq!(l.pos.line, 40);
    let err = parse_source(
        "bad.c",
        "#line 7 \"drv.c\"\nint main(void) { return 0 }",
        &FrontendOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("bad.c:2:27 (from drv.c:7): syntax error:"),
        "the input's own position and the header line: {err}"
    );
    let err = parse_source(
        "t.c",
        "int f(void) { return 0; }",
        &FrontendOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("--entry"), "{err}");
    let err = parse_source(
        "t.c",
        "int main(void) { return y; }",
        &FrontendOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("t.c:1: unsupported construct: undeclared identifier `y`"),
        "{err}"
    );
}

#[test]
fn argument_conversions_are_implicit_casts_printed_as_written_ones() {
    use mpv::ir::{CastKind, ExprKind};
    let src = "int find(int size, int offset);\n\
               int main(void) { unsigned long size = 8, offset = 2; find(size, (int)offset); return 0; }";
    let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    let call = edge_with(&p, "main", "find((int)size, (int)offset);");
    let EdgeOp::Call { args, .. } = &call.op else {
        panic!("a call edge")
    };
    let kinds: Vec<CastKind> = args
        .iter()
        .map(|a| match &a.kind {
            ExprKind::Cast(_, k) => *k,
            other => panic!("a cast, not {other:?}"),
        })
        .collect();
    assert_eq!(kinds, [CastKind::Implicit, CastKind::Explicit]);
}

#[test]
fn pointer_calls_see_functions_defined_later_in_the_file() {
    let src = "void f(void g(int)) { g(1); } void h(int i) { } int main(void) { f(h); return 0; }";
    let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    let o = ops(&p, "f");
    assert!(o.contains(&"[g == &h]".to_string()), "{o:?}");
    assert!(o.contains(&"h(1);".to_string()), "{o:?}");
    let fallback = edge_with(&p, "f", "(*g)(1); /* unknown target */");
    let guard = edge_with(&p, "f", "[!(g == &h)]");
    assert_eq!(
        fallback.from, guard.to,
        "the unknown-target call is taken only when no candidate matches"
    );
}

#[test]
fn top_level_items_the_entry_cannot_name_are_left_out() {
    let src = "typedef long unused_t;\nstruct s { int a; };\n\
               static int dead(struct s *p) { return p->a; }\n\
               static int live(void) { return 1; }\n\
               int main(void) { return live(); }\n";
    let (p, times) = parse_source_timed("t.c", src, &FrontendOptions::default()).unwrap();
    assert!(p.func_by_name("live").is_some());
    assert!(p.func_by_name("dead").is_none(), "dead is not parsed");
    assert!(times.pruned_bytes > 0 && !times.prune_fell_back);
    let all = FrontendOptions {
        prune: false,
        ..FrontendOptions::default()
    };
    let p = parse_source("t.c", src, &all).unwrap();
    assert!(p.func_by_name("dead").is_some(), "--all-functions keeps it");
}

#[test]
fn an_error_of_the_pruned_text_falls_back_to_the_whole_text() {
    // A call of an undeclared function is an error in the pruned text (the
    // declaration might have been left out); the whole text is parsed and
    // the function is declared implicitly, as without pruning.
    let src = "static int dead(void) { return 0; }\nint main(void) { return undeclared(1); }\n";
    let (p, times) = parse_source_timed("t.c", src, &FrontendOptions::default()).unwrap();
    assert!(times.prune_fell_back);
    assert!(p.func_by_name("undeclared").is_some());
    assert!(
        p.func_by_name("dead").is_some(),
        "the whole text was parsed"
    );
}

#[test]
fn functions_whose_address_is_taken_anywhere_stay_pointer_call_candidates() {
    // `setup` is not reachable from main, but the object main gets from the
    // environment may have been filled by it: `target` stays a candidate.
    let src = "struct ops { int (*cb)(void); };\n\
               static int target(void) { return 1; }\n\
               static int unused(void) { return 2; }\n\
               static void setup(struct ops *o) { o->cb = target; }\n\
               extern struct ops *get_ops(void);\n\
               int main(void) { return get_ops()->cb(); }\n";
    let (p, times) = parse_source_timed("t.c", src, &FrontendOptions::default()).unwrap();
    assert!(times.pruned_bytes > 0, "unused is left out");
    assert!(p.func_by_name("unused").is_none());
    let f = p.func_by_name("target").expect("target is kept");
    assert!(p.func(f).address_taken);
}

#[test]
fn functions_named_in_global_initialisers_are_candidates_and_tags_are_not_uses() {
    // `probe` is named only by the initialiser of `drv`, which is lowered in
    // the start function; `remove` shares its name with a struct tag only.
    let src = "struct remove { int x; };\n\
               struct drv { int (*cb)(int); };\n\
               static int probe(int a) { return a; }\n\
               static int remove(int a) { struct remove r; r.x = a; return r.x; }\n\
               static struct drv drv = { .cb = probe };\n\
               int main(void) { remove(1); return drv.cb(2); }\n";
    let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    let o = ops(&p, "main");
    assert!(o.contains(&"[drv.cb == &probe]".to_string()), "{o:?}");
    assert!(!o.iter().any(|x| x.contains("&remove")), "{o:?}");
    let remove = p.func_by_name("remove").unwrap();
    assert!(!p.func(remove).address_taken);
}

#[test]
fn inline_assembly_is_exact_only_where_its_template_is_known() {
    let src = r#"
        int counter; long word; int out;
        void f(int i) {
          __asm__ volatile("lock; addl %1,%0" : "+m" (counter) : "ir" (i));
          __asm__ volatile("" : : : "memory");
          __asm__ volatile("movl %1,%0" : "=r" (out) : "m" (counter));
          __asm__ volatile("addl %1,%0" : "=m" (counter) : "ir" (i));
          __asm__ volatile("addw %1,%0" : "+m" (counter) : "ir" (i));
          __asm__ volatile("cli");
          __asm__ volatile("");
        }
        int main(void) { f(1); return 0; }
    "#;
    let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    let ops = ops(&p, "f");
    // The atomic add is an assignment; the barrier and the empty basic asm
    // are nothing.
    assert!(ops.iter().any(|o| o == "counter = counter + i;"), "{ops:?}");
    let havocs: Vec<&String> = ops.iter().filter(|o| o.starts_with("havoc(")).collect();
    // A read of (device) memory, an add to a write-only output, a size
    // suffix that does not fit the operand, and basic asm stay havocs.
    assert_eq!(
        havocs,
        [
            "havoc(out); /* inline assembly */",
            "havoc(counter); /* inline assembly */",
            "havoc(counter); /* inline assembly */",
            "havoc(); /* inline assembly */",
        ],
        "{ops:?}"
    );
}
