//! `mpv eval`: compares results files of `mpv batch` over the same modules,
//! one per configuration (the baseline and the decomposition strategies),
//! the way Table 2 and Fig. 2 of the paper do.
//!
//! A module is matched across files by its key, a property by its id. The
//! properties of a module are those any run reports for it, plus the rules
//! the benchmark expects a verdict for that no run reports (paired with
//! properties as `mpv report` pairs them, [`summary::pair_expected`]). A run
//! that does not report a property, or whose line did not finish (`status`
//! other than `ok`), counts it UNKNOWN. Speedups are per module: the
//! baseline's total CPU time over the configuration's.
//!
//! [`svg`] draws the scatter and quantile plots.

pub mod cost;
pub mod svg;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::batch::summary::{self, csv_field, table};
use crate::batch::tasks::{Expected, ExpectedVerdict};
use crate::report::Verdict;
use crate::{Error, Result};

/// One module's line in one results file, reduced to what the comparison needs.
#[derive(Clone, Debug)]
pub struct ModuleRun {
    /// Verdicts by property id; all UNKNOWN when the line's status is not `ok`.
    pub verdicts: BTreeMap<String, Verdict>,
    pub expected: Vec<Expected>,
    /// `stats.total_cpu_s`; the child's CPU time (`cpu_s`) when verify
    /// wrote no statistics (the child did not finish).
    pub total_cpu_s: f64,
    /// `stats.analysis_cpu_s`, with the same fallback.
    pub analysis_cpu_s: f64,
    /// `stats.analysis_work_s`: the analysis's work in nominal seconds
    /// ([`crate::smt::work`]), the same on any machine; `None` when absent.
    pub analysis_work_s: Option<f64>,
    /// Partitions the SDC loop verified (`stats.partitions`); 1 when absent.
    pub partitions: usize,
}

/// One configuration: a results file and its name.
#[derive(Clone, Debug)]
pub struct Run {
    pub name: String,
    pub source: String,
    /// Modules by key; of lines with the same key, the last counts.
    pub modules: BTreeMap<String, ModuleRun>,
}

fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

/// The position of a verdict in [`Row::verdicts`].
fn verdict_index(v: Verdict) -> usize {
    match v {
        Verdict::True => 0,
        Verdict::False => 1,
        Verdict::Unknown => 2,
    }
}

fn parse_verdict(s: &str) -> Verdict {
    match s {
        "true" => Verdict::True,
        "false" => Verdict::False,
        _ => Verdict::Unknown,
    }
}

impl ModuleRun {
    /// The verdict for a property; UNKNOWN when the line does not report it.
    pub fn verdict(&self, id: &str) -> Verdict {
        self.verdicts.get(id).copied().unwrap_or(Verdict::Unknown)
    }

    pub fn from_line(m: &Map<String, Value>) -> ModuleRun {
        let finished = m.get("status").and_then(Value::as_str) == Some("ok");
        let verdicts = m
            .get("properties")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let id = p.get("id")?.as_str()?.to_string();
                let verdict = match p.get("verdict").and_then(Value::as_str) {
                    Some(v) if finished => parse_verdict(v),
                    _ => Verdict::Unknown,
                };
                Some((id, verdict))
            })
            .collect();
        let expected = m
            .get("expected")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        let stats = m.get("stats");
        let child_cpu = num(m.get("cpu_s")).unwrap_or(0.0);
        let stat = |k: &str| num(stats.and_then(|s| s.get(k))).unwrap_or(child_cpu);
        let partitions = stats
            .and_then(|s| s.get("partitions"))
            .and_then(Value::as_array)
            .map_or(1, Vec::len);
        ModuleRun {
            verdicts,
            expected,
            total_cpu_s: stat("total_cpu_s"),
            analysis_cpu_s: stat("analysis_cpu_s"),
            analysis_work_s: num(stats.and_then(|s| s.get("analysis_work_s"))),
            partitions,
        }
    }
}

impl Run {
    pub fn from_lines(name: &str, source: &str, lines: &[(usize, Map<String, Value>)]) -> Run {
        let modules = lines
            .iter()
            .filter_map(|(_, m)| {
                let key = m.get("key")?.as_str()?.to_string();
                Some((key, ModuleRun::from_line(m)))
            })
            .collect();
        Run {
            name: name.to_string(),
            source: source.to_string(),
            modules,
        }
    }
}

/// The configuration a results file was run with (the lines' `strategy`),
/// for naming a run given without a name.
pub fn strategy_of(lines: &[(usize, Map<String, Value>)]) -> Option<String> {
    lines
        .iter()
        .find_map(|(_, m)| m.get("strategy").and_then(Value::as_str))
        .map(str::to_string)
}

