//! The LOOM CPA (paper 002, Sect. 3): the composite of the location and
//! call-stack CPAs, one specification CPA per automaton and a data analysis
//! `D`, which weaves the automata's operations into the transition relation
//! on the fly.
//!
//! For a CFA step `l -g-> l'`, every automaton whose state can still reach an
//! error state of an enabled property (`P(q) ∩ π ≠ ∅`) takes its moves for
//! `g` (the precision-adjusted transfer `δ^π`); the others stutter, without
//! operations. The automata run side by side (no product automaton): a
//! successor combines one move per automaton. The concatenated operations
//! of the moves (assumes, then assignments, per automaton in order) are
//! executed by the data analysis as extra steps from the intermediate
//! location `l#` to `l'` (the state's `pending` operations), so assume
//! operations strengthen the data analysis. A move whose assumes the data
//! analysis refutes is not taken, and combinations whose assumes
//! contradict each other in every state are never formed
//! ([`super::joint`]): automata observing the same call share its outcome.
//! Pattern variables are instantiated from the matched edge
//! ([`BoundAutomaton::step`]).
//!
//! Dropping an automaton's operations is exact for the other properties:
//! a rule's assumes cover `true` in every state (checked when the rule is
//! compiled), so an automaton splits paths but never removes one. A `stop`
//! state (a rule's model says the program cannot continue, e.g. a return
//! value outside LDV's model) ends the path for its own automaton only: it
//! reaches no error state, so the automaton stutters from there on while
//! the other properties still see the path. Verdicts therefore do not
//! depend on which properties are analysed together.
//!
//! This form keeps one state per combination of automaton states, so each
//! state has one path per automaton (what the value search's and CEGAR's
//! counterexamples need). The explicit-value stage, which only proves and
//! lists the errors it reaches, keeps a set of configurations per automaton
//! in one state per program state instead ([`super::loom_sets`]); the
//! automata side of both is [`super::weave`].
//!
//! Precision: the set of enabled properties (plus the data analysis'
//! precision). A state is a target when it is at a real location (no
//! pending operations) and an automaton is in the error state of an enabled
//! property, or the location carries the label of an enabled label
//! property. Exploration continues past targets: a property is switched off
//! by removing it from the precisions in the waitlist (`disable`).

use std::rc::Rc;

use super::callstack::{CallStack, CallstackCpa};
use super::composite::{control_transitions, location_priority, MergePolicy};
use super::joint::JointMoves;
use super::location::LocationCpa;
use super::weave::Weaving;
use super::{Cpa, Transition, WovenOp};
use crate::cfa::{LocId, Program};
use crate::spec::automaton::StateIdx;
use crate::spec::bound::BoundAutomaton;
use crate::spec::{PropertyId, PropertySet};

/// What a property of the LOOM analysis forbids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoomGoal {
    /// Reaching a location with this label.
    Label(String),
    /// Reaching the error state of `property` (index into the automaton's
    /// properties) of automaton `automaton`.
    Automaton { automaton: usize, property: usize },
}

