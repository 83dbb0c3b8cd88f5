//! The HTML report of a batch (`mpv report RESULTS.jsonl --html DIR`):
//! `DIR/index.html` holds the verdict counts and the tables `mpv report`
//! prints — the same [`summary::Report`], so the numbers are the text
//! report's — with a link to one page per FALSE result in `DIR/traces/`,
//! which shows the error path beside the module's source ([`trace`]).
//! Every page stands alone: inline CSS, no scripts, no fonts, nothing
//! fetched from the network.

mod trace;

pub use crate::util::escape_markup as escape;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::batch::summary::{self, Judgement, Outcome, Report, TaskRow};
use crate::{Error, Result};

/// A plot for the index page: its title and its SVG document.
pub struct Plot {
    pub title: String,
    pub svg: String,
}

/// What an HTML report is made of.
pub struct Input<'a> {
    pub report: &'a Report,
    /// The results file's lines, as given to [`Report::from_lines`]
    /// ([`TaskRow::line`] indexes them).
    pub lines: &'a [(usize, Map<String, Value>)],
    /// The results file: a task path relative to its directory is one place
    /// a module's source is looked for.
    pub results: &'a Path,
    /// The directory task paths are relative to, if known (`--source-root`).
    pub source_root: Option<&'a Path>,
    /// How many of the slowest tasks to list.
    pub slowest: usize,
    pub plots: Vec<Plot>,
}

/// What [`write`] wrote.
#[derive(Debug)]
pub struct Written {
    pub index: PathBuf,
    /// Trace pages, one per FALSE result.
    pub traces: usize,
    /// Trace pages whose module's source was not found.
    pub missing_sources: usize,
}

/// One FALSE result and the page it gets.
struct FalseResult<'a> {
    /// Index into [`Report::tasks`].
    task: usize,
    property: &'a Map<String, Value>,
    id: &'a str,
    /// The page's path relative to the report's directory.
    page: String,
    judgement: Option<&'a Judgement>,
}

/// Writes `dir/index.html` and `dir/traces/*.html` (directories created).
pub fn write(dir: &Path, input: &Input) -> Result<Written> {
    let traces = dir.join("traces");
    std::fs::create_dir_all(&traces).map_err(|e| Error::io(&traces, e))?;
    let falses = false_results(input);
    let mut missing_sources = 0;
    let mut source: Option<(usize, trace::Source)> = None;
    for f in &falses {
        let task = &input.report.tasks[f.task];
        let line = &input.lines[task.line].1;
        if source.as_ref().is_none_or(|(t, _)| *t != f.task) {
            source = Some((f.task, trace::Source::find(line, input)));
        }
        let src = &source.as_ref().expect("set above").1;
        if matches!(src, trace::Source::Missing { .. }) {
            missing_sources += 1;
        }
        let text = trace::page(task, f.property, f.judgement, src);
        let path = dir.join(&f.page);
        std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    }
    let index = dir.join("index.html");
    std::fs::write(&index, index_page(input, &falses)).map_err(|e| Error::io(&index, e))?;
    Ok(Written {
        index,
        traces: falses.len(),
        missing_sources,
    })
}

/// Every FALSE verdict of the report's tasks, in task order, each with its
/// judgement (if an expected verdict is about it) and page name.
fn false_results<'a>(input: &'a Input) -> Vec<FalseResult<'a>> {
    let mut out = Vec::new();
    for (t, task) in input.report.tasks.iter().enumerate() {
        let line = &input.lines[task.line].1;
        let props = line.get("properties").and_then(Value::as_array);
        for p in props.into_iter().flatten().filter_map(Value::as_object) {
            if p.get("verdict").and_then(Value::as_str) != Some("false") {
                continue;
            }
            let id = p.get("id").and_then(Value::as_str).unwrap_or("");
            let judgement = input
                .report
                .judgements
                .iter()
                .find(|j| j.task == t && j.property.as_deref() == Some(id));
            out.push(FalseResult {
                task: t,
                property: p,
                id,
                page: format!("traces/{:04}-{}.html", t + 1, file_part(id)),
                judgement,
            });
        }
    }
    out
}

