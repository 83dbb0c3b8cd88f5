//! Search for error paths under explicit values: a search over the LOOM
//! composite (location × call stack × specification automata × constant
//! values of integer variables) without any merge, so a path
//! through a loop with a constant bound unrolls it with the loop counter
//! known. Each loop head is entered at most `k` times per path, with
//! iterative deepening over `k`; a state equal to one already seen is not
//! explored again.
//!
//! The order depends on the search ([`Rounds`]). A search for several
//! properties goes breadth-first: each state is reached by a shortest path,
//! so its first path to an error is a shortest one, where depth-first the
//! path depends on which states the other automata's configurations made
//! look new (on ems_usb the joint search of four rules proposed a 629-step
//! path, 3.7 s of exact checks, to an error one rule alone reached in 248
//! steps). A search for one property goes depth-first, to reach errors
//! behind long environment sequences without first visiting every
//! shallower state; its few checks per round are not spent on the same
//! shortest paths in every round (on ems_usb 010 the two shortest paths to
//! 68_1a are infeasible, the first depth-first one is not).
//!
//! The search proposes paths: a path reaching an error is re-executed
//! alone on the exact encoding ([`path_check::concrete_check`]); FALSE
//! comes only from a feasible, exactly encoded path. This finds the errors
//! behind constant-bound loops (module initialisation filling tables, ...)
//! that predicate abstraction would reach only after one refinement per
//! iteration.
//!
//! A round that nothing cut (no loop head past its bound, no limit of
//! states, budget or time) and that reached no error state is a fixed
//! point: every state it reached had all its successors formed, each one
//! over-approximates the program's step as the explicit stage's do (the
//! same value analysis and weaving, without the joins that keep that
//! stage finite). It proves every property the round looked for, as the
//! explicit stage's fixed point does ([`SearchResult::proven`]); that is
//! what decides a property whose error the explicit stage reached only
//! through a join at a loop head of constant bound (a counter incremented
//! ten times and decremented ten times), where CEGAR would need one
//! refinement per iteration.

use std::collections::VecDeque;
use std::hash::BuildHasher;
use std::rc::Rc;
use std::time::Duration;

use crate::hash::{FixedState, HashMap, HashSet};

use crate::algorithm::cpa_algorithm::Step;
use crate::algorithm::path_check::{concrete_check, PathCheck};
use crate::cfa::{EdgeId, LocId, Program};
use crate::cpa::loom::{LoomCpa, LoomPrecision, LoomProperty, LoomState};
use crate::cpa::predicate::trace::step_transition;
use crate::cpa::value::{ValueCpa, Values};
use crate::cpa::{Cpa, Transition, WovenOp};
use crate::report::Counterexample;
use crate::smt::work::Deadline;
use crate::smt::Encoder;
use crate::spec::bound::BoundAutomaton;
use crate::spec::{PropertyId, PropertySet};
use crate::util::tracing;

/// Loop bounds of the successive rounds.
const BOUNDS: [u32; 3] = [4, 16, 64];

/// Error paths checked per property and round before the property is left
/// to the other analyses ([`Rounds::All`]; a joint search checks one and
/// leaves the property to its search alone).
const CHECKS_PER_ROUND: u32 = 2;

/// States per round (a guard against explosion).
const MAX_STATES: usize = 300_000;

/// States a search explores per nominal second of its budget: a budget is
/// stated in time and counted in states ([`SearchBudget`]).
pub const STATES_PER_SECOND: f64 = 200_000.0;

/// What one search may do: explore `states` states over all its rounds,
/// and never run past `deadline` (the run's). The states, not the clock,
/// end a search within its budget, so it ends at the same state on a fast
/// and on a slow machine; each path check may take the nominal time of
/// the states left, shared among the properties still looked for.
#[derive(Clone, Copy, Debug)]
pub struct SearchBudget {
    pub states: Option<u64>,
    pub deadline: Deadline,
}