/// A property of a module as compared across runs.
#[derive(Clone, Debug)]
struct Property {
    id: String,
    expected: Option<ExpectedVerdict>,
}

/// Mean speedups over a set of modules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Speedup {
    /// Modules with a speedup (both CPU times positive).
    pub modules: usize,
    pub geometric: Option<f64>,
    pub arithmetic: Option<f64>,
    /// Modules with a speedup above 1.
    pub above_one: usize,
}

impl Speedup {
    pub fn of(ratios: &[f64]) -> Speedup {
        let n = ratios.len();
        if n == 0 {
            return Speedup::default();
        }
        let ln: f64 = ratios.iter().map(|r| r.ln()).sum();
        Speedup {
            modules: n,
            geometric: Some((ln / n as f64).exp()),
            arithmetic: Some(ratios.iter().sum::<f64>() / n as f64),
            above_one: ratios.iter().filter(|&&r| r > 1.0).count(),
        }
    }
}

/// One row of the comparison table: a configuration against the baseline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub name: String,
    pub modules: usize,
    pub properties: usize,
    /// TRUE, FALSE, UNKNOWN.
    pub verdicts: [usize; 3],
    /// TRUE where the benchmark expects false, FALSE where it expects true.
    pub wrong: usize,
    pub partitions: usize,
    pub analysis_cpu_s: f64,
    pub total_cpu_s: f64,
    /// Over the modules in both this run and the baseline.
    pub speedup: Speedup,
    /// Over those of them where the baseline has no UNKNOWN.
    pub speedup_baseline_solved: Speedup,
    /// TRUE/FALSE here, UNKNOWN in the baseline.
    pub additional: usize,
    /// UNKNOWN here, TRUE/FALSE in the baseline.
    pub lost: usize,
    /// Properties of the modules in both runs (the base of `lost` in percent).
    pub common_properties: usize,
    /// Modules here but not in the baseline, and the other way round.
    pub not_in_baseline: usize,
    pub missing: usize,
}

impl Row {
    pub fn lost_percent(&self) -> f64 {
        percent(self.lost, self.common_properties)
    }

    pub fn above_one_percent(&self) -> f64 {
        percent(self.speedup.above_one, self.speedup.modules)
    }
}

fn percent(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

/// A module in the scatter plot: CPU seconds under the baseline and the
/// configuration, and whether the configuration decided every property.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub baseline_s: f64,
    pub config_s: f64,
    pub solved: bool,
}

/// Several runs of the same modules and the baseline they are compared to.
#[derive(Debug)]
pub struct Comparison {
    pub runs: Vec<Run>,
    pub baseline: usize,
    /// The properties of each module, by module key.
    properties: BTreeMap<String, Vec<Property>>,
}

impl Comparison {
    /// Compares `runs` against the one named `baseline`; names must be unique.
    pub fn new(runs: Vec<Run>, baseline: &str) -> Result<Comparison> {
        let mut names = BTreeSet::new();
        for r in &runs {
            if !names.insert(r.name.as_str()) {
                return Err(Error::Usage(format!(
                    "two runs are named `{}`; name them with --run NAME=FILE",
                    r.name
                )));
            }
        }
        let Some(b) = runs.iter().position(|r| r.name == baseline) else {
            return Err(Error::Usage(format!(
                "no run is named `{baseline}` (runs: {}); name the baseline's file with \
                 --run {baseline}=FILE or pick another with --baseline NAME",
                names.into_iter().collect::<Vec<_>>().join(", ")
            )));
        };
        let properties = module_properties(&runs, b);
        Ok(Comparison {
            runs,
            baseline: b,
            properties,
        })
    }

    fn props(&self, key: &str) -> &[Property] {
        self.properties.get(key).map_or(&[], Vec::as_slice)
    }

    /// Whether a run decided every property of a module.
    fn solved_all(&self, key: &str, m: &ModuleRun) -> bool {
        self.props(key)
            .iter()
            .all(|p| m.verdict(&p.id) != Verdict::Unknown)
    }

    /// One row per run, in the order of the runs.
    pub fn rows(&self) -> Vec<Row> {
        (0..self.runs.len()).map(|i| self.row(i)).collect()
    }

