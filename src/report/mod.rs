//! Per-property results and the JSON output of `mpv verify` (schema in README.md).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    True,
    False,
    Unknown,
}

/// What a counterexample step does (witnesses turn these into waypoints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// An assume (`branch` says which way a branching construct went, if it decides one).
    Assume,
    /// An assignment, havoc or return statement.
    Assign,
    /// A call of a function without a body (`callee`; the value it returned in `values`).
    Call,
    /// Entering a function with a body (`callee`).
    Enter,
    /// Returning from a function with a body (`callee`).
    Return,
    /// An operation of a specification automaton at the step before it.
    Woven,
}

/// One step of a counterexample (read back from results files by the HTML report).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CexStep {
    pub file: String,
    pub line: u32,
    pub function: String,
    pub op: String,
    /// The value written by the step in the error path's model (unsigned), if any.
    pub values: Option<String>,
    pub kind: StepKind,
    /// The line and column of the step in the input file (0: none).
    #[serde(default)]
    pub input_line: u32,
    #[serde(default)]
    pub input_column: u32,
    /// For an assume deciding the condition of a branching construct (`if`,
    /// `while`, `for`, `?:`): whether that condition held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<bool>,
    /// For calls, entries and returns: the called function.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callee: Option<String>,
    /// The written value as a C constant of the written type (signed
    /// types read as signed), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_c: Option<String>,
    /// The control states the violated property's automaton changes at
    /// this step (a step of the program, after the operations woven into it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub automata: Vec<ControlMove>,
}

/// A specification automaton's move from one control state to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlMove {
    pub automaton: String,
    pub from: String,
    pub to: String,
}

/// What a step of an error path was in the analysis, and which step of
/// the counterexample shows it (`None`: a step without an operation to
/// show, e.g. a `goto`).
#[derive(Clone, Debug)]
pub struct AnalysisStep {
    pub origin: StepOrigin,
    pub shown: Option<usize>,
}

impl AnalysisStep {
    /// Step `t` of an error path in `p`, shown as the counterexample's step `shown`.
    pub fn of(
        p: &crate::cfa::Program,
        t: &crate::cpa::Transition,
        shown: Option<usize>,
    ) -> AnalysisStep {
        let origin = match (t, crate::cpa::weave::cfa_step(p.entry_func, t)) {
            (crate::cpa::Transition::Woven(w), _) => StepOrigin::Woven {
                automaton: w.automaton,
                op: w.op.clone(),
            },
            (_, Some((edge, kind))) => StepOrigin::Cfa { edge, kind },
            (_, None) => unreachable!("a program step has a CFA edge"),
        };
        AnalysisStep { origin, shown }
    }
}

/// What a step of an error path was in the analysis.
#[derive(Clone, Debug)]
pub enum StepOrigin {
    /// A step over CFA edge `edge`, as the automata see it.
    Cfa {
        edge: crate::cfa::EdgeId,
        kind: crate::spec::bound::StepKind,
    },
    /// An operation woven in by automaton `automaton`.
    Woven {
        automaton: Option<usize>,
        op: crate::cfa::EdgeOp,
    },
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
        use crate::cfa::EdgeOp;
        use crate::cpa::Transition;
        let caller = |e: &crate::cfa::Edge| p.func(p.loc(e.from).func).name.clone();
        let name = |f: &crate::ir::FuncId| Some(p.func(*f).name.clone());
        let (function, op, kind, callee) = match t {
            Transition::Edge { edge, .. } => {
                let (kind, callee) = match &edge.op {
                    EdgeOp::Assume { .. } => (StepKind::Assume, None),
                    EdgeOp::Call { callee, .. } => (StepKind::Call, name(callee)),
                    _ => (StepKind::Assign, None),
                };
                (caller(edge), op_to_string(p, &edge.op), kind, callee)
            }
            Transition::Enter { edge, callee, .. } => (
                caller(edge),
                format!("enter {}", p.func(*callee).name),
                StepKind::Enter,
                name(callee),
            ),
            Transition::Return { edge, callee, .. } => (
                caller(edge),
                format!(
                    "return from {}: {}",
                    p.func(*callee).name,
                    op_to_string(p, &edge.op)
                ),
                StepKind::Return,
                name(callee),
            ),
            Transition::Woven(w) => (String::new(), op_to_string(p, &w.op), StepKind::Woven, None),
        };
        if op.is_empty() {
            return None;
        }
        let written = match (value, model) {
            (Some(v), Some(m)) => m.eval(v, true).and_then(|x| x.as_u64()),
            _ => None,
        };
        let pos = t.pos();
        let (branch, value_c) = match t {
            Transition::Edge { edge, id } => match &edge.op {
                EdgeOp::Assume { .. } => (p.branch_outcomes.get(id).copied(), None),
                EdgeOp::Call { lhs: Some(l), .. } | EdgeOp::Assign { lhs: l, .. } => {
                    (None, written.and_then(|w| c_constant(p, l.ty, w)))
                }
                _ => (None, None),
            },
            _ => (None, None),
        };
        Some(CexStep {
            file: p.file_name(pos).to_string(),
            line: pos.line,
            function,
            op,
            values: written.map(|x| x.to_string()),
            kind,
            input_line: pos.input_line,
            input_column: pos.input_column,
            branch,
            callee,
            value_c,
            automata: Vec::new(),
        })
    }
}

