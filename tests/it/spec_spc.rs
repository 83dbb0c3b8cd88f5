//! The nine CPAchecker LDV automata import, and mean what they say on a
//! small program.

use std::path::{Path, PathBuf};

use mpv::frontend::{parse_source, FrontendOptions};
use mpv::spec::automaton::StateKind;
use mpv::spec::bound::StepKind;
use mpv::spec::{relevance, spc, PropertyId};

fn spc_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/cpachecker-ldv-spc")
}

#[test]
fn the_nine_reference_automata_import() {
    let mut names = Vec::new();
    for e in std::fs::read_dir(spc_dir()).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "spc") {
            let autos = spc::load(&path).unwrap_or_else(|e| panic!("{e}"));
            names.extend(autos.into_iter().map(|a| a.name));
        }
    }
    names.sort();
    assert_eq!(
        names,
        [
            "linux_alloc_spinlock",
            "linux_alloc_usblock",
            "linux_bitops",
            "linux_class",
            "linux_module",
            "linux_mutex",
            "linux_rculock",
            "linux_rculockbh",
            "linux_rwlock",
            "linux_spinlock"
        ]
    );
}

#[test]
fn imported_mutex_automaton_matches_and_instantiates() {
    let a = spc::load(&spc_dir().join("mutex.spc")).unwrap().remove(0);
    let src = "struct mutex { int o; }; void mutex_lock(struct mutex *m); void mutex_unlock(struct mutex *m);\n\
               void ldv_check_final_state(void);\n\
               struct mutex m; int main(void) { mutex_lock(&m); mutex_unlock(&m); ldv_check_final_state(); return 0; }";
    let mut p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    assert!(relevance::automaton_relevance(&p, &a).contains(PropertyId(0)));
    let b = a.bind(&mut p);
    assert_eq!(b.set_order[0].len(), 1, "one element for `&m`");
    let lock = p
        .edges
        .iter()
        .find(|e| mpv::cfa::print::op_to_string(&p, &e.op) == "mutex_lock(&m);")
        .unwrap();
    let moves = b.step(&p, a.initial, lock, StepKind::Edge);
    // USEALL: the double-lock error (assume m held) and the lock itself.
    assert_eq!(moves.len(), 2);
    assert!(matches!(
        a.states[moves[0].to as usize].kind,
        StateKind::Error { .. }
    ));
    assert_eq!(moves[0].error, Some(0));
    assert_eq!(moves[1].assigns.len(), 1);
    let exit = p
        .edges
        .iter()
        .find(|e| mpv::cfa::print::op_to_string(&p, &e.op) == "ldv_check_final_state();")
        .unwrap();
    let moves = b.step(&p, a.initial, exit, StepKind::Edge);
    assert_eq!(moves.len(), 1);
    assert_eq!(
        mpv::cfa::print::expr_to_string(&p, &moves[0].assumes[0]),
        "!(linux_mutex::acquired_mutexes[&m] == 0)"
    );
}

/// `mpv verify` of a program under `args`: the verdict word of its first line.
fn verdict(program: &str, args: &[&str]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/spc");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("verify")
        .arg(dir.join(program))
        .args(args)
        .args(["--time-limit", "20"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{program}: {text}");
    text.split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string()
}

#[test]
fn spc_pattern_variables_bind_arguments_as_written() {
    // find_next_bit takes ints; the caller's unsigned longs are guarded by
    // size >= offset, which the bitops automaton's check reads as written.
    let bitops = spc_dir().join("bitops.spc");
    let spc = ["--spc", bitops.to_str().unwrap()];
    assert_eq!(verdict("find_next_bit_guarded.c", &spc), "TRUE");
    assert_eq!(verdict("find_next_bit_unguarded.c", &spc), "FALSE");
}

#[test]
fn class_automaton_tells_created_classes_by_comparing_pointers_with_a_constant() {
    // `ASSUME {((void *)$1) <= 2012; ((int)$1) > 0}`: ordering pointers
    // orders their integer values, exact for what `__class_create` returns.
    let class = spc_dir().join("class.spc");
    let spc = ["--spc", class.to_str().unwrap()];
    assert_eq!(verdict("class_destroyed_true.c", &spc), "TRUE");
    assert_eq!(verdict("class_registered_at_exit_false.c", &spc), "FALSE");
}

#[test]
fn rule_pattern_variables_bind_the_value_the_callee_receives() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/spc");
    let rule = dir.join("converted_argument.spec");
    let args = ["--properties", rule.to_str().unwrap()];
    assert_eq!(verdict("converted_argument.c", &args), "TRUE");
}

#[test]
fn a_counterexample_shows_the_control_states_of_an_imported_automaton() {
    // The class automaton moves from its initial state when the class is
    // created and into its error at the final check; the JSON counterexample
    // records both moves at those steps, each starting where the last ended.
    let class = spc_dir().join("class.spc");
    let a = spc::load(&class).unwrap().remove(0);
    let program = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/spc/class_registered_at_exit_false.c");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("verify")
        .arg(&program)
        .args(["--spc", class.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = report["properties"][0]["counterexample"]["steps"]
        .as_array()
        .unwrap();
    let moves: Vec<(&str, &str, &str, &str)> = steps
        .iter()
        .flat_map(|s| {
            s["automata"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |m| {
                    (
                        s["op"].as_str().unwrap(),
                        m["automaton"].as_str().unwrap(),
                        m["from"].as_str().unwrap(),
                        m["to"].as_str().unwrap(),
                    )
                })
        })
        .collect();
    assert_eq!(moves.len(), 2, "{moves:?}");
    assert!(moves[0].0.contains("__class_create"));
    assert!(moves[1].0.contains("ldv_check_final_state"));
    assert!(moves.iter().all(|m| m.1 == a.name));
    assert_eq!(moves[0].2, a.states[a.initial as usize].name);
    assert_eq!(moves[1].2, moves[0].3);
    let last = a.states.iter().find(|s| s.name == moves[1].3).unwrap();
    assert!(matches!(last.kind, StateKind::Error { .. }));
}