impl LoomGoal {
    /// The goal of a property; `None` for a call goal, which is checked as
    /// an automaton of its own (`spec::prp::call_automaton`).
    pub fn of(goal: &crate::spec::Goal) -> Option<LoomGoal> {
        match goal {
            crate::spec::Goal::Label(l) => Some(LoomGoal::Label(l.clone())),
            crate::spec::Goal::Rule {
                automaton,
                property,
            } => Some(LoomGoal::Automaton {
                automaton: *automaton,
                property: *property,
            }),
            crate::spec::Goal::Call(_) => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct LoomProperty {
    pub id: PropertyId,
    pub goal: LoomGoal,
}

/// The precision: enabled properties and the data analysis' precision.
#[derive(Clone, Debug)]
pub struct LoomPrecision<P> {
    pub enabled: PropertySet,
    pub data: P,
}

#[derive(Clone, Debug)]
pub struct LoomState<D> {
    pub loc: LocId,
    pub stack: CallStack,
    /// The control state of each automaton.
    pub autos: Rc<Vec<StateIdx>>,
    /// Woven operations still to execute (the state is at `l#`) and the
    /// index of the next one.
    pub pending: Option<(Rc<Vec<Rc<WovenOp>>>, usize)>,
    /// Enabled properties whose error this state is in.
    pub violated: PropertySet,
    pub data: D,
}

impl<D: PartialEq> PartialEq for LoomState<D> {
    fn eq(&self, o: &Self) -> bool {
        self.loc == o.loc
            && self.stack == o.stack
            && self.autos == o.autos
            && same_pending(&self.pending, &o.pending)
            && self.violated == o.violated
            && self.data == o.data
    }
}

fn same_pending(
    a: &Option<(Rc<Vec<Rc<WovenOp>>>, usize)>,
    b: &Option<(Rc<Vec<Rc<WovenOp>>>, usize)>,
) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some((x, i)), Some((y, j))) => Rc::ptr_eq(x, y) && i == j,
        _ => false,
    }
}

pub struct LoomCpa<'p, D: Cpa> {
    pub program: &'p Program,
    location: LocationCpa<'p>,
    callstack: CallstackCpa<'p>,
    pub data: D,
    pub properties: Vec<LoomProperty>,
    /// The automata, their moves and the transitions taken per property.
    pub weaving: Weaving<'p>,
    init_ops: Rc<Vec<Rc<WovenOp>>>,
    merge_policy: MergePolicy,
    rpo: Vec<u32>,
    /// Drops combinations of moves whose assumes contradict each other.
    joint: JointMoves<'p>,
}

impl<'p, D: Cpa> LoomCpa<'p, D> {
    pub fn new(
        program: &'p Program,
        automata: &'p [BoundAutomaton],
        properties: Vec<LoomProperty>,
        data: D,
        merge_policy: MergePolicy,
    ) -> Self {
        let weaving = Weaving::new(program, automata, &properties);
        let init_ops = Rc::new(weaving.init_ops());
        let rpo = match merge_policy {
            MergePolicy::Data => crate::cfa::loops::reverse_postorder(program),
            MergePolicy::LoopHeads => Vec::new(),
        };
        LoomCpa {
            program,
            location: LocationCpa { program },
            callstack: CallstackCpa { program },
            data,
            properties,
            weaving,
            init_ops,
            merge_policy,
            rpo,
            joint: JointMoves::new(program),
        }
    }

    /// The enabled properties violated at `loc` with automaton states `autos`.
    fn violated(&self, loc: LocId, autos: &[StateIdx], enabled: &PropertySet) -> PropertySet {
        self.weaving
            .violated(loc, autos.iter().copied().enumerate(), enabled)
    }

    /// The automaton successors of a control step that produced the data
    /// state `data`: per combination of one move per automaton, the new
    /// states and the operations to weave. A move whose assumes the data
    /// analysis refutes is not taken, and combinations whose assumes
    /// contradict each other are not formed ([`super::joint`]).
    fn automaton_successors(
        &self,
        s: &LoomState<D::State>,
        step: &Transition,
        enabled: &PropertySet,
        data: &D::State,
    ) -> Vec<(Vec<StateIdx>, Vec<Rc<WovenOp>>)> {
        let (edge, kind) = self
            .weaving
            .step_of(step)
            .expect("woven steps have no automaton moves");
        let mut combos: Vec<(Vec<StateIdx>, Vec<Rc<WovenOp>>)> =
            vec![(Vec::with_capacity(s.autos.len()), Vec::new())];
        for (a, &q) in s.autos.iter().enumerate() {
            if !self.weaving.active(a, q, enabled) {
                for c in &mut combos {
                    c.0.push(q);
                }
                continue;
            }
            let moves = self.weaving.moves(a, q, edge, kind);
            let mut next = Vec::with_capacity(combos.len() * moves.len());
            for m in moves.iter() {
                if m.ops.iter().any(|o| self.data.refutes(data, &o.op)) {
                    continue;
                }
                self.weaving.count(a, m, enabled);
                for (autos, ops) in &combos {
                    if !ops.is_empty() && !m.ops.is_empty() && !self.joint.consistent(ops, &m.ops) {
                        continue;
                    }
                    let mut autos = autos.clone();
                    autos.push(m.to);
                    let mut ops = ops.clone();
                    ops.extend(m.ops.iter().cloned());
                    next.push((autos, ops));
                }
            }
            combos = next;
        }
        combos
    }
}