/// A property id as a file-name part: characters other than letters,
/// digits, `-`, `_` and `.` become `_` (as witness names do).
fn file_part(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The style of every page.
const STYLE: &str = "
:root{--fg:#1d2330;--mute:#667085;--line:#d9dee7;--bg:#f6f7f9;--true:#1a7f37;--false:#c0262d;
--unknown:#9a6700;--hl:#fff4c2;--err:#ffd9d9;--aut:#6f42c1}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:#fff}
main{padding:16px 28px;max-width:1500px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:22px 0 8px}
a{color:#0b5cad;text-decoration:none}a:hover{text-decoration:underline}
.sub{color:var(--mute);margin:0 0 12px}
code,pre,.mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse;margin:4px 0 10px}
th,td{border-bottom:1px solid var(--line);padding:3px 10px;text-align:left;vertical-align:top}
th{background:var(--bg);font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:600;border-top:2px solid var(--line)}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:10px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:8px 16px;min-width:110px;background:var(--bg)}
.card b{display:block;font-size:24px}.card span{color:var(--mute)}
.v-true{color:var(--true)}.v-false{color:var(--false)}.v-unknown{color:var(--unknown)}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600;color:#fff}
.o-correct{background:var(--true)}.o-wrong{background:var(--false)}
.o-unconfirmed,.o-undecided{background:var(--unknown)}.o-none{background:var(--mute)}
.note{color:var(--mute)}.missing{background:var(--err);padding:6px 10px;border-radius:6px}
figure{margin:10px 0}
";

/// A whole page: `title`, the style, `body`.
fn page(title: &str, extra_style: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}{extra_style}</style></head>\n<body>\n{body}</body></html>\n",
        escape(title)
    )
}

/// Whether a table cell holds a number (it is right-aligned).
fn is_number(s: &str) -> bool {
    s == "-" || s.parse::<f64>().is_ok()
}

