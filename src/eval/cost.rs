//! What verifying the properties of a module together costs against the
//! baseline (each property in its own analysis, in one process), per
//! module: the figures by which multi-property verification is judged.
//!
//! Modules fall into two kinds by the baseline's analysis CPU time:
//! *non-trivial* ones (at least [`TRIVIAL_S`], and every property decided by
//! the baseline), where the ratio of analysis CPU times is the measure (the
//! paper's Table 2 speedup), and *trivial* ones, where a ratio of
//! hundredths of a second says nothing and the added seconds are the
//! measure. Separate processes per property (what a user without
//! decomposition runs: `mpv verify --select P` once per property) are
//! estimated from the baseline: its analysis, plus its parse, CFA and
//! start-up once per property.

use super::{Comparison, Verdict};

/// Baseline analysis CPU seconds below which a module is trivial.
pub const TRIVIAL_S: f64 = 0.2;

/// A module's CPU use above which, against the baseline's, it counts as a
/// regression unless it decides more properties.
pub const REGRESSION_FACTOR: f64 = 1.5;

/// The cost of one configuration against the baseline.
#[derive(Clone, Debug, Default)]
pub struct CostRow {
    pub name: String,
    /// Non-trivial modules (see the module doc).
    pub nontrivial: usize,
    /// Of them, those with less analysis CPU than the baseline.
    pub nontrivial_cheaper: usize,
    /// Geometric mean of baseline / configuration analysis CPU over them.
    pub nontrivial_speedup: Option<f64>,
    /// The same for the analyses' work (nominal seconds, repeatable across
    /// machines), over those of them whose lines report it.
    pub nontrivial_work_speedup: Option<f64>,
    /// Trivial modules and the most analysis CPU one adds (seconds).
    pub trivial: usize,
    pub trivial_max_added_s: f64,
    /// Geometric mean of separate processes' / configuration's total CPU
    /// over the non-trivial modules.
    pub separate_speedup: Option<f64>,
    /// Modules using more than [`REGRESSION_FACTOR`] times the baseline's
    /// total CPU, and more than [`TRIVIAL_S`] beyond it, without deciding
    /// more properties.
    pub regressions: Vec<String>,
}