impl<'p, D: Cpa> Cpa for LoomCpa<'p, D> {
    type State = LoomState<D::State>;
    type Precision = LoomPrecision<D::Precision>;

    fn initial_state(&self, start: LocId) -> Self::State {
        let autos: Vec<StateIdx> = self
            .weaving
            .automata
            .iter()
            .map(|b| b.automaton.initial)
            .collect();
        LoomState {
            loc: self.location.initial_state(start),
            stack: self.callstack.initial_state(start),
            autos: Rc::new(autos),
            pending: (!self.init_ops.is_empty()).then(|| (self.init_ops.clone(), 0)),
            violated: PropertySet::new(),
            data: self.data.initial_state(start),
        }
    }

    fn initial_precision(&self, start: LocId) -> Self::Precision {
        LoomPrecision {
            enabled: self.properties.iter().map(|p| p.id).collect(),
            data: self.data.initial_precision(start),
        }
    }

    fn transitions<'a>(&'a self, s: &'a Self::State) -> Vec<Transition<'a>> {
        if let Some((ops, i)) = &s.pending {
            return vec![Transition::Woven(&ops[*i])];
        }
        control_transitions(self.program, s.loc, &s.stack)
    }

    fn transfer(
        &self,
        s: &Self::State,
        step: &Transition,
        prec: &Self::Precision,
    ) -> Vec<Self::State> {
        if let Transition::Woven(_) = step {
            let Some((ops, i)) = &s.pending else {
                return Vec::new();
            };
            let pending = (i + 1 < ops.len()).then(|| (ops.clone(), i + 1));
            return self
                .data
                .transfer(&s.data, step, &prec.data)
                .into_iter()
                .map(|data| LoomState {
                    loc: s.loc,
                    stack: s.stack.clone(),
                    autos: s.autos.clone(),
                    pending: pending.clone(),
                    violated: s.violated.clone(),
                    data,
                })
                .collect();
        }
        let mut out = Vec::new();
        let datas = self.data.transfer(&s.data, step, &prec.data);
        if datas.is_empty() {
            return out;
        }
        // A step no automaton observes: every automaton stutters (one
        // combination, no operations, the same automaton states).
        let silent = self
            .weaving
            .step_of(step)
            .is_some_and(|(edge, kind)| self.weaving.silent(edge, kind));
        for loc in self.location.transfer(&s.loc, step, &()) {
            for stack in self.callstack.transfer(&s.stack, step, &()) {
                for data in &datas {
                    if silent {
                        out.push(LoomState {
                            loc,
                            stack: stack.clone(),
                            autos: s.autos.clone(),
                            pending: None,
                            violated: self.violated(loc, &s.autos, &prec.enabled),
                            data: data.clone(),
                        });
                        continue;
                    }
                    for (autos, ops) in self.automaton_successors(s, step, &prec.enabled, data) {
                        let violated = self.violated(loc, &autos, &prec.enabled);
                        let autos = if *autos == *s.autos {
                            s.autos.clone()
                        } else {
                            Rc::new(autos)
                        };
                        let pending = (!ops.is_empty()).then(|| (Rc::new(ops), 0));
                        out.push(LoomState {
                            loc,
                            stack: stack.clone(),
                            autos,
                            pending,
                            violated,
                            data: data.clone(),
                        });
                    }
                }
            }
        }
        out
    }

