//! Helpers every layer may use: CPU clocks, CPU-time deadlines, markup
//! escaping and the trace switch. Nothing here depends on another module
//! of mpv.

use std::time::Duration;

/// CPU time consumed by this process so far (user + system).
pub fn process_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes into the valid `timespec` we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time consumed by the calling thread so far: the analysis of one module
/// runs on one thread, so parallel analyses in one process do not charge
/// each other.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes into the valid `timespec` we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// A point in this thread's CPU time ([`thread_cpu_time`]) by which work
/// is to stop, or none (work may go on as long as it takes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline(Option<Duration>);

impl Deadline {
    /// No deadline.
    pub const NONE: Deadline = Deadline(None);

    /// The deadline at thread CPU time `instant`.
    pub fn at(instant: Duration) -> Self {
        Deadline(Some(instant))
    }

    /// `cpu` of thread CPU time after `start`, or none without `cpu`.
    pub fn after(start: Duration, cpu: Option<Duration>) -> Self {
        Deadline(cpu.map(|c| start + c))
    }

    /// `cpu` of thread CPU time from now, or none without `cpu`.
    pub fn in_cpu(cpu: Option<Duration>) -> Self {
        Deadline(cpu.map(|c| thread_cpu_time() + c))
    }

    /// The thread CPU time it falls on, if there is one.
    pub fn instant(self) -> Option<Duration> {
        self.0
    }

    /// Whether it has passed.
    pub fn passed(self) -> bool {
        self.0.is_some_and(|d| thread_cpu_time() >= d)
    }

    /// The CPU time left until it (zero once it has passed), if there is one.
    pub fn remaining(self) -> Option<Duration> {
        self.0.map(|d| d.saturating_sub(thread_cpu_time()))
    }

    /// The CPU time left until it, at most `limit`.
    pub fn remaining_within(self, limit: Duration) -> Duration {
        self.remaining().map_or(limit, |r| r.min(limit))
    }

    /// The earlier of two deadlines (none is later than any).
    pub fn min(self, other: Deadline) -> Deadline {
        match (self.0, other.0) {
            (Some(a), Some(b)) => Deadline(Some(a.min(b))),
            (a, b) => Deadline(a.or(b)),
        }
    }
}

/// Whether `MPV_TRACE_CEGAR` asks for a trace of the analysis on standard
/// error (read once).
pub fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("MPV_TRACE_CEGAR").is_some())
}

/// Text with the special characters of XML and HTML escaped (for text and
/// attribute values; `'` as a numeric reference, which both accept).
pub fn escape_markup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earlier_deadline_wins_and_none_is_latest() {
        let s = Duration::from_secs;
        assert_eq!(
            Deadline::at(s(3)).min(Deadline::at(s(5))),
            Deadline::at(s(3))
        );
        assert_eq!(Deadline::NONE.min(Deadline::at(s(5))), Deadline::at(s(5)));
        assert_eq!(Deadline::at(s(5)).min(Deadline::NONE), Deadline::at(s(5)));
        assert_eq!(Deadline::NONE.min(Deadline::NONE), Deadline::NONE);
        assert_eq!(Deadline::after(s(2), Some(s(3))), Deadline::at(s(5)));
        assert_eq!(Deadline::after(s(2), None), Deadline::NONE);
    }

    #[test]
    fn a_past_deadline_has_passed_and_nothing_remains() {
        let past = Deadline::at(Duration::ZERO);
        assert!(past.passed());
        assert_eq!(past.remaining(), Some(Duration::ZERO));
        assert!(!Deadline::NONE.passed());
        assert_eq!(Deadline::NONE.remaining(), None);
        let limit = Duration::from_secs(2);
        assert_eq!(Deadline::NONE.remaining_within(limit), limit);
        assert_eq!(past.remaining_within(limit), Duration::ZERO);
        let far = Deadline::in_cpu(Some(Duration::from_secs(3600)));
        assert!(!far.passed());
        assert_eq!(far.remaining_within(limit), limit);
    }
}