    fn row(&self, i: usize) -> Row {
        let run = &self.runs[i];
        let base = &self.runs[self.baseline];
        let mut row = Row {
            name: run.name.clone(),
            modules: run.modules.len(),
            ..Row::default()
        };
        let mut ratios = Vec::new();
        let mut ratios_solved = Vec::new();
        for (key, m) in &run.modules {
            row.partitions += m.partitions;
            row.analysis_cpu_s += m.analysis_cpu_s;
            row.total_cpu_s += m.total_cpu_s;
            for p in self.props(key) {
                let v = m.verdict(&p.id);
                row.properties += 1;
                row.verdicts[verdict_index(v)] += 1;
                if matches!(
                    (v, p.expected),
                    (Verdict::True, Some(ExpectedVerdict::False))
                        | (Verdict::False, Some(ExpectedVerdict::True))
                ) {
                    row.wrong += 1;
                }
            }
            let Some(b) = base.modules.get(key) else {
                row.not_in_baseline += 1;
                continue;
            };
            for p in self.props(key) {
                let here = m.verdict(&p.id) != Verdict::Unknown;
                let there = b.verdict(&p.id) != Verdict::Unknown;
                row.common_properties += 1;
                row.additional += usize::from(here && !there);
                row.lost += usize::from(there && !here);
            }
            if b.total_cpu_s > 0.0 && m.total_cpu_s > 0.0 {
                let r = b.total_cpu_s / m.total_cpu_s;
                ratios.push(r);
                if self.solved_all(key, b) {
                    ratios_solved.push(r);
                }
            }
        }
        row.missing = base
            .modules
            .keys()
            .filter(|k| !run.modules.contains_key(*k))
            .count();
        row.speedup = Speedup::of(&ratios);
        row.speedup_baseline_solved = Speedup::of(&ratios_solved);
        row
    }

    /// The modules of run `i` that the baseline has too, for its scatter plot.
    pub fn scatter(&self, i: usize) -> Vec<Point> {
        let base = &self.runs[self.baseline];
        self.runs[i]
            .modules
            .iter()
            .filter_map(|(key, m)| {
                let b = base.modules.get(key)?;
                Some(Point {
                    baseline_s: b.total_cpu_s,
                    config_s: m.total_cpu_s,
                    solved: self.solved_all(key, m),
                })
            })
            .collect()
    }

    /// Per run: the total CPU seconds of the modules where it decided every
    /// property, in increasing order (the quantile plot).
    pub fn quantiles(&self) -> Vec<(String, Vec<f64>)> {
        self.runs
            .iter()
            .map(|r| {
                let mut t: Vec<f64> = r
                    .modules
                    .iter()
                    .filter(|(key, m)| self.solved_all(key, m))
                    .map(|(_, m)| m.total_cpu_s)
                    .collect();
                t.sort_by(f64::total_cmp);
                (r.name.clone(), t)
            })
            .collect()
    }
}

/// The properties of every module: the ids any run reports (in the order
/// first seen), then the expected rules no id stands for; each with the
/// expected verdict, taken from the baseline's line or else from the first
/// run that has the module.
fn module_properties(runs: &[Run], baseline: usize) -> BTreeMap<String, Vec<Property>> {
    let keys: BTreeSet<&String> = runs.iter().flat_map(|r| r.modules.keys()).collect();
    let mut out = BTreeMap::new();
    for key in keys {
        let mut ids: Vec<&str> = Vec::new();
        for r in runs {
            for id in r
                .modules
                .get(key)
                .into_iter()
                .flat_map(|m| m.verdicts.keys())
            {
                if !ids.contains(&id.as_str()) {
                    ids.push(id);
                }
            }
        }
        let expected: &[Expected] = std::iter::once(&runs[baseline])
            .chain(runs)
            .find_map(|r| r.modules.get(key))
            .map_or(&[], |m| m.expected.as_slice());
        let mut props: Vec<Property> = ids
            .iter()
            .map(|id| Property {
                id: id.to_string(),
                expected: None,
            })
            .collect();
        for (e, found) in expected.iter().zip(summary::pair_expected(&ids, expected)) {
            match found {
                Some(k) => props[k].expected = Some(e.verdict),
                None => props.push(Property {
                    id: e.property.clone().unwrap_or_else(|| e.rule.clone()),
                    expected: Some(e.verdict),
                }),
            }
        }
        out.insert(key.clone(), props);
    }
    out
}

/// The comparison table's column names, after the configuration's.
const HEADER: [&str; 17] = [
    "modules",
    "properties",
    "TRUE",
    "FALSE",
    "UNKNOWN",
    "wrong",
    "partitions",
    "analysis CPU s",
    "total CPU s",
    "speedup geo",
    "speedup mean",
    "speedup geo (baseline-solved)",
    "speedup mean (baseline-solved)",
    "additional",
    "lost",
    "% lost",
    "% speedup > 1",
];

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.2}"))
}

