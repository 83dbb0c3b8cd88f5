//! The abstraction computation of the predicate analysis: the strongest
//! abstract region of a block's formula over the predicates tracked where
//! the block ends (AllSAT over one indicator per predicate, independent
//! groups of predicates enumerated apart), with its cache, and entailment
//! between regions.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use crate::hash::{HashMap, HashSet};
use z3::ast::{Ast, Bool, Dynamic};
use z3::{SatResult, Solver};

use crate::smt::work::{self, Deadline};
use crate::util::thread_cpu_time;

pub use super::predicates::{
    symbols_of, Lit, Predicate, PredicateScope, Predicates, PLACES_BEFORE_EVERYWHERE, STEPPING_RUN,
};
pub use super::region::Region;

/// The conjuncts of `t` below its top-level `and`s.
fn flatten_and(t: &Bool, out: &mut Vec<Bool>) {
    let mut stack = vec![t.clone()];
    while let Some(x) = stack.pop() {
        if x.is_app() && x.decl().kind() == z3::DeclKind::AND {
            stack.extend(x.children().iter().filter_map(|c| c.as_bool()));
        } else if x.as_bool() != Some(true) {
            out.push(x);
        }
    }
}

/// Groups of `conjuncts` and `preds` (items numbered in that order) that
/// share no uninterpreted constant: the group (a representative item) of
/// each item. One pass over the terms: a subterm already seen joins its
/// first owner's group and is not walked again.
fn independent_groups(conjuncts: &[Bool], preds: &[(u32, Bool)]) -> Vec<usize> {
    let items: Vec<Dynamic> = conjuncts
        .iter()
        .chain(preds.iter().map(|(_, t)| t))
        .map(|t| Dynamic::from_ast(t))
        .collect();
    let mut parent: Vec<usize> = (0..items.len()).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut owner: HashMap<Dynamic, usize> = HashMap::default();
    for (i, item) in items.iter().enumerate() {
        let mut stack = vec![item.clone()];
        while let Some(x) = stack.pop() {
            if !x.is_app() {
                continue;
            }
            let n = x.num_children();
            // Numerals and other interpreted constants connect nothing.
            if n == 0 && x.decl().kind() != z3::DeclKind::UNINTERPRETED {
                continue;
            }
            if let Some(&j) = owner.get(&x) {
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a] = b;
                continue;
            }
            owner.insert(x.clone(), i);
            stack.extend(x.children());
        }
    }
    (0..items.len()).map(|i| find(&mut parent, i)).collect()
}

/// Counters of the abstraction engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct AbstractionStats {
    pub abstractions: u64,
    pub cache_hits: u64,
    pub solver_calls: u64,
    pub solver_time: Duration,
}

/// At most this many cubes per abstraction; past it the Cartesian
/// abstraction (each predicate on its own) is used.
const MAX_CUBES: usize = 256;

/// Past this many cubes, an abstraction enumerates the independent groups
/// of its predicates apart ([`Abstractor::independent_all_sat`]).
const GROUPING_THRESHOLD: usize = 8;

/// The outcome of an enumeration with a limit.
enum Enumerated {
    /// The region (`None`: the formula is unsatisfiable).
    Done(Option<Region>),
    /// More cubes than the limit.
    TooMany,
}

/// An abstraction query: the block formula and the instantiated predicates.
type AbstractionQuery = (Bool, Vec<(u32, Bool)>);

/// The abstractions computed so far, by query: shared by every run of the
/// predicate analysis that holds a clone.
///
/// An abstraction is a function of its query alone (the formula and the
/// predicates, each with the index its literals name), whatever run asks
/// for it: a CEGAR run after a refinement, or the run of a later partition
/// with the same predicates, finds the blocks its predecessors abstracted.
/// A query that ran into its own work limit ([`QUERY_WORK`],
/// [`ABSTRACTION_WORK`]) is kept with its over-approximation; one that
/// the run's deadline cut short is not, so that a later run with a budget
/// of its own asks again.
#[derive(Clone, Default)]
pub struct AbstractionCache(Rc<RefCell<HashMap<AbstractionQuery, Option<Region>>>>);

