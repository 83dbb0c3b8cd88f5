//! `mpv report`: the summary of a results file. Verdicts are counted per
//! (task, property) — a *judgement* — per set and per rule; against expected
//! verdicts each is correct, wrong, unconfirmed (the benchmark expects
//! `unknown`) or undecided (mpv said UNKNOWN), and scored the SV-COMP way:
//! +2 correct TRUE, +1 correct FALSE, −16 wrong FALSE, −32 wrong TRUE,
//! 0 otherwise. A task that did not finish (`status` other than `ok`)
//! counts UNKNOWN for each of its expected rules.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value};

use super::tasks::{property_matches_rule, Expected, ExpectedVerdict};
use crate::Result;

/// Points for a correct TRUE, correct FALSE, wrong FALSE, wrong TRUE.
pub const SCORE_CORRECT_TRUE: i64 = 2;
pub const SCORE_CORRECT_FALSE: i64 = 1;
pub const SCORE_WRONG_FALSE: i64 = -16;
pub const SCORE_WRONG_TRUE: i64 = -32;

/// Tasks that did not finish listed by name (every wrong verdict is listed).
pub const FAILED_LISTED: usize = 50;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Csv,
}

/// One task's line, reduced.
#[derive(Clone, Debug)]
pub struct TaskRow {
    pub key: String,
    /// The index of the task's line among the lines the report was made of.
    pub line: usize,
    pub file: String,
    pub set: String,
    pub status: String,
    pub detail: String,
    pub cpu_s: f64,
    pub wall_s: f64,
    pub peak_mem_mb: f64,
}

/// One verdict of one task, with what the benchmark expects.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// The index of the task in [`Report::tasks`].
    pub task: usize,
    pub file: String,
    pub set: String,
    pub rule: String,
    /// The id of the property the verdict is mpv's for (`None`: the task
    /// reported no property for an expected rule).
    pub property: Option<String>,
    /// `true`, `false` or `unknown`.
    pub verdict: String,
    pub expected: Option<ExpectedVerdict>,
}

/// How a verdict compares with the expected one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Correct,
    Wrong,
    /// A definite verdict where the benchmark expects `unknown`.
    Unconfirmed,
    /// mpv said UNKNOWN.
    Undecided,
    /// Nothing is expected of this property.
    NotExpected,
}

impl Judgement {
    pub fn is_wrong(&self) -> bool {
        self.outcome() == Outcome::Wrong
    }

    pub fn outcome(&self) -> Outcome {
        use ExpectedVerdict as E;
        match (self.verdict.as_str(), self.expected) {
            (_, None) => Outcome::NotExpected,
            ("true", Some(E::True)) | ("false", Some(E::False)) => Outcome::Correct,
            ("true", Some(E::False)) | ("false", Some(E::True)) => Outcome::Wrong,
            ("true" | "false", Some(E::Unknown)) => Outcome::Unconfirmed,
            _ => Outcome::Undecided,
        }
    }

    /// The expected verdict as the benchmark writes it (`-`: none).
    pub fn expected_text(&self) -> &'static str {
        match self.expected {
            Some(ExpectedVerdict::True) => "true",
            Some(ExpectedVerdict::False) => "false",
            Some(ExpectedVerdict::Unknown) => "unknown",
            None => "-",
        }
    }

    /// The row of the wrong-verdicts table: task, rule, expected, mpv.
    pub fn wrong_row(&self) -> Vec<String> {
        let expected = self.expected_text().to_string();
        vec![
            self.file.clone(),
            self.rule.clone(),
            expected,
            self.verdict.clone(),
        ]
    }
}

/// The columns of a row of the per-set and per-rule tables after its name.
pub const COUNT_COLUMNS: [&str; 10] = [
    "tasks",
    "TRUE",
    "FALSE",
    "UNKNOWN",
    "correct TRUE",
    "correct FALSE",
    "wrong TRUE",
    "wrong FALSE",
    "unconfirmed",
    "score",
];

