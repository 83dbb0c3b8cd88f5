//! Property relevance (paper 002, Sect. 3): a property is relevant for a
//! program if a transition towards one of its states syntactically matches a
//! CFA edge. For a `label:L` property that is an edge into a location
//! labelled `L`; for `call:f`, a call edge of `f`. Relevance guides S3/S4.
//!
//! A stronger, sound reading decides properties outright: a property is
//! *vacuous* for a program if no transition that may fire on it enters one
//! of its error states ([`automaton_vacuous`]: matching and program-exit
//! transitions out of reachable control states, whose assumes the
//! automaton storage left at its initial values does not falsify). Such a
//! property holds on every execution; mpv reports it TRUE without analysis.

use crate::hash::HashMap;

use super::automaton::{SExpr, SLValue, SpecAutomaton, StateIdx, StateKind};
use super::bound::matches_edge;
use super::dsl::PatKind;
use super::{Goal, Property, PropertySet};
use crate::cfa::{EdgeOp, Program};
use crate::ir::{BinaryOp, UnaryOp};

/// The properties of automaton `a` relevant for `program`: those in P(τ)
/// of a transition τ whose pattern matches a CFA edge (P(τ) = properties
/// whose error states the target of τ can reach). One pass over the edges;
/// blocks are looked up by callee name, so the cost is linear in the
/// program. Program exit matches every program and is not counted: an
/// at-exit check becomes relevant through the transitions that lead to it.
/// Transitions leaving a control state that no matching transition (nor
/// program exit) leads to from the initial state are not counted either:
/// the automaton can never be there, whatever the data.
pub fn automaton_relevance(program: &Program, a: &SpecAutomaton) -> PropertySet {
    BlockReach::of(program, a).properties(a)
}

/// The properties of automaton `a` that `program` cannot violate: no
/// transition that may fire on it leads towards their error states. A
/// transition may fire if its block matches a CFA edge (or is a
/// program-exit block), it leaves a control state such transitions reach
/// from the initial state, and its assumes are not false whatever the
/// values of the automaton variables that firing transitions may assign
/// (the others keep their initial values; pattern variables are unknown).
/// Every run of the automaton on the program takes only transitions that
/// may fire, so a property no such transition enters an error state of
/// holds on every execution: the verdict TRUE needs no analysis.
pub fn automaton_vacuous(program: &Program, a: &SpecAutomaton) -> PropertySet {
    BlockReach::of(program, a).vacuous(a)
}

/// The relevant and the vacuous properties of automaton `a` for
/// `program`, from one pass over the program's edges.
pub fn automaton_classes(program: &Program, a: &SpecAutomaton) -> (PropertySet, PropertySet) {
    let blocks = BlockReach::of(program, a);
    (blocks.properties(a), blocks.vacuous(a))
}

/// Which blocks of an automaton match some edge of a program, and which
/// control states the matching and program-exit transitions reach.
struct BlockReach {
    matched: Vec<bool>,
    exit_block: Vec<bool>,
    reach: Vec<bool>,
}

impl BlockReach {
    fn of(program: &Program, a: &SpecAutomaton) -> Self {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::default();
        let mut labels: Vec<usize> = Vec::new();
        for (bi, b) in a.blocks.iter().enumerate() {
            for p in &b.patterns {
                match &p.kind {
                    PatKind::Call { func, .. } | PatKind::Entry(func) | PatKind::Return(func) => {
                        by_name.entry(func.as_str()).or_default().push(bi)
                    }
                    PatKind::Label(_) => labels.push(bi),
                    PatKind::ProgramExit => {}
                }
            }
        }
        let mut matched = vec![false; a.blocks.len()];
        for e in &program.edges {
            let called: &[usize] = match &e.op {
                EdgeOp::Call { callee, .. } => by_name
                    .get(program.func(*callee).name.as_str())
                    .map_or(&[], Vec::as_slice),
                _ => &[],
            };
            for &bi in labels.iter().chain(called) {
                if !matched[bi]
                    && a.blocks[bi]
                        .patterns
                        .iter()
                        .any(|p| matches_edge(p, program, e))
                {
                    matched[bi] = true;
                }
            }
        }
        // Only states the automaton can reach through matching transitions
        // (or program exit, which every program has) count: a transition
        // out of a state no matching edge leads to cannot fire.
        let exit_block: Vec<bool> = a
            .blocks
            .iter()
            .map(|b| b.patterns.iter().any(|p| p.kind == PatKind::ProgramExit))
            .collect();
        let mut reach = vec![false; a.states.len()];
        reach[a.initial as usize] = true;
        let mut work = vec![a.initial];
        while let Some(q) = work.pop() {
            for &bi in &a.states[q as usize].blocks {
                if !(matched[bi] || exit_block[bi]) {
                    continue;
                }
                for &t in &a.blocks[bi].transitions {
                    let to = a.transitions[t].to as usize;
                    if !reach[to] {
                        reach[to] = true;
                        work.push(to as u32);
                    }
                }
            }
        }
        BlockReach {
            matched,
            exit_block,
            reach,
        }
    }