fn geometric(ratios: &[f64]) -> Option<f64> {
    (!ratios.is_empty())
        .then(|| (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp())
}

impl Comparison {
    /// The cost rows of the runs other than the baseline.
    pub fn cost_rows(&self) -> Vec<CostRow> {
        (0..self.runs.len())
            .filter(|&i| i != self.baseline)
            .map(|i| self.cost_row(i))
            .collect()
    }

    fn decided(&self, key: &str, m: &super::ModuleRun) -> usize {
        self.props(key)
            .iter()
            .filter(|p| m.verdict(&p.id) != Verdict::Unknown)
            .count()
    }

    fn cost_row(&self, i: usize) -> CostRow {
        let run = &self.runs[i];
        let base = &self.runs[self.baseline];
        let mut row = CostRow {
            name: run.name.clone(),
            ..CostRow::default()
        };
        let (mut speedups, mut separate, mut work) = (Vec::new(), Vec::new(), Vec::new());
        for (key, m) in &run.modules {
            let Some(b) = base.modules.get(key) else {
                continue;
            };
            let k = self.props(key).len().max(1) as f64;
            if b.analysis_cpu_s < TRIVIAL_S {
                row.trivial += 1;
                row.trivial_max_added_s = row
                    .trivial_max_added_s
                    .max(m.analysis_cpu_s - b.analysis_cpu_s);
            } else if self.solved_all(key, b) && m.analysis_cpu_s > 0.0 {
                row.nontrivial += 1;
                row.nontrivial_cheaper += usize::from(m.analysis_cpu_s < b.analysis_cpu_s);
                speedups.push(b.analysis_cpu_s / m.analysis_cpu_s);
                if let (Some(bw), Some(mw)) = (b.analysis_work_s, m.analysis_work_s) {
                    if bw > 0.0 && mw > 0.0 {
                        work.push(bw / mw);
                    }
                }
                let overhead = (b.total_cpu_s - b.analysis_cpu_s).max(0.0);
                if m.total_cpu_s > 0.0 {
                    separate.push((b.analysis_cpu_s + k * overhead) / m.total_cpu_s);
                }
            }
            if m.total_cpu_s > REGRESSION_FACTOR * b.total_cpu_s
                && m.total_cpu_s - b.total_cpu_s > TRIVIAL_S
                && self.decided(key, m) <= self.decided(key, b)
            {
                row.regressions.push(format!(
                    "{key} ({:.2} s against {:.2} s)",
                    m.total_cpu_s, b.total_cpu_s
                ));
            }
        }
        row.nontrivial_speedup = geometric(&speedups);
        row.nontrivial_work_speedup = geometric(&work);
        row.separate_speedup = geometric(&separate);
        row
    }
}

/// The cost rows as a table, with what each column means.
pub fn render(cmp: &Comparison, rows: &[CostRow], markdown: bool) -> String {
    let base = &cmp.runs[cmp.baseline].name;
    let header = [
        "configuration",
        "non-trivial modules",
        "% cheaper than baseline",
        "analysis speedup geo",
        "work speedup geo",
        "speedup geo vs separate processes",
        "trivial modules",
        "max added s (trivial)",
        "regressions",
    ];
    let opt = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.nontrivial.to_string(),
                if r.nontrivial == 0 {
                    "-".into()
                } else {
                    format!(
                        "{:.1}",
                        100.0 * r.nontrivial_cheaper as f64 / r.nontrivial as f64
                    )
                },
                opt(r.nontrivial_speedup),
                opt(r.nontrivial_work_speedup),
                opt(r.separate_speedup),
                r.trivial.to_string(),
                format!("{:.2}", r.trivial_max_added_s),
                r.regressions.len().to_string(),
            ]
        })
        .collect();
    let mut out = crate::batch::summary::table(markdown, &header, &cells);
    out.push_str(&format!(
        "\nnon-trivial: {base} decided every property and its analysis took at least {TRIVIAL_S} s; \
         analysis speedup: {base}'s analysis CPU / the configuration's per module; work speedup: \
         the same for the analyses' work (nominal seconds, the same on any machine); separate \
         processes: {base}'s analysis plus its parse, CFA and start-up once per property, against \
         the configuration's total CPU; regressions: modules over {REGRESSION_FACTOR}x {base}'s \
         total CPU (and {TRIVIAL_S} s over it) that decide no more properties\n"
    ));
    for r in rows {
        for m in &r.regressions {
            out.push_str(&format!("regression {}: {m}\n", r.name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Comparison, Run};
    use serde_json::{json, Map, Value};

    fn line(
        key: &str,
        analysis: f64,
        total: f64,
        verdicts: &[&str],
    ) -> (usize, Map<String, Value>) {
        let props: Vec<Value> = verdicts
            .iter()
            .enumerate()
            .map(|(i, v)| json!({"id": format!("p{i}"), "verdict": v}))
            .collect();
        let v = json!({"key": key, "status": "ok", "properties": props,
            "stats": {"analysis_cpu_s": analysis, "total_cpu_s": total,
                "analysis_work_s": analysis + 1.0}});
        (0, v.as_object().unwrap().clone())
    }

    #[test]
    fn modules_are_judged_by_ratio_when_non_trivial_and_by_added_seconds_when_trivial() {
        let base = Run::from_lines(
            "baseline",
            "b",
            &[
                line("hard", 4.0, 5.0, &["true", "true"]),
                line("easy", 0.1, 1.1, &["true", "false"]),
                line("open", 9.0, 10.0, &["true", "unknown"]),
            ],
        );
        let s0 = Run::from_lines(
            "s0",
            "s",
            &[
                line("hard", 1.0, 2.0, &["true", "true"]),
                line("easy", 0.25, 1.25, &["true", "false"]),
                line("open", 16.0, 17.0, &["true", "unknown"]),
            ],
        );
        let cmp = Comparison::new(vec![base, s0], "baseline").unwrap();
        let rows = cmp.cost_rows();
        let r = &rows[0];
        assert_eq!((r.nontrivial, r.nontrivial_cheaper), (1, 1));
        let close = |x: Option<f64>, y: f64| x.is_some_and(|x| (x - y).abs() < 1e-9);
        assert!(
            close(r.nontrivial_speedup, 4.0),
            "{:?}",
            r.nontrivial_speedup
        );
        // Work (here the analysis CPU plus 1 s): 5 s against 2 s.
        assert!(
            close(r.nontrivial_work_speedup, 2.5),
            "{:?}",
            r.nontrivial_work_speedup
        );
        // Separate processes: 4 s of analysis + 2 x 1 s of parsing, against 2 s.
        assert!(close(r.separate_speedup, 3.0), "{:?}", r.separate_speedup);
        assert_eq!(r.trivial, 1);
        assert!((r.trivial_max_added_s - 0.15).abs() < 1e-9);
        assert_eq!(r.regressions.len(), 1, "{:?}", r.regressions);
        assert!(super::render(&cmp, &rows, false).contains("regression s0: open"));
    }
}