impl Row {
    /// The table cells, in [`HEADER`] order after the name.
    fn cells(&self) -> Vec<String> {
        let mut c = vec![self.name.clone()];
        c.extend(
            [
                self.modules,
                self.properties,
                self.verdicts[0],
                self.verdicts[1],
                self.verdicts[2],
                self.wrong,
                self.partitions,
            ]
            .iter()
            .map(usize::to_string),
        );
        c.push(format!("{:.1}", self.analysis_cpu_s));
        c.push(format!("{:.1}", self.total_cpu_s));
        for s in [&self.speedup, &self.speedup_baseline_solved] {
            c.push(opt(s.geometric));
            c.push(opt(s.arithmetic));
        }
        c.push(self.additional.to_string());
        c.push(self.lost.to_string());
        c.push(format!("{:.1}", self.lost_percent()));
        c.push(format!("{:.0}", self.above_one_percent()));
        c
    }
}

/// The comparison table as aligned text (`markdown` false) or markdown,
/// followed by notes on modules missing from a run.
pub fn render_table(cmp: &Comparison, rows: &[Row], markdown: bool) -> String {
    let mut header = vec!["configuration"];
    header.extend(HEADER);
    let cells: Vec<Vec<String>> = rows.iter().map(Row::cells).collect();
    let mut out = table(markdown, &header, &cells);
    let base = &cmp.runs[cmp.baseline].name;
    let _ = writeln!(
        out,
        "\nspeedup: {base}'s total CPU time / the configuration's, per module in both runs \
         (geometric and arithmetic mean); baseline-solved: only the modules where {base} \
         has no UNKNOWN"
    );
    for r in rows.iter().filter(|r| r.missing + r.not_in_baseline > 0) {
        let _ = writeln!(
            out,
            "{}: {} modules not in the baseline, {} baseline modules missing",
            r.name, r.not_in_baseline, r.missing
        );
    }
    out
}