/// A table of plain-text cells (escaped); cells of `html_columns` are HTML
/// already. Rows named `total` are set off.
fn table(out: &mut String, header: &[&str], rows: &[Vec<String>], html_columns: &[usize]) {
    out.push_str("<table><thead><tr>");
    for (i, h) in header.iter().enumerate() {
        let numeric = i > 0 && !rows.is_empty() && rows.iter().all(|r| is_number(&r[i]));
        let class = if numeric { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th{class}>{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in rows {
        let total = r.first().is_some_and(|c| c == "total");
        out.push_str(if total {
            "<tr class=\"total\">"
        } else {
            "<tr>"
        });
        for (i, c) in r.iter().enumerate() {
            let class = if i > 0 && is_number(c) {
                " class=\"num\""
            } else {
                ""
            };
            let cell = if html_columns.contains(&i) {
                c.clone()
            } else {
                escape(c)
            };
            let _ = write!(out, "<td{class}>{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
}

/// The expected verdict of a result, if any, and how the verdict compares.
fn expectation(j: Option<&Judgement>) -> String {
    match j {
        Some(j) if j.expected.is_some() => {
            format!("expected {} {}", j.expected_text(), outcome_badge(Some(j)))
        }
        _ => outcome_badge(None),
    }
}

/// The class and the text of a judgement's badge.
fn outcome_badge(j: Option<&Judgement>) -> String {
    let (class, text) = match j.map(Judgement::outcome) {
        Some(Outcome::Correct) => ("o-correct", "correct"),
        Some(Outcome::Wrong) => ("o-wrong", "wrong"),
        Some(Outcome::Unconfirmed) => ("o-unconfirmed", "unconfirmed"),
        Some(Outcome::Undecided) => ("o-undecided", "undecided"),
        Some(Outcome::NotExpected) | None => ("o-none", "no expected verdict"),
    };
    format!("<span class=\"badge {class}\">{text}</span>")
}

/// The verdict counts as cards: TRUE, FALSE, UNKNOWN, wrong, score.
fn cards(out: &mut String, total: &summary::Counts) {
    out.push_str("<div class=\"cards\">");
    let cards = [
        ("v-true", total.verdicts[0].to_string(), "TRUE"),
        ("v-false", total.verdicts[1].to_string(), "FALSE"),
        ("v-unknown", total.verdicts[2].to_string(), "UNKNOWN"),
        ("v-false", total.wrong().to_string(), "wrong"),
        ("", total.score.to_string(), "score"),
    ];
    for (class, n, what) in cards {
        let _ = write!(
            out,
            "<div class=\"card\"><b class=\"{class}\">{n}</b><span>{what}</span></div>"
        );
    }
    out.push_str("</div>\n");
}

/// The index page: counts, the FALSE results with links, the summary's tables.
fn index_page(input: &Input, falses: &[FalseResult]) -> String {
    let r = input.report;
    let mut out = String::from("<main>\n");
    let _ = writeln!(
        out,
        "<h1>mpv report</h1><p class=\"sub\">{} — {} tasks, {} verdicts{}</p>",
        escape(&r.source),
        r.tasks.len(),
        r.judgements.len(),
        escape(&r.duplicates_note())
    );
    let tables = r.count_tables();
    let total = &tables[0].rows.last().expect("a total row").1;
    cards(&mut out, total);
    let statuses: Vec<String> = r
        .statuses()
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "<p>status of the tasks: {}</p>",
        escape(&statuses.join(", "))
    );
    false_table(&mut out, input, falses);
    for t in &tables {
        let _ = writeln!(out, "<h2>{}</h2>", escape(t.title));
        let rows: Vec<Vec<String>> = t
            .rows
            .iter()
            .map(|(k, c)| std::iter::once(k.clone()).chain(c.cells()).collect())
            .collect();
        let mut header = vec![t.name_column];
        header.extend(t.columns);
        table(&mut out, &header, &rows, &[]);
    }
    let _ = writeln!(
        out,
        "<p class=\"note\">{}</p>",
        escape(&summary::score_note())
    );
    other_tables(&mut out, input);
    for p in &input.plots {
        let _ = writeln!(
            out,
            "<h2>{}</h2><figure>{}</figure>",
            escape(&p.title),
            inline_svg(&p.svg)
        );
    }
    out.push_str("</main>\n");
    page(&format!("mpv report: {}", r.source), "", &out)
}

/// The table of FALSE results, each linking to its trace page.
fn false_table(out: &mut String, input: &Input, falses: &[FalseResult]) {
    let _ = writeln!(out, "<h2>FALSE results: {}</h2>", falses.len());
    if falses.is_empty() {
        return;
    }
    let rows: Vec<Vec<String>> = falses
        .iter()
        .map(|f| {
            let task = &input.report.tasks[f.task];
            let str_of = |k: &str| f.property.get(k).and_then(Value::as_str).unwrap_or("");
            let steps = f
                .property
                .get("counterexample")
                .and_then(|c| c.get("steps"))
                .and_then(Value::as_array)
                .map_or("-".to_string(), |s| {
                    s.iter().filter(|s| trace::in_module(s)).count().to_string()
                });
            vec![
                format!(
                    "<a href=\"{}\">{}</a>",
                    escape(&f.page),
                    escape(short_name(&task.file))
                ),
                escape(&task.set),
                format!("<a href=\"{}\">{}</a>", escape(&f.page), escape(f.id)),
                escape(str_of("message")),
                expectation(f.judgement),
                steps,
            ]
        })
        .collect();
    let header = ["task", "set", "property", "error", "verdict", "steps"];
    table(out, &header, &rows, &[0, 1, 2, 3, 4]);
}

/// The file name of a task path (the directories are its set's).
fn short_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Wrong verdicts, unfinished tasks, resources and the slowest tasks.
fn other_tables(out: &mut String, input: &Input) {
    let r = input.report;
    let wrong = r.wrong();
    let _ = writeln!(out, "<h2>wrong verdicts: {}</h2>", wrong.len());
    if !wrong.is_empty() {
        let rows: Vec<Vec<String>> = wrong.iter().map(|j| j.wrong_row()).collect();
        table(out, &["task", "rule", "expected", "mpv"], &rows, &[]);
    }
    let failed = r.unfinished();
    if !failed.is_empty() {
        let _ = writeln!(out, "<h2>tasks that did not finish: {}</h2>", failed.len());
        let rows: Vec<Vec<String>> = failed
            .iter()
            .take(summary::FAILED_LISTED)
            .map(|t| vec![t.status.clone(), t.file.clone(), t.detail.clone()])
            .collect();
        table(out, &["status", "task", "detail"], &rows, &[]);
        if failed.len() > summary::FAILED_LISTED {
            let more = failed.len() - summary::FAILED_LISTED;
            let _ = writeln!(out, "<p>... and {more} more</p>");
        }
    }
    out.push_str("<h2>resources per task</h2>\n");
    let (header, rows) = r.resources();
    table(out, &header, &rows, &[]);
    let _ = writeln!(
        out,
        "<p>wall time of the children: {:.1} s in total</p>",
        r.wall_s()
    );
    out.push_str("<h2>slowest tasks</h2>\n");
    let rows: Vec<Vec<String>> = r
        .slowest(input.slowest)
        .iter()
        .map(|t: &&TaskRow| vec![format!("{:.2}", t.cpu_s), t.status.clone(), t.file.clone()])
        .collect();
    table(out, &["CPU s", "status", "task"], &rows, &[]);
}

/// An SVG document as an element of an HTML page: without its XML
/// declaration and namespace attribute (HTML puts `<svg>` in its namespace).
fn inline_svg(svg: &str) -> String {
    let body = match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    };
    body.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
}

#[cfg(test)]
mod tests;
