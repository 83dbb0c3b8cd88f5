//! Interrupting Z3 at a CPU-time deadline: the time limit
//! ([`super::work::time_limit`]), the one bound inside an analysis that is
//! CPU time.
//!
//! Z3's resource limit (`rlimit`) bounds a query by work units, whose rate
//! varies a lot between queries (array-heavy ones run far longer per unit);
//! Z3's `timeout` parameter is not safe with Debian's Z3 4.8.12 (its timer
//! thread races). [`arm`] starts one watcher thread (once) that calls
//! `Z3_interrupt` on an armed thread's context as soon as that thread has
//! used its CPU time up to its deadline (threads analysing side by side,
//! as tests do, never interrupt each other); the running query then
//! returns `unknown`, which every caller treats as "out of time".
//!
//! Only solver checks wrapped in [`checking`] are interrupted: an interrupt
//! of any other Z3 operation (`simplify`, ...) makes it fail. The watcher
//! interrupts while holding the lock that [`checking`] needs to finish, but
//! Z3 may have returned from the check just before: the interrupt would
//! then cancel the thread's next Z3 operations, among them assertions,
//! which Z3 drops without a word. [`checking`] clears such an interrupt
//! before it returns. Simplification goes through [`simplified`], which
//! keeps the term when Z3 refuses.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::hash::HashMap;

/// What the watcher needs of one thread with an armed deadline.
#[derive(Clone, Copy)]
struct Watched {
    /// The thread's Z3 context (raw pointer as an integer).
    ctx: usize,
    /// The thread's CPU-time clock, readable from the watcher.
    clock: libc::clockid_t,
    /// Deadline on that clock.
    deadline: Duration,
    /// Whether the thread is inside a solver check.
    checking: bool,
}

/// Armed threads, by `pthread_self`. The watcher interrupts while holding
/// this lock, and [`checking`] needs it to finish a check.
static ARMED: Mutex<Option<HashMap<u64, Watched>>> = Mutex::new(None);
static WATCHER: OnceLock<()> = OnceLock::new();

fn this_thread() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() as u64 }
}

/// Marks this thread as inside a check or not; whether its deadline has
/// passed (so the watcher may have interrupted it).
fn set_checking(on: bool) -> bool {
    let mut armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = armed.as_mut().and_then(|m| m.get_mut(&this_thread())) else {
        return false;
    };
    w.checking = on;
    clock_time(w.clock).is_some_and(|t| t >= w.deadline)
}

/// Runs a solver check that the armed deadline may interrupt.
///
/// Past the deadline the watcher may interrupt just as the check returns.
/// That interrupt stays pending, and Z3 cancels what the thread asks of it
/// next: an assertion added to a solver that has checked before is then
/// silently dropped, and the solver answers `sat` for a contradiction ever
/// after. A pending interrupt is cleared here, by a check of an empty
/// solver, before anything else reaches Z3.
pub fn checking<T>(check: impl FnOnce() -> T) -> T {
    set_checking(true);
    let r = check();
    if set_checking(false) {
        clear_pending_interrupt();
    }
    r
}

/// Clears an interrupt of this thread's context that no check consumed:
/// Z3 resets it when a check starts.
fn clear_pending_interrupt() {
    let _ = z3::Solver::new().check();
}

/// `t` simplified by Z3, or `t` itself if Z3 refuses: a `simplify` that an
/// interrupt cancels gives no term (the z3 crate's `simplify` would panic).
/// `checking` clears the interrupts that arrive as a check returns; this
/// guards whatever else may reach Z3 with one pending.
pub fn simplified<T: z3::ast::Ast + Clone>(t: &T) -> T {
    let ctx = t.get_ctx();
    // SAFETY: the context and the term are alive (`t` borrows them); a
    // term Z3 returns is wrapped with its reference count taken.
    match unsafe { z3_sys::Z3_simplify(ctx.get_z3_context(), t.get_z3_ast()) } {
        Some(r) => unsafe { T::wrap(ctx, r) },
        None => t.clone(),
    }
}

/// How often the watcher reads the clocks.
const PERIOD: Duration = Duration::from_millis(20);

fn clock_time(clock: libc::clockid_t) -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes into the valid `timespec` we pass.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// Disarms (restores this thread's previous deadline) when dropped.
pub struct Armed {
    previous: Option<Duration>,
}

