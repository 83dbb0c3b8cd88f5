//! Tests of the HTML report: escaping, one page per FALSE result, links
//! that resolve, nothing fetched from the network, the source beside the path.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::*;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mpv-html-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn step(line: u32, function: &str, kind: &str, op: &str, extra: Value) -> Value {
    let mut s = json!({"file": "m.c", "line": line, "function": function, "op": op,
                       "values": null, "kind": kind, "input_line": line, "input_column": 3});
    for (k, v) in extra.as_object().unwrap() {
        s[k] = v.clone();
    }
    s
}

/// A path through `main` → `probe` (an automaton operation inside) and
/// `helper` (none), ending at line 9.
fn counterexample() -> Value {
    let steps = vec![
        step(
            0,
            "",
            "woven",
            "mutex::locked = 0;",
            json!({"values": "0", "input_line": 0}),
        ),
        enter_probe(),
        step(
            4,
            "probe",
            "call",
            "r = nondet();",
            json!({"callee": "nondet", "values": "4294967295", "value_c": "-1"}),
        ),
        step(5, "probe", "assume", "[r < 0]", json!({"branch": true})),
        step(
            6,
            "probe",
            "enter",
            "enter helper",
            json!({"callee": "helper"}),
        ),
        step(2, "helper", "assign", "return 0;", json!({"values": "0"})),
        step(
            6,
            "probe",
            "return",
            "return from helper: helper();",
            json!({"callee": "helper"}),
        ),
        step(
            8,
            "probe",
            "call",
            "mutex_lock(&m);",
            json!({"callee": "mutex_lock",
                   "automata": [{"automaton": "mutex<1>", "from": "Unlocked", "to": "Locked"}]}),
        ),
        step(8, "", "woven", "mutex::locked = 1;", json!({"values": "1"})),
        step(
            9,
            "probe",
            "call",
            "mutex_lock(&m);",
            json!({"callee": "mutex_lock",
                   "automata": [{"automaton": "mutex<1>", "from": "Locked", "to": "Double"}]}),
        ),
    ];
    json!({"property": "32_1", "steps": steps, "assumptions": ["LDV's <assumption> & more"]})
}

const SOURCE: &str = "int helper(void) {\n  return 0;\n}\nint probe(void) { int r = nondet();\n  if (r < 0 && 1 > 0)\n    helper();\n  /* <tag> & 'q' */\n  mutex_lock(&m);\n  mutex_lock(&m);\n  return 0;\n}\nint main(void) { probe(); }\n";

fn line(
    file: &str,
    path: Option<&Path>,
    props: Value,
    expected: Value,
) -> (usize, Map<String, Value>) {
    let mut v = json!({"key": format!("{file}|-|ALL.prp"), "file": file, "set": "s<1>",
                       "rule": null, "status": "ok", "cpu_s": 1.5, "wall_s": 1.6,
                       "peak_mem_mb": 30.0, "properties": props, "expected": expected});
    if let Some(p) = path {
        v["path"] = json!(p.display().to_string());
    }
    (1, v.as_object().unwrap().clone())
}

fn lines(dir: &Path) -> Vec<(usize, Map<String, Value>)> {
    let src = dir.join("m.c");
    std::fs::write(&src, SOURCE).unwrap();
    let false_prop = |id: &str| {
        json!({"id": id, "verdict": "false", "reason": null, "relevant": true, "work_s": 0.25,
               "message": "mutex locked <twice>", "counterexample": counterexample()})
    };
    vec![
        line(
            "a/m.c",
            Some(&src),
            json!([false_prop("32_1"), {"id": "label:ERROR", "verdict": "true"}]),
            json!([{"rule": "32_1", "property": null, "verdict": "false"}]),
        ),
        line(
            "b/gone.c",
            None,
            json!([false_prop("label:ERROR")]),
            json!([{"rule": "08_1a", "property": "label:ERROR", "verdict": "true"}]),
        ),
        line(
            "c/t.c",
            None,
            json!([{"id": "32_1", "verdict": "true"}]),
            json!([]),
        ),
    ]
}

