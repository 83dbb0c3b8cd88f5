//! The page of one FALSE result of the HTML report: the error path beside
//! the module's source, as LDV's error-trace viewers show it. Left, the path:
//! its steps grouped by source line and nested by function call (calls in
//! which no automaton operation happens are folded), with the values of the
//! model, the branches taken, the functions entered (LDV's model functions
//! marked), the specification automata's operations and the error. Right,
//! the lines of the module the path passes, with a few lines of context,
//! the rest folded or skipped (LDV modules are tens of thousands of lines),
//! each passed line annotated with its steps. Lines and steps link to each
//! other; no script is needed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{escape, expectation, Input};
use crate::batch::summary::{Judgement, TaskRow};
use crate::cfa::START_FUNCTION;
use crate::report::{step_note, CexStep, Counterexample, StepKind};

/// The trace pages' own style: a header over two panes that scroll apart.
const STYLE: &str = "
body{height:100vh;display:flex;flex-direction:column;overflow:hidden}
.top{padding:8px 20px 6px;border-bottom:1px solid var(--line)}
.top h1{font-size:19px;margin:2px 0}.top .sub{margin:0 0 4px}
.metas{display:flex;gap:18px;flex-wrap:wrap;align-items:flex-start;font-size:13px}
.metas table{font-size:12.5px}.metas summary{cursor:pointer;color:#0b5cad}
tr.changed td{background:#f3ecff}
.split{flex:1;min-height:0;display:grid;grid-template-columns:minmax(0,5fr) minmax(0,6fr)}
.pane{overflow:auto;padding:0 10px 60vh}
.pane+.pane{border-left:1px solid var(--line);background:#fbfbfc}
.pane h2{position:sticky;top:0;z-index:1;background:inherit;margin:0;padding:6px 0;font-size:14px;
border-bottom:1px solid var(--line)}
#path{background:#fff}#src{background:#fbfbfc}
.row,details.call>summary,.sl,.aut,.errmsg{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;
font-size:12.5px;white-space:pre}
.row{padding:1px 4px;border-radius:3px;display:flex;align-items:baseline}
.row>.ln,.row>.sn{flex:none}.row>.code{flex:0 1 auto;min-width:10em;overflow:hidden;text-overflow:ellipsis}
.row>.val{flex:0 0 auto;max-width:50%;white-space:normal;margin-left:1em}
.row:target,.sl:target,summary:target{background:var(--hl);outline:1px solid #e5c100}
.ln{display:inline-block;min-width:4.2em;text-align:right;margin-right:6px;color:var(--mute)}
.sn{display:inline-block;min-width:3.6em;color:#98a2b3;font-size:11px}
.val{color:#0b6b3a;font-style:italic}
.pane .aut{padding-left:8.4em;color:var(--aut)}.aut b{font-weight:600}
.row.err,summary.err{background:var(--err)}
.pane .errmsg{padding-left:8.4em;color:var(--false);font-weight:700}
details.call>summary{cursor:pointer;padding:1px 4px;border-radius:3px}
summary>.head{display:inline-flex;align-items:baseline;max-width:calc(100% - 1.5em);vertical-align:top}
.head>*{flex:none}.head>.code{flex:0 1 auto;min-width:6em;overflow:hidden;text-overflow:ellipsis}
.head>.enter,.head>.note{margin-left:1em}
details.call>summary:hover{background:var(--bg)}
details.call>:not(summary){margin-left:1.3em;border-left:1px dotted #b8c0cc;padding-left:4px}
.enter{color:#0b5cad}.fn{font-weight:600}
.model{background:var(--aut);color:#fff;border-radius:3px;padding:0 4px;font-size:10.5px;font-family:system-ui,sans-serif}
.sl{display:flex;align-items:baseline}.sl .no{flex:none;min-width:5.4em;text-align:right;padding-right:10px;color:var(--mute)}
.sl>.c{flex:none}
.sl.on{background:#e8f1fd}.sl.on .no{color:#0b5cad;font-weight:600}.sl.err{background:var(--err)}
.ann{flex:1 1 auto;min-width:16em;margin-left:2.5em;color:#0b6b3a;font-size:11.5px;font-style:italic;white-space:normal}
.ann a{font-style:normal;margin-right:3px}
.gap>summary,.skip{color:var(--mute);font-style:italic;padding:3px 0 3px 5.4em;font-size:12px}
.gap>summary{cursor:pointer}.skip{border-top:1px dashed var(--line);border-bottom:1px dashed var(--line);margin:2px 0}
";

/// Lines of context shown around each line the path passes.
const CONTEXT: u32 = 3;
/// Gaps between shown lines up to this long are folded (expandable);
/// longer ones are skipped.
const FOLDED_GAP: u32 = 40;

/// The module's source for a trace page.
pub(super) enum Source {
    Found {
        path: PathBuf,
        text: String,
    },
    /// Not found (or not readable) at any of these paths.
    Missing {
        tried: Vec<PathBuf>,
    },
}

impl Source {
    /// The source of a results line's module: its `path` (verify's input),
    /// its `file` under `--source-root`, as given, beside the results file,
    /// and under each directory above its property files (a manifest's root
    /// holds the sets' `ALL.prp`).
    pub(super) fn find(line: &Map<String, Value>, input: &Input) -> Source {
        let str_of = |k: &str| line.get(k).and_then(Value::as_str);
        let mut tried: Vec<PathBuf> = Vec::new();
        if let Some(p) = str_of("path") {
            tried.push(PathBuf::from(p));
        }
        if let Some(file) = str_of("file").filter(|f| !f.is_empty()) {
            if let Some(root) = input.source_root {
                tried.push(root.join(file));
            }
            tried.push(PathBuf::from(file));
            if let Some(dir) = input.results.parent() {
                tried.push(dir.join(file));
            }
            let prps = line.get("prp").and_then(Value::as_array);
            for prp in prps.into_iter().flatten().filter_map(Value::as_str) {
                for dir in Path::new(prp).ancestors().skip(1) {
                    if !dir.as_os_str().is_empty() {
                        tried.push(dir.join(file));
                    }
                }
            }
        }
        tried.dedup();
        for p in &tried {
            if let Ok(text) = std::fs::read(p) {
                let text = String::from_utf8_lossy(&text).into_owned();
                return Source::Found {
                    path: p.clone(),
                    text,
                };
            }
        }
        Source::Missing { tried }
    }
}

/// Whether a step is the module's own: not the synthetic start function's
/// (global initialisers) and not an automaton's operation.
fn shown(s: &CexStep) -> bool {
    s.kind != StepKind::Woven && !hidden(s)
}

/// [`shown`] for a step of a results line.
pub(super) fn in_module(s: &Value) -> bool {
    let str_of = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or("");
    str_of("kind") != "woven"
        && str_of("function") != START_FUNCTION
        && s.get("input_line").and_then(Value::as_u64).unwrap_or(0) != 0
}

/// Consecutive steps of one call on one source line.
struct Row {
    line: u32,
    steps: Vec<usize>,
}

/// A call of a function with a body: its entry step, its steps, whether it
/// is shown unfolded.
struct Call {
    enter: usize,
    items: Vec<Item>,
    open: bool,
}

enum Item {
    Row(Row),
    Call(Call),
}

/// The path's steps as rows nested by calls (without the synthetic start
/// function's steps: global initialisers and the automata's initial values).
fn build(steps: &[CexStep]) -> Vec<Item> {
    // Open calls: their entry step and items so far; the bottom is the path's top level.
    let mut stack: Vec<(Option<usize>, Vec<Item>)> = vec![(None, Vec::new())];
    for (i, s) in steps.iter().enumerate() {
        let woven = s.kind == StepKind::Woven;
        if hidden(s) {
            // An automaton's move there (at the program's exit) is shown
            // at the last row.
            if !s.automata.is_empty() {
                if let Some(r) = stack.last_mut().and_then(|l| last_row(&mut l.1)) {
                    r.steps.push(i);
                }
            }
            continue;
        }
        if s.kind == StepKind::Return && stack.len() > 1 {
            close_call(&mut stack);
        }
        if s.kind == StepKind::Enter {
            stack.push((Some(i), Vec::new()));
            continue;
        }
        let level = stack.len() - 1;
        // An automaton's operation belongs to the step before it (at an entry: the caller's).
        let at = if woven && stack[level].1.is_empty() && level > 0 {
            level - 1
        } else {
            level
        };
        let items = &mut stack[at].1;
        match items.last_mut() {
            Some(Item::Row(r)) if woven || r.line == s.input_line => r.steps.push(i),
            _ => items.push(Item::Row(Row {
                line: s.input_line,
                steps: vec![i],
            })),
        }
    }
    while stack.len() > 1 {
        close_call(&mut stack);
    }
    let mut items = stack.pop().map(|(_, items)| items).unwrap_or_default();
    let error = steps.iter().rposition(shown);
    for item in &mut items {
        mark_open(item, steps, error);
    }
    items
}

/// The last row of `items`, inside the last call if they end with one.
fn last_row(items: &mut [Item]) -> Option<&mut Row> {
    match items.last_mut()? {
        Item::Row(r) => Some(r),
        Item::Call(c) => last_row(&mut c.items),
    }
}

/// A step of the synthetic start function (global initialisers, the
/// automata's initial values, the call of the entry function), or one
/// without a line in the input file.
fn hidden(s: &CexStep) -> bool {
    s.function == START_FUNCTION || s.input_line == 0
}

/// Ends the innermost open call: it becomes an item of its caller.
fn close_call(stack: &mut Vec<(Option<usize>, Vec<Item>)>) {
    let (enter, items) = stack.pop().expect("an open call");
    let call = Call {
        enter: enter.expect("only the top level has no entry"),
        items,
        open: false,
    };
    stack
        .last_mut()
        .expect("the top level")
        .1
        .push(Item::Call(call));
}

/// Unfolds the calls holding an automaton operation or move or the error's step;
/// returns whether `item` holds one (or is the error's call).
fn mark_open(item: &mut Item, steps: &[CexStep], error: Option<usize>) -> bool {
    match item {
        Item::Row(r) => r.steps.iter().any(|&i| {
            Some(i) == error || steps[i].kind == StepKind::Woven || !steps[i].automata.is_empty()
        }),
        Item::Call(c) => {
            let mut open = false;
            for it in &mut c.items {
                open |= mark_open(it, steps, error);
            }
            c.open = open;
            open || Some(c.enter) == error
        }
    }
}

/// What rendering the path gathers for the source pane: per line, the rows
/// (their first step) passing it and their notes.
type Marks = BTreeMap<u32, Vec<(usize, String)>>;

/// The steps' shared context while rendering.
struct Ctx<'a> {
    steps: &'a [CexStep],
    lines: Vec<&'a str>,
    /// The last step of the module's code ([`shown`]): the error's step.
    error_step: Option<usize>,
    /// The id (first step) of the path row holding the error's step, once rendered.
    error_row: Option<usize>,
    message: &'a str,
    marks: Marks,
}

impl Ctx<'_> {
    fn source_line(&self, line: u32) -> Option<&str> {
        let l = self.lines.get((line as usize).checked_sub(1)?)?;
        Some(l.trim())
    }

    /// The code shown for a step: its source line, else mpv's operation.
    fn code(&self, i: usize) -> String {
        let s = &self.steps[i];
        self.source_line(s.input_line)
            .filter(|l| !l.is_empty())
            .map_or_else(|| s.op.clone(), str::to_string)
    }
}

/// A function name as shown on the path: LDV's model functions marked.
fn function_name(f: &str) -> String {
    if f.starts_with("ldv_") {
        format!(
            "<span class=\"fn\">{}</span> <span class=\"model\">model</span>",
            escape(f)
        )
    } else {
        format!("<span class=\"fn\">{}</span>", escape(f))
    }
}

fn render_items(out: &mut String, items: &[Item], ctx: &mut Ctx) {
    for item in items {
        match item {
            Item::Row(r) => render_row(out, r, ctx),
            Item::Call(c) => render_call(out, c, ctx),
        }
    }
}

/// A call: its line as a foldable head, its steps inside. A call can be
/// the error's step itself (an entry into LDV's error function).
fn render_call(out: &mut String, c: &Call, ctx: &mut Ctx) {
    let s = &ctx.steps[c.enter];
    let callee = s.callee.as_deref().unwrap_or("?");
    let is_error = ctx.error_step == Some(c.enter);
    let _ = writeln!(
        out,
        "<details class=\"call\"{}><summary id=\"s{}\"{}><span class=\"head\">{}\
         <span class=\"code\">{}</span><span class=\"enter\">→ {}</span>\
         <span class=\"note\">{} steps</span></span></summary>",
        if c.open { " open" } else { "" },
        c.enter + 1,
        if is_error { " class=\"err\"" } else { "" },
        ctx.step_head(s.input_line, c.enter),
        escape(&ctx.code(c.enter)),
        function_name(callee),
        count_steps(&c.items)
    );
    let mut mark = format!("enter {callee}");
    if is_error {
        ctx.error_row = Some(c.enter);
        mark = format!("{mark} ✗ {}", ctx.message);
    }
    ctx.marks
        .entry(s.input_line)
        .or_default()
        .push((c.enter, mark));
    render_items(out, &c.items, ctx);
    out.push_str("</details>\n");
    if is_error {
        let _ = writeln!(out, "<div class=\"errmsg\">✗ {}</div>", escape(ctx.message));
    }
}

fn count_steps(items: &[Item]) -> usize {
    items
        .iter()
        .map(|it| match it {
            Item::Row(r) => r.steps.len(),
            Item::Call(c) => 1 + count_steps(&c.items),
        })
        .sum()
}

impl Ctx<'_> {
    /// The line (a link to it in the source, when there is one) and the
    /// step number at the head of a path row.
    fn step_head(&self, line: u32, step: usize) -> String {
        let n = step + 1;
        if line as usize <= self.lines.len() {
            format!("<a class=\"ln\" href=\"#L{line}\">{line}</a><span class=\"sn\">#{n}</span>")
        } else {
            format!("<span class=\"ln\">{line}</span><span class=\"sn\">#{n}</span>")
        }
    }
}

fn render_row(out: &mut String, r: &Row, ctx: &mut Ctx) {
    let first = r.steps[0];
    let program: Vec<usize> = r
        .steps
        .iter()
        .copied()
        .filter(|&i| ctx.steps[i].kind != StepKind::Woven && !hidden(&ctx.steps[i]))
        .collect();
    let notes: Vec<String> = program
        .iter()
        .filter_map(|&i| step_note(&ctx.steps[i]))
        .collect();
    let is_error = ctx.error_step.is_some_and(|e| r.steps.contains(&e));
    let class = if is_error { "row err" } else { "row" };
    if is_error {
        ctx.error_row = Some(first);
    }
    let code_step = program.first().copied().unwrap_or(first);
    let ops: Vec<&str> = program.iter().map(|&i| ctx.steps[i].op.as_str()).collect();
    let _ = write!(
        out,
        "<div class=\"{class}\" id=\"s{}\">{}<span class=\"code\" title=\"{}\">{}</span>",
        first + 1,
        ctx.step_head(r.line, first),
        escape(&ops.join("  ")),
        escape(&ctx.code(code_step))
    );
    if !notes.is_empty() {
        let _ = write!(
            out,
            " <span class=\"val\">{}</span>",
            escape(&notes.join("; "))
        );
    }
    out.push_str("</div>\n");
    for &i in r
        .steps
        .iter()
        .filter(|&&i| ctx.steps[i].kind == StepKind::Woven)
    {
        let _ = writeln!(
            out,
            "<div class=\"aut\">automaton: {}</div>",
            escape_woven(&ctx.steps[i])
        );
    }
    for m in r.steps.iter().flat_map(|&i| &ctx.steps[i].automata) {
        let _ = writeln!(
            out,
            "<div class=\"aut\">automaton <b>{}</b>: {} → <b>{}</b></div>",
            escape(&m.automaton),
            escape(&m.from),
            escape(&m.to)
        );
    }
    let mut mark = notes.join("; ");
    if is_error {
        let _ = writeln!(out, "<div class=\"errmsg\">✗ {}</div>", escape(ctx.message));
        mark = format!("{} ✗ {}", mark, ctx.message).trim().to_string();
    }
    ctx.marks.entry(r.line).or_default().push((first, mark));
}

/// An automaton's operation as shown on the path: `x ← v` for an
/// assignment with its value (the operation in its title), `assume [c]`
/// for an assume, else the operation.
fn escape_woven(s: &CexStep) -> String {
    match (&s.values, s.op.split_once(" = ")) {
        (Some(v), Some((lhs, _))) => format!(
            "<b title=\"{}\">{}</b> ← {}",
            escape(&s.op),
            escape(lhs),
            escape(v)
        ),
        _ if s.op.starts_with('[') => format!("assume {}", escape(&s.op)),
        _ => escape(&s.op),
    }
}

/// The automata's variables: their values before the program starts and
/// at the error (from the operations the path records).
fn automaton_table(out: &mut String, steps: &[CexStep]) {
    let mut vars: BTreeMap<&str, (Option<&str>, Option<&str>, usize)> = BTreeMap::new();
    for s in steps {
        if s.kind != StepKind::Woven {
            continue;
        }
        let (Some((lhs, _)), Some(v)) = (s.op.split_once(" = "), s.values.as_deref()) else {
            continue;
        };
        let e = vars.entry(lhs.trim()).or_insert((None, None, 0));
        // The start function's operations (no line) set the initial values.
        if s.input_line == 0 {
            e.0 = Some(v);
        } else {
            e.2 += 1;
        }
        e.1 = Some(v);
    }
    if vars.is_empty() {
        return;
    }
    out.push_str(
        "<details class=\"meta\"><summary>specification automata: variables along the path</summary>\
         <table><thead><tr><th>variable</th><th class=\"num\">at start</th>\
         <th class=\"num\">at the error</th><th class=\"num\">changes</th></tr></thead><tbody>\n",
    );
    // Variables the path changes first.
    let mut rows: Vec<_> = vars.into_iter().collect();
    rows.sort_by_key(|(_, (_, _, n))| std::cmp::Reverse(*n > 0));
    for (name, (at_start, at_end, changes)) in rows {
        let _ = writeln!(
            out,
            "<tr{}><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            if changes > 0 {
                " class=\"changed\""
            } else {
                ""
            },
            escape(name),
            escape(at_start.unwrap_or("-")),
            escape(at_end.unwrap_or("-")),
            changes
        );
    }
    out.push_str("</tbody></table></details>\n");
}

/// The page of one FALSE result: a header (the property, its error, the
/// task, the expected verdict, the assumptions, the automata's variables)
/// over the error path and the source.
pub(super) fn page(
    task: &TaskRow,
    p: &Map<String, Value>,
    judgement: Option<&Judgement>,
    source: &Source,
) -> String {
    let str_of = |k: &str| p.get(k).and_then(Value::as_str);
    let id = str_of("id").unwrap_or("");
    let message = str_of("message").unwrap_or("(no error message recorded)");
    let cex: Option<Counterexample> = p
        .get("counterexample")
        .filter(|c| !c.is_null())
        .and_then(|c| serde_json::from_value(c.clone()).ok());
    let mut out = String::from("<header class=\"top\">\n");
    let _ = writeln!(
        out,
        "<a href=\"../index.html\">← all results</a>\
         <h1><span class=\"v-false\">FALSE</span> {}: {}</h1>",
        escape(id),
        escape(message)
    );
    let work = p.get("work_s").and_then(Value::as_f64).unwrap_or(0.0);
    let _ = writeln!(
        out,
        "<p class=\"sub\">{} · set {} · {} · {:.2} s of work · {}</p>",
        escape(&task.file),
        escape(&task.set),
        expectation(judgement),
        work,
        cex.as_ref().map_or_else(String::new, |c| {
            let n = c.steps.iter().filter(|s| shown(s)).count();
            format!("{n} steps in the module's code, {} in all", c.steps.len())
        })
    );
    let (body, jumps) = match &cex {
        Some(c) => panes(c, source, message),
        None => (
            "<main><p class=\"missing\">This result records no counterexample.</p></main>\n"
                .to_string(),
            String::new(),
        ),
    };
    out.push_str("<div class=\"metas\">");
    if !jumps.is_empty() {
        let _ = write!(out, "<div>go to {jumps}</div>");
    }
    match source {
        Source::Found { path, .. } => {
            let _ = write!(
                out,
                "<div>source: <code>{}</code></div>",
                escape(&path.display().to_string())
            );
        }
        Source::Missing { .. } => out.push_str(
            "<div class=\"missing\">The module's source was not found: the path shows mpv's \
             operations instead of source lines.</div>",
        ),
    }
    if let Some(reason) = str_of("reason") {
        let _ = write!(out, "<div>{}</div>", escape(reason));
    }
    if let Some(c) = &cex {
        meta_lists(&mut out, c, p);
    }
    out.push_str("</div></header>\n");
    out.push_str(&body);
    super::page(&format!("{id} FALSE: {}", task.file), STYLE, &out)
}

/// The assumptions the path rests on, the witnesses, the automata's variables.
fn meta_lists(out: &mut String, c: &Counterexample, p: &Map<String, Value>) {
    if !c.assumptions.is_empty() {
        let _ = write!(
            out,
            "<details><summary>feasible under {} assumption(s)</summary><ul>",
            c.assumptions.len()
        );
        for a in &c.assumptions {
            let _ = write!(out, "<li>{}</li>", escape(a));
        }
        out.push_str("</ul></details>");
    }
    let witnesses = p.get("witnesses").and_then(Value::as_array);
    let witnesses: Vec<&str> = witnesses
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !witnesses.is_empty() {
        let _ = write!(
            out,
            "<details><summary>{} witness file(s)</summary><ul>",
            witnesses.len()
        );
        for w in witnesses {
            let _ = write!(out, "<li><code>{}</code></li>", escape(w));
        }
        out.push_str("</ul></details>");
    }
    automaton_table(out, &c.steps);
}

/// The error path and the source side by side.
fn panes(c: &Counterexample, source: &Source, message: &str) -> (String, String) {
    let text = match source {
        Source::Found { text, .. } => text.as_str(),
        Source::Missing { .. } => "",
    };
    let items = build(&c.steps);
    let mut ctx = Ctx {
        steps: &c.steps,
        lines: text.lines().collect(),
        error_step: c.steps.iter().rposition(shown),
        error_row: None,
        message,
        marks: Marks::new(),
    };
    let mut out = String::from(
        "<div class=\"split\">\n<section class=\"pane\" id=\"path\"><h2>error path</h2>\n",
    );
    render_items(&mut out, &items, &mut ctx);
    out.push_str("</section>\n<section class=\"pane\" id=\"src\"><h2>source</h2>\n");
    match source {
        Source::Found { .. } => source_pane(&mut out, &ctx),
        Source::Missing { tried } => {
            out.push_str("<p class=\"missing\">Not found at any of these paths:</p><ul>");
            for t in tried {
                let t = escape(&t.display().to_string());
                let _ = write!(out, "<li><code>{t}</code></li>");
            }
            out.push_str("</ul>\n");
        }
    }
    out.push_str("</section>\n</div>\n");
    // Links that scroll each pane to the error.
    let mut jumps = String::new();
    if let Some(row) = ctx.error_row {
        let _ = write!(jumps, "<a href=\"#s{}\">the error on the path</a>", row + 1);
    }
    let line = ctx.error_step.map_or(0, |e| c.steps[e].input_line);
    if line >= 1 && line as usize <= ctx.lines.len() {
        let _ = write!(jumps, " · <a href=\"#L{line}\">in the source</a>");
    }
    (out, jumps)
}

/// The source lines the path passes, with context; other lines folded or skipped.
fn source_pane(out: &mut String, ctx: &Ctx) {
    let n = ctx.lines.len() as u32;
    let error_line = ctx.error_step.map(|e| ctx.steps[e].input_line);
    // Shown ranges of lines, merged.
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &l in ctx.marks.keys().filter(|&&l| l >= 1 && l <= n) {
        let (a, b) = (l.saturating_sub(CONTEXT).max(1), (l + CONTEXT).min(n));
        match ranges.last_mut() {
            Some(r) if a <= r.1 + 1 => r.1 = r.1.max(b),
            _ => ranges.push((a, b)),
        }
    }
    let mut next = 1;
    for &(a, b) in &ranges {
        gap(out, ctx, next, a - 1);
        for l in a..=b {
            source_line(out, ctx, l, error_line == Some(l));
        }
        next = b + 1;
    }
    gap(out, ctx, next, n);
    let beyond = ctx.marks.keys().filter(|&&l| l > n).count();
    if beyond > 0 {
        let _ = writeln!(
            out,
            "<p class=\"missing\">{beyond} line(s) of the path lie beyond the file's {n} lines: \
             the file changed since the run?</p>"
        );
    }
}

/// Lines `a..=b` not near the path: folded when few, else skipped.
fn gap(out: &mut String, ctx: &Ctx, a: u32, b: u32) {
    if a > b {
        return;
    }
    let count = b - a + 1;
    if count <= FOLDED_GAP {
        let _ = writeln!(
            out,
            "<details class=\"gap\"><summary>⋯ lines {a}–{b}</summary>"
        );
        for l in a..=b {
            source_line(out, ctx, l, false);
        }
        out.push_str("</details>\n");
    } else {
        let _ = writeln!(
            out,
            "<div class=\"skip\">⋯ lines {a}–{b} ({count} lines) are not on the path</div>"
        );
    }
}

/// Annotations shown on one source line at most.
const MARKS_SHOWN: usize = 4;

fn source_line(out: &mut String, ctx: &Ctx, l: u32, is_error: bool) {
    let text = ctx.lines.get(l as usize - 1).copied().unwrap_or("");
    let marks = ctx.marks.get(&l);
    let class = match (is_error, marks.is_some()) {
        (true, _) => "sl err",
        (false, true) => "sl on",
        _ => "sl",
    };
    let _ = write!(
        out,
        "<div class=\"{class}\" id=\"L{l}\"><a class=\"no\" href=\"#L{l}\">{l}</a><span class=\"c\">{}</span>",
        escape(text)
    );
    if let Some(marks) = marks {
        out.push_str("<span class=\"ann\">");
        for (step, note) in marks.iter().take(MARKS_SHOWN) {
            let _ = write!(
                out,
                "<a href=\"#s{}\">#{}</a>{} ",
                step + 1,
                step + 1,
                escape(note)
            );
        }
        if marks.len() > MARKS_SHOWN {
            let _ = write!(out, "(passed {} times)", marks.len());
        }
        out.push_str("</span>");
    }
    out.push_str("</div>\n");
}