    /// Data states at the same location, call stack and automaton states
    /// are merged by the data analysis (never at `l#`); automaton states
    /// are never joined (merge-sep).
    fn merge(
        &self,
        new: &Self::State,
        reached: &Self::State,
        prec: &Self::Precision,
    ) -> Option<Self::State> {
        if new.pending.is_none()
            && reached.pending.is_none()
            && new.loc == reached.loc
            && new.stack == reached.stack
            && new.autos == reached.autos
            && new.violated == reached.violated
            && (self.merge_policy == MergePolicy::Data || self.program.loc(new.loc).loop_head)
        {
            let data = self.data.merge(&new.data, &reached.data, &prec.data)?;
            Some(LoomState {
                data,
                ..reached.clone()
            })
        } else {
            None
        }
    }

    fn less_or_equal(&self, a: &Self::State, b: &Self::State) -> bool {
        a.loc == b.loc
            && a.stack == b.stack
            && a.autos == b.autos
            && same_pending(&a.pending, &b.pending)
            && self.data.less_or_equal(&a.data, &b.data)
    }

    fn is_target(&self, s: &Self::State) -> bool {
        s.pending.is_none() && !s.violated.is_empty()
    }

    /// At real locations the data analysis adjusts its precision
    /// (abstraction), deciding the feasibility of targets. The enabled
    /// properties pass unchanged: the analysis switches properties off
    /// between steps (`disable`, and `prec_S` when it restarts a run).
    fn prec(
        &self,
        mut s: Self::State,
        prec: Self::Precision,
    ) -> Option<(Self::State, Self::Precision)> {
        if s.pending.is_some() {
            return Some((s, prec));
        }
        if self.is_target(&s) {
            self.data.mark_target(&mut s.data);
        }
        let (data, dprec) = self.data.prec(s.data, prec.data)?;
        Some((
            LoomState { data, ..s },
            LoomPrecision {
                enabled: prec.enabled,
                data: dprec,
            },
        ))
    }

    fn priority(&self, s: &Self::State) -> (u64, u64) {
        location_priority(self.data.priority(&s.data), &self.rpo, s.loc)
    }