impl SearchBudget {
    /// The states `work` nominally stands for, until `deadline`.
    pub fn nominal(work: Option<Duration>, deadline: Deadline) -> Self {
        SearchBudget {
            states: work.map(|c| (c.as_secs_f64() * STATES_PER_SECOND) as u64),
            deadline,
        }
    }

    /// `part` of the states, with the same deadline.
    pub fn part(self, part: f64) -> Self {
        SearchBudget {
            states: self.states.map(|n| (n as f64 * part) as u64),
            ..self
        }
    }

    /// The nominal time of `states`.
    fn nominal_time(states: u64) -> Duration {
        Duration::from_secs_f64(states as f64 / STATES_PER_SECOND)
    }
}

/// What the search found.
#[derive(Default)]
pub struct SearchResult {
    /// Feasible counterexamples, each with the properties it violates.
    pub counterexamples: Vec<(PropertySet, Counterexample)>,
    pub states: usize,
    pub transitions: u64,
    /// States explored over all rounds (what the budget counts).
    pub explored: u64,
    /// Error paths that were checked exactly.
    pub paths_checked: u32,
    /// The properties without a counterexample that the search did not
    /// finish with: its time ran out while it still looked for them.
    pub unfinished: PropertySet,
    /// The properties without a counterexample for which a path the search
    /// proposed was neither feasible nor infeasible (imprecise, or its
    /// check ran out of time).
    pub inconclusive: PropertySet,
    /// The properties a round proved: it reached its fixed point without
    /// reaching an error state.
    pub proven: PropertySet,
    /// Of a round that proved something: the location and values of every
    /// state it reached at a loop head (what the proof knows there).
    pub loop_heads: Vec<(LocId, Values)>,
}

impl SearchResult {
    /// Whether a counterexample for `p` was found.
    pub fn refutes(&self, p: PropertyId) -> bool {
        self.counterexamples.iter().any(|(ps, _)| ps.contains(p))
    }

    /// Takes in the result of a search for `p` alone.
    pub fn merge_alone(&mut self, p: PropertyId, alone: SearchResult) {
        self.counterexamples.extend(alone.counterexamples);
        self.states = self.states.max(alone.states);
        self.transitions += alone.transitions;
        self.explored += alone.explored;
        self.paths_checked += alone.paths_checked;
        self.unfinished.remove(p);
        if alone.unfinished.contains(p) {
            self.unfinished.insert(p);
        }
        if alone.proven.contains(p) {
            self.proven.insert(p);
            self.loop_heads.extend(alone.loop_heads);
        }
    }
}

/// An owned step of a path (woven operations are kept alive by the path).
/// Steps are equal if they take the same edge or the same woven operation
/// (by identity: one search shares each operation among all its states).
#[derive(Clone)]
pub(crate) enum PathStep {
    Edge(EdgeId),
    Enter(EdgeId),
    Return(EdgeId),
    Woven(Rc<WovenOp>),
}

impl PartialEq for PathStep {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (PathStep::Edge(a), PathStep::Edge(b))
            | (PathStep::Enter(a), PathStep::Enter(b))
            | (PathStep::Return(a), PathStep::Return(b)) => a == b,
            (PathStep::Woven(a), PathStep::Woven(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for PathStep {}

impl std::hash::Hash for PathStep {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self).hash(h);
        match self {
            PathStep::Edge(e) | PathStep::Enter(e) | PathStep::Return(e) => e.hash(h),
            PathStep::Woven(op) => Rc::as_ptr(op).hash(h),
        }
    }
}

impl PathStep {
    pub(crate) fn of(t: &Transition) -> PathStep {
        match t {
            Transition::Edge { id, .. } => PathStep::Edge(*id),
            Transition::Enter { call, .. } => PathStep::Enter(*call),
            Transition::Return { call, .. } => PathStep::Return(*call),
            Transition::Woven(op) => PathStep::Woven(Rc::clone(op)),
        }
    }