/// The query with the fresh symbols of `formula` and `preds` (inputs,
/// havoc values: every symbol but the canonical ones) renamed, in the
/// order a walk of the terms first meets them: the same block reached on
/// another path or in another run, whose fresh symbols were numbered
/// differently, gives the same key. The renaming is injective and its
/// names are new, so the abstraction of the renamed query is the
/// query's.
fn canonical_query(formula: &Bool, preds: Vec<(u32, Bool)>) -> AbstractionQuery {
    let mut seen: HashSet<Dynamic> = HashSet::default();
    let mut fresh: Vec<Dynamic> = Vec::new();
    let roots = std::iter::once(formula).chain(preds.iter().map(|(_, t)| t));
    for root in roots {
        let mut stack = vec![Dynamic::from_ast(root)];
        while let Some(x) = stack.pop() {
            if !x.is_app() || !seen.insert(x.clone()) {
                continue;
            }
            if x.num_children() > 0 {
                // Reversed, so that the first child is walked first.
                stack.extend(x.children().into_iter().rev());
            } else if x.decl().kind() == z3::DeclKind::UNINTERPRETED
                && !crate::smt::Encoder::is_canonical_symbol(&x.decl().name())
            {
                fresh.push(x);
            }
        }
    }
    if fresh.is_empty() {
        return (formula.clone(), preds);
    }
    let renamed: Vec<Dynamic> = fresh
        .iter()
        .enumerate()
        .map(|(i, x)| Dynamic::new_const(format!("canon!{i}"), &x.get_sort()))
        .collect();
    let pairs: Vec<(&Dynamic, &Dynamic)> = fresh.iter().zip(&renamed).collect();
    (
        formula.substitute(&pairs),
        preds
            .into_iter()
            .map(|(i, t)| (i, t.substitute(&pairs)))
            .collect(),
    )
}

impl AbstractionCache {
    fn get(&self, key: &AbstractionQuery) -> Option<Option<Region>> {
        self.0.borrow().get(key).cloned()
    }

    fn insert(&self, key: AbstractionQuery, r: Option<Region>) {
        self.0.borrow_mut().insert(key, r);
    }
}

/// A query that needs more work is given up: the abstraction computed so
/// far becomes `true` for its predicates (an over-approximation).
const QUERY_WORK: u64 = work::units_of_ms(2_000);

/// All queries of one abstraction together get at most this much work; the
/// queries past it are given up as a single costly one is.
const ABSTRACTION_WORK: u64 = work::units_of_ms(4_000);

/// Computes abstractions and coverage with one incremental solver.
pub struct Abstractor {
    solver: Solver,
    limit: crate::smt::QueryLimit,
    cache: AbstractionCache,
    entail_cache: HashMap<(Rc<Region>, Rc<Region>), bool>,
    pub stats: Cell<AbstractionStats>,
    /// When queries give up (the run's time limit).
    pub(crate) deadline: Deadline,
    /// The work the abstraction being computed has left.
    abstraction_work: Cell<Deadline>,
    /// Whether a query of the abstraction being computed gave up at
    /// [`Abstractor::deadline`] rather than at its own limit.
    cut_short: Cell<bool>,
}

impl Abstractor {
    pub fn new(deadline: Deadline) -> Self {
        Abstractor {
            solver: crate::smt::incremental_solver(),
            limit: crate::smt::QueryLimit::default(),
            cache: AbstractionCache::default(),
            entail_cache: HashMap::default(),
            stats: Cell::new(AbstractionStats::default()),
            deadline,
            abstraction_work: Cell::new(Deadline::NONE),
            cut_short: Cell::new(false),
        }
    }

    /// Computes abstractions into (and looks them up in) `cache`.
    pub fn share_cache(&mut self, cache: AbstractionCache) {
        self.cache = cache;
    }

    /// The work a query may do: [`QUERY_WORK`] within the abstraction's
    /// and the run's.
    fn query_work(&self) -> u64 {
        let own = self.abstraction_work.get().left_within(QUERY_WORK);
        self.deadline.left_within(own)
    }

    /// A check of the incremental solver under `assumptions`.
    fn check(&self, assumptions: &[Bool]) -> SatResult {
        self.limit.apply_units(&self.solver, self.query_work());
        self.timed_check(|| self.solver.check_assumptions(assumptions))
    }

