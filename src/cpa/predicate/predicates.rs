//! The predicates of the predicate analysis (its precision): formulas over
//! *canonical symbols* (`v<var>` for a register variable, `mem<w>` for
//! memory of width `w`), the values where a block starts, each tracked at
//! the places the precision's scope gives it. Instantiating a predicate at
//! the end of a block substitutes the block's final terms for those
//! symbols.

use crate::hash::{HashMap, HashSet};
use z3::ast::{Ast, Bool, Dynamic};

use crate::cfa::{LocId, Program};

/// One predicate: a formula over canonical symbols, and those symbols' names.
#[derive(Clone, Debug)]
pub struct Predicate {
    pub term: Bool,
    pub symbols: Vec<String>,
    /// A hash of the term with every numeral as `#` ([`Predicates::steps`]).
    pub shape: u64,
}

/// Where a predicate found by refinement is tracked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PredicateScope {
    /// At every abstraction point.
    Global,
    /// At the abstraction points of the function where it was found.
    Function,
    /// At the abstraction point (CFA location) where it was found.
    #[default]
    Location,
}

impl std::str::FromStr for PredicateScope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "global" => Ok(PredicateScope::Global),
            "function" => Ok(PredicateScope::Function),
            "location" => Ok(PredicateScope::Location),
            _ => Err(format!(
                "unknown predicate scope `{s}` (expected global, function or location)"
            )),
        }
    }
}

/// The precision of the predicate analysis: the predicates, and where each
/// is tracked. Indices are stable (refinement only appends), so regions
/// stay meaningful when the precision grows.
#[derive(Clone, Debug, Default)]
pub struct Predicates {
    pub list: Vec<Predicate>,
    known: HashMap<Bool, u32>,
    pub scope: PredicateScope,
    /// Predicates tracked at every abstraction point.
    everywhere: Vec<u32>,
    /// Per scope key (a location or a function): the predicates tracked
    /// there besides the ones everywhere.
    local: HashMap<u32, Vec<u32>>,
    /// Location or function scope: at how many places each predicate is
    /// tracked (see [`PLACES_BEFORE_EVERYWHERE`]).
    places: HashMap<u32, u32>,
}

/// A predicate refinement finds at this many places (locations, or
/// functions in function scope) is tracked everywhere: a predicate over the
/// model's state needed in wrapper after wrapper (LDV's `ldv_mutex_lock_N`
/// for each lock) would otherwise cost one refinement per wrapper.
pub const PLACES_BEFORE_EVERYWHERE: u32 = 3;

impl Predicates {
    pub fn new(scope: PredicateScope) -> Self {
        Predicates {
            scope,
            ..Default::default()
        }
    }

    /// The index of `term`, added if it is new.
    fn intern(&mut self, term: Bool) -> u32 {
        if let Some(&i) = self.known.get(&term) {
            return i;
        }
        let i = self.list.len() as u32;
        let symbols = symbols_of(&Dynamic::from_ast(&term));
        let shape = shape_of(&Dynamic::from_ast(&term));
        self.known.insert(term.clone(), i);
        self.list.push(Predicate {
            term,
            symbols,
            shape,
        });
        i
    }

    /// Tracks `term` at every abstraction point; true if that is new.
    pub fn add(&mut self, term: Bool) -> bool {
        if term.as_bool().is_some() {
            return false;
        }
        let i = self.intern(term);
        if self.everywhere.contains(&i) {
            return false;
        }
        self.everywhere.push(i);
        true
    }

    /// Tracks `term` where the precision's scope puts a predicate found at
    /// location `at` (everywhere if the location is unknown); true if that
    /// is new.
    pub fn add_at(&mut self, term: Bool, at: Option<LocId>, p: &Program) -> bool {
        let Some(key) = at.and_then(|l| self.scope_key(l, p)) else {
            return self.add(term);
        };
        if term.as_bool().is_some() {
            return false;
        }
        let i = self.intern(term);
        if self.everywhere.contains(&i) {
            return false;
        }
        let here = self.local.entry(key).or_default();
        if here.contains(&i) {
            return false;
        }
        here.push(i);
        let places = self.places.entry(i).or_default();
        *places += 1;
        if *places >= PLACES_BEFORE_EVERYWHERE {
            self.everywhere.push(i);
        }
        true
    }

    fn scope_key(&self, l: LocId, p: &Program) -> Option<u32> {
        match self.scope {
            PredicateScope::Global => None,
            PredicateScope::Function => Some(p.locations[l.0 as usize].func.0),
            PredicateScope::Location => Some(l.0),
        }
    }