    pub(crate) fn transition<'a>(&'a self, p: &'a Program) -> Option<Transition<'a>> {
        match self {
            PathStep::Edge(id) => step_transition(p, Step::Edge(*id)),
            PathStep::Enter(c) => step_transition(p, Step::Enter(*c)),
            PathStep::Return(c) => step_transition(p, Step::Return(*c)),
            PathStep::Woven(op) => Some(Transition::Woven(op)),
        }
    }
}

struct PathNode {
    step: PathStep,
    prev: Option<Rc<PathNode>>,
}

struct Node {
    state: LoomState<Values>,
    visits: Rc<HashMap<LocId, u32>>,
    path: Option<Rc<PathNode>>,
}

fn steps(node: &Node) -> Vec<PathStep> {
    let mut out = Vec::new();
    let mut cur = node.path.clone();
    while let Some(n) = cur {
        out.push(n.step.clone());
        cur = n.prev.clone();
    }
    out.reverse();
    out
}

/// Which of the search's rounds (loop bounds [`BOUNDS`]) to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    /// Every round, depth-first, until each property has a counterexample
    /// or every path was followed to its end.
    All,
    /// The first round only, breadth-first; the properties still open
    /// after it are reported unfinished. A search for several properties
    /// follows the product of their automata, whose paths to one
    /// property's error at larger bounds are longer than its own: searches
    /// of one property each take the larger bounds over.
    First,
}

impl Rounds {
    /// Error paths checked per property and round.
    fn checks(self) -> u32 {
        match self {
            Rounds::All => CHECKS_PER_ROUND,
            Rounds::First => 1,
        }
    }
}

/// Searches for feasible error paths of the `enabled` properties until
/// each has a counterexample, the `rounds` are done, or `budget` is spent.
/// `names` gives each property's name for its counterexample.
pub fn search(
    program: &Program,
    automata: &[BoundAutomaton],
    properties: &[LoomProperty],
    names: &[String],
    enabled: &PropertySet,
    budget: SearchBudget,
    rounds: Rounds,
) -> SearchResult {
    let deadline = budget.deadline;
    let out = SearchResult::default();
    let enc = Encoder::new(program);
    enc.modelled_functions
        .borrow_mut()
        .extend(automata.iter().flat_map(|b| b.automaton.api_functions()));
    let cpa = LoomCpa::new(
        program,
        automata,
        properties.to_vec(),
        ValueCpa::new(program),
        crate::cpa::composite::MergePolicy::LoopHeads,
    );
    let Some(start) = program.start else {
        return out;
    };
    let mut search = Search {
        program,
        names,
        enc,
        cpa,
        deadline,
        states_left: budget.states,
        open: enabled.clone(),
        unfinished: enabled.clone(),
        refuted: HashSet::default(),
        rounds,
        out,
    };
    for (i, k) in BOUNDS.into_iter().enumerate() {
        if search.open.is_empty() || search.spent() {
            break;
        }
        if i > 0 && rounds == Rounds::First {
            search.out.unfinished = search.open.clone();
            return search.out;
        }
        if !search.round(k, start) {
            // Every path was followed to its end: a larger bound finds
            // nothing new.
            break;
        }
    }
    if search.spent() {
        search.out.unfinished = search.unfinished;
    }
    search.out
}

/// The search over its rounds.
struct Search<'a, 'p> {
    program: &'p Program,
    names: &'a [String],
    enc: Encoder<'p>,
    cpa: LoomCpa<'p, ValueCpa<'p>>,
    deadline: Deadline,
    /// The states the budget has left (`None`: unbounded).
    states_left: Option<u64>,
    /// The properties without a counterexample yet.
    open: PropertySet,
    /// The open properties the last round still looked for.
    unfinished: PropertySet,
    /// The error paths refuted so far (holding their woven operations,
    /// so no other operation takes the address of one of them).
    refuted: HashSet<Vec<PathStep>>,
    rounds: Rounds,
    out: SearchResult,
}

