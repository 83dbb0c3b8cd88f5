//! Violation witnesses: a counterexample of `mpv verify` as the waypoints
//! of SV-COMP's exchange formats, written as YAML format 2.0
//! (`violation_sequence`, [`yaml`]) and as GraphML 1.0 ([`graphml`]).
//! Correctness witnesses: what the proof of a TRUE property knows at loop
//! heads, as YAML format 2.0 `invariant_set` ([`correctness`]), its
//! invariants C expressions ([`invariant`]).
//!
//! The waypoints follow the counterexample in the input file (its own lines
//! and columns, not the `#line` positions): a `branching` waypoint for each
//! branch taken (at its `if`/`while`/`for` keyword), `function_enter` for each
//! function with a body entered (at the callee's name), `function_return` with
//! `\result == v` for each value a function without a body returned (at the
//! call's closing parenthesis), and the `target` at the step reaching the
//! error. Steps of the synthetic start function (global initialisers) have
//! no place in the input file and give no waypoints. A counterexample
//! feasible only under LDV's assumptions gives a witness that says so
//! ([`LDV_ASSUMPTIONS`]).

pub mod correctness;
pub mod graphml;
pub mod invariant;
pub mod read;
pub mod yaml;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::report::{CexStep, Counterexample, StepKind};
use crate::spec::Property;

/// The producer `configuration` of a YAML witness whose violation is
/// feasible under LDV's assumptions (kernel functions without a model
/// leave the module's memory alone, ...): `mpv validate` replays it under
/// them.
pub const LDV_ASSUMPTIONS: &str = "ldv-assumptions";

/// What a waypoint asks of the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaypointKind {
    Assumption,
    Branching,
    FunctionEnter,
    FunctionReturn,
    Target,
}

impl WaypointKind {
    /// The name in the YAML format.
    pub fn name(self) -> &'static str {
        match self {
            WaypointKind::Assumption => "assumption",
            WaypointKind::Branching => "branching",
            WaypointKind::FunctionEnter => "function_enter",
            WaypointKind::FunctionReturn => "function_return",
            WaypointKind::Target => "target",
        }
    }
}

/// The language of a waypoint's constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintFormat {
    CExpression,
    AcslExpression,
}

impl ConstraintFormat {
    pub fn name(self) -> &'static str {
        match self {
            ConstraintFormat::CExpression => "c_expression",
            ConstraintFormat::AcslExpression => "acsl_expression",
        }
    }
}

/// One waypoint: a place in the input file and what holds there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waypoint {
    pub kind: WaypointKind,
    /// 1-based line and column in the input file.
    pub line: u32,
    pub column: u32,
    pub function: String,
    /// `(value, format)`: `true`/`false` for branching, `\result == v` for returns.
    pub constraint: Option<(String, ConstraintFormat)>,
    /// For `function_enter` and `function_return`: the called function.
    pub callee: Option<String>,
}

/// The task a witness is about.
pub struct Task<'a> {
    /// The input file as given to mpv.
    pub input_file: &'a Path,
    /// Its text (hashed and searched for columns).
    pub source: &'a str,
    /// The property's id (names the files).
    pub property: &'a str,
    /// The property as the witness states it ([`specification`]).
    pub specification: String,
    /// mpv's version.
    pub producer_version: &'a str,
    /// The data model the program was verified under.
    pub data_model: crate::ir::DataModel,
}

/// The property as SV-COMP writes it (`CHECK( init(main()), LTL(G ! call(f())) )`),
/// or the rule's id and description for mpv's rules.
pub fn specification(p: &Property) -> String {
    crate::spec::prp::svcomp_text(p).unwrap_or_else(|| format!("{}: {}", p.id, p.description))
}

/// Lowercase hexadecimal SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The witness files of `property` on `input` in `dir`: `<file name>.<property>.yml`
/// and `.graphml` (characters other than letters, digits, `-`, `_`, `.` of
/// the property id become `_`).
pub fn file_paths(dir: &Path, input: &Path, property: &str) -> (PathBuf, PathBuf) {
    let base = base_name(input, property);
    (
        dir.join(format!("{base}.yml")),
        dir.join(format!("{base}.graphml")),
    )
}

