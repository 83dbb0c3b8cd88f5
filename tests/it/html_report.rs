//! `mpv report --html` end to end: a batch over two SV-COMP programs (one
//! FALSE, one TRUE), then the HTML report of its results: an index and one
//! trace page showing the FALSE program's source with the error path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mpv(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "mpv {args:?} failed: {err}");
    o
}

#[test]
fn the_html_report_of_a_batch_shows_the_false_result_beside_its_source() {
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/witness");
    let dir: PathBuf = std::env::temp_dir().join(format!("mpv-html-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let results = dir.join("r.jsonl");
    let p = |f: &str| programs.join(f).display().to_string();
    mpv(&[
        "batch",
        &p("reach_error_false.c"),
        &p("reach_error_true.c"),
        "--prp",
        &p("unreach-call.prp"),
        "--out",
        results.to_str().unwrap(),
        "--jobs",
        "1",
        "--time-limit",
        "20",
    ]);
    let html = dir.join("html");
    let o = mpv(&[
        "report",
        results.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("and 1 trace pages"), "{err}");
    let index = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(index.contains("FALSE results: 1"), "{index}");
    assert!(
        index.contains("expected false <span class=\"badge o-correct\">"),
        "{index}"
    );
    let pages: Vec<PathBuf> = std::fs::read_dir(html.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(pages.len(), 1, "{pages:?}");
    let page = std::fs::read_to_string(&pages[0]).unwrap();
    // The call of reach_error is the error, on line 24 of the source.
    assert!(page.contains("<div class=\"sl err\" id=\"L24\">"), "{page}");
    assert!(page.contains("reach_error();"), "{page}");
    assert!(
        page.contains("__VERIFIER_nondet_int() = "),
        "the model's inputs: {page}"
    );
    assert!(page.contains("→ <span class=\"fn\">check</span>"), "{page}");
    for text in [&index, &page] {
        assert!(!text.contains("http://") && !text.contains("https://"));
        assert!(!text.contains("<script"));
    }
}