    /// P(τ) over the transitions of matched blocks out of reachable states.
    fn properties(&self, a: &SpecAutomaton) -> PropertySet {
        let tprops = a.transition_properties();
        let mut out = PropertySet::new();
        for (bi, b) in a.blocks.iter().enumerate() {
            if self.matched[bi] && self.reach[b.from as usize] {
                for &t in &b.transitions {
                    for p in tprops[t].iter() {
                        out.insert(p);
                    }
                }
            }
        }
        out
    }

    /// The properties no transition that may fire takes to an error state.
    fn vacuous(&self, a: &SpecAutomaton) -> PropertySet {
        let fires = self.firing(a);
        let error_of = |q: StateIdx| match a.states[q as usize].kind {
            StateKind::Error { property, .. } => Some(property),
            _ => None,
        };
        let mut possible: Vec<usize> = error_of(a.initial).into_iter().collect();
        for (t, tr) in a.transitions.iter().enumerate() {
            if fires[t] {
                possible.extend(error_of(tr.to));
            }
        }
        (0..a.properties.len())
            .filter(|p| !possible.contains(p))
            .map(|p| super::PropertyId(p as u32))
            .collect()
    }

    /// Per transition, whether it may fire (see [`automaton_vacuous`]): a
    /// fixed point over the control states reached and the automaton
    /// storage assigned, both growing, so guards only become less decided.
    fn firing(&self, a: &SpecAutomaton) -> Vec<bool> {
        let mut fires = vec![false; a.transitions.len()];
        let mut reach = vec![false; a.states.len()];
        reach[a.initial as usize] = true;
        let mut written = Written {
            vars: vec![false; a.vars.len()],
            sets: vec![false; a.sets.len()],
        };
        let mut changed = true;
        while changed {
            changed = false;
            for (t, tr) in a.transitions.iter().enumerate() {
                let bi = tr.block;
                if fires[t]
                    || !(self.matched[bi] || self.exit_block[bi])
                    || !reach[tr.from as usize]
                    || tr.assumes.iter().any(|c| written.eval(a, c) == Some(0))
                {
                    continue;
                }
                fires[t] = true;
                changed = true;
                reach[tr.to as usize] = true;
                for (lv, _) in &tr.assigns {
                    match lv {
                        SLValue::Var(v) => written.vars[*v] = true,
                        SLValue::Elem(set, _) => written.sets[*set] = true,
                    }
                }
            }
        }
        fires
    }
}

/// The automaton storage some firing transition may assign; the rest
/// keeps its initial value (sets start empty).
struct Written {
    vars: Vec<bool>,
    sets: Vec<bool>,
}

impl Written {
    /// The value of `e` if the storage not written decides it. Only small
    /// non-negative integers count as known, so that C's conversions
    /// between the automaton's integer types cannot change a comparison.
    fn eval(&self, a: &SpecAutomaton, e: &SExpr) -> Option<i128> {
        const KNOWN: std::ops::RangeInclusive<i128> = 0..=127;
        let known = |v: i128| KNOWN.contains(&v).then_some(v);
        match e {
            SExpr::Int(v) => known(*v),
            SExpr::Var(v) if !self.vars[*v] => known(a.vars[*v].init),
            SExpr::Elem(set, _) if !self.sets[*set] => Some(0),
            SExpr::Empty(set) if !self.sets[*set] => Some(1),
            SExpr::Unary(UnaryOp::LogNot, x) => self.eval(a, x).map(|v| (v == 0) as i128),
            SExpr::Binary(op, x, y) => {
                let (l, r) = (self.eval(a, x), self.eval(a, y));
                match op {
                    BinaryOp::LogAnd => match (l, r) {
                        (Some(0), _) | (_, Some(0)) => Some(0),
                        (Some(_), Some(_)) => Some(1),
                        _ => None,
                    },
                    BinaryOp::LogOr => match (l, r) {
                        (Some(l), _) if l != 0 => Some(1),
                        (_, Some(r)) if r != 0 => Some(1),
                        (Some(_), Some(_)) => Some(0),
                        _ => None,
                    },
                    _ => {
                        let (l, r) = (l?, r?);
                        let b = match op {
                            BinaryOp::Eq => l == r,
                            BinaryOp::Ne => l != r,
                            BinaryOp::Lt => l < r,
                            BinaryOp::Le => l <= r,
                            BinaryOp::Gt => l > r,
                            BinaryOp::Ge => l >= r,
                            _ => return None,
                        };
                        Some(b as i128)
                    }
                }
            }
            _ => None,
        }
    }
}

