//! The control states of a specification automaton along a counterexample.
//!
//! An error path records the program's steps and the operations the
//! automata wove into them, not the automata's control states (a state of
//! the analysis holds them, a path does not). So the automaton of a
//! violated property is replayed along the path: at each program step its
//! moves from the current control state ([`BoundAutomaton::step`]) are
//! compared with the operations this automaton wove right after that step
//! (each woven operation names its automaton); the move whose operations are
//! exactly those is the one the path took. A move without operations fits
//! a step after which the automaton wove nothing. If the fitting moves lead
//! to more than one control state (two moves with the same operations), or
//! to none (the path is not one of this automaton's), the replay stops: the
//! trace shows no control state it cannot tell.

use std::collections::BTreeSet;

use crate::cfa::{EdgeOp, Program};
use crate::report::{AnalysisStep, ControlMove, Counterexample, StepOrigin};
use crate::spec::automaton::StateIdx;
use crate::spec::bound::{BoundAutomaton, Move};

/// Records on `cex`'s steps the moves of automaton `a` of `automata`
/// between control states, as far as the replay tells them.
pub fn annotate(
    program: &Program,
    automata: &[BoundAutomaton],
    a: usize,
    cex: &mut Counterexample,
) {
    let Some(b) = automata.get(a) else { return };
    let moves = replay(program, b, a, &cex.path);
    for (at, from, to) in moves {
        let states = &b.automaton.states;
        cex.steps[at].automata.push(ControlMove {
            automaton: b.automaton.name.clone(),
            from: states[from as usize].name.clone(),
            to: states[to as usize].name.clone(),
        });
    }
}

/// The control-state changes of automaton `a` (bound as `b`) along `path`:
/// the shown step at which each happens, and its source and target.
fn replay(
    program: &Program,
    b: &BoundAutomaton,
    a: usize,
    path: &[AnalysisStep],
) -> Vec<(usize, StateIdx, StateIdx)> {
    let mut q = b.automaton.initial;
    let mut changes = Vec::new();
    for (i, s) in path.iter().enumerate() {
        let StepOrigin::Cfa { edge, kind } = s.origin else {
            continue;
        };
        let woven: Vec<&EdgeOp> = path[i + 1..]
            .iter()
            .map_while(|w| match &w.origin {
                StepOrigin::Woven { automaton, op } => Some((*automaton, op)),
                StepOrigin::Cfa { .. } => None,
            })
            .filter(|(by, _)| *by == Some(a))
            .map(|(_, op)| op)
            .collect();
        let targets: BTreeSet<StateIdx> = b
            .step(program, q, program.edge(edge), kind)
            .iter()
            .filter(|m| wove_exactly(m, &woven))
            .map(|m| m.to)
            .collect();
        let mut targets = targets.into_iter();
        let (Some(to), None) = (targets.next(), targets.next()) else {
            break;
        };
        if to != q {
            // A step the counterexample does not show (a `goto`) moves
            // the automaton at the next one it shows.
            let Some(at) = path[i..].iter().find_map(|s| s.shown) else {
                break;
            };
            changes.push((at, q, to));
        }
        q = to;
    }
    changes
}

/// Whether `m`'s operations are exactly `woven`, in order: its assumes
/// (each woven as holding), then its assignments.
fn wove_exactly(m: &Move, woven: &[&EdgeOp]) -> bool {
    let n = m.assumes.len();
    woven.len() == n + m.assigns.len()
        && m.assumes
            .iter()
            .zip(woven)
            .all(|(c, w)| matches!(w, EdgeOp::Assume { cond, truth: true } if cond == c))
        && m.assigns
            .iter()
            .zip(&woven[n..])
            .all(|((l, r), w)| matches!(w, EdgeOp::Assign { lhs, rhs } if lhs == l && rhs == r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::print::edges_printed;
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::automaton::from_text;
    use crate::spec::bound::StepKind;

    const INIT: &str = r#"automaton init;
        rule "init" "done() only after setup() returned 0";
        initial Fresh;
        error Early "done before setup";
        state Fresh {
          on $1 = setup() { assume $1 == 0 -> Ready; else -> Fresh; }
          on done() -> Early;
        }
        state Ready { on done() -> Ready; }"#;

    const SRC: &str = "int setup(void); void done(void);\n\
        int main(void) { int r = setup(); if (r == 0) done(); done(); return 0; }";

    /// The path through `main` taking the edges printed as `ops`, each
    /// followed by the operations automaton 0 weaves into it under
    /// `weave` (the index of the move taken, if any).
    fn path(p: &Program, b: &BoundAutomaton, ops: &[(&str, Option<usize>)]) -> Vec<AnalysisStep> {
        let mut q = b.automaton.initial;
        let mut out = Vec::new();
        for (text, weave) in ops {
            let id = *edges_printed(p, text)
                .first()
                .unwrap_or_else(|| panic!("no edge `{text}`"));
            let e = p.edge(id);
            out.push(AnalysisStep {
                origin: StepOrigin::Cfa {
                    edge: id,
                    kind: StepKind::Edge,
                },
                shown: Some(out.len()),
            });
            let moves = b.step(p, q, e, StepKind::Edge);
            let Some(m) = weave.map(|k| &moves[k]) else {
                continue;
            };
            q = m.to;
            for cond in &m.assumes {
                let op = EdgeOp::Assume {
                    cond: cond.clone(),
                    truth: true,
                };
                out.push(AnalysisStep {
                    origin: StepOrigin::Woven {
                        automaton: Some(0),
                        op,
                    },
                    shown: Some(out.len()),
                });
            }
        }
        out
    }

    fn setup() -> (Program, BoundAutomaton) {
        let mut p = parse_source("t.c", SRC, &FrontendOptions::default()).unwrap();
        let b = from_text("r.spec", INIT).unwrap().bind(&mut p);
        (p, b)
    }

    fn names(
        b: &BoundAutomaton,
        changes: &[(usize, StateIdx, StateIdx)],
    ) -> Vec<(usize, String, String)> {
        let name = |q: StateIdx| b.automaton.states[q as usize].name.clone();
        changes
            .iter()
            .map(|&(at, f, t)| (at, name(f), name(t)))
            .collect()
    }

    #[test]
    fn the_move_whose_woven_operations_follow_a_step_is_the_one_taken() {
        let (p, b) = setup();
        let steps = path(
            &p,
            &b,
            &[
                ("r = setup();", Some(0)),
                ("[r == 0]", None),
                ("done();", None),
            ],
        );
        let changes = replay(&p, &b, 0, &steps);
        // setup() returned 0 (the woven assume is the first move's): Ready,
        // where done() stays.
        assert_eq!(names(&b, &changes), [(0, "Fresh".into(), "Ready".into())]);
    }

    #[test]
    fn a_step_no_move_of_the_automaton_fits_ends_the_replay() {
        let (p, b) = setup();
        let mut steps = path(&p, &b, &[("r = setup();", Some(0)), ("done();", None)]);
        // The assume the automaton wove is gone: neither of setup()'s moves
        // (each weaves one) fits, so nothing after it is told either.
        steps.remove(1);
        assert!(replay(&p, &b, 0, &steps).is_empty());
        // Another automaton's operations do not count as this one's.
        let (p, b) = setup();
        let mut steps = path(&p, &b, &[("r = setup();", Some(0)), ("done();", None)]);
        if let StepOrigin::Woven { automaton, .. } = &mut steps[1].origin {
            *automaton = Some(1);
        }
        assert!(replay(&p, &b, 0, &steps).is_empty());
    }
}