/// One of the summary's count tables: its title, the header of its name
/// column and its rows, the total last.
pub struct CountTable {
    pub title: &'static str,
    pub name_column: &'static str,
    /// [`COUNT_COLUMNS`] with the per-rule table's `tasks` named `verdicts`.
    pub columns: [&'static str; 10],
    pub rows: Vec<(String, Counts)>,
}

/// Counts of one row of the summary tables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub tasks: usize,
    pub verdicts: [usize; 3],
    pub correct_true: usize,
    pub correct_false: usize,
    pub wrong_true: usize,
    pub wrong_false: usize,
    /// Definite verdicts where the benchmark expects `unknown`.
    pub unconfirmed: usize,
    pub score: i64,
}

impl Counts {
    /// The table columns after the name, in [`COUNT_COLUMNS`] order.
    pub fn cells(&self) -> Vec<String> {
        [
            self.tasks,
            self.verdicts[0],
            self.verdicts[1],
            self.verdicts[2],
            self.correct_true,
            self.correct_false,
            self.wrong_true,
            self.wrong_false,
            self.unconfirmed,
        ]
        .iter()
        .map(usize::to_string)
        .chain(std::iter::once(self.score.to_string()))
        .collect()
    }

    fn add(&mut self, j: &Judgement) {
        let i = match j.verdict.as_str() {
            "true" => 0,
            "false" => 1,
            _ => 2,
        };
        self.verdicts[i] += 1;
        use ExpectedVerdict as E;
        match (i, j.expected) {
            (0, Some(E::True)) => {
                self.correct_true += 1;
                self.score += SCORE_CORRECT_TRUE;
            }
            (1, Some(E::False)) => {
                self.correct_false += 1;
                self.score += SCORE_CORRECT_FALSE;
            }
            (0, Some(E::False)) => {
                self.wrong_true += 1;
                self.score += SCORE_WRONG_TRUE;
            }
            (1, Some(E::True)) => {
                self.wrong_false += 1;
                self.score += SCORE_WRONG_FALSE;
            }
            (0 | 1, Some(E::Unknown)) => self.unconfirmed += 1,
            _ => {}
        }
    }

    pub fn wrong(&self) -> usize {
        self.wrong_true + self.wrong_false
    }
}

/// A results file, read and judged.
#[derive(Debug, Default)]
pub struct Report {
    pub source: String,
    pub tasks: Vec<TaskRow>,
    pub judgements: Vec<Judgement>,
    /// Lines whose key an earlier line already had (the last one counts).
    pub duplicates: usize,
}

/// Expected verdicts of a manifest's tasks, by task key and by task file.
pub type ExpectedIndex = (
    HashMap<String, Vec<Expected>>,
    HashMap<String, Vec<Expected>>,
);

/// Reads the expected verdicts of a manifest (same formats as `mpv batch --manifest`).
pub fn expected_from_manifest(manifest: &Path, root: &Path) -> Result<ExpectedIndex> {
    let tasks = super::manifest::load(manifest, root)?;
    let mut by_key = HashMap::new();
    let mut by_file: HashMap<String, Vec<Expected>> = HashMap::new();
    for t in tasks {
        by_file
            .entry(t.file.clone())
            .or_default()
            .extend(t.expected.iter().cloned());
        by_key.insert(t.key, t.expected);
    }
    Ok((by_key, by_file))
}

fn str_of<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