/// One round of the search, with loop bound `k`.
struct Round {
    k: u32,
    /// Error paths checked per property.
    checks: HashMap<PropertyId, u32>,
    /// The properties still looked for in this round.
    prec: LoomPrecision<()>,
    /// States seen, by control state and values (equal states have
    /// equal keys; a key's states are compared in full).
    seen: HashMap<(u64, u64), Vec<LoomState<Values>>>,
    states: usize,
    /// Whether the loop bound or the state limit cut a path.
    bounded: bool,
    /// Whether the budget or the time left a reached state unexpanded.
    cut: bool,
    /// Whether an error state was reached (it is not expanded).
    hit: bool,
    /// The location and values of the states reached at loop heads, in
    /// the order reached, while the round may still prove something.
    heads: Vec<(LocId, Values)>,
}

impl<'p> Search<'_, 'p> {
    /// Whether the budget is used up: its states, or the run's time.
    fn spent(&self) -> bool {
        self.states_left == Some(0) || self.deadline.passed()
    }
    /// One round with loop bound `k` from `start`; whether it was bounded
    /// (a larger bound may find more).
    fn round(&mut self, k: u32, start: LocId) -> bool {
        let mut round = Round {
            k,
            checks: HashMap::default(),
            prec: LoomPrecision {
                enabled: self.open.clone(),
                data: (),
            },
            seen: HashMap::default(),
            states: 0,
            bounded: false,
            cut: false,
            hit: false,
            heads: Vec::new(),
        };
        let mut frontier = VecDeque::from([Node {
            state: self.cpa.initial_state(start),
            visits: Rc::new(HashMap::default()),
            path: None,
        }]);
        let rounds = self.rounds;
        let next = |f: &mut VecDeque<Node>| match rounds {
            Rounds::First => f.pop_front(),
            Rounds::All => f.pop_back(),
        };
        while let Some(node) = next(&mut frontier) {
            if round.states.is_multiple_of(64) && self.deadline.passed() {
                round.cut = true;
                break;
            }
            if round.states > MAX_STATES || round.prec.enabled.is_empty() {
                round.bounded = true;
                break;
            }
            if self.cpa.is_target(&node.state) {
                round.hit = true;
                self.check_target(&node, &mut round);
                continue;
            }
            // The states reached are checked; no more are made.
            if self.states_left == Some(0) {
                round.cut = true;
                continue;
            }
            self.expand(&node, &mut round, &mut frontier);
        }
        self.out.states = self.out.states.max(round.states);
        let bounded = round.bounded;
        self.unfinished = round.prec.enabled.intersection(&self.open);
        if !(bounded || round.cut || round.hit) {
            self.prove(round);
            self.unfinished = self.unfinished.intersection(&self.open);
        }
        bounded
    }

    /// Takes the fixed point `round` reached without an error state as the
    /// proof of the properties it looked for, with what it knows at loop
    /// heads.
    fn prove(&mut self, round: Round) {
        self.out.proven = self.out.proven.union(&round.prec.enabled);
        self.open = self.open.difference(&round.prec.enabled);
        self.out.loop_heads = round.heads;
    }

    /// Checks the error path to a target `node` exactly: a counterexample
    /// for the properties it violates, or one more check of them (after
    /// [`Rounds::checks`] the round stops looking for them).
    fn check_target(&mut self, node: &Node, round: &mut Round) {
        let hit: PropertySet = node
            .state
            .violated
            .iter()
            .filter(|p| round.prec.enabled.contains(*p))
            .collect();
        if hit.is_empty() {
            return;
        }
        let owned = steps(node);
        let path: Option<Vec<Transition>> =
            owned.iter().map(|s| s.transition(self.program)).collect();
        let Some(path) = path else { return };
        let name = hit
            .iter()
            .map(|p| self.names[p.0 as usize].as_str())
            .collect::<Vec<_>>()
            .join(",");
        // One path's check may take the nominal time of the states left,
        // shared among the properties still looked for: a long path of one
        // does not starve the others (nor the same property's search
        // alone, later).
        let share = self
            .states_left
            .map(SearchBudget::nominal_time)
            .map(|r| r / round.prec.enabled.len().max(1) as u32);
        let deadline = self.deadline.min(Deadline::within(share));
        let check = self.exact_check(&owned, &path, &name, deadline);
        if tracing() {
            let what = match &check {
                PathCheck::Feasible(_) => "feasible".to_string(),
                PathCheck::Imprecise(why) => format!("imprecise ({why:?})"),
                PathCheck::LdvInfeasible(op) => {
                    format!("infeasible under LDV's assumptions ({op})")
                }
                PathCheck::Unknown => "unknown".to_string(),
                PathCheck::Infeasible(_) => "infeasible".to_string(),
            };
            eprintln!(
                "value search (k = {}): error path of {} steps for {name}: {what}",
                round.k,
                path.len()
            );
        }
        let done: PropertySet = match check {
            PathCheck::Feasible(cex) => {
                self.open = self.open.difference(&hit);
                self.out.counterexamples.push((hit.clone(), cex));
                hit
            }
            other => {
                if !matches!(other, PathCheck::Infeasible(_)) {
                    self.out.inconclusive = self.out.inconclusive.union(&hit);
                }
                hit.iter()
                    .filter(|p| {
                        let n = round.checks.entry(*p).or_default();
                        *n += 1;
                        *n >= self.rounds.checks()
                    })
                    .collect()
            }
        };
        round.prec.enabled = round.prec.enabled.difference(&done);
    }

    /// The exact check of `path` (owned as `owned`), unless the search
    /// refuted the same path before: a later round with a larger loop
    /// bound proposes the shallow paths of the earlier rounds again.
    fn exact_check(
        &mut self,
        owned: &[PathStep],
        path: &[Transition],
        name: &str,
        deadline: Deadline,
    ) -> PathCheck {
        if self.refuted.contains(owned) {
            return PathCheck::Infeasible(Vec::new());
        }
        self.out.paths_checked += 1;
        let check = concrete_check(&self.enc, self.program, path, name, deadline);
        if matches!(check, PathCheck::Infeasible(_)) {
            self.refuted.insert(owned.to_vec());
        }
        check
    }

    /// Pushes the successors of `node` not seen before, each loop head
    /// entered at most `k` times per path.
    fn expand(&mut self, node: &Node, round: &mut Round, frontier: &mut VecDeque<Node>) {
        for t in self.cpa.transitions(&node.state) {
            for succ in self.cpa.transfer(&node.state, &t, &round.prec) {
                self.out.transitions += 1;
                crate::smt::work::charge(crate::smt::work::SEARCH_STATE);
                let Some((succ, _)) = self.cpa.prec(succ, round.prec.clone()) else {
                    continue;
                };
                let mut visits = node.visits.clone();
                let head = succ.pending.is_none() && self.program.loc(succ.loc).loop_head;
                if head {
                    let n = visits.get(&succ.loc).copied().unwrap_or(0) + 1;
                    if n > round.k {
                        round.bounded = true;
                        continue;
                    }
                    Rc::make_mut(&mut visits).insert(succ.loc, n);
                }
                let key = (
                    self.cpa.partition_key(&succ),
                    FixedState::default().hash_one(&succ.data),
                );
                let same = round.seen.entry(key).or_default();
                if same.contains(&succ) {
                    continue;
                }
                same.push(succ.clone());
                if head && !(round.bounded || round.cut || round.hit) {
                    round.heads.push((succ.loc, succ.data.clone()));
                }
                round.states += 1;
                self.out.explored += 1;
                if let Some(n) = &mut self.states_left {
                    *n = n.saturating_sub(1);
                }
                frontier.push_back(Node {
                    state: succ,
                    visits,
                    path: Some(Rc::new(PathNode {
                        step: PathStep::of(&t),
                        prev: node.path.clone(),
                    })),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpa::loom::LoomGoal;
    use crate::frontend::{parse_source, FrontendOptions};

    fn search_label(src: &str, label: &str) -> SearchResult {
        search_label_rounds(src, label, Rounds::All)
    }

    fn search_label_rounds(src: &str, label: &str, rounds: Rounds) -> SearchResult {
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let props = vec![LoomProperty {
            id: PropertyId(0),
            goal: LoomGoal::Label(label.into()),
        }];
        let enabled: PropertySet = [PropertyId(0)].into_iter().collect();
        search(
            &p,
            &[],
            &props,
            &[label.to_string()],
            &enabled,
            UNBOUNDED,
            rounds,
        )
    }

    const UNBOUNDED: SearchBudget = SearchBudget {
        states: None,
        deadline: Deadline::NONE,
    };

    #[test]
    fn an_error_behind_a_constant_bound_loop_is_found() {
        // Reaching ERROR needs all ten iterations with the counter known.
        let src = "int a[10]; int main(void) { int i; int n = 0; for (i = 0; i < 10; i++) { a[i] = i; n++; } if (n == 10) { ERROR: ; } return 0; }";
        let r = search_label(src, "ERROR");
        assert_eq!(r.counterexamples.len(), 1, "the error path is feasible");
    }

    #[test]
    fn a_search_past_its_states_names_the_properties_it_did_not_finish() {
        let src = "int main(void) { int i; int n = 0; for (i = 0; i < 10; i++) n++; if (n == 10) { ERROR: ; } return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let props = vec![LoomProperty {
            id: PropertyId(0),
            goal: LoomGoal::Label("ERROR".into()),
        }];
        let enabled: PropertySet = [PropertyId(0)].into_iter().collect();
        let names = ["ERROR".to_string()];
        let cut = search(
            &p,
            &[],
            &props,
            &names,
            &enabled,
            SearchBudget {
                states: Some(5),
                ..UNBOUNDED
            },
            Rounds::All,
        );
        assert!(cut.counterexamples.is_empty());
        assert_eq!(cut.unfinished, enabled);
        assert_eq!(cut.explored, 5, "the budget counts states");
        let run = |states| {
            let budget = SearchBudget {
                states,
                ..UNBOUNDED
            };
            search(&p, &[], &props, &names, &enabled, budget, Rounds::All)
        };
        let done = run(None);
        assert_eq!(done.counterexamples.len(), 1);
        assert!(done.unfinished.is_empty());
        // What the whole search took is enough, whatever the clock says.
        let enough = run(Some(done.explored));
        assert_eq!(enough.counterexamples.len(), 1);
    }

    #[test]
    fn a_first_round_search_leaves_errors_past_its_bound_unfinished() {
        let enabled: PropertySet = [PropertyId(0)].into_iter().collect();
        let first = |iterations: u32| {
            let src = format!("int main(void) {{ int i; int n = 0; for (i = 0; i < {iterations}; i++) n++; if (n == {iterations}) {{ ERROR: ; }} return 0; }}");
            search_label_rounds(&src, "ERROR", Rounds::First)
        };
        let deep = first(10);
        assert!(
            deep.counterexamples.is_empty(),
            "ten iterations are past the first bound"
        );
        assert_eq!(deep.unfinished, enabled, "left to a search of every bound");
        let shallow = first(2);
        assert_eq!(shallow.counterexamples.len(), 1);
        assert!(shallow.unfinished.is_empty());
    }

    #[test]
    fn an_unreachable_error_behind_a_constant_bound_loop_is_proved() {
        let src = "int main(void) { int i; int n = 0; for (i = 0; i < 10; i++) n++; if (n != 10) { ERROR: ; } return 0; }";
        let r = search_label(src, "ERROR");
        assert!(r.counterexamples.is_empty());
        let enabled: PropertySet = [PropertyId(0)].into_iter().collect();
        assert_eq!(
            r.proven, enabled,
            "the second round reached its fixed point"
        );
        let heads: Vec<i128> = r
            .loop_heads
            .iter()
            .filter_map(|(_, v)| {
                v.iter().find_map(|(_, k)| match k {
                    crate::cpa::value::Known::Exactly(x) => Some(x),
                    _ => None,
                })
            })
            .collect();
        assert!(heads.len() >= 11, "one state per iteration: {heads:?}");
        // Ten iterations are past the first bound: that round proves nothing.
        assert!(search_label_rounds(src, "ERROR", Rounds::First)
            .proven
            .is_empty());
    }

    #[test]
    fn a_search_cut_short_or_reaching_an_error_proves_nothing() {
        let unbounded = "int nondet(void); int main(void) { int i; int n = nondet(); int c = 0; for (i = 0; i < n; i++) c = 1; if (c == 2) { ERROR: ; } return 0; }";
        assert!(search_label(unbounded, "ERROR").proven.is_empty());
        // Refuted by the exact check, but reached: no fixed point without it.
        let refuted =
            "int main(void) { int x; int *p = &x; *p = 1; if (x == 2) { ERROR: ; } return 0; }";
        assert!(search_label(refuted, "ERROR").proven.is_empty());
        let p = parse_source(
            "t.c",
            "int main(void) { int i; for (i = 0; i < 3; i++) { } if (i != 3) { ERROR: ; } return 0; }",
            &FrontendOptions::default(),
        )
        .unwrap();
        let props = vec![LoomProperty {
            id: PropertyId(0),
            goal: LoomGoal::Label("ERROR".into()),
        }];
        let enabled: PropertySet = [PropertyId(0)].into_iter().collect();
        let run = |states| {
            let budget = SearchBudget {
                states,
                ..UNBOUNDED
            };
            search(
                &p,
                &[],
                &props,
                &["ERROR".into()],
                &enabled,
                budget,
                Rounds::All,
            )
        };
        let whole = run(None);
        assert_eq!(whole.proven, enabled);
        let short = run(Some(whole.explored - 1));
        assert!(
            short.proven.is_empty(),
            "the budget left a state unexpanded"
        );
    }

    #[test]
    fn a_path_infeasible_on_memory_is_not_reported() {
        // The value analysis does not track memory: it reaches ERROR, the
        // exact check refutes the path.
        let src =
            "int main(void) { int x; int *p = &x; *p = 1; if (x == 2) { ERROR: ; } return 0; }";
        let r = search_label(src, "ERROR");
        assert!(r.counterexamples.is_empty());
        assert!(r.paths_checked >= 1, "the path was proposed and checked");
        assert!(
            r.inconclusive.is_empty(),
            "an unsatisfiable concrete path is refuted, not imprecise"
        );
    }

    #[test]
    fn a_path_refuted_in_one_round_is_not_checked_again_in_the_next() {
        // The loop's unknown bound makes every round bounded, so all three
        // run; each proposes its first two error paths (`i`, read at the
        // error, tells them apart), and the deeper rounds begin with the
        // paths the first refuted.
        let src = "int main(void) { int x; int *p = &x; *p = 1; int n = nondet(); int i; for (i = 0; i < n; i++) { } if (x == 2) { ERROR: n = i; } return 0; }";
        let r = search_label(src, "ERROR");
        assert!(r.counterexamples.is_empty());
        assert!(r.paths_checked >= 2, "the first round checked its paths");
        assert!(
            r.paths_checked < 2 * BOUNDS.len() as u32,
            "{} exact checks: refuted paths were checked again",
            r.paths_checked
        );
    }

    #[test]
    fn a_first_round_search_proposes_a_shortest_path_first() {
        // Two ways to ERROR: through a loop of three iterations, or past
        // two branches. Whichever the program lists first, the
        // breadth-first search proposes the short one.
        let long =
            "if (nondet()) { for (i = 0; i < 3; i++) n++; if (n == 3) goto ERROR; return 0; }";
        let short = "if (nondet()) { ERROR: ; }";
        for (a, b) in [(long, short), (short, long)] {
            let src = format!(
                "int nondet(void); int main(void) {{ int i; int n = 0; {a} {b} return 0; }}"
            );
            let r = search_label_rounds(&src, "ERROR", Rounds::First);
            assert_eq!(r.counterexamples.len(), 1);
            let steps = r.counterexamples[0].1.steps.len();
            assert!(steps < 12, "a path of {steps} steps: through the loop");
        }
    }
}
