//! The LOOM CPA of the explicit-value stage with one state per program
//! state: location, call stack and the values of program variables, with
//! a *set* of configurations (control state and the automaton's own
//! variables) per automaton, instead of one state per combination of
//! automaton states ([`super::loom`]).
//!
//! Each property observes one automaton, so what it needs of the reached
//! set is its projection onto the program and that automaton; the
//! combinations of the other automata's states only multiply the states
//! (k automata that each remember one of two states give 2^k states of one
//! program state). Here the program is explored once and each automaton's
//! configurations ride along: states with the same program part are merged
//! by the union of their configurations, anywhere; at loop heads, states
//! whose automata are in the same control states are joined (program values
//! and automaton variables both), which keeps the state space finite.
//!
//! **Shared nondeterminism.** The program has one outcome per step, which
//! every automaton must see. A move whose assumes refine what is known of
//! the program (`$1 == 0` makes the returned value 0) puts its
//! configuration into a program part of its own: the successors of a step
//! are the program parts the moves' refinements give, closed under further
//! refinement, and each automaton's configurations in a part are its
//! moves that hold there without refining it further. A part in which some
//! automaton has no configuration is covered by the finer parts its moves
//! lead to, so it is not formed: an automaton that splits a `kmalloc` on
//! its result being null or not leaves no configuration of another
//! automaton's non-null branch in the null part.
//!
//! **Soundness.** A rule's assumes cover `true` in every state (checked when
//! a rule is compiled), so an automaton never blocks the program, and every
//! concrete successor lies in one of the parts formed, with each
//! automaton's move taken there. A configuration whose state can no longer
//! reach an error of an enabled property is dropped (the automaton is
//! *idle*): it would only stutter. Coverage therefore compares the program
//! part and the configurations of the automata that matter.
//!
//! This stage only proves (errors not reached in a complete exploration)
//! and lists the properties whose error it reached; counterexamples come
//! from the value search and CEGAR, over [`super::loom`].

use std::rc::Rc;

use super::callstack::{CallStack, CallstackCpa};
use super::composite::control_transitions;
use super::location::LocationCpa;
use super::loom::{LoomPrecision, LoomProperty};
use super::value::{ValueCpa, Values};
use super::weave::{Weaving, WovenMove};
use super::{Cpa, Transition, WovenOp};
use crate::cfa::{EdgeId, LocId, Program};
use crate::ir::Scope;
use crate::spec::automaton::StateIdx;
use crate::spec::bound::{BoundAutomaton, StepKind};
use crate::spec::PropertySet;

/// One automaton's control state and what is known of its variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Config {
    pub state: StateIdx,
    pub spec: Values,
}

/// The configurations one automaton may be in (sorted, without
/// duplicates), and whether it may be in one that no enabled property
/// cares about (`idle`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Configs {
    pub idle: bool,
    pub set: Vec<Config>,
}

impl Configs {
    /// Both sets of configurations (to be normalised).
    fn union(&self, o: &Configs) -> Configs {
        let mut set = self.set.clone();
        set.extend(o.set.iter().cloned());
        Configs {
            idle: self.idle || o.idle,
            set,
        }
    }