    /// The predicates tracked at location `at` (all of them when the
    /// location is unknown), sorted.
    pub fn at(&self, at: Option<LocId>, p: &Program) -> Vec<u32> {
        if self.scope == PredicateScope::Global || at.is_none() {
            return (0..self.list.len() as u32).collect();
        }
        let mut out = self.everywhere.clone();
        if let Some(here) = at
            .and_then(|l| self.scope_key(l, p))
            .and_then(|k| self.local.get(&k))
        {
            out.extend(here);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether `term` is tracked where [`Predicates::add_at`] would put it
    /// (adding it there changes nothing).
    pub fn tracks(&self, term: &Bool, at: Option<LocId>, p: &Program) -> bool {
        if term.as_bool().is_some() {
            return true;
        }
        let Some(&i) = self.known.get(term) else {
            return false;
        };
        if self.everywhere.contains(&i) {
            return true;
        }
        at.and_then(|l| self.scope_key(l, p))
            .and_then(|k| self.local.get(&k))
            .is_some_and(|here| here.contains(&i))
    }

    /// Whether `term` is new at `at` and differs only in its numerals from
    /// at least [`STEPPING_RUN`] predicates tracked there: refinement is
    /// unrolling a loop one value at a time (`v == 0`, `v == 1`, ...).
    pub fn steps(&self, term: &Bool, at: Option<LocId>, p: &Program) -> bool {
        let tracked = self.at(at, p);
        if self.known.get(term).is_some_and(|i| tracked.contains(i)) {
            return false;
        }
        let shape = shape_of(&Dynamic::from_ast(term));
        tracked
            .iter()
            .filter(|&&i| self.list[i as usize].shape == shape)
            .nth(STEPPING_RUN - 1)
            .is_some()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// How many predicates of one shape at one place make a new one of that
/// shape a step of an unrolling ([`Predicates::steps`]). Short unrollings
/// (a loop over 8 elements) are cheaper one value at a time than with the
/// predicates of a whole path; a delay loop of 100 is not.
pub const STEPPING_RUN: usize = 10;

/// A hash of `t` with every numeral as `#`, over the term's DAG: a shared
/// subterm is hashed once (a term of nested `ite`s printed as a tree is
/// exponential in its depth). Equal shapes hash equally; a collision only
/// misjudges the stepping heuristic, never a result.
fn shape_of(t: &Dynamic) -> u64 {
    let mut memo: HashMap<Dynamic, u64> = HashMap::default();
    shape_hash(t, &mut memo)
}

fn shape_hash(t: &Dynamic, memo: &mut HashMap<Dynamic, u64>) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    if let Some(&h) = memo.get(t) {
        return h;
    }
    let mut hasher = crate::hash::FixedState::default().build_hasher();
    if !t.is_app() {
        t.to_string().hash(&mut hasher);
    } else {
        let decl = t.decl();
        match decl.kind() {
            z3::DeclKind::BNUM | z3::DeclKind::ANUM if t.num_children() == 0 => {
                "#".hash(&mut hasher)
            }
            _ => decl.name().hash(&mut hasher),
        }
        for c in t.children() {
            shape_hash(&c, memo).hash(&mut hasher);
        }
    }
    let h = hasher.finish();
    memo.insert(t.clone(), h);
    h
}

/// The names of the uninterpreted constants in `t`.
pub fn symbols_of(t: &Dynamic) -> Vec<String> {
    let mut seen: HashSet<Dynamic> = HashSet::default();
    let mut out = Vec::new();
    let mut stack = vec![t.clone()];
    while let Some(x) = stack.pop() {
        if !x.is_app() || !seen.insert(x.clone()) {
            continue;
        }
        let n = x.num_children();
        if n == 0 {
            if x.decl().kind() == z3::DeclKind::UNINTERPRETED {
                out.push(x.decl().name());
            }
            continue;
        }
        stack.extend(x.children());
    }
    out.sort();
    out.dedup();
    out
}

/// A literal: predicate index, positive or negated.
pub type Lit = (u32, bool);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_source, FrontendOptions};
    use z3::ast::BV;

    fn program() -> Program {
        let src = "int g; void f(void) { g = 1; g = 2; } int main(void) { f(); g = 3; return 0; }";
        parse_source("t.c", src, &FrontendOptions::default()).unwrap()
    }

    /// Two locations of `f` and one of `main`.
    fn locations(p: &Program) -> (LocId, LocId, LocId) {
        let func = |name: &str| {
            p.functions
                .iter()
                .position(|f| f.name == name)
                .expect("function") as u32
        };
        let (f, main) = (func("f"), func("main"));
        let of = |id: u32| {
            p.locations
                .iter()
                .enumerate()
                .filter(|(_, l)| l.func.0 == id)
                .map(|(i, _)| LocId(i as u32))
                .collect::<Vec<_>>()
        };
        let (in_f, in_main) = (of(f), of(main));
        (in_f[0], in_f[1], in_main[0])
    }

    fn pred(n: u64) -> Bool {
        BV::new_const("v1", 32).eq(BV::from_u64(n, 32))
    }

    #[test]
    fn location_scope_tracks_a_predicate_where_it_was_found() {
        let p = program();
        let (f1, f2, m) = locations(&p);
        let mut preds = Predicates::new(PredicateScope::Location);
        assert!(preds.add(pred(0)), "everywhere");
        assert!(preds.add_at(pred(1), Some(f1), &p));
        assert!(!preds.add_at(pred(1), Some(f1), &p), "already there");
        assert!(preds.add_at(pred(1), Some(f2), &p), "same term, new place");
        assert!(!preds.add_at(pred(0), Some(m), &p), "already everywhere");
        assert_eq!(preds.len(), 2);
        assert_eq!(preds.at(Some(f2), &p), vec![0, 1]);
        assert_eq!(preds.at(Some(f1), &p), vec![0, 1]);
        assert_eq!(preds.at(Some(m), &p), vec![0]);
        assert_eq!(preds.at(None, &p), vec![0, 1], "unknown place: all");
        assert!(preds.add(pred(1)), "promoted to everywhere");
        assert_eq!(preds.at(Some(m), &p), vec![0, 1]);
    }

    #[test]
    fn a_predicate_differing_only_in_a_numeral_from_enough_others_steps() {
        let p = program();
        let (f1, f2, _) = locations(&p);
        let mut preds = Predicates::new(PredicateScope::Location);
        let run = STEPPING_RUN as u64;
        for k in 0..run - 1 {
            assert!(preds.add_at(pred(k), Some(f1), &p));
        }
        assert!(!preds.steps(&pred(run), Some(f1), &p), "one too few");
        assert!(preds.add_at(pred(run - 1), Some(f1), &p));
        assert!(preds.steps(&pred(run), Some(f1), &p), "a run of its shape");
        assert!(!preds.steps(&pred(1), Some(f1), &p), "tracked already");
        assert!(!preds.steps(&pred(run), Some(f2), &p), "another place");
        let other = BV::new_const("v2", 32).eq(BV::from_u64(run, 32));
        assert!(!preds.steps(&other, Some(f1), &p), "another variable");
        let below = BV::new_const("v1", 32).bvult(BV::from_u64(run, 32));
        assert!(!preds.steps(&below, Some(f1), &p), "another relation");
    }

    #[test]
    fn shapes_ignore_numerals_and_follow_the_terms_dag() {
        let v = BV::new_const("v1", 32);
        let shape = |t: &Bool| shape_of(&Dynamic::from_ast(t));
        let le = |n: u64| v.bvule(BV::from_u64(n, 32));
        assert_eq!(shape(&le(3)), shape(&le(7)));
        assert_ne!(shape(&le(3)), shape(&v.bvult(BV::from_u64(3, 32))));
        assert_ne!(
            shape(&le(3)),
            shape(&BV::new_const("v2", 32).bvule(BV::from_u64(3, 32)))
        );
        // Each level uses the one below twice: 2^200 nodes as a tree.
        let mut t = v.clone();
        for i in 0..200u64 {
            t = le(i).ite(&t, &t.bvadd(BV::from_u64(1, 32)));
        }
        let deep = t.eq(BV::from_u64(0, 32));
        let other = t.bvadd(BV::from_u64(5, 32)).eq(BV::from_u64(0, 32));
        assert_ne!(shape(&deep), shape(&other));
    }

    #[test]
    fn a_predicate_found_at_enough_places_is_tracked_everywhere() {
        let p = program();
        let (f1, f2, m) = locations(&p);
        let all: Vec<LocId> = (0..p.locations.len() as u32).map(LocId).collect();
        let other = *all
            .iter()
            .find(|l| ![f1, f2, m].contains(l))
            .expect("a fourth location");
        let mut preds = Predicates::new(PredicateScope::Location);
        assert_eq!(PLACES_BEFORE_EVERYWHERE, 3);
        assert!(preds.add_at(pred(1), Some(f1), &p));
        assert!(preds.add_at(pred(1), Some(f2), &p));
        assert_eq!(
            preds.at(Some(other), &p),
            Vec::<u32>::new(),
            "two places: local"
        );
        assert!(preds.add_at(pred(1), Some(m), &p));
        assert_eq!(
            preds.at(Some(other), &p),
            vec![0],
            "third place: everywhere"
        );
        assert!(
            !preds.add_at(pred(1), Some(other), &p),
            "already everywhere"
        );
    }

    #[test]
    fn function_and_global_scopes() {
        let p = program();
        let (f1, f2, m) = locations(&p);
        let mut preds = Predicates::new(PredicateScope::Function);
        assert!(preds.add_at(pred(1), Some(f1), &p));
        assert!(!preds.add_at(pred(1), Some(f2), &p), "same function");
        assert_eq!(preds.at(Some(f2), &p), vec![0]);
        assert!(preds.at(Some(m), &p).is_empty());
        let mut global = Predicates::new(PredicateScope::Global);
        assert!(global.add_at(pred(1), Some(f1), &p));
        assert_eq!(global.at(Some(m), &p), vec![0]);
        assert_eq!("location".parse(), Ok(PredicateScope::Location));
        assert!("nowhere".parse::<PredicateScope>().is_err());
    }
}