/// `<file name>.<property>`, the start of the names of the witnesses of
/// `property` on `input`.
fn base_name(input: &Path, property: &str) -> String {
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    let prop: String = property
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{name}.{prop}")
}

/// Writes both witnesses of `cex` into `dir` (created if need be); returns their paths.
pub fn write(dir: &Path, task: &Task, cex: &Counterexample) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let wps = waypoints(cex, task.source);
    let (y, g) = file_paths(dir, task.input_file, task.property);
    let yaml = yaml::render(task, &wps, &cex.assumptions, &Metadata::now());
    std::fs::write(&y, yaml)?;
    std::fs::write(&g, graphml::render(task, &wps, &Metadata::now()))?;
    Ok(vec![y, g])
}

/// Identity and time of one witness.
pub struct Metadata {
    /// A random (version 4) UUID.
    pub uuid: String,
    /// ISO 8601 UTC time, to the second.
    pub creation_time: String,
}

impl Metadata {
    pub fn now() -> Metadata {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Metadata {
            uuid: uuid::Uuid::new_v4().to_string(),
            creation_time: iso8601_utc(secs),
        }
    }
}

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn iso8601_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The waypoints of `cex` in `source`, ending with the `target`: one for
/// every branch decided, function entered and value returned by a function
/// without a body on the path, so the waypoints determine the path.
pub fn waypoints(cex: &Counterexample, source: &str) -> Vec<Waypoint> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out: Vec<Waypoint> = Vec::new();
    let mut function = String::new();
    let mut last: Option<(u32, u32, Option<String>)> = None;
    for s in &cex.steps {
        if !s.function.is_empty() {
            function = s.function.clone();
        }
        if function == crate::cfa::START_FUNCTION || s.input_line == 0 {
            continue;
        }
        if s.kind != StepKind::Woven {
            last = Some((s.input_line, s.input_column, s.callee.clone()));
        }
        let line_text = lines.get(s.input_line as usize - 1).copied().unwrap_or("");
        out.extend(step_waypoint(s, &function, line_text));
    }
    let (line, column, callee) = last.unwrap_or((1, 1, None));
    let line_text = lines.get(line as usize - 1).copied().unwrap_or("");
    let column = match &callee {
        Some(f) => call_column(line_text, f, column),
        None => first_non_blank(line_text),
    };
    out.push(Waypoint {
        kind: WaypointKind::Target,
        line,
        column,
        function,
        constraint: None,
        callee: None,
    });
    out
}

/// The waypoint of one step of a counterexample in `function`, whose line
/// in the input file is `line_text`: a branch decided, a function with a
/// body entered, or a value a function without a body returned.
fn step_waypoint(s: &CexStep, function: &str, line_text: &str) -> Option<Waypoint> {
    let (kind, constraint) = match (s.kind, s.branch, &s.callee) {
        (StepKind::Assume, Some(b), _) => (
            WaypointKind::Branching,
            Some((b.to_string(), ConstraintFormat::CExpression)),
        ),
        (StepKind::Enter, _, Some(_)) => (WaypointKind::FunctionEnter, None),
        (StepKind::Call, _, Some(_)) => (
            WaypointKind::FunctionReturn,
            Some((
                format!("\\result == {}", s.value_c.as_ref()?),
                ConstraintFormat::AcslExpression,
            )),
        ),
        _ => return None,
    };
    Some(Waypoint {
        kind,
        line: s.input_line,
        column: event_column(kind, line_text, s.input_column, s.callee.as_deref()),
        function: function.to_string(),
        constraint,
        callee: s.callee.clone(),
    })
}

/// The column of a waypoint of `kind` for a step at `column` of
/// `line_text` (calling `callee`): the branching keyword of a branch, the
/// callee's name in the call for `function_enter`, the call's closing
/// parenthesis for `function_return`.
pub fn event_column(kind: WaypointKind, line_text: &str, column: u32, callee: Option<&str>) -> u32 {
    match (kind, callee) {
        (WaypointKind::Branching, _) => branching_column(line_text, column),
        (WaypointKind::FunctionEnter, Some(f)) => call_column(line_text, f, column),
        (WaypointKind::FunctionReturn, Some(f)) => {
            closing_paren(line_text, call_column(line_text, f, column))
        }
        _ => column,
    }
}