impl Drop for Armed {
    fn drop(&mut self) {
        let mut armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
        let map = armed.get_or_insert_with(HashMap::default);
        match self.previous {
            Some(d) => {
                if let Some(w) = map.get_mut(&this_thread()) {
                    w.deadline = d;
                }
            }
            None => {
                map.remove(&this_thread());
            }
        }
    }
}

/// Interrupts Z3 queries of this thread once this thread has used its CPU
/// time up to `deadline` (a [`crate::util::thread_cpu_time`] value), until the guard is
/// dropped. A later deadline than one already armed does not extend it.
/// Each thread has its own deadline, on its own CPU clock.
pub fn arm(deadline: Duration) -> Armed {
    WATCHER.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(PERIOD);
            let armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
            for w in armed.iter().flat_map(|m| m.values()) {
                if w.checking && clock_time(w.clock).is_some_and(|t| t >= w.deadline) {
                    // SAFETY: the context belongs to a thread that is inside
                    // a check (it cannot finish it, or drop the context,
                    // without this lock); Z3_interrupt may be called from
                    // any thread.
                    if let Some(c) = std::ptr::NonNull::new(w.ctx as *mut z3_sys::_Z3_context) {
                        unsafe { z3_sys::Z3_interrupt(c) };
                    }
                }
            }
        });
    });
    let ctx = z3::Context::thread_local().get_z3_context().as_ptr() as usize;
    let mut clock: libc::clockid_t = libc::CLOCK_THREAD_CPUTIME_ID;
    // SAFETY: pthread_getcpuclockid writes the clock of the calling thread.
    let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    if rc != 0 {
        // No clock the watcher can read: nothing is interrupted (the
        // solvers' resource limits still bound each query).
        return Armed { previous: None };
    }
    let mut armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
    let map = armed.get_or_insert_with(HashMap::default);
    let me = this_thread();
    let previous = map.get(&me).map(|w| w.deadline);
    let deadline = previous.map_or(deadline, |d| d.min(deadline));
    map.insert(
        me,
        Watched {
            ctx,
            clock,
            deadline,
            checking: false,
        },
    );
    Armed { previous }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::thread_cpu_time;
    use z3::ast::{Ast, Bool, BV};
    use z3::{SatResult, Solver};

    #[test]
    fn an_interrupt_after_a_check_leaves_simplify_usable() {
        let x = BV::new_const("x", 8);
        let e = x.bvadd(BV::from_u64(0, 8));
        // What the watcher does when a check returns just as it fires.
        let ctx = z3::Context::thread_local().get_z3_context();
        unsafe { z3_sys::Z3_interrupt(ctx) };
        let s = simplified(&e);
        assert!(s == x || s == e, "{s}");
        // The next check clears it.
        let solver = Solver::new();
        solver.assert(x.bvugt(BV::from_u64(3, 8)));
        assert_eq!(solver.check(), SatResult::Sat);
        assert_eq!(simplified(&e), x);
    }

    /// A query Z3 needs long for: 13 pigeons in 12 holes.
    fn hard(s: &Solver) {
        pigeons(s, 12)
    }

    /// `n + 1` pigeons in `n` holes (unsatisfiable).
    fn pigeons(s: &Solver, n: usize) {
        let p: Vec<Vec<Bool>> = (0..=n)
            .map(|i| {
                (0..n)
                    .map(|j| Bool::new_const(format!("p{i}_{j}")))
                    .collect()
            })
            .collect();
        for row in &p {
            s.assert(Bool::or(&row.iter().collect::<Vec<_>>()));
        }
        for j in 0..n {
            for (a, pa) in p.iter().enumerate() {
                for pb in &p[a + 1..] {
                    s.assert(Bool::and(&[&pa[j], &pb[j]]).not());
                }
            }
        }
    }

    #[test]
    fn an_interrupted_query_is_unknown_and_later_queries_still_work() {
        let s = Solver::new();
        s.push();
        hard(&s);
        let r = {
            let _a = arm(thread_cpu_time() + Duration::from_millis(300));
            checking(|| s.check())
        };
        assert_eq!(r, SatResult::Unknown, "interrupted");
        s.pop(1);
        let z = BV::new_const("z", 8);
        s.assert(z.eq(BV::from_u64(3, 8)));
        assert_eq!(s.check(), SatResult::Sat, "the solver recovers");
        let t = Solver::new();
        t.assert(z.eq(BV::from_u64(4, 8)));
        assert_eq!(t.check(), SatResult::Sat, "the context recovers");
        // Past the deadline, operations outside `checking` are left alone.
        let _a = arm(thread_cpu_time());
        std::thread::sleep(PERIOD * 5);
        let e = z.bvadd(BV::from_u64(0, 8));
        assert_eq!(e.simplify(), z, "simplify is not interrupted");
    }

    /// A check of satisfiable `s` past the deadline, interrupted just as it
    /// returns (what the watcher may do).
    fn check_interrupted_as_it_returns(s: &Solver) {
        let _a = arm(thread_cpu_time());
        let r = checking(|| {
            let r = s.check();
            let ctx = z3::Context::thread_local().get_z3_context();
            // SAFETY: the thread's own live context.
            unsafe { z3_sys::Z3_interrupt(ctx) };
            r
        });
        // The watcher may have interrupted the check itself, too.
        assert_ne!(r, SatResult::Unsat);
    }

    #[test]
    fn what_is_asserted_after_a_late_interrupt_counts() {
        // The watcher interrupts just as a check returns (as it may, past
        // the deadline). A solver that has checked before would then drop
        // what is asserted next, and answer `sat` for a contradiction.
        let s = Solver::new();
        let z = BV::new_const("z", 8);
        s.assert(z.bvugt(BV::from_u64(3, 8)));
        check_interrupted_as_it_returns(&s);
        s.assert(z.bvult(BV::from_u64(2, 8)));
        assert_eq!(s.check(), SatResult::Unsat);
    }

    #[test]
    fn a_late_interrupt_leaves_the_next_query_of_an_incremental_solver_intact() {
        // The abstractor's pattern: push, the formula and an indicator,
        // push, enumerate with blocking clauses, pop both. With the
        // interrupt pending, Z3 would cancel the pushes, the blocking
        // clauses would land at the base level and outlive the pops, and
        // a later satisfiable query would be `unsat` (a state pruned).
        let x = BV::new_const("x", 8);
        let b = Bool::new_const("indicator");
        let s = crate::smt::incremental_solver();
        s.assert(x.bvugt(BV::from_u64(3, 8)));
        check_interrupted_as_it_returns(&s);
        let ten = BV::from_u64(10, 8);
        s.push();
        s.assert(x.bvult(BV::from_u64(200, 8)));
        s.assert(b.eq(x.bvugt(&ten)));
        s.push();
        while s.check() == SatResult::Sat {
            let m = s.get_model().expect("a model");
            let v = m.eval(&b, true).and_then(|v| v.as_bool()).unwrap_or(false);
            s.assert(if v { b.not() } else { b.clone() });
        }
        s.pop(2);
        s.push();
        s.assert(x.eq(BV::from_u64(50, 8)));
        s.assert(b.eq(x.bvugt(&ten)));
        assert_eq!(s.check(), SatResult::Sat);
        s.pop(1);
    }

    #[test]
    fn threads_keep_their_own_deadlines() {
        // One thread's deadline passes during its hard query; another
        // thread, far from its own deadline, runs queries meanwhile.
        let hurried = std::thread::spawn(|| {
            let s = Solver::new();
            hard(&s);
            let _a = arm(thread_cpu_time() + Duration::from_millis(200));
            checking(|| s.check())
        });
        let patient = std::thread::spawn(|| {
            let _a = arm(thread_cpu_time() + Duration::from_secs(600));
            let started = std::time::Instant::now();
            let mut results = Vec::new();
            while started.elapsed() < Duration::from_secs(1) {
                let s = Solver::new();
                pigeons(&s, 6);
                results.push(checking(|| s.check()));
            }
            results
        });
        assert_eq!(hurried.join().unwrap(), SatResult::Unknown);
        let results = patient.join().unwrap();
        assert!(!results.is_empty());
        assert!(
            results.iter().all(|r| *r == SatResult::Unsat),
            "not interrupted by the other thread's deadline: {results:?}"
        );
    }
}
