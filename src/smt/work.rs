//! Work: what the budgets inside an analysis count, so that the same input
//! takes the same decisions on a fast and on a slow machine (only the time
//! limit itself is CPU time).
//!
//! The unit is Z3's resource count (`rlimit`): solver checks,
//! simplifications and rewrites of a thread's context advance it, by the
//! same amount for the same operations wherever they run. One solver query
//! is bounded by its `rlimit` parameter ([`super::query_limit`]); a budget
//! over several operations (the queries of one abstraction, the
//! preconditions of one refinement, the checks of one unsat core) is a
//! [`WorkBudget`] on the context's count ([`spent`]).

use std::cell::Cell;

use z3::StatisticsValue;

/// Nominal units per second of solver time, to state budgets in familiar
/// terms. The real rate varies several-fold between queries (array-heavy
/// ones advance the count more slowly): budgets follow the work done, not
/// the clock.
pub const UNITS_PER_SECOND: u64 = 4_000_000;

/// The work `ms` milliseconds nominally stand for.
pub const fn units_of_ms(ms: u64) -> u64 {
    ms * (UNITS_PER_SECOND / 1000)
}

thread_local! {
    /// An empty solver of the thread's context: its statistics report the
    /// context's resource count.
    static PROBE: z3::Solver = z3::Solver::new();
    /// The count last read and the wraps of a 32-bit statistic seen so far.
    static LAST: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// The resource count of this thread's Z3 context so far (monotone).
pub fn spent() -> u64 {
    let raw = PROBE.with(|s| match s.get_statistics().value("rlimit count") {
        Some(StatisticsValue::UInt(u)) => u as u64,
        Some(StatisticsValue::Double(d)) => d as u64,
        None => 0,
    });
    LAST.with(|last| {
        let (prev, mut wraps) = last.get();
        // A count reported in 32 bits wraps after about 1000 nominal
        // seconds; budgets read it far more often than that.
        if raw < prev && prev - raw > u32::MAX as u64 / 2 {
            wraps += 1;
        }
        last.set((raw, wraps));
        raw + (wraps << 32)
    })
}

/// A budget of work from now, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkBudget(Option<u64>);

impl WorkBudget {
    /// No budget.
    pub const NONE: WorkBudget = WorkBudget(None);

    /// `units` of work from now.
    pub fn of(units: u64) -> Self {
        WorkBudget(Some(spent().saturating_add(units)))
    }

    /// The work left (zero once used up), if there is a budget.
    pub fn left(self) -> Option<u64> {
        self.0.map(|end| end.saturating_sub(spent()))
    }

    /// The work left, at most `limit`.
    pub fn left_within(self, limit: u64) -> u64 {
        self.left().map_or(limit, |l| l.min(limit))
    }

    /// Whether it is used up.
    pub fn passed(self) -> bool {
        self.left() == Some(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    #[test]
    fn solver_work_advances_the_count_and_uses_up_a_budget() {
        let before = spent();
        let budget = WorkBudget::of(10);
        assert!(!budget.passed());
        let s = z3::Solver::new();
        let x = BV::new_const("x", 32);
        s.assert(x.bvmul(&x).eq(BV::from_u64(1_000_003, 32)));
        let _ = s.check();
        assert!(spent() > before, "a check does work");
        assert!(budget.passed());
        assert_eq!(WorkBudget::NONE.left_within(7), 7);
    }
}