/// 1-based column of the first non-blank character of `line` (1 if none).
fn first_non_blank(line: &str) -> u32 {
    line.find(|c: char| !c.is_whitespace())
        .map_or(1, |i| i as u32 + 1)
}

/// Whether `word` occurs in `line` at byte `i` as a whole identifier.
fn word_at(line: &str, i: usize, word: &str) -> bool {
    let b = line.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    line[i..].starts_with(word)
        && (i == 0 || !ident(b[i - 1]))
        && b.get(i + word.len()).is_none_or(|&c| !ident(c))
}

/// The column of the branching keyword (`if`, `while`, `for`) that a
/// condition starting at `cond_column` belongs to: the last one before it
/// on the line whose parenthesised condition contains that column, else
/// (`?:`, a condition on a line of its own) the condition's own column.
fn branching_column(line: &str, cond_column: u32) -> u32 {
    let cond = (cond_column as usize).saturating_sub(1);
    let end = cond.min(line.len());
    let found = (0..end).rev().find(|&i| {
        line.is_char_boundary(i)
            && ["if", "while", "for"].iter().any(|k| {
                word_at(line, i, k)
                    && parenthesised_from(line, i + k.len()).is_none_or(|close| cond < close)
            })
    });
    found.map_or(cond_column.max(1), |i| i as u32 + 1)
}