fn write_report(dir: &Path) -> Written {
    let lines = lines(dir);
    let report = Report::from_lines("r.jsonl", &lines, None);
    let results = dir.join("r.jsonl");
    let input = Input {
        report: &report,
        lines: &lines,
        results: &results,
        source_root: None,
        slowest: 5,
        plots: vec![Plot {
            title: "a plot".into(),
            svg: "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"></svg>".into(),
        }],
    };
    write(&dir.join("html"), &input).unwrap()
}

/// The `href` values of a page.
fn links(page: &str) -> Vec<String> {
    page.split("href=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn escapes_text_and_attributes() {
    assert_eq!(
        escape("<a href=\"x\">&'</a>"),
        "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
    );
    assert_eq!(escape("plain ünïcode"), "plain ünïcode");
    assert_eq!(file_part("label:ERROR"), "label_ERROR");
}

#[test]
fn one_page_per_false_result_and_every_link_resolves() {
    let dir = tmp("pages");
    let w = write_report(&dir);
    assert_eq!(w.traces, 2);
    assert_eq!(w.missing_sources, 1);
    let html = dir.join("html");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(html.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pages.sort();
    assert_eq!(pages.len(), 2, "{pages:?}");
    pages.push(w.index.clone());
    for p in &pages {
        let text = std::fs::read_to_string(p).unwrap();
        for forbidden in ["http://", "https://", "<script", "<link", "@import", "url("] {
            assert!(!text.contains(forbidden), "{}: {forbidden}", p.display());
        }
        for l in links(&text) {
            let (file, fragment) = l.split_once('#').unwrap_or((&l, ""));
            let target = if file.is_empty() {
                p.clone()
            } else {
                p.parent().unwrap().join(file)
            };
            assert!(
                target.is_file(),
                "{}: link {l} to a missing file",
                p.display()
            );
            if !fragment.is_empty() {
                let t = std::fs::read_to_string(&target).unwrap();
                assert!(
                    t.contains(&format!("id=\"{fragment}\"")),
                    "{}: no #{fragment}",
                    p.display()
                );
            }
        }
    }
    let index = std::fs::read_to_string(&w.index).unwrap();
    assert!(index.contains("traces/0001-32_1.html"), "{index}");
    assert!(index.contains("traces/0002-label_ERROR.html"), "{index}");
    assert!(index.contains("s&lt;1&gt;"), "the set is escaped");
    assert!(index.contains("mutex locked &lt;twice&gt;"));
    assert!(index.contains("<svg width=\"10\""), "the plot is inline");
    for table in [
        "per set",
        "per rule",
        "FALSE results: 2",
        "wrong verdicts: 1",
    ] {
        assert!(index.contains(table), "{table}");
    }
}

#[test]
fn a_trace_page_shows_the_source_beside_the_path() {
    let dir = tmp("trace");
    write_report(&dir);
    let page = std::fs::read_to_string(dir.join("html/traces/0001-32_1.html")).unwrap();
    // The source, escaped, with the path's lines marked and the error line set off.
    assert_shows(
        &page,
        &[
            "/* &lt;tag&gt; &amp; &#39;q&#39; */",
            "<div class=\"sl err\" id=\"L9\">",
            "<div class=\"sl on\" id=\"L5\">",
        ],
    );
    // Values, branches, calls, the automaton's operation and its variables.
    assert_shows(
        &page,
        &[
            "nondet() = -1",
            "condition true",
            "<b title=\"mutex::locked = 1;\">mutex::locked</b> ← 1",
            "✗ mutex locked &lt;twice&gt;",
        ],
    );
    // The automaton's control states, where they change.
    for (from, to) in [("Unlocked", "Locked"), ("Locked", "Double")] {
        let shown = format!("automaton <b>mutex&lt;1&gt;</b>: {from} → <b>{to}</b>");
        assert_shows(&page, &[&shown]);
    }
    assert_shows(&page, &["LDV&#39;s &lt;assumption&gt; &amp; more"]);
    // probe holds the automaton's operation: unfolded; helper does not: folded.
    assert_shows(
        &page,
        &[
            "<details class=\"call\" open><summary id=\"s2\">",
            "<details class=\"call\"><summary id=\"s5\">",
            "expected false <span class=\"badge o-correct\">",
        ],
    );
    let missing = std::fs::read_to_string(dir.join("html/traces/0002-label_ERROR.html")).unwrap();
    assert!(missing.contains("source was not found"), "{missing}");
    assert!(missing.contains("b/gone.c"), "the paths tried are listed");
    assert!(
        missing.contains("<span class=\"badge o-wrong\">"),
        "{missing}"
    );
}

#[test]
fn long_gaps_are_skipped_and_short_ones_folded() {
    let mut text = String::new();
    for i in 1..=200 {
        text.push_str(&format!("line {i}\n"));
    }
    let steps = vec![
        step(20, "main", "assign", "x = 1;", json!({"values": "1"})),
        step(50, "main", "assign", "y = 2;", json!({"values": "2"})),
        step(150, "main", "call", "f();", json!({"callee": "f"})),
    ];
    let page = only_trace_page("gaps", &text, "p", steps);
    assert_shows(
        &page,
        &[
            "<summary>⋯ lines 1–16</summary>",
            "<summary>⋯ lines 24–46</summary>",
            "lines 54–146 (93 lines) are not on the path",
            "lines 154–200 (47 lines) are not on the path",
        ],
    );
    assert!(!page.contains(">line 100<"), "skipped lines are left out");
    assert!(page.contains(">line 20<"));
}

/// The trace page of a report (in the test directory `name`) of one module
/// Asserts that `page` holds every one of `parts` (the page is printed
/// when one is missing).
fn assert_shows(page: &str, parts: &[&str]) {
    for part in parts {
        assert!(page.contains(part), "no {part:?} in:\n{page}");
    }
}

/// with the text `source` and one FALSE property `id` whose path is `steps`.
fn only_trace_page(name: &str, source: &str, id: &str, steps: Vec<Value>) -> String {
    let dir = tmp(name);
    let src = dir.join("m.c");
    std::fs::write(&src, source).unwrap();
    let cex = json!({"property": id, "steps": steps});
    let lines = vec![line(
        "m.c",
        Some(&src),
        json!([{"id": id, "verdict": "false", "counterexample": cex}]),
        json!([]),
    )];
    let report = Report::from_lines("r", &lines, None);
    let input = Input {
        report: &report,
        lines: &lines,
        results: &dir.join("r.jsonl"),
        source_root: None,
        slowest: 1,
        plots: Vec::new(),
    };
    write(&dir.join("html"), &input).unwrap();
    let page = format!("html/traces/0001-{}.html", id.replace(':', "_"));
    std::fs::read_to_string(dir.join(page)).unwrap()
}

/// `main` entering `probe` at line 12.
fn enter_probe() -> Value {
    step(
        12,
        "main",
        "enter",
        "enter probe",
        json!({"callee": "probe"}),
    )
}

#[test]
fn an_error_at_a_function_entry_is_marked_and_its_callers_unfolded() {
    let steps = vec![
        enter_probe(),
        step(
            6,
            "probe",
            "enter",
            "enter helper",
            json!({"callee": "helper"}),
        ),
    ];
    let page = only_trace_page("entry", SOURCE, "label:ERROR", steps);
    assert_shows(
        &page,
        &[
            "<details class=\"call\" open><summary id=\"s1\">",
            "<summary id=\"s2\" class=\"err\">",
            "<a href=\"#s2\">the error on the path</a>",
            "<div class=\"sl err\" id=\"L6\">",
            "(no error message recorded)",
        ],
    );
}

#[test]
fn an_automaton_move_at_the_programs_exit_shows_in_the_last_row() {
    // The exit (a step of the start function) has no row of its own: its
    // move goes to the last row, inside the last call, which unfolds.
    let steps = vec![
        enter_probe(),
        step(10, "probe", "assign", "return 0;", json!({})),
        step(
            0,
            crate::cfa::START_FUNCTION,
            "return",
            "return from main",
            json!({"input_line": 0,
                   "automata": [{"automaton": "a", "from": "Held", "to": "Leak<ed>"}]}),
        ),
    ];
    let page = only_trace_page("exit-move", SOURCE, "p", steps);
    assert_shows(
        &page,
        &[
            "automaton <b>a</b>: Held → <b>Leak&lt;ed&gt;</b>",
            "<details class=\"call\" open><summary id=\"s1\">",
        ],
    );
    assert!(!page.contains("return from main"), "{page}");
}
