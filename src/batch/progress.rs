//! Progress of a batch on standard error: a bar on a terminal (modules done
//! / total, verdict counts so far, ETA), a plain line every `interval`
//! otherwise (logs, CI).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

pub struct Progress {
    total: usize,
    /// Done before this run (`--resume`).
    skipped: usize,
    done: usize,
    verdicts: [usize; 3],
    /// Tasks whose status is not `ok`, by status.
    failures: BTreeMap<String, usize>,
    start: Instant,
    bar: Option<ProgressBar>,
    interval: Duration,
    last_line: Instant,
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

impl Progress {
    /// `total` tasks, `skipped` of them done by an earlier run.
    pub fn new(total: usize, skipped: usize, interval: Duration) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = ProgressBar::new(total as u64);
            b.set_style(
                ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_position(skipped as u64);
            b.enable_steady_tick(Duration::from_secs(1));
            b
        });
        let now = Instant::now();
        Progress {
            total,
            skipped,
            done: 0,
            verdicts: [0; 3],
            failures: BTreeMap::new(),
            start: now,
            bar,
            interval,
            last_line: now,
        }
    }

    /// Counts the verdicts of a line an earlier run wrote (`--resume`).
    pub fn count_previous(&mut self, line: &serde_json::Map<String, Value>) {
        self.count(line.get("properties"), line.get("status"));
    }

    fn count(&mut self, properties: Option<&Value>, status: Option<&Value>) {
        for p in properties.and_then(Value::as_array).into_iter().flatten() {
            match p["verdict"].as_str() {
                Some("true") => self.verdicts[0] += 1,
                Some("false") => self.verdicts[1] += 1,
                _ => self.verdicts[2] += 1,
            }
        }
        let status = status.and_then(Value::as_str).unwrap_or("?");
        if status != "ok" {
            *self.failures.entry(status.to_string()).or_default() += 1;
        }
    }

    /// Counts one finished result line.
    pub fn record(&mut self, line: &Value) {
        self.done += 1;
        self.count(line.get("properties"), line.get("status"));
        if let Some(b) = &self.bar {
            b.set_position((self.skipped + self.done) as u64);
            b.set_message(self.counts());
        } else {
            self.tick();
        }
    }

    fn eta(&self) -> Option<Duration> {
        let left = self.total.saturating_sub(self.skipped + self.done);
        if self.done == 0 {
            return None;
        }
        Some(self.start.elapsed().mul_f64(left as f64 / self.done as f64))
    }

    fn counts(&self) -> String {
        let mut s = format!(
            "TRUE {} FALSE {} UNKNOWN {}",
            self.verdicts[0], self.verdicts[1], self.verdicts[2]
        );
        for (k, n) in &self.failures {
            s += &format!(" {k} {n}");
        }
        match self.eta() {
            Some(eta) => s + &format!(" ETA {}", clock(eta)),
            None => s,
        }
    }

    /// Prints a plain line when not on a terminal and `interval` has passed.
    pub fn tick(&mut self) {
        if self.bar.is_none() && self.last_line.elapsed() >= self.interval {
            self.last_line = Instant::now();
            eprintln!("{}", self.line());
        }
    }

    fn line(&self) -> String {
        format!(
            "mpv batch: {}/{} done, {} elapsed, {}",
            self.skipped + self.done,
            self.total,
            clock(self.start.elapsed()),
            self.counts()
        )
    }

    /// Ends the bar and prints the final line.
    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        eprintln!("{}", self.line().replace(" ETA 0m00s", ""));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_verdicts_and_failures() {
        let mut p = Progress::new(4, 1, Duration::from_secs(3600));
        p.record(
            &json!({"status": "ok", "properties": [{"verdict": "true"}, {"verdict": "false"}]}),
        );
        p.record(&json!({"status": "timeout", "properties": []}));
        let s = p.line();
        assert!(s.contains("3/4 done"), "{s}");
        assert!(s.contains("TRUE 1 FALSE 1 UNKNOWN 0 timeout 1"), "{s}");
        assert!(s.contains("ETA"), "{s}");
    }

    #[test]
    fn a_resumed_batch_counts_the_earlier_verdicts() {
        let mut p = Progress::new(3, 2, Duration::from_secs(3600));
        for v in ["true", "unknown"] {
            let line = json!({"status": "ok", "properties": [{"verdict": v}]});
            p.count_previous(line.as_object().unwrap());
        }
        p.record(&json!({"status": "ok", "properties": [{"verdict": "false"}]}));
        let s = p.line();
        assert!(s.contains("3/3 done"), "{s}");
        assert!(s.contains("TRUE 1 FALSE 1 UNKNOWN 1"), "{s}");
    }
}