/// The byte index of the `)` closing the parenthesis that opens after
/// blanks at byte `from` of `line`, if it closes on the line (`None` also
/// when no parenthesis opens there).
fn parenthesised_from(line: &str, from: usize) -> Option<usize> {
    let rest = &line[from..];
    let open = from + rest.len() - rest.trim_start().len();
    if !line[open..].starts_with('(') {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in line[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The column of the name of a call of `callee` on the line: the first at
/// or after `from`, else the first on the line, else `from`.
fn call_column(line: &str, callee: &str, from: u32) -> u32 {
    let calls: Vec<usize> = line
        .match_indices(callee)
        .map(|(i, _)| i)
        .filter(|&i| {
            word_at(line, i, callee) && line[i + callee.len()..].trim_start().starts_with('(')
        })
        .collect();
    let from = (from as usize).saturating_sub(1);
    calls
        .iter()
        .find(|&&i| i >= from)
        .or(calls.first())
        .map_or(from as u32 + 1, |&i| i as u32 + 1)
}

/// The column of the `)` closing the call whose name starts at `column`
/// (the name's column if the call does not end on the line).
fn closing_paren(line: &str, column: u32) -> u32 {
    let start = (column as usize).saturating_sub(1).min(line.len());
    let Some(open) = line.get(start..).and_then(|r| r.find('(')) else {
        return column;
    };
    parenthesised_from(line, start + open).map_or(column, |close| close as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Goal;

    fn step(kind: StepKind, line: u32, col: u32, f: &str) -> CexStep {
        CexStep {
            file: "t.c".into(),
            line,
            function: f.into(),
            op: "op".into(),
            values: None,
            kind,
            input_line: line,
            input_column: col,
            branch: None,
            callee: None,
            value_c: None,
            automata: Vec::new(),
        }
    }

    #[test]
    fn columns_point_at_keywords_names_and_parentheses() {
        let l = "  } else if (x > f(y)) {";
        assert_eq!(branching_column(l, 14), 10);
        assert_eq!(
            branching_column("x = c ? a : b;", 5),
            5,
            "`?:`: the condition"
        );
        assert_eq!(branching_column("  while (i < n)", 10), 3);
        assert_eq!(branching_column("(x)", 2), 2, "no keyword: the condition");
        assert_eq!(call_column(l, "f", 1), 18);
        assert_eq!(closing_paren(l, 18), 21);
        assert_eq!(call_column("  g();", "f", 3), 3, "no such call");
        assert_eq!(first_non_blank("   x"), 4);
    }

    #[test]
    fn one_branching_waypoint_per_decided_condition() {
        // `a && b`: the edge into the middle decides nothing.
        let src = "int main() {\n  if (a && b)\n    reach_error();\n}\n";
        let a = step(StepKind::Assume, 2, 7, "main");
        let mut b = step(StepKind::Assume, 2, 12, "main");
        b.branch = Some(true);
        let mut c = step(StepKind::Call, 3, 5, "main");
        c.callee = Some("reach_error".into());
        let cex = Counterexample {
            property: "call:reach_error".into(),
            steps: vec![a, b, c],
            assumptions: vec![],
            path: vec![],
        };
        let w = waypoints(&cex, src);
        let kinds: Vec<_> = w.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [WaypointKind::Branching, WaypointKind::Target]);
        assert_eq!((w[0].line, w[0].column), (2, 3));
        assert_eq!(w[0].constraint.as_ref().unwrap().0, "true");
        assert_eq!(
            (w[1].line, w[1].column, w[1].function.as_str()),
            (3, 5, "main")
        );
    }

    #[test]
    fn a_conditional_after_an_if_on_its_line_is_a_waypoint_of_its_own() {
        let src = "void f(int *p) {\n if(p!=0) ((g == 1) ? (0) : fail());\n}\n";
        let mut i = step(StepKind::Assume, 2, 5, "f");
        i.branch = Some(true);
        let mut c = step(StepKind::Assume, 2, 14, "f");
        c.branch = Some(false);
        let mut e = step(StepKind::Enter, 2, 30, "f");
        e.callee = Some("fail".into());
        let cex = Counterexample {
            property: "p".into(),
            steps: vec![i, c, e],
            assumptions: vec![],
            path: vec![],
        };
        let w = waypoints(&cex, src);
        let got: Vec<_> = w
            .iter()
            .map(|w| (w.kind, w.column, w.constraint.clone().map(|c| c.0)))
            .collect();
        assert_eq!(
            got[..2],
            [
                (WaypointKind::Branching, 2, Some("true".into())),
                (WaypointKind::Branching, 14, Some("false".into())),
            ]
        );
        assert_eq!(branching_column("  for (i = 0; i < n; i++) x;", 15), 3);
        assert_eq!(branching_column("  if (x", 7), 3, "a condition going on");
    }

    #[test]
    fn each_decision_of_a_loop_condition_is_a_waypoint() {
        let src = "int main() {\n  while (x()) ;\n}\n";
        let steps = [true, true, false].map(|b| {
            let mut s = step(StepKind::Assume, 2, 10, "main");
            s.branch = Some(b);
            s
        });
        let cex = Counterexample {
            property: "p".into(),
            steps: steps.to_vec(),
            assumptions: vec![],
            path: vec![],
        };
        let w = waypoints(&cex, src);
        assert_eq!(w.len(), 4, "three decisions and the target");
    }

    #[test]
    fn external_values_become_result_constraints_and_start_code_is_left_out() {
        let src = "int g;\nint main() {\n  int x = nd();\n}\n";
        let init = step(StepKind::Assign, 1, 1, "__mpv_start");
        let mut call = step(StepKind::Call, 3, 3, "main");
        call.callee = Some("nd".into());
        call.value_c = Some("-1".into());
        let cex = Counterexample {
            property: "p".into(),
            steps: vec![init, call],
            assumptions: vec![],
            path: vec![],
        };
        let w = waypoints(&cex, src);
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].kind, WaypointKind::FunctionReturn);
        assert_eq!((w[0].line, w[0].column), (3, 14), "the call's `)`");
        assert_eq!(w[0].constraint.as_ref().unwrap().0, "\\result == -1");
    }

    #[test]
    fn dates_and_specifications() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601_utc(1_709_251_199), "2024-02-29T23:59:59Z");
        let p = Property {
            id: "call:reach_error".into(),
            description: String::new(),
            goal: Goal::Call("reach_error".into()),
            entry: Some("main".into()),
            origin: String::new(),
            purpose: crate::spec::Purpose::Verdict,
        };
        assert_eq!(
            specification(&p),
            "CHECK( init(main()), LTL(G ! call(reach_error())) )"
        );
        assert_eq!(sha256_hex(b"").len(), 64);
        let (y, g) = file_paths(Path::new("d"), Path::new("x/a.c"), "label:ERROR");
        assert_eq!(y, Path::new("d/a.c.label_ERROR.yml"));
        assert_eq!(g, Path::new("d/a.c.label_ERROR.graphml"));
    }
}