    /// Whether `formula` alone is satisfiable, on a solver of its own
    /// without assumptions or scopes, so that Z3 simplifies it first
    /// (its incremental mode does not, and took a second for a predicate's
    /// store chain that it decides in milliseconds this way).
    fn check_alone(&self, formula: &Bool) -> SatResult {
        let solver = Solver::new();
        solver.set_params(&crate::smt::work_limit(self.query_work()));
        solver.assert(formula);
        self.timed_check(|| solver.check())
    }

    /// Runs `check` (bounded by [`Abstractor::query_work`]), counted in the
    /// stats.
    fn timed_check(&self, check: impl FnOnce() -> SatResult) -> SatResult {
        let t = thread_cpu_time();
        let r = crate::smt::interrupt::checking(check);
        if r == SatResult::Unknown && self.deadline.passed() {
            self.cut_short.set(true);
        }
        if crate::util::tracing() {
            let spent = thread_cpu_time().saturating_sub(t);
            if spent > Duration::from_millis(500) {
                eprintln!(
                    "abstraction query: {:.2}s for a limit of {} units ({:?})",
                    spent.as_secs_f64(),
                    self.query_work(),
                    r
                );
            }
        }
        let mut s = self.stats.get();
        s.solver_calls += 1;
        s.solver_time += thread_cpu_time().saturating_sub(t);
        self.stats.set(s);
        r
    }

    /// The Boolean abstraction of `formula` (block start region ∧ path
    /// formula) over the instantiated predicates `preds` (index, predicate
    /// at the block's end). `None` if `formula` is unsatisfiable. Predicates
    /// not listed are left unconstrained. Without predicates the result is
    /// `true` unless `decide_satisfiability` asks for the solver.
    pub fn abstraction(
        &mut self,
        formula: &Bool,
        preds: Vec<(u32, Bool)>,
        decide_satisfiability: bool,
    ) -> Option<Region> {
        if preds.is_empty() && !decide_satisfiability {
            // Nothing to track: `true`, without deciding the block's
            // satisfiability (an infeasible error path is found by the
            // path check and refined).
            return Some(Region::top());
        }
        let key = canonical_query(formula, preds.clone());
        if let Some(r) = self.cache.get(&key) {
            let mut s = self.stats.get();
            s.cache_hits += 1;
            self.stats.set(s);
            return r;
        }
        let mut s = self.stats.get();
        s.abstractions += 1;
        self.stats.set(s);
        let t = thread_cpu_time();
        self.abstraction_work
            .set(Deadline::in_units(ABSTRACTION_WORK));
        self.cut_short.set(false);
        let r = self.split_abstraction(formula, &preds);
        self.abstraction_work.set(Deadline::NONE);
        if crate::util::tracing() {
            let d = thread_cpu_time().saturating_sub(t);
            if d > Duration::from_millis(300) {
                eprintln!(
                    "cegar: slow abstraction {:.2}s: {} predicates, {} cubes",
                    d.as_secs_f64(),
                    preds.len(),
                    r.as_ref().map_or(0, |r| r.cubes.len())
                );
            }
        }
        if !self.cut_short.get() {
            self.cache.insert(key, r.clone());
        }
        r
    }

    /// The abstraction in two parts: AllSAT over the predicates that share
    /// a symbol with `formula`, and each of the others decided on its own
    /// (a predicate the block's own stores make true or false, say). The
    /// second part drops only correlations among predicates the formula
    /// leaves free, and the enumeration of their combinations, which is
    /// exponential in their number.
    fn split_abstraction(&self, formula: &Bool, preds: &[(u32, Bool)]) -> Option<Region> {
        let in_formula: HashSet<String> = symbols_of(&Dynamic::from_ast(formula))
            .into_iter()
            .collect();
        let (linked, free): (Vec<_>, Vec<_>) = preds.iter().cloned().partition(|(_, t)| {
            symbols_of(&Dynamic::from_ast(t))
                .iter()
                .any(|x| in_formula.contains(x))
        });
        // Most abstractions have a few cubes: one enumeration. Past a few,
        // the predicates' independent groups are enumerated apart.
        let mut region = match self.all_sat_upto(formula, &linked, Some(GROUPING_THRESHOLD)) {
            Enumerated::Done(r) => r?,
            Enumerated::TooMany => self.independent_all_sat(formula, &linked)?,
        };
        if free.is_empty() {
            return Some(region);
        }
        let decided: Vec<Lit> = free
            .iter()
            .filter_map(|(i, t)| self.decided_alone(t).map(|v| (*i, v)))
            .collect();
        for cube in &mut region.cubes {
            cube.extend_from_slice(&decided);
            cube.sort_unstable();
        }
        Some(region)
    }

