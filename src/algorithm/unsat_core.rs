//! Unsat cores over tracking literals: which conditions of an
//! unsatisfiable path formula its unsatisfiability needs (refinement
//! focuses its predicates on them).
//!
//! Two ways, because Z3 is fast at one and sometimes slow at the other:
//! - [`minimal_core`]: one check under the literals as assumptions, the
//!   core Z3 reports minimised by deletion;
//! - [`core_by_checks`]: checks with subsets of the literals asserted as
//!   facts, split as QuickXplain splits (Junker, AAAI'04). A check with
//!   asserted literals is a plain check to Z3, whose preprocessing then
//!   uses the conditions: on a path of pktcdvd (`module_get_put`) all
//!   conditions asserted are unsatisfiable in a quarter of a second, and
//!   the check under assumptions is undecided after two. Many checks are
//!   needed, and checks of few conditions (often satisfiable) are the
//!   slow ones, so this is the fallback, not the first way.

use crate::hash::HashMap;
use crate::smt::work::{units_of_ms, Deadline};
use z3::ast::Bool;
use z3::{SatResult, Solver};

/// A minimised unsat core of `solver`'s assertions under the tracking
/// `literals` (checked with `params`): the check's result and, if it is
/// `Unsat`, the indices of the literals in the core.
///
/// The core Z3 reports is minimised by deletion: a literal goes if the
/// others are still unsatisfiable within [`CORE_MINIMIZATION`] work (Z3's own
/// `core.minimize` runs when the core is read, with no limit, and took
/// seconds for checks of milliseconds). Cores of more than
/// [`MAX_MINIMIZED_CORE`] literals are left as they are.
///
/// The deletion checks run in a solver of their own, which takes over
/// `solver`'s assertions: `solver` itself, after the check under all the
/// literals, could spin on a later check while Z3's work count hardly
/// moved (18 s of CPU for a sixth of the check's limit on a path of
/// gigaset, `module_get_put`, where a fresh solver answered in 0.01 s), so
/// no work limit stopped it and only the time limit did.
pub fn minimal_core(
    solver: &Solver,
    params: z3::Params,
    literals: &[Bool],
) -> (SatResult, Option<Vec<usize>>) {
    solver.set_params(&params);
    let result = crate::smt::interrupt::checking(|| solver.check_assumptions(literals));
    if result != SatResult::Unsat {
        return (result, None);
    }
    let index: HashMap<&Bool, usize> = literals.iter().zip(0..).collect();
    let mut core: Vec<usize> = solver
        .get_unsat_core()
        .iter()
        .filter_map(|t| index.get(t).copied())
        .collect();
    if core.len() <= 1 || core.len() > MAX_MINIMIZED_CORE {
        return (result, Some(core));
    }
    let deletion = Solver::new();
    deletion.set_params(&crate::smt::work_limit(CORE_MINIMIZATION));
    for a in solver.get_assertions() {
        deletion.assert(&a);
    }
    let mut k = 0;
    while k < core.len() && core.len() > 1 {
        let others: Vec<Bool> = core
            .iter()
            .enumerate()
            .filter(|&(n, _)| n != k)
            .map(|(_, &i)| literals[i].clone())
            .collect();
        if crate::smt::interrupt::checking(|| deletion.check_assumptions(&others))
            == SatResult::Unsat
        {
            core.remove(k);
        } else {
            k += 1;
        }
    }
    (result, Some(core))
}

/// The largest unsat core [`minimal_core`] minimises.
const MAX_MINIMIZED_CORE: usize = 16;

/// The work one check of the core minimisation may do.
const CORE_MINIMIZATION: u64 = units_of_ms(200);

/// An unsat core of `guard` under the tracking `literals`, found by checks
/// of `guard` with subsets of the literals asserted (QuickXplain: about
/// 2k·log(n/k) checks for a core of k of n literals). `guard` must be
/// unsatisfiable with all of them. The core is minimal if every check is
/// decided; a check left undecided keeps literals in it. `None` if the
/// checks together would need more than `budget` units of work.
pub fn core_by_checks(guard: &Bool, literals: &[Bool], budget: u64) -> Option<Vec<usize>> {
    let checks = SubsetChecks {
        guard,
        literals,
        budget: Deadline::in_units(budget),
    };
    let all: Vec<usize> = (0..literals.len()).collect();
    let mut core = quick_xplain(&checks, &mut Vec::new(), false, &all)?;
    core.sort_unstable();
    Some(core)
}

