//! Interrupting Z3 at a CPU-time deadline.
//!
//! Z3's resource limit (`rlimit`) bounds a query by work units, whose rate
//! varies a lot between queries (array-heavy ones run far longer per unit);
//! Z3's `timeout` parameter is not safe with Debian's Z3 4.8.12 (its timer
//! thread races). [`arm`] starts one watcher thread (once) that calls
//! `Z3_interrupt` on the analysis thread's context as soon as the process
//! has used the CPU time up to the deadline; the running query then
//! returns `unknown`, which every caller treats as "out of time".
//!
//! Only solver checks wrapped in [`checking`] are interrupted: an interrupt
//! of any other Z3 operation (`simplify`, ...) would make it fail. The
//! watcher interrupts while holding the lock that [`checking`] needs to
//! finish, so an interrupt never reaches the operation after a check.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::algorithm::sdc::{process_cpu_time, thread_cpu_time};

/// The armed context (raw pointer as an integer) and its process CPU deadline.
static ARMED: Mutex<Option<(usize, Duration)>> = Mutex::new(None);
static WATCHER: OnceLock<()> = OnceLock::new();

/// Whether the analysis thread is inside a solver check.
static CHECKING: Mutex<bool> = Mutex::new(false);

/// Runs a solver check that the armed deadline may interrupt.
pub fn checking<T>(check: impl FnOnce() -> T) -> T {
    *CHECKING.lock().unwrap_or_else(|e| e.into_inner()) = true;
    let r = check();
    *CHECKING.lock().unwrap_or_else(|e| e.into_inner()) = false;
    r
}

/// How often the watcher reads the clock.
const PERIOD: Duration = Duration::from_millis(20);

/// Disarms (restores the previous deadline) when dropped.
pub struct Armed {
    previous: Option<(usize, Duration)>,
}

impl Drop for Armed {
    fn drop(&mut self) {
        *ARMED.lock().unwrap_or_else(|e| e.into_inner()) = self.previous;
    }
}

/// Interrupts Z3 queries of this thread once this thread has used its CPU
/// time up to `deadline` (a [`thread_cpu_time`] value), until the guard is
/// dropped. A later deadline than one already armed does not extend it.
pub fn arm(deadline: Duration) -> Armed {
    WATCHER.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(PERIOD);
            let armed = *ARMED.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((ctx, d)) = armed {
                let checking = CHECKING.lock().unwrap_or_else(|e| e.into_inner());
                if *checking && process_cpu_time() >= d {
                    // SAFETY: the context belongs to the analysis thread and
                    // lives as long as it; Z3_interrupt may be called from
                    // any thread.
                    if let Some(c) = std::ptr::NonNull::new(ctx as *mut z3_sys::_Z3_context) {
                        unsafe { z3_sys::Z3_interrupt(c) };
                    }
                }
            }
        });
    });
    let ctx = z3::Context::thread_local().get_z3_context().as_ptr() as usize;
    // Process CPU time runs at least as fast as this thread's.
    let left = deadline.saturating_sub(thread_cpu_time());
    let at = process_cpu_time() + left;
    let mut armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
    let previous = *armed;
    let at = match previous {
        Some((_, d)) if d < at => d,
        _ => at,
    };
    *armed = Some((ctx, at));
    Armed { previous }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Ast, Bool, BV};
    use z3::{SatResult, Solver};

    /// A query Z3 needs long for: 13 pigeons in 12 holes.
    fn hard(s: &Solver) {
        let n = 12;
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
}