    /// AllSAT over `preds` one independent part at a time: the formula's
    /// conjuncts and the predicates fall into groups that share no symbol,
    /// and the combinations of predicate values consistent with the formula
    /// are the product of each group's. A group all of whose combinations
    /// are consistent adds nothing and is dropped, so predicates that are
    /// independent of each other and free cost two solver calls each, not
    /// an enumeration of their 2^n combinations; and each group's queries
    /// see only its own conjuncts. Conjuncts in no group with a predicate
    /// are checked for satisfiability once. Past [`MAX_CUBES`] in the
    /// product, the groups with the most cubes are dropped (an
    /// over-approximation).
    fn independent_all_sat(&self, formula: &Bool, preds: &[(u32, Bool)]) -> Option<Region> {
        let mut conjuncts = Vec::new();
        flatten_and(formula, &mut conjuncts);
        let group = independent_groups(&conjuncts, preds);
        let pred_group = &group[conjuncts.len()..];
        let mut roots: Vec<usize> = pred_group.to_vec();
        roots.sort_unstable();
        roots.dedup();
        if roots.len() <= 1 {
            return self.all_sat(formula, preds);
        }
        let mut parts: Vec<Vec<Vec<Lit>>> = Vec::new();
        for &root in &roots {
            let members: Vec<(u32, Bool)> = preds
                .iter()
                .zip(pred_group)
                .filter(|(_, &g)| g == root)
                .map(|(p, _)| p.clone())
                .collect();
            let own: Vec<&Bool> = conjuncts
                .iter()
                .zip(&group)
                .filter(|(_, &g)| g == root)
                .map(|(c, _)| c)
                .collect();
            let sub = Bool::and(&own);
            let r = self.all_sat(&sub, &members)?;
            let every = u32::try_from(members.len())
                .ok()
                .and_then(|n| 1usize.checked_shl(n))
                .is_some_and(|all| r.cubes.len() == all);
            if !r.is_top() && !every {
                parts.push(r.cubes);
            }
        }
        let rest: Vec<&Bool> = conjuncts
            .iter()
            .zip(&group)
            .filter(|(_, g)| !roots.contains(g))
            .map(|(c, _)| c)
            .collect();
        if !rest.is_empty() {
            self.all_sat(&Bool::and(&rest), &[])?;
        }
        // Keep the product within MAX_CUBES: the smallest parts first.
        parts.sort_by_key(Vec::len);
        let mut cubes: Vec<Vec<Lit>> = vec![Vec::new()];
        for part in parts {
            if cubes.len() * part.len() > MAX_CUBES {
                break;
            }
            cubes = cubes
                .iter()
                .flat_map(|c| {
                    part.iter().map(move |d| {
                        let mut e = c.clone();
                        e.extend_from_slice(d);
                        e.sort_unstable();
                        e
                    })
                })
                .collect();
        }
        Some(Region { cubes })
    }

    /// One indicator constant per predicate, asserted equal to it in the
    /// solver's current scope.
    fn define_indicators(&self, preds: &[(u32, Bool)]) -> Vec<Bool> {
        preds
            .iter()
            .map(|(i, t)| {
                let b = Bool::new_const(format!("__pred{i}"));
                self.solver.assert(b.eq(t));
                b
            })
            .collect()
    }

    /// AllSAT over the indicators of `preds` under `formula`; `None` if
    /// `formula` is unsatisfiable; the Cartesian abstraction past
    /// [`MAX_CUBES`].
    fn all_sat(&self, formula: &Bool, preds: &[(u32, Bool)]) -> Option<Region> {
        match self.all_sat_upto(formula, preds, None) {
            Enumerated::Done(r) => r,
            Enumerated::TooMany => Some(Region::top()),
        }
    }