/// Checks of the guard with subsets of the literals asserted, each in a
/// fresh solver, all within one budget of work.
struct SubsetChecks<'a> {
    guard: &'a Bool,
    literals: &'a [Bool],
    budget: Deadline,
}

impl SubsetChecks<'_> {
    /// Whether the guard is unsatisfiable with the literals of `subset`
    /// (undecided within [`SUBSET_CHECK_LIMIT`]: taken as satisfiable, which
    /// keeps literals in the core and so only costs minimality); `None`
    /// once the budget is used up.
    fn unsat(&self, subset: &[usize]) -> Option<bool> {
        if self.budget.passed() {
            return None;
        }
        let solver = Solver::new();
        solver.set_params(&crate::smt::work_limit(
            self.budget.left_within(SUBSET_CHECK_LIMIT),
        ));
        solver.assert(self.guard);
        for &i in subset {
            solver.assert(&self.literals[i]);
        }
        Some(crate::smt::interrupt::checking(|| solver.check()) == SatResult::Unsat)
    }
}

/// The work one check of [`core_by_checks`] may do. Subsets with few
/// literals are often satisfiable, and a model of a long path can take Z3
/// much longer than the proof that all conditions contradict each other.
const SUBSET_CHECK_LIMIT: u64 = units_of_ms(300);

/// QuickXplain: a subset of `candidates` that is unsatisfiable together
/// with `background` (which `added` says has grown since the last check),
/// given that all of them together are; minimal if every check answers.
/// A check that wrongly answers "satisfiable" only stops a literal from
/// being dropped: every returned set is unsatisfiable with the background
/// all the same.
fn quick_xplain(
    checks: &SubsetChecks,
    background: &mut Vec<usize>,
    added: bool,
    candidates: &[usize],
) -> Option<Vec<usize>> {
    if added && checks.unsat(background)? {
        return Some(Vec::new());
    }
    if candidates.len() <= 1 {
        return Some(candidates.to_vec());
    }
    let (first, second) = candidates.split_at(candidates.len() / 2);
    let base = background.len();
    background.extend_from_slice(first);
    let from_second = quick_xplain(checks, background, !first.is_empty(), second)?;
    background.truncate(base);
    background.extend_from_slice(&from_second);
    let from_first = quick_xplain(checks, background, !from_second.is_empty(), first)?;
    background.truncate(base);
    let mut core = from_first;
    core.extend(from_second);
    Some(core)
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    /// `x = 5` and five tracked conditions, of which only `y = 1` (2) and
    /// `y = 2` (4) contradict each other.
    fn tracked() -> (Bool, Vec<Bool>) {
        let x = BV::new_const("x", 8);
        let y = BV::new_const("y", 8);
        let t: Vec<Bool> = (0..5).map(|i| Bool::new_const(format!("t{i}"))).collect();
        let conds = [
            x.bvugt(BV::from_u64(3, 8)),
            y.bvult(BV::from_u64(9, 8)),
            y.eq(BV::from_u64(1, 8)),
            x.bvult(BV::from_u64(9, 8)),
            y.eq(BV::from_u64(2, 8)),
        ];
        let mut parts = vec![x.eq(BV::from_u64(5, 8))];
        parts.extend(t.iter().zip(&conds).map(|(t, c)| t.implies(c)));
        let refs: Vec<&Bool> = parts.iter().collect();
        (Bool::and(&refs), t)
    }

    #[test]
    fn checks_with_asserted_literals_find_a_minimal_core() {
        let (guard, literals) = tracked();
        let core = core_by_checks(&guard, &literals, units_of_ms(10_000));
        assert_eq!(core, Some(vec![2, 4]));
    }

    #[test]
    fn a_core_of_one_literal_is_found_wherever_it_is() {
        let x = BV::new_const("x", 8);
        let t: Vec<Bool> = (0..7).map(|i| Bool::new_const(format!("u{i}"))).collect();
        let mut parts = vec![x.eq(BV::from_u64(5, 8))];
        for (i, t) in t.iter().enumerate() {
            let c = if i == 4 {
                x.eq(BV::from_u64(6, 8))
            } else {
                x.bvult(BV::from_u64(100 + i as u64, 8))
            };
            parts.push(t.implies(&c));
        }
        let refs: Vec<&Bool> = parts.iter().collect();
        let core = core_by_checks(&Bool::and(&refs), &t, units_of_ms(10_000));
        assert_eq!(core, Some(vec![4]));
    }

    #[test]
    fn no_core_without_work() {
        let (guard, literals) = tracked();
        assert_eq!(core_by_checks(&guard, &literals, 0), None);
    }
}
