//! Work: what the budgets inside an analysis count, so that the same input
//! takes the same decisions on a fast and on a slow machine. Only the time
//! limit itself (`--time-limit`) is CPU time ([`time_limit`]).
//!
//! The thread's work meter ([`meter`]) adds two counts:
//! - Z3's resource count (`rlimit`) of the thread's context: solver checks,
//!   simplifications and rewrites advance it, by the same amount for the
//!   same operations wherever they run; a solver's `push` is left out
//!   ([`uncounted`]), as its count is not repeatable;
//! - the work charged by mpv's own loops ([`charge`]): the expansions of
//!   the CPA algorithm, the value search and symbolic execution, the
//!   steps the encoder turns into formulas and the states compared in
//!   merge and stop, each at a fixed rate, and the variables those
//!   comparisons look up ([`charge_lookups`]), whose number grows with the
//!   module's globals.
//!
//! Budgets are stated in nominal seconds ([`UNITS_PER_SECOND`]), with rates
//! chosen so that a nominal second is about a second of CPU time on
//! typical LDV modules. One solver query is bounded by its `rlimit`
//! parameter ([`super::work_limit`]); a budget over several operations (a
//! CEGAR run, the queries of one abstraction, the checks of one unsat
//! core) is a [`Deadline`] on the meter.

use std::cell::Cell;
use std::time::Duration;

use z3::StatisticsValue;

/// Nominal units per second: budgets are stated in seconds of work. The
/// real rate varies several-fold between queries (array-heavy ones advance
/// Z3's count more slowly): budgets follow the work done, not the clock.
pub const UNITS_PER_SECOND: u64 = 4_000_000;

/// The work `ms` milliseconds nominally stand for.
pub const fn units_of_ms(ms: u64) -> u64 {
    ms * (UNITS_PER_SECOND / 1000)
}

/// The work one transfer of an explicit analysis (the CPA algorithm's, the
/// value search's) stands for, besides the solver's.
pub const TRANSFER: u64 = 20;

/// The work one state of the value search stands for (its transfer, the
/// comparison with the states seen).
pub const SEARCH_STATE: u64 = 25;

/// The work of turning one program step into formulas ([`super::apply`]).
pub const ENCODED_STEP: u64 = 12;

/// States of the reached set one unit of work compares a new state with
/// (merge and stop).
pub const COMPARISONS_PER_UNIT: u64 = 4;

/// Lookups of known values one unit of work stands for (the explicit
/// analyses' coverage checks compare states variable by variable).
pub const LOOKUPS_PER_UNIT: u64 = 8;

/// The work a nominal duration stands for.
pub fn units_of(d: Duration) -> u64 {
    (d.as_secs_f64() * UNITS_PER_SECOND as f64) as u64
}

/// The nominal duration of `units` of work.
pub fn nominal(units: u64) -> Duration {
    Duration::from_secs_f64(units as f64 / UNITS_PER_SECOND as f64)
}