    /// [`Abstractor::all_sat`], or `TooMany` as soon as there are more than
    /// `limit` cubes.
    fn all_sat_upto(
        &self,
        formula: &Bool,
        preds: &[(u32, Bool)],
        limit: Option<usize>,
    ) -> Enumerated {
        crate::smt::work::push(&self.solver);
        self.solver.assert(formula);
        let inds = self.define_indicators(preds);
        // Blocking clauses live one scope deeper than the definitions.
        crate::smt::work::push(&self.solver);
        let mut cubes = Vec::new();
        let result = loop {
            match self.check(&[]) {
                SatResult::Unsat => break Some(Region { cubes }),
                // Out of time: nothing is known (an over-approximation).
                SatResult::Unknown => break Some(Region::top()),
                SatResult::Sat => {
                    let Some(m) = self.solver.get_model() else {
                        break Some(Region::top());
                    };
                    let cube: Vec<Lit> = preds
                        .iter()
                        .zip(&inds)
                        .map(|((i, _), b)| {
                            let v = m.eval(b, true).and_then(|x| x.as_bool()).unwrap_or(false);
                            (*i, v)
                        })
                        .collect();
                    let block: Vec<Bool> = cube
                        .iter()
                        .zip(&inds)
                        .map(|(&(_, v), b)| if v { b.not() } else { b.clone() })
                        .collect();
                    cubes.push(cube);
                    if limit.is_some_and(|l| cubes.len() > l) {
                        self.solver.pop(2);
                        return Enumerated::TooMany;
                    }
                    if cubes.len() > MAX_CUBES {
                        self.solver.pop(1);
                        crate::smt::work::push(&self.solver);
                        break Some(self.cartesian(&inds, preds));
                    }
                    self.solver.assert(Bool::or(&block));
                }
            }
        };
        self.solver.pop(2);
        Enumerated::Done(match result {
            Some(r) if r.cubes.is_empty() => None,
            r => r,
        })
    }

    /// The value of a predicate that is valid or unsatisfiable on its own
    /// (one whose store chain fixes the cell it reads, say).
    fn decided_alone(&self, t: &Bool) -> Option<bool> {
        let t = crate::smt::interrupt::simplified(t);
        if let Some(v) = t.as_bool() {
            return Some(v);
        }
        if self.check_alone(&t.not()) == SatResult::Unsat {
            Some(true)
        } else if self.check_alone(&t) == SatResult::Unsat {
            Some(false)
        } else {
            None
        }
    }

    /// Each predicate that the formula decides on its own (the solver holds
    /// the formula and the indicator definitions).
    fn cartesian(&self, inds: &[Bool], preds: &[(u32, Bool)]) -> Region {
        let mut cube = Vec::new();
        for ((i, _), b) in preds.iter().zip(inds) {
            if self.check(&[b.not()]) == SatResult::Unsat {
                cube.push((*i, true));
            } else if self.check(std::slice::from_ref(b)) == SatResult::Unsat {
                cube.push((*i, false));
            }
        }
        Region { cubes: vec![cube] }
    }

