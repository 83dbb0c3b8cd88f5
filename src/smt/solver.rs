//! Solvers and their per-query resource limits: the incremental solver for
//! checks under assumptions or in scopes, one-shot solvers with a deadline,
//! and [`QueryLimit`], which reconfigures a solver only when its rounded
//! limit changes.

/// A solver for checks under assumptions or in scopes (Z3's incremental
/// mode), set up for the encoding's logic: arrays and bit-vectors
/// (`QF_AUFBV`). Without a logic, Z3's incremental core is set up for
/// every theory at once: on hfs (32_7a) an unsat core over about 600
/// tracked conditions took 3-5 s that way and about 1.1 s this way. Not
/// every query gains: on em28xx-dvb (43_1a) one abstraction query over a
/// single predicate runs out of its 2 s here and not without a logic.
pub fn incremental_solver() -> z3::Solver {
    z3::Solver::new_for_logic("QF_AUFBV").unwrap_or_default()
}

/// A solver for plain checks (Z3 preprocesses its assertions), each of
/// which may do the work left until `deadline` (as it stands now).
pub fn solver_until(deadline: super::work::Deadline) -> z3::Solver {
    let s = z3::Solver::new();
    if let Some(units) = deadline.left() {
        s.set_params(&work_limit(units));
    }
    s
}

/// Solver parameters that bound one query by `units` of work
/// ([`super::work`]): the same queries get the same answers on any machine.
///
/// A resource limit, not Z3's `timeout`: timeouts run on Z3's timer thread
/// pool, which in Z3 4.8.12 (Debian's) can crash the process when a timer
/// fires while its query ends (Z3 PR #5371). Resource limits need no timer.
pub fn work_limit(units: u64) -> z3::Params {
    let mut p = z3::Params::new();
    p.set_u32("rlimit", clamp_units(units as f64));
    p
}

/// A unit count Z3's `rlimit` takes (0 would mean no limit).
fn clamp_units(units: f64) -> u32 {
    units.clamp(1_000.0, u32::MAX as f64) as u32
}

/// Granularity of [`QueryLimit`]: budgets are rounded up to a multiple of
/// it, so a solver asked repeatedly near a deadline is reconfigured at most
/// once per step.
const QUERY_LIMIT_STEP: u64 = super::work::units_of_ms(100);

/// The per-query resource limit last given to one solver.
///
/// Setting a solver's parameters reconfigures its whole engine, which on an
/// incremental solver holding a large block's formulas costs more than a
/// typical query (a third of all CPU time on small modules with many
/// abstraction queries). [`QueryLimit::apply_units`] sets them only when
/// the rounded limit changes, so a query may overrun the work its deadline
/// leaves by up to one rounding step.
#[derive(Debug, Default)]
pub struct QueryLimit {
    units: std::cell::Cell<Option<u32>>,
}

impl QueryLimit {
    /// Bounds `solver`'s next queries by `units` of work each (rounded up
    /// to [`QUERY_LIMIT_STEP`]).
    pub fn apply_units(&self, solver: &z3::Solver, units: u64) {
        let rounded = units.div_ceil(QUERY_LIMIT_STEP).max(1) * QUERY_LIMIT_STEP;
        let units = clamp_units(rounded as f64);
        if self.units.get() != Some(units) {
            solver.set_params(&work_limit(units as u64));
            self.units.set(Some(units));
        }
    }
}

#[cfg(test)]
mod tests {
    /// The incremental solver decides memory (arrays) and bit-vectors
    /// under assumptions, and names the assumptions an unsat core needs.
    #[test]
    fn incremental_solver_gives_cores_over_memory() {
        use z3::ast::{Array, Bool, BV};
        let mem = Array::new_const("mem", &z3::Sort::bitvector(64), &z3::Sort::bitvector(8));
        let (a, x) = (BV::new_const("a", 64), BV::new_const("x", 8));
        let stored = mem.store(&a, &x);
        let read = stored.select(&a).as_bv().expect("byte");
        let (t1, t2, t3) = (
            Bool::new_const("t1"),
            Bool::new_const("t2"),
            Bool::new_const("t3"),
        );
        let solver = super::incremental_solver();
        solver.assert(t1.implies(x.bvugt(BV::from_u64(3, 8))));
        solver.assert(t2.implies(a.bvugt(BV::from_u64(7, 64))));
        solver.assert(t3.implies(read.eq(BV::from_u64(2, 8))));
        assert_eq!(
            solver.check_assumptions(&[t1.clone(), t2.clone()]),
            z3::SatResult::Sat
        );
        let all = [t1.clone(), t2, t3.clone()];
        assert_eq!(solver.check_assumptions(&all), z3::SatResult::Unsat);
        let core: Vec<String> = solver
            .get_unsat_core()
            .iter()
            .map(|l| l.to_string())
            .collect();
        // `t2` may or may not be reported; the other two are needed.
        assert!(core.iter().any(|l| l == "t1") && core.iter().any(|l| l == "t3"));
    }

    #[test]
    fn a_query_limit_is_set_again_only_when_its_rounded_budget_changes() {
        use crate::smt::work::units_of_ms;
        let s = z3::Solver::new();
        let limit = super::QueryLimit::default();
        limit.apply_units(&s, units_of_ms(950));
        let first = limit.units.get();
        assert_eq!(first, Some(units_of_ms(1000) as u32));
        limit.apply_units(&s, units_of_ms(1000));
        assert_eq!(limit.units.get(), first);
        limit.apply_units(&s, units_of_ms(1001));
        assert_ne!(limit.units.get(), first);
    }
}