/// The comparison table as CSV (one header line, one line per run).
pub fn render_csv(rows: &[Row]) -> String {
    let mut out = String::from("configuration");
    for h in HEADER {
        out.push(',');
        out += &csv_field(h);
    }
    out.push('\n');
    for r in rows {
        let cells: Vec<String> = r.cells().iter().map(|c| csv_field(c)).collect();
        let _ = writeln!(out, "{}", cells.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(v: Vec<Value>) -> Vec<(usize, Map<String, Value>)> {
        v.into_iter()
            .enumerate()
            .map(|(i, l)| match l {
                Value::Object(m) => (i + 1, m),
                _ => unreachable!(),
            })
            .collect()
    }

    /// A finished line with verdicts for `label:A` and `ldv:32_1`.
    fn line(key: &str, a: &str, b: &str, cpu: f64) -> Value {
        json!({
            "key": key, "status": "ok",
            "properties": [{"id": "label:A", "verdict": a}, {"id": "ldv:32_1", "verdict": b}],
            "expected": [{"rule": "08_1a", "property": "label:A", "verdict": "true"},
                         {"rule": "32_1", "property": null, "verdict": "false"}],
            "stats": {"total_cpu_s": cpu, "analysis_cpu_s": cpu / 2.0},
        })
    }

    fn comparison() -> Comparison {
        let base = Run::from_lines(
            "baseline",
            "b",
            &lines(vec![
                line("m1", "true", "false", 8.0),
                line("m2", "true", "unknown", 4.0),
                line("m3", "unknown", "false", 2.0),
            ]),
        );
        let mut crashed = line("m3", "true", "true", 0.0);
        crashed["status"] = json!("timeout");
        crashed["stats"] = Value::Null;
        crashed["cpu_s"] = json!(4.0);
        let s4 = Run::from_lines(
            "s4",
            "s",
            &lines(vec![
                json!({
                    "key": "m1", "status": "ok",
                    "properties": [{"id": "label:A", "verdict": "false"},
                                   {"id": "ldv:32_1", "verdict": "false"}],
                    "stats": {"total_cpu_s": 2.0, "analysis_cpu_s": 1.0,
                              "partitions": [{"properties": ["label:A"]},
                                             {"properties": ["ldv:32_1"]}]},
                }),
                line("m2", "true", "false", 1.0),
                crashed,
            ]),
        );
        Comparison::new(vec![base, s4], "baseline").unwrap()
    }

    #[test]
    fn counts_verdicts_wrong_and_partitions() {
        let rows = comparison().rows();
        let s4 = &rows[1];
        assert_eq!((s4.modules, s4.properties), (3, 6));
        assert_eq!(s4.verdicts, [1, 3, 2], "the timed-out line counts UNKNOWN");
        assert_eq!(s4.wrong, 1, "FALSE where label:A is expected true");
        assert_eq!(s4.partitions, 2 + 1 + 1);
        assert_eq!(
            s4.total_cpu_s,
            2.0 + 1.0 + 4.0,
            "the child's CPU time without stats"
        );
        assert_eq!(s4.analysis_cpu_s, 1.0 + 0.5 + 4.0);
        let base = &rows[0];
        assert_eq!(base.verdicts, [2, 2, 2]);
        assert_eq!((base.wrong, base.additional, base.lost), (0, 0, 0));
        assert_eq!(base.speedup.geometric, Some(1.0));
        assert_eq!(base.above_one_percent(), 0.0);
    }

    #[test]
    fn speedups_and_gained_and_lost_results() {
        let s4 = &comparison().rows()[1];
        // m1: 8/2 = 4, m2: 4/1 = 4, m3: 2/4 = 0.5.
        let geo = (4.0f64 * 4.0 * 0.5).powf(1.0 / 3.0);
        assert!((s4.speedup.geometric.unwrap() - geo).abs() < 1e-9);
        assert!((s4.speedup.arithmetic.unwrap() - 8.5 / 3.0).abs() < 1e-9);
        assert_eq!(s4.speedup.above_one, 2);
        // Only m1 is solved entirely by the baseline.
        assert_eq!(s4.speedup_baseline_solved.modules, 1);
        assert_eq!(s4.speedup_baseline_solved.geometric, Some(4.0));
        // m2's 32_1 is gained; m3's ldv:32_1 is lost (its label:A was unknown in both).
        assert_eq!((s4.additional, s4.lost), (1, 1));
        assert!((s4.lost_percent() - 100.0 / 6.0).abs() < 1e-9);
    }

    #[test]
    fn expected_rules_no_run_reports_count_unknown() {
        let l = json!({
            "key": "m", "status": "crash", "properties": [],
            "expected": [{"rule": "43_1a", "property": null, "verdict": "true"}],
        });
        let runs = vec![Run::from_lines("baseline", "b", &lines(vec![l]))];
        let rows = Comparison::new(runs, "baseline").unwrap().rows();
        assert_eq!(rows[0].properties, 1);
        assert_eq!(rows[0].verdicts, [0, 0, 1]);
        assert_eq!(rows[0].partitions, 1);
    }

    #[test]
    fn plots_take_modules_in_both_and_solved_ones() {
        let c = comparison();
        let pts = c.scatter(1);
        assert_eq!(pts.len(), 3);
        assert_eq!(
            pts[0],
            Point {
                baseline_s: 8.0,
                config_s: 2.0,
                solved: true
            }
        );
        assert!(!pts[2].solved);
        let q = c.quantiles();
        assert_eq!(q[0], ("baseline".to_string(), vec![8.0]));
        assert_eq!(q[1], ("s4".to_string(), vec![1.0, 2.0]));
    }

    #[test]
    fn the_baseline_must_be_a_run_and_names_unique() {
        let r = || Run::from_lines("s0", "f", &[]);
        let e = Comparison::new(vec![r()], "baseline").unwrap_err();
        assert!(e.to_string().contains("--baseline"), "{e}");
        let e = Comparison::new(vec![r(), r()], "s0").unwrap_err();
        assert!(e.to_string().contains("two runs"), "{e}");
    }

    #[test]
    fn strategy_names_a_run_without_a_name() {
        let l = lines(vec![
            json!({"key": "a"}),
            json!({"key": "b", "strategy": "s2"}),
        ]);
        assert_eq!(strategy_of(&l).as_deref(), Some("s2"));
        assert_eq!(strategy_of(&l[..1]), None);
    }

    #[test]
    fn tables_have_one_row_per_run() {
        let c = comparison();
        let rows = c.rows();
        let text = render_table(&c, &rows, false);
        assert!(
            text.lines().nth(1).unwrap().starts_with("baseline"),
            "{text}"
        );
        assert!(text.contains("\ns4 "), "{text}");
        let md = render_table(&c, &rows, true);
        assert!(md.starts_with("| configuration | modules |"), "{md}");
        let csv = render_csv(&rows);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.contains("\ns4,3,6,1,3,2,1,4,5.5,7.0,"), "{csv}");
    }
}