    fn partition_key(&self, s: &Self::State) -> u64 {
        use std::hash::{BuildHasher, Hash, Hasher};
        let mut h = crate::hash::FixedState::default().build_hasher();
        s.loc.hash(&mut h);
        s.stack.hash(&mut h);
        s.autos.hash(&mut h);
        if let Some((ops, i)) = &s.pending {
            (Rc::as_ptr(ops) as usize).hash(&mut h);
            i.hash(&mut h);
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::reachability::{explore, Limits};
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::automaton::from_text;
    use crate::spec::bound::StepKind;

    /// Two rules in one file-less setup: `lock` (a counter woven as an
    /// assume/assign) and `init` (a pure automaton whose model returns
    /// only 0 or -1 and stops otherwise).
    const LOCK: &str = r#"
        rule "lock" "no double lock";
        var held: int = 0;
        initial I;
        error Double "locked twice";
        state I {
          on lock($?) { assume held != 0 -> Double; else do held = 1 -> I; }
          on unlock($?) { do held = 0 -> I; }
        }"#;
    const INIT: &str = r#"
        rule "init" "setup returns 0 or -1, and done() only after setup";
        initial Fresh;
        error Early "done before setup";
        state Fresh {
          on $1 = setup() { assume $1 == 0 -> Ready; assume $1 == -1 -> Fresh; else -> stop; }
          on done() -> Early;
        }
        state Ready { on done() -> Ready; }"#;

    /// The properties hit by explicit-value exploration of `src` with both
    /// rules enabled (ids: 0 = lock, 1 = init), and whether it finished.
    fn hits(src: &str, enabled: &[u32]) -> (Vec<u32>, bool) {
        let mut p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let automata: Vec<BoundAutomaton> = [LOCK, INIT]
            .iter()
            .map(|t| from_text("r.spec", t).unwrap().bind(&mut p))
            .collect();
        let props: Vec<LoomProperty> = (0..2)
            .map(|i| LoomProperty {
                id: PropertyId(i),
                goal: LoomGoal::Automaton {
                    automaton: i as usize,
                    property: 0,
                },
            })
            .collect();
        let enabled: PropertySet = enabled.iter().map(|&i| PropertyId(i)).collect();
        let ex = explore(
            &p,
            &automata,
            &props,
            &enabled,
            Limits {
                work: None,
                max_states: 100_000,
            },
            false,
        );
        (ex.hit.iter().map(|p| p.0).collect(), ex.complete)
    }

    const DECLS: &str = "void lock(int *m); void unlock(int *m); int setup(void); void done(void); int nd(void); int m;";

    #[test]
    fn only_steps_an_automaton_names_are_observed() {
        use crate::cfa::EdgeOp;
        let src = format!(
            "{DECLS} int main(void) {{ int x = nd(); x = x + 1; lock(&m); done(); return x; }}"
        );
        let mut p = parse_source("t.c", &src, &FrontendOptions::default()).unwrap();
        let automata: Vec<BoundAutomaton> = [LOCK, INIT]
            .iter()
            .map(|t| from_text("r.spec", t).unwrap().bind(&mut p))
            .collect();
        let weaving = Weaving::new(&p, &automata, &[]);
        let mut seen = Vec::new();
        for (i, e) in p.edges.iter().enumerate() {
            let callee = match &e.op {
                EdgeOp::Call { callee, .. } => Some(p.func(*callee).name.clone()),
                _ => None,
            };
            let silent = weaving.silent(crate::cfa::EdgeId(i as u32), StepKind::Edge);
            let named = matches!(
                callee.as_deref(),
                Some("lock" | "unlock" | "setup" | "done")
            );
            assert_eq!(silent, !named, "{:?}", e.op);
            seen.push(silent);
        }
        assert!(seen.contains(&true) && seen.contains(&false));
    }

    #[test]
    fn woven_assumes_and_assignments_decide_the_error() {
        let safe =
            format!("{DECLS} int main(void) {{ lock(&m); unlock(&m); lock(&m); return 0; }}");
        assert_eq!(hits(&safe, &[0, 1]), (vec![], true));
        let bad = format!(
            "{DECLS} int main(void) {{ lock(&m); if (nd()) unlock(&m); lock(&m); return 0; }}"
        );
        assert_eq!(hits(&bad, &[0, 1]), (vec![0], true));
    }

    #[test]
    fn a_disabled_property_is_not_woven() {
        let bad = format!("{DECLS} int main(void) {{ lock(&m); lock(&m); done(); return 0; }}");
        assert_eq!(hits(&bad, &[0, 1]), (vec![0, 1], true));
        assert_eq!(
            hits(&bad, &[1]),
            (vec![1], true),
            "lock is off: no error of it"
        );
        assert_eq!(hits(&bad, &[]), (vec![], true));
    }

    #[test]
    fn several_violations_on_one_path_are_all_found() {
        // The double lock comes first; exploration goes on to the early done().
        let src = format!(
            "{DECLS} int main(void) {{ lock(&m); lock(&m); unlock(&m); done(); return 0; }}"
        );
        assert_eq!(hits(&src, &[0, 1]).0, vec![0, 1]);
    }

    #[test]
    fn a_stop_ends_the_path_for_its_own_automaton_only() {
        // setup() returning 5 is outside init's model: init stops weaving,
        // but the lock rule still sees the double lock after it.
        let src = format!(
            "{DECLS} int main(void) {{ int r = setup(); if (r == 5) {{ lock(&m); lock(&m); }} if (r == 0) done(); return 0; }}"
        );
        assert_eq!(hits(&src, &[0, 1]), (vec![0], true));
        // Without the stop branch's path, init is satisfied: done() only after setup() == 0.
        assert_eq!(hits(&src, &[1]), (vec![], true));
    }
}