thread_local! {
    /// An empty solver of the thread's context: its statistics report the
    /// context's resource count.
    static PROBE: z3::Solver = z3::Solver::new();
    /// The count last read and the wraps of a 32-bit statistic seen so far.
    static LAST: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    /// The work charged by mpv's own loops ([`charge`]).
    static CHARGED: Cell<u64> = const { Cell::new(0) };
    /// The value lookups charged ([`charge_lookups`]).
    static LOOKUPS: Cell<u64> = const { Cell::new(0) };
    /// Z3's count of the operations the meter leaves out ([`uncounted`]).
    static UNCOUNTED: Cell<u64> = const { Cell::new(0) };
    /// The thread CPU time at which the analysis must stop ([`time_limit`]).
    static TIME_LIMIT: Cell<Option<Duration>> = const { Cell::new(None) };
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

/// Charges `units` of work done outside Z3 to this thread's meter.
pub fn charge(units: u64) {
    CHARGED.with(|c| c.set(c.get() + units));
}

/// Charges `n` lookups of known values ([`LOOKUPS_PER_UNIT`]).
pub fn charge_lookups(n: u64) {
    LOOKUPS.with(|c| c.set(c.get() + n));
}

/// Runs `op`, a solver's `push`, without counting its Z3 work on the
/// meter. A push internalises the assertions made since the last one, and
/// Z3's resource count for that is not repeatable: on mISDN 059, identical
/// runs differed by a few dozen units in a push and nowhere else, enough
/// for a budget to end on either side of a step. Its work is small beside
/// the checks'.
pub fn uncounted<T>(op: impl FnOnce() -> T) -> T {
    let before = spent();
    let r = op();
    let d = spent().saturating_sub(before);
    UNCOUNTED.with(|u| u.set(u.get() + d));
    r
}

/// Pushes a scope on `solver` without counting its Z3 work on the meter
/// ([`uncounted`]).
pub fn push(solver: &z3::Solver) {
    uncounted(|| solver.push());
}

/// This thread's work so far: Z3's resource count (less what
/// [`uncounted`] left out) and the work charged.
pub fn meter() -> u64 {
    spent() - UNCOUNTED.with(Cell::get)
        + CHARGED.with(Cell::get)
        + LOOKUPS.with(Cell::get) / LOOKUPS_PER_UNIT
}

/// This thread's work so far, in nominal time.
pub fn now() -> Duration {
    nominal(meter())
}

/// Stops the analysis on this thread at `cpu` of thread CPU time from now
/// (the user's time limit), if given, until the guard is dropped: solver
/// checks are interrupted from then on, and every [`Deadline`] has passed.
/// A later limit than one already set does not extend it.
pub fn time_limit(cpu: Option<Duration>) -> TimeLimit {
    let previous = TIME_LIMIT.with(Cell::get);
    let Some(cpu) = cpu else {
        return TimeLimit {
            previous,
            _armed: None,
        };
    };
    let at = crate::util::thread_cpu_time() + cpu;
    let at = previous.map_or(at, |p| p.min(at));
    TIME_LIMIT.with(|t| t.set(Some(at)));
    TimeLimit {
        previous,
        _armed: Some(super::interrupt::arm(at)),
    }
}

/// Restores the previous time limit when dropped.
pub struct TimeLimit {
    previous: Option<Duration>,
    _armed: Option<super::interrupt::Armed>,
}

impl Drop for TimeLimit {
    fn drop(&mut self) {
        TIME_LIMIT.with(|t| t.set(self.previous));
    }
}

/// Whether this thread's time limit has passed.
pub fn out_of_time() -> bool {
    TIME_LIMIT
        .with(Cell::get)
        .is_some_and(|at| crate::util::thread_cpu_time() >= at)
}

/// A point on this thread's work meter by which work is to stop, or none.
/// Every deadline has passed once the time limit has ([`time_limit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline(Option<u64>);

impl Deadline {
    /// No deadline (only the time limit).
    pub const NONE: Deadline = Deadline(None);

    /// `units` of work from now.
    pub fn in_units(units: u64) -> Self {
        Deadline(Some(meter().saturating_add(units)))
    }

    /// `budget` of nominal time from now, or none without a budget.
    pub fn within(budget: Option<Duration>) -> Self {
        Deadline(budget.map(|b| meter().saturating_add(units_of(b))))
    }

    /// Whether it (or the time limit) has passed.
    pub fn passed(self) -> bool {
        self.0.is_some_and(|end| meter() >= end) || out_of_time()
    }

    /// The work left (zero once passed), if there is a deadline.
    pub fn left(self) -> Option<u64> {
        let end = self.0?;
        Some(match out_of_time() {
            true => 0,
            false => end.saturating_sub(meter()),
        })
    }

    /// The work left, at most `limit`.
    pub fn left_within(self, limit: u64) -> u64 {
        self.left().map_or(limit, |l| l.min(limit))
    }

    /// The earlier of two deadlines (none is later than any).
    pub fn min(self, other: Deadline) -> Deadline {
        match (self.0, other.0) {
            (Some(a), Some(b)) => Deadline(Some(a.min(b))),
            (a, b) => Deadline(a.or(b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    fn busy(s: &z3::Solver) {
        let x = BV::new_const("x", 32);
        s.assert(x.bvmul(&x).eq(BV::from_u64(1_000_003, 32)));
        let _ = s.check();
    }

    #[test]
    fn a_push_does_work_the_meter_leaves_out() {
        let s = z3::Solver::new();
        let x = BV::new_const("x", 32);
        s.assert(x.bvmul(&x).eq(BV::from_u64(1_000_003, 32)));
        let _ = s.check();
        s.assert(x.bvadd(&x).bvugt(BV::from_u64(7, 32)));
        let (before, z3_before) = (meter(), spent());
        uncounted(|| s.push());
        assert!(spent() > z3_before, "the push internalised an assertion");
        assert_eq!(meter(), before);
    }

    #[test]
    fn solver_work_advances_the_meter_and_passes_a_deadline() {
        let before = meter();
        let deadline = Deadline::in_units(10);
        assert!(!deadline.passed());
        busy(&z3::Solver::new());
        assert!(meter() > before, "a check does work");
        assert!(deadline.passed());
        assert_eq!(deadline.left(), Some(0));
        assert_eq!(Deadline::NONE.left_within(7), 7);
    }

    #[test]
    fn charged_work_counts_on_the_meter() {
        let deadline = Deadline::within(Some(Duration::from_millis(1)));
        assert!(!deadline.passed());
        charge(units_of_ms(1));
        assert!(deadline.passed());
        assert!(now() >= Duration::from_millis(1));
        let deadline = Deadline::in_units(10);
        charge_lookups(9 * LOOKUPS_PER_UNIT);
        assert!(!deadline.passed());
        charge_lookups(LOOKUPS_PER_UNIT);
        assert!(deadline.passed());
    }

    #[test]
    fn the_earlier_deadline_wins_and_none_is_latest() {
        let (a, b) = (Deadline(Some(3)), Deadline(Some(5)));
        assert_eq!(a.min(b), a);
        assert_eq!(Deadline::NONE.min(b), b);
        assert_eq!(b.min(Deadline::NONE), b);
        assert_eq!(Deadline::NONE.min(Deadline::NONE), Deadline::NONE);
        assert_eq!(Deadline::within(None), Deadline::NONE);
    }

    #[test]
    fn every_deadline_has_passed_once_the_time_limit_has() {
        let far = Deadline::within(Some(Duration::from_secs(3600)));
        {
            let _limit = time_limit(Some(Duration::ZERO));
            assert!(out_of_time());
            assert!(far.passed() && Deadline::NONE.passed());
            assert_eq!(far.left(), Some(0));
        }
        assert!(!out_of_time(), "the limit ends with its guard");
        assert!(!far.passed() && !Deadline::NONE.passed());
        assert_eq!(
            nominal(units_of(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
    }
}