    /// Whether region `a` entails region `b`, with the predicates as
    /// independent Boolean variables (as a BDD-based analysis decides it):
    /// sound for coverage, and the abstract states of a location stay
    /// finitely many up to it. A semantic check would cover more states
    /// but almost never does: on LDV modules such solver queries failed in
    /// all but a handful of thousands of cases and took up to half of the
    /// analysis time. Only when the case splits exceed their budget does
    /// the solver decide.
    pub fn entails(&mut self, a: &Rc<Region>, b: &Rc<Region>, preds: &Predicates) -> bool {
        if Rc::ptr_eq(a, b) || b.is_top() || a.entails_syntactically(b) {
            return true;
        }
        let key = (a.clone(), b.clone());
        if let Some(&r) = self.entail_cache.get(&key) {
            return r;
        }
        let r = a.entails_propositionally(b).unwrap_or_else(|| {
            crate::smt::work::push(&self.solver);
            self.solver.assert(a.formula(preds));
            self.solver.assert(b.formula(preds).not());
            let r = self.check(&[]) == SatResult::Unsat;
            self.solver.pop(1);
            r
        });
        self.entail_cache.insert(key, r);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    #[test]
    fn predicates_the_formula_leaves_free_are_decided_on_their_own() {
        let x = BV::new_const("x", 32);
        let y = BV::new_const("y", 32);
        let mem =
            z3::ast::Array::new_const("mem", &z3::Sort::bitvector(64), &z3::Sort::bitvector(32));
        let a = BV::new_const("a", 64);
        let five = BV::from_u64(5, 32);
        let formula = x.bvugt(&five);
        let preds = vec![
            (0, x.bvugt(BV::from_u64(3, 32))),
            // True by the block's own store, though the formula is silent.
            (
                1,
                mem.store(&a, &five).select(&a).as_bv().unwrap().eq(&five),
            ),
            (2, y.eq(BV::from_u64(1, 32))),
        ];
        let mut abs = Abstractor::new(Deadline::NONE);
        let r = abs.abstraction(&formula, preds.clone(), false).unwrap();
        assert_eq!(r.cubes, vec![vec![(0, true), (1, true)]]);
        let unsat = Bool::and(&[formula.clone(), x.eq(BV::from_u64(0, 32))]);
        assert_eq!(abs.abstraction(&unsat, preds, false), None);
    }

    #[test]
    fn a_run_sharing_the_cache_finds_a_block_abstracted_with_other_fresh_symbols() {
        let v = BV::new_const("v3", 32);
        let block = |input: &str| {
            let nd = BV::new_const(input, 32);
            Bool::and(&[nd.bvugt(BV::from_u64(5, 32)), v.eq(&nd)])
        };
        let preds = vec![(0, v.bvugt(BV::from_u64(3, 32)))];
        let cache = AbstractionCache::default();
        let mut first = Abstractor::new(Deadline::NONE);
        first.share_cache(cache.clone());
        let r = first.abstraction(&block("nd7"), preds.clone(), false);
        assert_eq!(first.stats.get().abstractions, 1);
        // Another run numbered its inputs differently: the same query.
        let mut second = Abstractor::new(Deadline::NONE);
        second.share_cache(cache.clone());
        assert_eq!(second.abstraction(&block("nd42"), preds.clone(), false), r);
        assert_eq!(second.stats.get().cache_hits, 1);
        // A canonical symbol in place of the input is another query.
        second.abstraction(&block("v9"), preds, false);
        assert_eq!(second.stats.get().abstractions, 1);
    }

    #[test]
    fn canonical_keys_rename_fresh_symbols_and_keep_canonical_ones() {
        let c = |n: u64| BV::from_u64(n, 32);
        // `a < b`, with the predicate over `a` or over `b`.
        let q = |a: &str, b: &str, over_a: bool| {
            let (x, y) = (BV::new_const(a, 32), BV::new_const(b, 32));
            let p = if over_a { x.eq(c(1)) } else { y.eq(c(1)) };
            canonical_query(&x.bvult(&y), vec![(0, p)])
        };
        assert!(q("nd1", "hv2", true) == q("nd5", "hv9", true));
        assert!(q("nd1", "hv2", true) != q("nd1", "hv2", false));
        assert!(q("v1", "nd2", true) != q("v3", "nd2", true));
    }

    #[test]
    fn independent_groups_of_predicates_are_enumerated_apart() {
        let bv = |n: &str| BV::new_const(n, 32);
        let (x, y, z) = (bv("x"), bv("y"), bv("z"));
        let (u, v, w) = (bv("u"), bv("v"), bv("w"));
        let c = |n: u64| BV::from_u64(n, 32);
        let formula = Bool::and(&[
            x.bvugt(c(5)),
            y.eq(&z),
            u.bvult(c(10)),
            v.bvult(c(10)),
            w.bvult(c(10)),
        ]);
        let preds = vec![
            (0, x.bvugt(c(3))),
            // y and z are equal: two combinations, not four.
            (1, y.eq(c(1))),
            (2, z.eq(c(1))),
            // Free, each in its own group: nothing to record (16 cubes
            // together, past the grouping threshold).
            (3, u.eq(c(0))),
            (4, v.eq(c(0))),
            (5, w.eq(c(0))),
        ];
        let mut abs = Abstractor::new(Deadline::NONE);
        let r = abs.abstraction(&formula, preds.clone(), false).unwrap();
        let mut cubes = r.cubes.clone();
        cubes.sort();
        assert_eq!(
            cubes,
            vec![
                vec![(0, true), (1, false), (2, false)],
                vec![(0, true), (1, true), (2, true)],
            ]
        );
        // A contradiction in any group makes the whole block infeasible.
        let unsat = Bool::and(&[formula, w.eq(c(12))]);
        assert_eq!(abs.abstraction(&unsat, preds, false), None);
    }

    #[test]
    fn free_predicates_are_not_enumerated() {
        let preds: Vec<(u32, Bool)> = (0..12)
            .map(|i| {
                (
                    i,
                    BV::new_const(format!("y{i}"), 32).eq(BV::from_u64(0, 32)),
                )
            })
            .collect();
        let mut abs = Abstractor::new(Deadline::NONE);
        let r = abs
            .abstraction(&Bool::from_bool(true), preds, false)
            .unwrap();
        assert!(r.is_top(), "{r:?}");
        let calls = abs.stats.get().solver_calls;
        assert!(calls <= 2 * 12 + 2, "{calls} solver calls, not 2^12");
    }

    fn region(cubes: &[&[Lit]]) -> Region {
        Region {
            cubes: cubes.iter().map(|c| c.to_vec()).collect(),
        }
    }

    #[test]
    fn regions_are_compared_as_boolean_functions_of_the_predicates() {
        let (x, nx, y, ny) = ((0, true), (0, false), (1, true), (1, false));
        let holds = |a: &[&[Lit]], b: &[&[Lit]]| region(a).entails_propositionally(&region(b));
        // Case splits where no cube of `b` is contained in `a`'s.
        assert_eq!(holds(&[&[x]], &[&[x, y], &[x, ny]]), Some(true));
        assert_eq!(holds(&[&[x], &[nx]], &[&[y], &[ny]]), Some(true));
        assert_eq!(holds(&[&[x, y]], &[&[y]]), Some(true));
        assert_eq!(holds(&[&[x]], &[&[x, y]]), Some(false));
        assert_eq!(holds(&[&[x, y]], &[&[nx], &[ny]]), Some(false));
        // `false` entails everything; nothing but `false` entails it.
        assert_eq!(holds(&[], &[&[x]]), Some(true));
        assert_eq!(holds(&[&[x]], &[]), Some(false));
        // Past the split budget, no answer: every full assignment of 14
        // variables is valid, but only after 2^14 - 1 splits.
        let full: Vec<Vec<Lit>> = (0..1u32 << 14)
            .map(|m| (0..14).map(|i| (i, m >> i & 1 == 1)).collect())
            .collect();
        let full = Region { cubes: full };
        assert_eq!(Region::top().entails_propositionally(&full), None);
        let mut smaller = full.clone();
        smaller.cubes.retain(|c| c[13] == (13, true));
        for c in &mut smaller.cubes {
            c.pop();
        }
        assert_eq!(Region::top().entails_propositionally(&smaller), Some(true));
    }

    #[test]
    fn coverage_ignores_what_the_predicates_mean() {
        // x > 5 implies x > 3, but not as Boolean variables: a state in
        // x > 5 is not covered by one in x > 3 (fewer states covered,
        // never a wrong one).
        let x = BV::new_const("x", 32);
        let mut preds = Predicates::new(PredicateScope::Global);
        preds.add(x.bvugt(BV::from_u64(5, 32)));
        preds.add(x.bvugt(BV::from_u64(3, 32)));
        let mut abs = Abstractor::new(Deadline::NONE);
        let a = Rc::new(region(&[&[(0, true)]]));
        let b = Rc::new(region(&[&[(1, true)]]));
        assert!(!abs.entails(&a, &b, &preds));
        assert!(abs.entails(&a, &a.clone(), &preds));
        let both = Rc::new(region(&[&[(0, true), (1, true)]]));
        assert!(abs.entails(&both, &b, &preds));
    }
}