    /// The control states, in order.
    fn states(&self) -> impl Iterator<Item = StateIdx> + '_ {
        let mut last = None;
        self.set.iter().filter_map(move |c| {
            let new = last != Some(c.state);
            last = Some(c.state);
            new.then_some(c.state)
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SetsState {
    pub loc: LocId,
    pub stack: CallStack,
    /// What is known of the program's variables.
    pub program: Values,
    /// A hash of `program` (states with different ones are never merged
    /// by union).
    program_hash: u64,
    /// The configurations of each automaton.
    pub autos: Rc<Vec<Configs>>,
    /// Enabled properties whose error this state is in.
    pub violated: PropertySet,
}

pub struct LoomSetsCpa<'p> {
    program: &'p Program,
    location: LocationCpa<'p>,
    callstack: CallstackCpa<'p>,
    value: ValueCpa<'p>,
    pub weaving: Weaving<'p>,
    pub properties: Vec<LoomProperty>,
    /// Whether each variable is an automaton variable.
    is_spec: Vec<bool>,
}

impl<'p> LoomSetsCpa<'p> {
    pub fn new(
        program: &'p Program,
        automata: &'p [BoundAutomaton],
        properties: Vec<LoomProperty>,
    ) -> Self {
        LoomSetsCpa {
            program,
            location: LocationCpa { program },
            callstack: CallstackCpa { program },
            value: ValueCpa::new(program),
            weaving: Weaving::new(program, automata, &properties),
            properties,
            is_spec: program
                .vars
                .iter()
                .map(|v| v.scope == Scope::Spec)
                .collect(),
        }
    }

    /// Runs `ops` over what `program` and `spec` know; `None` if an assume
    /// is refuted.
    fn run_ops(&self, program: &Values, spec: &Values, ops: &[Rc<WovenOp>]) -> Option<Values> {
        let mut v = program.with(spec);
        for op in ops {
            v = self.value.transfer(&v, &Transition::Woven(op), &()).pop()?;
        }
        Some(v)
    }

    /// Move `m` of configuration `c` in program part `q`: the new
    /// configuration, and the finer program part its assumes give
    /// (`None`: `q` itself); `None` if the assumes are refuted there.
    fn apply(&self, q: &Values, c: &Config, m: &WovenMove) -> Option<(Option<Values>, Config)> {
        if m.ops.is_empty() {
            return Some((
                None,
                Config {
                    state: m.to,
                    spec: c.spec.clone(),
                },
            ));
        }
        let v = self.run_ops(q, &c.spec, &m.ops)?;
        let (spec, program) = v.split(|x| self.is_spec[x.0 as usize]);
        let refined = (program != *q).then_some(program);
        Some((refined, Config { state: m.to, spec }))
    }

    /// The program parts after a step that left the program in `p1`, each
    /// with every automaton's configurations there (see the module doc).
    fn parts(
        &self,
        autos: &[Configs],
        p1: Values,
        edge: EdgeId,
        kind: StepKind,
        enabled: &PropertySet,
    ) -> Vec<(Values, Vec<Configs>)> {
        let mut seen = vec![p1.clone()];
        let mut todo = vec![p1];
        let mut out = Vec::new();
        let mut first = true;
        while let Some(q) = todo.pop() {
            let mut sets = Vec::with_capacity(autos.len());
            let mut exists = true;
            for (a, configs) in autos.iter().enumerate() {
                let mut set = Configs {
                    idle: configs.idle,
                    set: Vec::new(),
                };
                for c in &configs.set {
                    if !self.weaving.active(a, c.state, enabled) {
                        set.idle = true;
                        continue;
                    }
                    for m in self.weaving.moves(a, c.state, edge, kind).iter() {
                        if first {
                            self.weaving.count(a, m, enabled);
                        }
                        match self.apply(&q, c, m) {
                            None => {}
                            Some((None, config)) => set.set.push(config),
                            Some((Some(finer), _)) if !seen.contains(&finer) => {
                                seen.push(finer.clone());
                                todo.push(finer);
                            }
                            Some((Some(_), _)) => {}
                        }
                    }
                }
                exists &= set.idle || !set.set.is_empty();
                sets.push(set);
            }
            first = false;
            if exists {
                out.push((q, sets));
            }
        }
        out
    }

    /// Sorted configurations without duplicates; at a loop head, those in
    /// the same control state joined (what they agree on).
    fn normalise(&self, mut c: Configs, loop_head: bool) -> Configs {
        c.set.sort();
        c.set.dedup();
        if loop_head && c.set.windows(2).any(|w| w[0].state == w[1].state) {
            let mut joined: Vec<Config> = Vec::with_capacity(c.set.len());
            for x in c.set {
                match joined.last_mut() {
                    Some(last) if last.state == x.state => {
                        if let Some(m) = self.value.merge(&x.spec, &last.spec, &()) {
                            last.spec = m;
                        }
                    }
                    _ => joined.push(x),
                }
            }
            c.set = joined;
        }
        c
    }

    /// `sets` normalised ([`Self::normalise`]), sharing `old` if equal.
    fn normalised(&self, sets: &[Configs], head: bool, old: &Rc<Vec<Configs>>) -> Rc<Vec<Configs>> {
        let autos: Vec<Configs> = sets
            .iter()
            .map(|c| self.normalise(c.clone(), head))
            .collect();
        if autos == **old {
            old.clone()
        } else {
            Rc::new(autos)
        }
    }

    /// The enabled properties violated at `loc` by some configuration.
    fn violated(&self, loc: LocId, autos: &[Configs], enabled: &PropertySet) -> PropertySet {
        let states = autos
            .iter()
            .enumerate()
            .flat_map(|(a, c)| c.set.iter().map(move |x| (a, x.state)));
        self.weaving.violated(loc, states, enabled)
    }

    /// The state at `loc` with these parts (its violations and hash).
    fn state(
        &self,
        loc: LocId,
        stack: CallStack,
        program: Values,
        autos: Rc<Vec<Configs>>,
        enabled: &PropertySet,
    ) -> SetsState {
        use std::hash::BuildHasher;
        let program_hash = crate::hash::FixedState::default().hash_one(&program);
        SetsState {
            violated: self.violated(loc, &autos, enabled),
            loc,
            stack,
            program,
            program_hash,
            autos,
        }
    }

    fn loop_head(&self, loc: LocId) -> bool {
        self.program.loc(loc).loop_head
    }

    /// `a` and `b` with the union of their configurations (normalised).
    fn union(
        &self,
        a: &SetsState,
        b: &SetsState,
        program: Values,
        enabled: &PropertySet,
    ) -> SetsState {
        let head = self.loop_head(a.loc);
        let autos: Vec<Configs> = a
            .autos
            .iter()
            .zip(b.autos.iter())
            .map(|(x, y)| self.normalise(x.union(y), head))
            .collect();
        self.state(a.loc, a.stack.clone(), program, Rc::new(autos), enabled)
    }
}

impl Cpa for LoomSetsCpa<'_> {
    type State = SetsState;
    type Precision = LoomPrecision<()>;

    fn initial_state(&self, start: LocId) -> SetsState {
        let autos: Vec<Configs> = (0..self.weaving.automata.len())
            .map(|a| {
                let init = self.weaving.init_ops_of(a);
                let spec = self
                    .run_ops(&Values::default(), &Values::default(), &init)
                    .unwrap_or_default();
                Configs {
                    idle: false,
                    set: vec![Config {
                        state: self.weaving.automata[a].automaton.initial,
                        spec,
                    }],
                }
            })
            .collect();
        self.state(
            self.location.initial_state(start),
            self.callstack.initial_state(start),
            Values::default(),
            Rc::new(autos),
            &PropertySet::new(),
        )
    }

    fn initial_precision(&self, _start: LocId) -> Self::Precision {
        LoomPrecision {
            enabled: self.properties.iter().map(|p| p.id).collect(),
            data: (),
        }
    }

    fn transitions<'a>(&'a self, s: &'a SetsState) -> Vec<Transition<'a>> {
        control_transitions(self.program, s.loc, &s.stack)
    }

    fn transfer(&self, s: &SetsState, step: &Transition, prec: &Self::Precision) -> Vec<SetsState> {
        let Some((edge, kind)) = self.weaving.step_of(step) else {
            return Vec::new();
        };
        // A step no automaton observes leaves configurations in which
        // every automaton is active as they are: `parts` would give the
        // program part alone, with the same configurations.
        let unchanged = self.weaving.silent(edge, kind)
            && s.autos.iter().enumerate().all(|(a, c)| {
                c.set
                    .iter()
                    .all(|x| self.weaving.active(a, x.state, &prec.enabled))
            });
        let mut out = Vec::new();
        for p1 in self.value.transfer(&s.program, step, &()) {
            // `None`: the state's own configurations.
            let parts: Vec<(Values, Option<Vec<Configs>>)> = match unchanged {
                true => vec![(p1, None)],
                false => self
                    .parts(&s.autos, p1, edge, kind, &prec.enabled)
                    .into_iter()
                    .map(|(q, sets)| (q, Some(sets)))
                    .collect(),
            };
            for loc in self.location.transfer(&s.loc, step, &()) {
                let head = self.loop_head(loc);
                for stack in self.callstack.transfer(&s.stack, step, &()) {
                    for (program, sets) in &parts {
                        let autos = match sets {
                            // Already normalised (only loop heads join).
                            None if !head => s.autos.clone(),
                            None => self.normalised(&s.autos, head, &s.autos),
                            Some(sets) => self.normalised(sets, head, &s.autos),
                        };
                        out.push(self.state(
                            loc,
                            stack.clone(),
                            program.clone(),
                            autos,
                            &prec.enabled,
                        ));
                    }
                }
            }
        }
        out
    }

    /// The same program part: the union of the configurations. At a loop
    /// head, the same control states: the join of program values and of
    /// the automaton variables per control state.
    fn merge(
        &self,
        new: &SetsState,
        reached: &SetsState,
        prec: &Self::Precision,
    ) -> Option<SetsState> {
        if new.loc != reached.loc || new.stack != reached.stack {
            return None;
        }
        if new.program_hash == reached.program_hash && new.program == reached.program {
            return Some(self.union(new, reached, reached.program.clone(), &prec.enabled));
        }
        let same_states = || {
            new.autos
                .iter()
                .zip(reached.autos.iter())
                .all(|(x, y)| x.idle == y.idle && x.states().eq(y.states()))
        };
        if self.loop_head(new.loc) && same_states() {
            let program = self
                .value
                .merge(&new.program, &reached.program, &())
                .unwrap_or_else(|| reached.program.clone());
            return Some(self.union(new, reached, program, &prec.enabled));
        }
        None
    }

    /// Same place, the program part covered, and each configuration of an
    /// automaton covered by one in the same control state.
    fn less_or_equal(&self, a: &SetsState, b: &SetsState) -> bool {
        a.loc == b.loc
            && a.stack == b.stack
            && self.value.less_or_equal(&a.program, &b.program)
            && a.autos.iter().zip(b.autos.iter()).all(|(x, y)| {
                x.set.iter().all(|c| {
                    y.set
                        .iter()
                        .any(|d| d.state == c.state && self.value.less_or_equal(&c.spec, &d.spec))
                })
            })
    }

    fn is_target(&self, s: &SetsState) -> bool {
        !s.violated.is_empty()
    }

    /// One partition per place: a state may be covered by one that knows
    /// less of the program.
    fn partition_key(&self, s: &SetsState) -> u64 {
        use std::hash::{BuildHasher, Hash, Hasher};
        let mut h = crate::hash::FixedState::default().build_hasher();
        s.loc.hash(&mut h);
        s.stack.hash(&mut h);
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::algorithm::reachability::{explore, Exploration, Limits};
    use crate::cpa::loom::{LoomGoal, LoomProperty};
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::automaton::from_text;
    use crate::spec::bound::BoundAutomaton;
    use crate::spec::{PropertyId, PropertySet};

    /// Explicit-value exploration of `src` with the rules `rules`, each
    /// one property (id = its index), all enabled.
    fn run(src: &str, rules: &[String]) -> Exploration {
        let mut p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let automata: Vec<BoundAutomaton> = rules
            .iter()
            .map(|t| from_text("r.spec", t).unwrap().bind(&mut p))
            .collect();
        let props: Vec<LoomProperty> = (0..rules.len())
            .map(|i| LoomProperty {
                id: PropertyId(i as u32),
                goal: LoomGoal::Automaton {
                    automaton: i,
                    property: 0,
                },
            })
            .collect();
        let enabled: PropertySet = props.iter().map(|p| p.id).collect();
        let limits = Limits {
            work: None,
            max_states: 100_000,
        };
        explore(&p, &automata, &props, &enabled, limits, false)
    }

    /// A rule remembering whether `fI()` was called; calling `gI()` before
    /// is an error.
    fn flag_rule(i: usize) -> String {
        format!(
            r#"rule "r{i}" "g{i} before f{i}";
            initial Off; error Bad "early";
            state Off {{ on f{i}() -> On; on g{i}() -> Bad; }}
            state On {{ on f{i}() -> On; }}"#
        )
    }

    #[test]
    fn independent_automata_do_not_multiply_the_states() {
        let k = 8;
        let rules: Vec<String> = (0..k).map(flag_rule).collect();
        let decls: String = (0..k)
            .map(|i| format!("void f{i}(void); void g{i}(void); "))
            .collect();
        let calls: String = (0..k)
            .map(|i| format!("x = nd(); if (x) f{i}(); "))
            .collect();
        let src = format!("{decls} int nd(void); int main(void) {{ int x; {calls} return 0; }}");
        let ex = run(&src, &rules);
        assert!(ex.complete && ex.hit.is_empty());
        // Each `if` joins its two branches into one state: the states grow
        // with k, not with the 2^k combinations of the automata.
        assert!(ex.stats.states < 20 * k, "{} states", ex.stats.states);
    }

    #[test]
    fn automata_observing_one_call_share_its_outcome() {
        // Both rules split `get()` on its result; the program's own test
        // leaves only the non-null result to `use()`, for both.
        let rule = |name: &str, flip: bool| {
            let (null, got) = if flip {
                ("assume $1 != 0 -> Got; assume $1 == 0 -> Null;", "")
            } else {
                ("assume $1 == 0 -> Null; else -> Got;", "")
            };
            format!(
                r#"rule "{name}" "use of a null result";
                initial I; error Bad "null used";
                state I {{ on $1 = get() {{ {null} {got} }} }}
                state Null {{ on use() -> Bad; }}
                state Got {{ on use() -> Got; }}"#
            )
        };
        let src = "char *get(void); void use(void); int main(void) { char *p = get(); if (!p) return 1; use(); return 0; }";
        let ex = run(src, &[rule("a", false), rule("b", true)]);
        assert!(ex.complete);
        assert!(ex.hit.is_empty(), "hit {:?}", ex.hit);
        // Without the test, both rules see the null result used.
        let src =
            "char *get(void); void use(void); int main(void) { char *p = get(); use(); return 0; }";
        let ex = run(src, &[rule("a", false), rule("b", true)]);
        assert_eq!(ex.hit.iter().count(), 2);
    }
}
