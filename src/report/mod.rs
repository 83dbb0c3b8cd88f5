//! Per-property results and the JSON output of `mpv verify` (schema in README.md).

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    True,
    False,
    Unknown,
}

/// One step of a counterexample.
#[derive(Clone, Debug, Serialize)]
pub struct CexStep {
    pub file: String,
    pub line: u32,
    pub function: String,
    pub op: String,
    /// The value written by the step in the error path's model (unsigned), if any.
    pub values: Option<String>,
}

impl CexStep {
    /// The step `t` of an error path; `value` is the term it wrote, read in
    /// `model`. `None` for steps without an operation to show.
    pub fn of(
        p: &crate::cfa::Program,
        t: &crate::cpa::Transition,
        value: Option<&z3::ast::BV>,
        model: Option<&z3::Model>,
    ) -> Option<CexStep> {
        use crate::cfa::print::op_to_string;
        use crate::cpa::Transition;
        let caller = |e: &crate::cfa::Edge| p.func(p.loc(e.from).func).name.clone();
        let (function, op) = match t {
            Transition::Edge { edge, .. } => (caller(edge), op_to_string(p, &edge.op)),
            Transition::Enter { edge, callee, .. } => {
                (caller(edge), format!("enter {}", p.func(*callee).name))
            }
            Transition::Return { edge, callee, .. } => (
                caller(edge),
                format!(
                    "return from {}: {}",
                    p.func(*callee).name,
                    op_to_string(p, &edge.op)
                ),
            ),
            Transition::Woven(w) => (String::new(), op_to_string(p, &w.op)),
        };
        if op.is_empty() {
            return None;
        }
        let values = match (value, model) {
            (Some(v), Some(m)) => m
                .eval(v, true)
                .and_then(|x| x.as_u64())
                .map(|x| x.to_string()),
            _ => None,
        };
        let pos = t.pos();
        Some(CexStep {
            file: p.file_name(pos).to_string(),
            line: pos.line,
            function,
            op,
            values,
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Counterexample {
    /// The property whose error state the path reaches.
    pub property: String,
    pub steps: Vec<CexStep>,
    /// Assumptions the path is feasible under (empty: none).
    pub assumptions: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PropertyResult {
    pub id: String,
    pub verdict: Verdict,
    /// Why the verdict is UNKNOWN (or how TRUE was established).
    pub reason: Option<String>,
    pub relevant: bool,
    pub cpu_s: f64,
    pub counterexample: Option<Counterexample>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub parse_s: f64,
    pub cfa_s: f64,
    pub analysis_cpu_s: f64,
    pub total_cpu_s: f64,
    pub peak_rss_mb: f64,
    pub reached_states: usize,
    pub transitions: u64,
    pub refinements: u64,
    pub solver_calls: u64,
    pub solver_s: f64,
    /// The analysis runs of the decomposition, in order.
    pub partitions: Vec<PartitionReport>,
}

/// The result of one `mpv verify` run.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub file: String,
    pub mpv_version: String,
    /// The analysis that produced the verdicts.
    pub analysis: String,
    /// The decomposition strategy (`baseline`, `s0`..`s4`).
    pub strategy: String,
    pub properties: Vec<PropertyResult>,
    pub stats: Stats,
}

/// Peak resident memory of this process in MB (`VmHWM`).
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

impl RunReport {
    /// One line per property and a summary.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for p in &self.properties {
            let v = match p.verdict {
                Verdict::True => "TRUE",
                Verdict::False => "FALSE",
                Verdict::Unknown => "UNKNOWN",
            };
            s.push_str(&format!(
                "{:<24} {:<8} {:>7.2}s  {}\n",
                p.id,
                v,
                p.cpu_s,
                p.reason.as_deref().unwrap_or("")
            ));
        }
        let count = |v| self.properties.iter().filter(|p| p.verdict == v).count();
        s.push_str(&format!(
            "{}: {} TRUE, {} FALSE, {} UNKNOWN ({}, {} partitions); parse {:.2}s, CFA {:.2}s, analysis {:.2}s, total CPU {:.2}s, {} states, peak {:.0} MB\n",
            self.file,
            count(Verdict::True),
            count(Verdict::False),
            count(Verdict::Unknown),
            self.strategy,
            self.stats.partitions.len(),
            self.stats.parse_s,
            self.stats.cfa_s,
            self.stats.analysis_cpu_s,
            self.stats.total_cpu_s,
            self.stats.reached_states,
            self.stats.peak_rss_mb
        ));
        s
    }
}

/// One analysis run on a partition, for the report.
#[derive(Clone, Debug, Serialize)]
pub struct PartitionReport {
    pub properties: Vec<String>,
    /// The run's CPU budget in seconds (`null`: unlimited).
    pub budget_s: Option<f64>,
    pub spent_s: f64,
    pub refinements: u64,
    pub transitions: u64,
    /// Whether the run reached its fixed point.
    pub finished: bool,
    /// Whether the run was on the module's bug-hunting variant.
    pub bug_hunting: bool,
}