/// Whether some CFA edge of `program` matches a transition of `property`.
pub fn is_relevant(program: &Program, property: &Property) -> bool {
    match &property.goal {
        Goal::Label(l) => program
            .edges
            .iter()
            .any(|e| program.loc(e.to).labels.iter().any(|x| x == l)),
        Goal::Call(f) => match program.func_by_name(f) {
            Some(fid) => program
                .edges
                .iter()
                .any(|e| matches!(&e.op, EdgeOp::Call { callee, .. } if *callee == fid)),
            None => false,
        },
        // Needs the automaton: see `automaton_relevance`.
        Goal::Rule { .. } => true,
    }
}

/// Whether a label or call property is relevant ([`is_relevant`]) and
/// whether it is vacuous: a label no edge enters is unreachable. A call
/// property may be reached through a function pointer the CFA does not
/// resolve to its callee, so it never is vacuous; a rule needs its
/// automaton ([`automaton_classes`]).
pub fn property_classes(program: &Program, property: &Property) -> (bool, bool) {
    let relevant = is_relevant(program, property);
    let vacuous = !relevant && matches!(property.goal, Goal::Label(_));
    (relevant, vacuous)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};
    use crate::spec::{library, prp};

    #[test]
    fn labels_and_calls_that_occur_are_relevant() {
        let src = "void err(void); int g; int main(void) { if (g) { ERROR: err(); } return 0; }";
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let props = prp::parse(
            "x.prp",
            "CHECK( init(main()), LTL(G ! label(ERROR)) )\nCHECK( init(main()), LTL(G ! label(LDV_ERROR)) )\nCHECK( init(main()), LTL(G ! call(err())) )\nCHECK( init(main()), LTL(G ! call(abort())) )",
        )
        .unwrap();
        let rel: Vec<bool> = props.iter().map(|q| is_relevant(&p, q)).collect();
        assert_eq!(rel, vec![true, false, true, false]);
        // Only the label no edge enters is vacuous: a call may happen
        // through a pointer.
        let vac: Vec<bool> = props.iter().map(|q| property_classes(&p, q).1).collect();
        assert_eq!(vac, vec![false, true, false, false]);
    }

    fn vacuous(rule: &str, src: &str) -> Vec<String> {
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let a = library::bundled()
            .unwrap()
            .into_iter()
            .find(|a| a.properties.iter().any(|q| q.id == rule))
            .unwrap();
        automaton_vacuous(&p, &a)
            .iter()
            .map(|id| a.properties[id.0 as usize].id.clone())
            .collect()
    }

    const NONE: &str = "int main(void) { return 0; }";

    #[test]
    fn a_rule_whose_calls_do_not_occur_is_vacuous() {
        assert_eq!(vacuous("32_1", NONE), ["32_1"]);
    }

    #[test]
    fn exit_checks_on_counters_nothing_changes_cannot_fire() {
        assert_eq!(vacuous("68_1", NONE), ["68_1"]);
    }

    #[test]
    fn a_call_that_changes_a_counter_makes_its_exit_check_possible() {
        let alloc = "void *usb_alloc_urb(int n, unsigned f); \
                     int main(void) { usb_alloc_urb(0, 0); return 0; }";
        assert!(vacuous("68_1", alloc).is_empty());
    }

    #[test]
    fn a_state_reached_by_a_call_makes_its_exit_check_possible() {
        let lock = "struct mutex; void mutex_lock(struct mutex *m); struct mutex *m; \
                    int main(void) { mutex_lock(m); return 0; }";
        assert!(vacuous("32_1", lock).is_empty());
        let unlock = "struct mutex; void mutex_unlock(struct mutex *m); struct mutex *m; \
                      int main(void) { mutex_unlock(m); return 0; }";
        assert!(vacuous("32_1", unlock).is_empty());
    }
}