/// `bits` as a C constant of integer type `ty` (two's complement for
/// signed types); `None` for other types.
fn c_constant(p: &crate::cfa::Program, ty: crate::ir::TypeId, bits: u64) -> Option<String> {
    let crate::ir::Type::Int(k) = p.types.get(ty) else {
        return None;
    };
    if k.bits() > 64 {
        return None;
    }
    let v = k.wrap(bits as i128);
    Some(match (k.signed(), k.bits()) {
        // The most negative value has no literal of its own.
        (true, b) if v == -(1i128 << (b - 1)) => format!("({} - 1)", v + 1),
        (true, _) => v.to_string(),
        (false, 64) => format!("{v}UL"),
        (false, _) => format!("{v}U"),
    })
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Counterexample {
    /// The property whose error state the path reaches.
    pub property: String,
    pub steps: Vec<CexStep>,
    /// Assumptions the path is feasible under (empty: none).
    #[serde(default)]
    pub assumptions: Vec<String>,
    /// The error path's steps in the analysis (not written: a counterexample
    /// read back has none).
    #[serde(skip)]
    pub path: Vec<AnalysisStep>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PropertyResult {
    pub id: String,
    pub verdict: Verdict,
    /// Why the verdict is UNKNOWN (or how TRUE was established).
    pub reason: Option<String>,
    pub relevant: bool,
    /// The work of the analysis runs it took part in, in nominal seconds
    /// ([`crate::smt::work`]): the same on every machine.
    pub work_s: f64,
    pub counterexample: Option<Counterexample>,
    /// For FALSE: the error the counterexample reaches (the automaton's
    /// error message, the label or the call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The witness files written for this result.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub witnesses: Vec<String>,
    /// For TRUE: what the proof knows at loop heads (its correctness
    /// witness holds them).
    #[serde(skip)]
    pub invariants: Vec<crate::witness::correctness::LoopInvariant>,
}

impl PropertyResult {
    /// A result of property `id` with `verdict` and nothing more known.
    pub fn of(id: String, verdict: Verdict) -> Self {
        PropertyResult {
            id,
            verdict,
            reason: None,
            relevant: true,
            work_s: 0.0,
            counterexample: None,
            message: None,
            witnesses: Vec::new(),
            invariants: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub parse_s: f64,
    pub cfa_s: f64,
    pub analysis_cpu_s: f64,
    /// The analysis' work in nominal seconds (what its budgets count,
    /// the same on every machine).
    pub analysis_work_s: f64,
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

/// `a` before `b` in natural order: runs of digits compare by value
/// (`08_1a` < `10_1a` < `101_1a`).
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let b = s.as_bytes();
        for i in 1..=b.len() {
            if i == b.len() || b[i].is_ascii_digit() != b[start].is_ascii_digit() {
                out.push((b[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(&cb) {
        let o = match (x, y) {
            ((true, x), (true, y)) => {
                let (tx, ty) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                tx.len().cmp(&ty.len()).then(tx.cmp(ty))
            }
            ((_, x), (_, y)) => x.cmp(y),
        };
        if o.is_ne() {
            return o;
        }
    }
    ca.len().cmp(&cb.len()).then(a.cmp(b))
}

impl Verdict {
    pub fn upper(self) -> &'static str {
        match self {
            Verdict::True => "TRUE",
            Verdict::False => "FALSE",
            Verdict::Unknown => "UNKNOWN",
        }
    }
}

impl RunReport {
    /// One line per property in natural order (a FALSE with its error
    /// and where it happens), a line of verdict counts, and the run's
    /// statistics. With `source` (the input file's text), each
    /// counterexample follows its property as source lines ([`trace_text`]).
    pub fn to_text(&self, source: Option<&str>) -> String {
        let mut s = String::new();
        let mut props: Vec<&PropertyResult> = self.properties.iter().collect();
        props.sort_by(|a, b| natural_cmp(&a.id, &b.id));
        for p in props {
            let note = match (&p.message, &p.counterexample) {
                (Some(m), Some(c)) => {
                    match c.steps.iter().rev().find(|s| s.kind != StepKind::Woven) {
                        Some(at) => format!("{m} (at {}:{})", file_base(&at.file), at.line),
                        None => m.clone(),
                    }
                }
                (Some(m), None) => m.clone(),
                _ => p.reason.clone().unwrap_or_default(),
            };
            s.push_str(&format!(
                "{:<24} {:<8} {:>7.2}s  {}\n",
                p.id,
                p.verdict.upper(),
                p.work_s,
                note
            ));
            if let (Some(src), Some(c)) = (source, &p.counterexample) {
                s.push_str(&trace_text(c, src));
            }
        }
        let count = |v| self.properties.iter().filter(|p| p.verdict == v).count();
        s.push_str(&format!(
            "{} properties: {} TRUE, {} FALSE, {} UNKNOWN\n",
            self.properties.len(),
            count(Verdict::True),
            count(Verdict::False),
            count(Verdict::Unknown)
        ));
        s.push_str(&format!(
            "{} ({}, {} partitions): parse {:.2}s, CFA {:.2}s, analysis {:.2}s, total CPU {:.2}s, {} states, peak {:.0} MB\n",
            self.file,
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

    /// The SV-COMP result: a line per property, then `Verification result:`
    /// FALSE(unreach-call) if any property is FALSE, TRUE if all are TRUE,
    /// UNKNOWN otherwise.
    pub fn to_svcomp(&self) -> String {
        let mut s = String::new();
        let mut props: Vec<&PropertyResult> = self.properties.iter().collect();
        props.sort_by(|a, b| natural_cmp(&a.id, &b.id));
        for p in &props {
            s.push_str(&format!("Property {}: {}\n", p.id, p.verdict.upper()));
        }
        let any = |v| props.iter().any(|p| p.verdict == v);
        let result = if any(Verdict::False) {
            "FALSE(unreach-call)"
        } else if !props.is_empty() && !any(Verdict::Unknown) {
            "TRUE"
        } else {
            "UNKNOWN"
        };
        s.push_str(&format!("Verification result: {result}\n"));
        s
    }
}

fn file_base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A counterexample as the input file's lines it passes, one per step
/// (steps on one line share it), indented by call depth, with the
/// functions entered, the branches taken, the values of the model and the
/// moves of the violated property's automaton between control states.
/// Steps of the synthetic start function and the automata's own operations
/// are left out (a move at the program's exit is shown at the last line).
pub fn trace_text(c: &Counterexample, source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = String::new();
    let mut depth = 0usize;
    let mut current: Option<(u32, String)> = None;
    let mut notes: Vec<String> = Vec::new();
    let flush = |out: &mut String, cur: &Option<(u32, String)>, notes: &mut Vec<String>| {
        if let Some((line, head)) = cur {
            let notes_text = if notes.is_empty() {
                String::new()
            } else {
                format!("    // {}", notes.join("; "))
            };
            out.push_str(&format!(
                "{head}{line:>6}  {}{notes_text}\n",
                lines.get(*line as usize - 1).map_or("", |l| l.trim())
            ));
        }
        notes.clear();
    };
    let moves = |s: &CexStep| {
        s.automata
            .iter()
            .map(|m| format!("{}: {} -> {}", m.automaton, m.from, m.to))
            .collect::<Vec<_>>()
    };
    for s in &c.steps {
        if s.kind == StepKind::Woven
            || s.function == crate::cfa::START_FUNCTION
            || s.input_line == 0
        {
            notes.extend(moves(s));
            continue;
        }
        if s.kind == StepKind::Return {
            depth = depth.saturating_sub(1);
        }
        if current.as_ref().is_none_or(|(l, _)| *l != s.input_line) {
            flush(&mut out, &current, &mut notes);
            current = Some((s.input_line, format!("    {}", "  ".repeat(depth))));
        }
        if s.kind == StepKind::Enter && s.callee.is_some() {
            depth += 1;
        }
        notes.extend(step_note(s));
        notes.extend(moves(s));
    }
    flush(&mut out, &current, &mut notes);
    out
}

/// What a step of a counterexample shows beside its source line: the
/// function entered or left, the branch taken, the value a function without
/// a body returned or the value assigned (integers as C constants of their
/// type, other values — pointers — in hex). `None` for steps without one
/// and for the automata's own operations.
pub fn step_note(s: &CexStep) -> Option<String> {
    let value = s.value_c.clone().or_else(|| {
        let v: u64 = s.values.as_ref()?.parse().ok()?;
        Some(format!("{v:#x}"))
    });
    match (s.kind, &s.callee, value) {
        (StepKind::Enter, Some(f), _) => Some(format!("enter {f}")),
        (StepKind::Return, Some(f), _) => Some(format!("back from {f}")),
        (StepKind::Assume, _, _) => s.branch.map(|b| format!("condition {b}")),
        (StepKind::Call, Some(f), Some(v)) => Some(format!("{f}() = {v}")),
        (StepKind::Assign, _, Some(v)) if s.op.starts_with("return") => {
            Some(format!("returns {v}"))
        }
        (StepKind::Assign, _, Some(v)) => {
            let lhs = s.op.split(" = ").next().unwrap_or("").trim();
            Some(format!("{lhs} = {v}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_in_natural_order() {
        let mut ids = [
            "10_1a",
            "101_1a",
            "08_1a",
            "32_1",
            "32_1a",
            "label:ERROR",
            "106_1a",
        ];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            ids,
            [
                "08_1a",
                "10_1a",
                "32_1",
                "32_1a",
                "101_1a",
                "106_1a",
                "label:ERROR"
            ]
        );
    }

    fn report(verdicts: &[Verdict]) -> RunReport {
        RunReport {
            file: "m.c".into(),
            mpv_version: String::new(),
            analysis: String::new(),
            strategy: "s4".into(),
            properties: verdicts
                .iter()
                .enumerate()
                .map(|(i, v)| PropertyResult::of(format!("p{i}"), *v))
                .collect(),
            stats: Stats::default(),
        }
    }

    #[test]
    fn the_svcomp_result_is_false_if_any_true_if_all() {
        let last = |v: &[Verdict]| report(v).to_svcomp().lines().last().unwrap().to_string();
        use Verdict::*;
        assert_eq!(
            last(&[True, False, Unknown]),
            "Verification result: FALSE(unreach-call)"
        );
        assert_eq!(last(&[True, True]), "Verification result: TRUE");
        assert_eq!(last(&[True, Unknown]), "Verification result: UNKNOWN");
        assert_eq!(last(&[]), "Verification result: UNKNOWN");
        let text = report(&[True, False]).to_text(None);
        assert!(
            text.contains("2 properties: 1 TRUE, 1 FALSE, 0 UNKNOWN"),
            "{text}"
        );
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
