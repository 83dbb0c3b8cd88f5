//! The bundled rules on a sample of the real multi-property benchmark
//! (`multi.tsv`): every rule binds and steps over every CFA edge of the
//! module (moves write only spec variables), and a rule LDV found violated
//! in a module (`false`) is relevant for it (relevance must never drop a
//! property that can fail).

use crate::common;

use mpv::cfa::EdgeOp;
use mpv::frontend::{parse_file, FrontendOptions};
use mpv::ir::{ExprKind, Scope};
use mpv::spec::bound::StepKind;
use mpv::spec::{library, relevance, PropertyId};

/// The rule columns of multi.tsv, in order.
const RULES: [&str; 6] = ["08_1a", "32_1", "32_7a", "39_7a", "43_1a", "68_1"];

/// Rows of multi.tsv: the first one and modules where LDV reports violations.
const SAMPLE: &[&str] = &[
    "drivers--block--paride--pt.ko_012.b07989f",
    "drivers--input--misc--keyspan_remote.ko_002.1953ea2",
    "drivers--media--video--videobuf-vmalloc.ko_036.9739768",
    "drivers--net--usb--catc.ko_002.4ec7ffa",
    "drivers--usb--serial--mos7840.ko_031.e9b8cff",
    "drivers--video--arkfb.ko_003.1abf917",
];

#[test]
fn rules_bind_step_and_are_relevant_where_ldv_finds_violations() {
    let dir = common::corpus_dir();
    let rows = common::manifest("multi.tsv");
    let rules = library::bundled().unwrap();
    for rev in SAMPLE {
        let row = rows
            .iter()
            .find(|r| r[0] == *rev)
            .unwrap_or_else(|| panic!("{rev} not in multi.tsv"));
        let mut p = parse_file(&dir.join(&row[1]), &FrontendOptions::default()).unwrap();
        for (i, rule) in RULES.iter().enumerate() {
            let a = rules.iter().find(|a| a.properties[0].id == *rule).unwrap();
            let relevant = relevance::automaton_relevance(&p, a).contains(PropertyId(0));
            if row[2 + i] == "false" {
                assert!(
                    relevant,
                    "{rev}: LDV finds {rule} violated, but it is irrelevant"
                );
            }
        }
        for a in &rules {
            let b = a.bind(&mut p);
            for e in &p.edges {
                let kinds: &[StepKind] = match &e.op {
                    EdgeOp::Call { callee, .. } if p.func(*callee).body.is_some() => {
                        &[StepKind::Enter, StepKind::Return]
                    }
                    _ => &[StepKind::Edge],
                };
                for &k in kinds {
                    for q in 0..a.states.len() as u32 {
                        for m in b.step(&p, q, e, k) {
                            for (l, _) in &m.assigns {
                                let ExprKind::Var(v) = l.kind else {
                                    panic!("non-variable lvalue")
                                };
                                assert_eq!(
                                    p.var(v).scope,
                                    Scope::Spec,
                                    "{}: weaves into program state",
                                    a.name
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Every `multi.tsv` module with a rule LDV finds violated: that rule is
/// not vacuous there (a vacuous property is reported TRUE unanalysed).
#[test]
fn no_rule_ldv_finds_violated_is_vacuous() {
    let dir = common::corpus_dir();
    let rows = common::manifest("multi.tsv");
    let rules = library::bundled().unwrap();
    let mut checked = 0;
    for row in &rows {
        let violated: Vec<&str> = RULES
            .iter()
            .enumerate()
            .filter(|(i, _)| row.get(2 + i).is_some_and(|v| v == "false"))
            .map(|(_, r)| *r)
            .collect();
        if violated.is_empty() {
            continue;
        }
        let p = parse_file(&dir.join(&row[1]), &FrontendOptions::default()).unwrap();
        for rule in violated {
            let a = rules.iter().find(|a| a.properties[0].id == rule).unwrap();
            assert!(
                !relevance::automaton_vacuous(&p, a).contains(PropertyId(0)),
                "{}: LDV finds {rule} violated, but it is vacuous",
                row[0]
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "the violations of multi.tsv are there");
}