fn num_of(m: &Map<String, Value>, k: &str) -> f64 {
    m.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

impl Report {
    /// Judges the lines of a results file; `expected` (from `--expected`)
    /// replaces the expected verdicts the lines carry.
    pub fn from_lines(
        source: &str,
        lines: &[(usize, Map<String, Value>)],
        expected: Option<&ExpectedIndex>,
    ) -> Report {
        let mut last: BTreeMap<String, usize> = BTreeMap::new();
        let mut dups = 0;
        for (i, (_, m)) in lines.iter().enumerate() {
            if last.insert(str_of(m, "key").to_string(), i).is_some() {
                dups += 1;
            }
        }
        let mut order: Vec<usize> = last.into_values().collect();
        order.sort_unstable();
        let mut r = Report {
            source: source.to_string(),
            duplicates: dups,
            ..Report::default()
        };
        for i in order {
            let m = &lines[i].1;
            r.add_line(i, m, expected);
        }
        r
    }

    fn add_line(&mut self, line: usize, m: &Map<String, Value>, index: Option<&ExpectedIndex>) {
        let file = str_of(m, "file").to_string();
        let set = str_of(m, "set").to_string();
        let status = str_of(m, "status").to_string();
        let task = self.tasks.len();
        self.tasks.push(TaskRow {
            key: str_of(m, "key").to_string(),
            line,
            file: file.clone(),
            set: set.clone(),
            status: status.clone(),
            detail: str_of(m, "status_detail").to_string(),
            cpu_s: num_of(m, "cpu_s"),
            wall_s: num_of(m, "wall_s"),
            peak_mem_mb: num_of(m, "peak_mem_mb"),
        });
        let expected: Vec<Expected> = match index {
            Some((by_key, by_file)) => by_key
                .get(str_of(m, "key"))
                .or_else(|| by_file.get(&file))
                .cloned()
                .unwrap_or_default(),
            None => m
                .get("expected")
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default(),
        };
        let props: Vec<(&str, &str)> = m
            .get("properties")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|p| {
                (
                    p.get("id").and_then(Value::as_str).unwrap_or(""),
                    p.get("verdict")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown"),
                )
            })
            .collect();
        let ids: Vec<&str> = props.iter().map(|(id, _)| *id).collect();
        let mut used = vec![false; props.len()];
        for (e, found) in expected.iter().zip(pair_expected(&ids, &expected)) {
            if let Some(k) = found {
                used[k] = true;
            }
            self.judgements.push(Judgement {
                task,
                file: file.clone(),
                set: set.clone(),
                rule: e.rule.clone(),
                property: found.map(|k| props[k].0.to_string()),
                verdict: found.map_or("unknown", |k| props[k].1).to_string(),
                expected: Some(e.verdict),
            });
        }
        let rule = m.get("rule").and_then(Value::as_str);
        for (k, (id, verdict)) in props.iter().enumerate() {
            if used[k] {
                continue;
            }
            let rule = match rule {
                Some(r) if props.len() == 1 => r,
                _ => id,
            };
            self.judgements.push(Judgement {
                task,
                file: file.clone(),
                set: set.clone(),
                rule: rule.to_string(),
                property: Some(id.to_string()),
                verdict: verdict.to_string(),
                expected: None,
            });
        }
    }

    /// Rows per set (tasks counted per set), per rule, and the total.
    pub fn tables(&self) -> (BTreeMap<String, Counts>, BTreeMap<String, Counts>, Counts) {
        let mut sets: BTreeMap<String, Counts> = BTreeMap::new();
        let mut rules: BTreeMap<String, Counts> = BTreeMap::new();
        let mut total = Counts::default();
        for t in &self.tasks {
            sets.entry(t.set.clone()).or_default().tasks += 1;
            total.tasks += 1;
        }
        for j in &self.judgements {
            sets.entry(j.set.clone()).or_default().add(j);
            let r = rules.entry(j.rule.clone()).or_default();
            r.tasks += 1;
            r.add(j);
            total.add(j);
        }
        (sets, rules, total)
    }

    /// The per-set and the per-rule table, each with its total row.
    pub fn count_tables(&self) -> [CountTable; 2] {
        let (sets, rules, total) = self.tables();
        let rows = |map: BTreeMap<String, Counts>| {
            let mut rows: Vec<(String, Counts)> = map.into_iter().collect();
            rows.push(("total".to_string(), total.clone()));
            rows
        };
        let mut rule_columns = COUNT_COLUMNS;
        rule_columns[0] = "verdicts";
        [
            CountTable {
                title: "per set",
                name_column: "set",
                columns: COUNT_COLUMNS,
                rows: rows(sets),
            },
            CountTable {
                title: "per rule",
                name_column: "rule",
                columns: rule_columns,
                rows: rows(rules),
            },
        ]
    }

    pub fn wrong(&self) -> Vec<&Judgement> {
        self.judgements.iter().filter(|j| j.is_wrong()).collect()
    }

    /// How many tasks have each status.
    pub fn statuses(&self) -> BTreeMap<&str, usize> {
        let mut statuses: BTreeMap<&str, usize> = BTreeMap::new();
        for t in &self.tasks {
            *statuses.entry(t.status.as_str()).or_default() += 1;
        }
        statuses
    }

    /// The header line's note on repeated keys (empty when there are none).
    pub fn duplicates_note(&self) -> String {
        if self.duplicates > 0 {
            format!(
                "; {} repeated lines, the last of each counts",
                self.duplicates
            )
        } else {
            String::new()
        }
    }

    /// The resources table: its header and its CPU and memory rows (total,
    /// p50, p90, p99, max per task).
    pub fn resources(&self) -> ([&'static str; 6], Vec<Vec<String>>) {
        let cpu: Vec<f64> = self.tasks.iter().map(|t| t.cpu_s).collect();
        let mem: Vec<f64> = self.tasks.iter().map(|t| t.peak_mem_mb).collect();
        let q = |v: &[f64]| {
            let mut r = vec![format!("{:.1}", v.iter().sum::<f64>())];
            for p in [50.0, 90.0, 99.0, 100.0] {
                r.push(format!("{:.2}", percentile(v, p)));
            }
            r
        };
        let mut cpu_row = vec!["CPU s".to_string()];
        cpu_row.extend(q(&cpu));
        let mut mem_row = vec!["peak memory MB".to_string()];
        mem_row.extend(q(&mem));
        mem_row[1] = "-".into();
        (
            ["", "total", "p50", "p90", "p99", "max"],
            vec![cpu_row, mem_row],
        )
    }

    /// The wall time of all children together, in seconds.
    pub fn wall_s(&self) -> f64 {
        self.tasks.iter().map(|t| t.wall_s).sum()
    }

    /// The `n` tasks that took the most CPU time, slowest first.
    pub fn slowest(&self, n: usize) -> Vec<&TaskRow> {
        let mut slow: Vec<&TaskRow> = self.tasks.iter().collect();
        slow.sort_by(|a, b| b.cpu_s.total_cmp(&a.cpu_s));
        slow.truncate(n);
        slow
    }

    /// The tasks that did not finish (`status` other than `ok`).
    pub fn unfinished(&self) -> Vec<&TaskRow> {
        self.tasks.iter().filter(|t| t.status != "ok").collect()
    }

    pub fn render(&self, format: Format, slowest: usize) -> String {
        if format == Format::Csv {
            let (sets, rules, total) = self.tables();
            return csv(&sets, &rules, &total);
        }
        let md = format == Format::Markdown;
        let mut out = String::new();
        let status_text: Vec<String> = self
            .statuses()
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect();
        let head = if md { "## " } else { "" };
        let _ = writeln!(
            out,
            "{head}mpv report: {} ({} tasks, {} verdicts{})",
            self.source,
            self.tasks.len(),
            self.judgements.len(),
            self.duplicates_note()
        );
        let _ = writeln!(out, "\nstatus: {}", status_text.join(", "));
        for t in self.count_tables() {
            let rows: Vec<Vec<String>> = t
                .rows
                .iter()
                .map(|(k, c)| std::iter::once(k.clone()).chain(c.cells()).collect())
                .collect();
            let mut h = vec![t.name_column];
            h.extend(t.columns);
            let _ = writeln!(out, "\n{head}{}\n", t.title);
            out += &table(md, &h, &rows);
        }
        let _ = writeln!(out, "\n{}", score_note());

        let _ = writeln!(out, "\n{head}resources per task\n");
        let (header, rows) = self.resources();
        out += &table(md, &header, &rows);
        let _ = writeln!(
            out,
            "\nwall time of the children: {:.1} s in total",
            self.wall_s()
        );

        let _ = writeln!(out, "\n{head}slowest tasks\n");
        let rows: Vec<Vec<String>> = self
            .slowest(slowest)
            .iter()
            .map(|t| vec![format!("{:.2}", t.cpu_s), t.status.clone(), t.file.clone()])
            .collect();
        out += &table(md, &["CPU s", "status", "task"], &rows);

        let wrong = self.wrong();
        let _ = writeln!(out, "\n{head}wrong verdicts: {}\n", wrong.len());
        if !wrong.is_empty() {
            let rows: Vec<Vec<String>> = wrong.iter().map(|j| j.wrong_row()).collect();
            out += &table(md, &["task", "rule", "expected", "mpv"], &rows);
        }
        let failed = self.unfinished();
        if !failed.is_empty() {
            let _ = writeln!(out, "\n{head}tasks that did not finish: {}\n", failed.len());
            let rows: Vec<Vec<String>> = failed
                .iter()
                .take(FAILED_LISTED)
                .map(|t| {
                    let detail: String = t.detail.chars().take(120).collect();
                    vec![t.status.clone(), t.file.clone(), detail]
                })
                .collect();
            out += &table(md, &["status", "task", "detail"], &rows);
            if failed.len() > FAILED_LISTED {
                let _ = writeln!(out, "... and {} more", failed.len() - FAILED_LISTED);
            }
        }
        out
    }
}

/// How verdicts are scored, as the report states it.
pub fn score_note() -> String {
    format!(
        "score: +{SCORE_CORRECT_TRUE} correct TRUE, +{SCORE_CORRECT_FALSE} correct FALSE, \
         {SCORE_WRONG_FALSE} wrong FALSE, {SCORE_WRONG_TRUE} wrong TRUE, 0 UNKNOWN or unconfirmed"
    )
}

/// Pairs each expected verdict with the property it is about: for each entry
/// of `expected`, the index in `ids` of the property named by its `property`,
/// or else of the first property whose id is the rule's
/// ([`property_matches_rule`]); `None` when the ids hold neither.
pub fn pair_expected(ids: &[&str], expected: &[Expected]) -> Vec<Option<usize>> {
    expected
        .iter()
        .map(|e| {
            ids.iter().position(|id| match &e.property {
                Some(p) => id == p,
                None => property_matches_rule(id, &e.rule),
            })
        })
        .collect()
}

/// Nearest-rank percentile (`p` in 0..=100) of unsorted values; 0 when empty.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

/// An aligned text table, or a markdown one.
pub(crate) fn table(md: bool, header: &[&str], rows: &[Vec<String>]) -> String {
    let head: Vec<String> = header.iter().map(|s| s.to_string()).collect();
    let mut out = String::new();
    if md {
        let esc = |s: &String| s.replace('|', "\\|");
        let _ = writeln!(
            out,
            "| {} |",
            head.iter().map(esc).collect::<Vec<_>>().join(" | ")
        );
        let _ = writeln!(out, "|{}", "---|".repeat(head.len()));
        for r in rows {
            let _ = writeln!(
                out,
                "| {} |",
                r.iter().map(esc).collect::<Vec<_>>().join(" | ")
            );
        }
        return out;
    }
    let n = head.len().max(rows.iter().map(Vec::len).max().unwrap_or(0));
    // A column is numeric (right-aligned) when every body cell is a number or `-`.
    let numeric: Vec<bool> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .all(|c| c == "-" || c.parse::<f64>().is_ok())
        })
        .collect();
    let all: Vec<Vec<String>> = std::iter::once(head).chain(rows.iter().cloned()).collect();
    let width: Vec<usize> = (0..n)
        .map(|i| {
            all.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in &all {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if numeric[i] && i > 0 {
                    format!("{c:>w$}", w = width[i])
                } else {
                    format!("{c:<w$}", w = width[i])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}

/// One CSV field, quoted when it holds a comma, a quote or a line break.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(
    sets: &BTreeMap<String, Counts>,
    rules: &BTreeMap<String, Counts>,
    total: &Counts,
) -> String {
    let mut out = String::from(
        "section,name,tasks,true,false,unknown,correct_true,correct_false,wrong_true,wrong_false,unconfirmed,score\n",
    );
    let rows = sets
        .iter()
        .map(|(k, c)| ("set", k.as_str(), c))
        .chain(rules.iter().map(|(k, c)| ("rule", k.as_str(), c)))
        .chain(std::iter::once(("total", "", total)));
    for (section, name, c) in rows {
        let _ = writeln!(out, "{section},{},{}", csv_field(name), c.cells().join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: Value) -> (usize, Map<String, Value>) {
        match v {
            Value::Object(m) => (1, m),
            _ => unreachable!(),
        }
    }

    fn lines() -> Vec<(usize, Map<String, Value>)> {
        let one = |key: &str, set: &str, verdict: &str, exp: &str, status: &str| {
            line(json!({
                "key": key, "file": key, "set": set, "rule": "32_1", "status": status,
                "cpu_s": 1.0, "wall_s": 1.0, "peak_mem_mb": 10.0,
                "properties": if status == "ok" {
                    json!([{"id": "label:ERROR", "verdict": verdict}])
                } else { json!([]) },
                "expected": [{"rule": "32_1", "property": "label:ERROR", "verdict": exp}],
            }))
        };
        vec![
            one("a", "s1", "true", "true", "ok"),
            one("b", "s1", "false", "false", "ok"),
            one("c", "s1", "true", "false", "ok"),
            one("d", "s2", "false", "true", "ok"),
            one("e", "s2", "unknown", "true", "ok"),
            one("f", "s2", "true", "unknown", "ok"),
            one("g", "s2", "true", "true", "timeout"),
        ]
    }

    #[test]
    fn counts_correct_wrong_and_score() {
        let r = Report::from_lines("r.jsonl", &lines(), None);
        let (sets, rules, total) = r.tables();
        assert_eq!(total.tasks, 7);
        assert_eq!(total.verdicts, [3, 2, 2]);
        assert_eq!((total.correct_true, total.correct_false), (1, 1));
        assert_eq!((total.wrong_true, total.wrong_false), (1, 1));
        assert_eq!(total.unconfirmed, 1);
        assert_eq!(total.score, 2 + 1 - 32 - 16);
        assert_eq!(sets["s1"].score, 2 + 1 - 32);
        assert_eq!(sets["s2"].tasks, 4);
        assert_eq!(rules["32_1"].tasks, 7);
        let wrong: Vec<&str> = r.wrong().iter().map(|j| j.file.as_str()).collect();
        assert_eq!(wrong, ["c", "d"]);
        let text = r.render(Format::Text, 3);
        assert!(text.contains("wrong verdicts: 2"), "{text}");
        assert!(text.contains("timeout 1"), "{text}");
        let md = r.render(Format::Markdown, 3);
        assert!(md.contains("| set | tasks |"), "{md}");
        let csv = r.render(Format::Csv, 3);
        assert!(csv.contains("\ntotal,,7,3,2,2,1,1,1,1,1,-45\n"), "{csv}");
    }

    #[test]
    fn the_last_line_of_a_key_counts() {
        let mut l = lines();
        let mut again = l[2].clone();
        again.1["properties"] = json!([{"id": "label:ERROR", "verdict": "false"}]);
        l.push(again);
        let r = Report::from_lines("r", &l, None);
        assert_eq!(r.duplicates, 1);
        assert_eq!(r.tasks.len(), 7);
        assert_eq!(r.wrong().len(), 1);
    }

    #[test]
    fn rules_without_a_property_match_by_name() {
        let l = vec![line(json!({
            "key": "m", "file": "m.i", "set": "revisions", "status": "ok",
            "properties": [{"id": "label:LDV_ERROR", "verdict": "true"},
                           {"id": "ldv:32_1", "verdict": "false"},
                           {"id": "ldv:43_1a", "verdict": "true"}],
            "expected": [{"rule": "08_1a", "property": "label:LDV_ERROR", "verdict": "true"},
                         {"rule": "32_1", "property": null, "verdict": "false"},
                         {"rule": "68_1", "property": null, "verdict": "true"}],
        }))];
        let r = Report::from_lines("r", &l, None);
        let (_, rules, total) = r.tables();
        assert_eq!(rules["08_1a"].correct_true, 1);
        assert_eq!(rules["32_1"].correct_false, 1);
        assert_eq!(
            rules["68_1"].verdicts[2], 1,
            "no verdict for the rule: UNKNOWN"
        );
        assert_eq!(
            rules["ldv:43_1a"].verdicts[0], 1,
            "unexpected property by id"
        );
        assert_eq!(total.score, 3);
    }

    #[test]
    fn percentiles() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(percentile(&v, 50.0), 3.0);
        assert_eq!(percentile(&v, 100.0), 5.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
