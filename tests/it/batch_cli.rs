//! `mpv batch` and `mpv report` end to end on the small programs of
//! `tests/programs/batch`: task sources (directory, task definitions, both
//! manifest shapes), isolation (a child out of memory, a child killed by the
//! watchdog, a verify error), resuming after a torn line and after `kill -9`,
//! the report's correct/wrong counting, and witnesses under `--witness-dir`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/batch")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mpv-batch-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

fn mpv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mpv"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "mpv failed: {err}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn lines(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Result lines by key.
fn by_key(out: &Path) -> BTreeMap<String, serde_json::Value> {
    let v = lines(out);
    let n = v.len();
    let m: BTreeMap<String, serde_json::Value> = v
        .into_iter()
        .map(|l| (l["key"].as_str().unwrap().to_string(), l))
        .collect();
    assert_eq!(m.len(), n, "one line per task");
    m
}

fn single_batch(out: &Path, extra: &[&str]) -> Output {
    let mut a = vec![
        "batch",
        "--manifest",
        s(&dir().join("single.tsv")).to_string().leak(),
        "--out",
        s(out).to_string().leak(),
        "--time-limit",
        "10",
        "--jobs",
        "2",
    ];
    a.extend_from_slice(extra);
    mpv(&a)
}

#[test]
fn directory_of_modules() {
    let out = tmp("dir.jsonl");
    let mods = dir().join("mods");
    ok(&mpv(&[
        "batch",
        s(&mods),
        "--prp",
        s(&dir().join("error.prp")),
        "--out",
        s(&out),
        "--time-limit",
        "10",
    ]));
    let m = by_key(&out);
    assert_eq!(m.len(), 4);
    let get = |name: &str| {
        m.values()
            .find(|l| l["file"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("no line for {name}"))
    };
    let t = get("dead_error_true.c");
    assert_eq!(t["status"], "ok");
    assert_eq!(t["properties"][0]["verdict"], "true");
    assert_eq!(t["expected"][0]["verdict"], "true", "from the file name");
    assert_eq!(t["set"], "mods");
    assert!(t["cpu_s"].as_f64().unwrap() > 0.0);
    assert!(t["peak_mem_mb"].as_f64().unwrap() > 1.0);
    assert!(t["wall_s"].is_number());
    assert!(
        t["stats"]["reached_states"].is_number(),
        "verify's JSON is kept"
    );
    assert_eq!(
        get("reachable_error_false.c")["properties"][0]["verdict"],
        "false"
    );
    let bad = get("syntax_error.c");
    assert_eq!(bad["status"], "error");
    assert!(
        bad["status_detail"]
            .as_str()
            .unwrap()
            .contains("syntax_error.c:2:"),
        "{bad}"
    );
    assert_eq!(bad["properties"], serde_json::json!([]));

    let text = ok(&mpv(&["report", s(&out), "--fail-on-wrong"]));
    assert!(text.contains("wrong verdicts: 0"), "{text}");
    assert!(text.contains("status: error 1, ok 3"), "{text}");

    // Without --resume an existing results file is refused.
    let again = mpv(&[
        "batch",
        s(&mods),
        "--prp",
        s(&dir().join("error.prp")),
        "--out",
        s(&out),
    ]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
}

#[test]
fn witnesses_of_decided_tasks_go_under_the_task_directory() {
    let out = tmp("witness.jsonl");
    let wdir = tmp("witnesses");
    let _ = std::fs::remove_dir_all(&wdir);
    ok(&single_batch(&out, &["--witness-dir", s(&wdir)]));
    let mut written = 0;
    for l in lines(&out) {
        for p in l["properties"].as_array().into_iter().flatten() {
            let ws: Vec<&str> = p["witnesses"]
                .as_array()
                .map(|a| a.iter().filter_map(|w| w.as_str()).collect())
                .unwrap_or_default();
            // Two violation witnesses for FALSE, a correctness witness for TRUE.
            let expected = match p["verdict"].as_str() {
                Some("false") => 2,
                Some("true") => 1,
                _ => 0,
            };
            assert_eq!(ws.len(), expected, "{p}");
            if p["verdict"] == "true" {
                assert!(ws[0].ends_with(".correctness.yml"), "{p}");
            }
            let task_dir = Path::new(l["file"].as_str().unwrap()).parent().unwrap();
            for w in ws {
                assert!(Path::new(w).starts_with(wdir.join(task_dir)), "{w}");
                assert!(Path::new(w).is_file(), "{w}");
                written += 1;
            }
        }
    }
    assert!(written > 0, "the manifest has FALSE tasks");
    let _ = std::fs::remove_dir_all(&wdir);
}

#[test]
fn task_definitions() {
    let out = tmp("yml.jsonl");
    ok(&mpv(&["batch", s(&dir().join("yml")), "--out", s(&out)]));
    let m = by_key(&out);
    assert_eq!(m.len(), 3, "one of them under ILP32 (options: data_model)");
    for l in m.values() {
        assert_eq!(l["status"], "ok", "{l}");
        assert_eq!(l["expected"][0]["rule"], "error");
        assert_eq!(l["expected"][0]["property"], "label:ERROR");
        let want = l["expected"][0]["verdict"].clone();
        assert_eq!(l["properties"][0]["verdict"], want, "{l}");
    }
    assert!(m.keys().all(|k| k.contains(".yml|")));
}

#[test]
fn single_manifest_and_report_counts() {
    let out = tmp("single.jsonl");
    ok(&single_batch(&out, &[]));
    let m = by_key(&out);
    assert_eq!(m.len(), 4);
    let l = &m["mods/reachable_error_false.c|43_1a|error.prp"];
    assert_eq!(l["rule"], "43_1a");
    assert_eq!(l["file"], "mods/reachable_error_false.c");
    assert_eq!(l["expected"][0]["verdict"], "false");
    assert_eq!(
        m["mods/reachable_error_false.c|-|error.prp"]["set"],
        "other"
    );

    let csv = ok(&mpv(&[
        "report",
        s(&out),
        "--format",
        "csv",
        "--fail-on-wrong",
    ]));
    // 4 verdicts: 2 correct TRUE, 1 correct FALSE, 1 unconfirmed FALSE.
    assert!(
        csv.lines().any(|l| l == "total,,4,2,2,0,2,1,0,0,1,5"),
        "{csv}"
    );
    assert!(
        csv.lines().any(|l| l == "rule,32_1,2,2,0,0,2,0,0,0,0,4"),
        "{csv}"
    );

    // Against a manifest that disagrees: one wrong TRUE, one wrong FALSE.
    let wrong = dir().join("wrong.tsv");
    let r = mpv(&[
        "report",
        s(&out),
        "--expected",
        s(&wrong),
        "--fail-on-wrong",
    ]);
    assert_eq!(r.status.code(), Some(2));
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("wrong verdicts: 2"), "{text}");
    assert!(text.contains("mods/dead_error_true.c"), "{text}");
    let md = ok(&mpv(&[
        "report",
        s(&out),
        "--expected",
        s(&wrong),
        "--format",
        "markdown",
    ]));
    // total: +2 (guarded TRUE) -32 (wrong TRUE) -16 (wrong FALSE).
    assert!(
        md.contains("| total | 4 | 2 | 2 | 0 | 1 | 0 | 1 | 1 | 1 | -46 |"),
        "{md}"
    );
}

#[test]
fn multi_manifest_records_expected_verdicts_per_rule() {
    let out = tmp("multi.jsonl");
    ok(&mpv(&[
        "batch",
        "--manifest",
        s(&dir().join("multi.tsv")),
        "--out",
        s(&out),
    ]));
    let m = by_key(&out);
    let l = m.values().next().unwrap();
    assert_eq!(l["set"], "rev");
    assert_eq!(l["properties"][0]["id"], "label:LDV_ERROR");
    let e = l["expected"].as_array().unwrap();
    assert_eq!(e.len(), 2, "68_1 is `-`: {l}");
    assert_eq!(e[0]["rule"], "08_1a");
    assert_eq!(e[0]["property"], "label:LDV_ERROR");
    assert_eq!(e[1]["rule"], "32_1");
    assert!(e[1]["property"].is_null());
    let csv = ok(&mpv(&["report", s(&out), "--format", "csv"]));
    assert!(
        csv.lines().any(|l| l == "rule,08_1a,1,1,0,0,1,0,0,0,0,2"),
        "{csv}"
    );
    assert!(
        csv.lines().any(|l| l == "rule,32_1,1,1,0,0,1,0,0,0,0,2"),
        "32_1 is checked with the library's rule (no mutex: TRUE)\n{csv}"
    );
    let ids: Vec<&str> = l["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["label:LDV_ERROR", "32_1"],
        "the instrumented rule is the label, the others LDV checked come from the library (68_1 is `-`)"
    );
}

#[test]
fn a_memory_limit_of_zero_is_an_error() {
    let out = tmp("zero-memory.jsonl");
    let o = single_batch(&out, &["--memory-limit", "0"]);
    assert!(!o.status.success(), "no child could run in 0 MB");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`0` is not a number of megabytes (at least 1)"),
        "{err}"
    );
    assert!(!out.exists(), "nothing ran");
}

#[test]
fn failing_children_cost_only_their_task() {
    // Too little memory to run at all: every task says so, the batch goes on.
    let out = tmp("oom.jsonl");
    ok(&single_batch(&out, &["--memory-limit", "40"]));
    let m = by_key(&out);
    assert_eq!(m.len(), 4);
    for l in m.values() {
        assert_eq!(l["status"], "out_of_memory", "{l}");
    }
    // The watchdog kills children that overrun the wall-clock limit.
    let out = tmp("wall.jsonl");
    ok(&single_batch(&out, &["--wall-limit", "0.001"]));
    for l in by_key(&out).values() {
        assert_eq!(l["status"], "timeout", "{l}");
        assert_eq!(l["exit"]["watchdog"], true);
    }
    // Options after `--` reach verify; a bad one is that task's error.
    let out = tmp("args.jsonl");
    ok(&single_batch(&out, &["--", "--select", "label:ERROR"]));
    assert!(by_key(&out).values().all(|l| l["status"] == "ok"));
    let out = tmp("badarg.jsonl");
    ok(&single_batch(&out, &["--", "--no-such-option"]));
    for l in by_key(&out).values() {
        assert_eq!(l["status"], "error", "{l}");
        assert!(
            l["status_detail"]
                .as_str()
                .unwrap()
                .contains("--no-such-option")
                || l["stderr"].as_str().unwrap().contains("--no-such-option"),
            "{l}"
        );
    }
}

#[test]
fn resume_after_a_torn_line() {
    let out = tmp("torn.jsonl");
    ok(&single_batch(&out, &[]));
    let full = std::fs::read_to_string(&out).unwrap();
    let complete: Vec<&str> = full.lines().collect();
    assert_eq!(complete.len(), 4);
    // Two complete lines and half of the third, as a kill mid-write leaves it.
    let torn = format!(
        "{}\n{}\n{}",
        complete[0],
        complete[1],
        &complete[2][..complete[2].len() / 2]
    );
    std::fs::write(&out, &torn).unwrap();
    let r = single_batch(&out, &["--resume"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(
        err.contains("2 run now") && err.contains("2 already in"),
        "{err}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with(&format!("{}\n{}\n", complete[0], complete[1])));
    assert_eq!(by_key(&out).len(), 4);
    // Resuming a finished batch runs nothing.
    let r = single_batch(&out, &["--resume"]);
    assert!(String::from_utf8_lossy(&r.stderr).contains("0 run now"));
    assert_eq!(by_key(&out).len(), 4);
}

#[test]
fn resume_after_kill_9() {
    // Twelve tasks (the three modules under distinct rules, so distinct keys).
    let m = tmp("many.tsv");
    let mut text = String::from("set\ttask\trule\tproperty_file\texpected\n");
    for i in 0..12 {
        let f = [
            "dead_error_true.c",
            "reachable_error_false.c",
            "guarded_error_true.c",
        ][i % 3];
        text += &format!(
            "s{}\tmods/{f}\tr{i}\terror.prp\t{}\n",
            i % 2,
            if f.contains("false") { "false" } else { "true" }
        );
    }
    std::fs::write(&m, text).unwrap();
    let out = tmp("kill.jsonl");
    let args = |resume: bool| {
        let mut a = vec![
            "batch".to_string(),
            "--manifest".into(),
            s(&m).into(),
            "--root".into(),
            s(&dir()).into(),
            "--out".into(),
            s(&out).into(),
            "--jobs".into(),
            "2".into(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .args(args(false))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it as soon as some, not all, results are in.
    let start = std::time::Instant::now();
    loop {
        let n = std::fs::read_to_string(&out)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n >= 3 || start.elapsed().as_secs() > 60 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = std::fs::read_to_string(&out).unwrap();
    let r = mpv(&args(true).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let after = by_key(&out);
    assert_eq!(after.len(), 12, "exactly one line per task");
    let kept = before.rfind('\n').map_or(0, |i| i + 1);
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with(&before[..kept]));
    let report = ok(&mpv(&["report", s(&out), "--fail-on-wrong"]));
    assert!(report.contains("wrong verdicts: 0"), "{report}");
}

/// A scratch directory with `dead_error_true.c` and the property file.
fn scratch(name: &str) -> PathBuf {
    let d = tmp(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(
        dir().join("mods/dead_error_true.c"),
        d.join("dead_error_true.c"),
    )
    .unwrap();
    d
}

#[test]
fn results_files_that_are_not_regular_files_are_refused() {
    let prp = dir().join("error.prp");
    let module = dir().join("mods/dead_error_true.c");
    for out in ["/dev/full", "/dev/null"] {
        if !Path::new(out).exists() {
            continue;
        }
        let o = mpv(&["batch", s(&module), "--prp", s(&prp), "--out", out]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("not a regular file"),
            "{err}"
        );
    }
    let fifo = tmp("fifo.jsonl");
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        let o = mpv(&["batch", s(&module), "--prp", s(&prp), "--out", s(&fifo)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("not a regular file"),
            "{err}"
        );
        let o = mpv(&["verify", s(&fifo), "--prp", s(&prp)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("not a regular file"),
            "{err}"
        );
    }
}

#[test]
fn a_directory_scan_enters_each_directory_once_and_names_each_file_once() {
    let d = scratch("loops");
    std::os::unix::fs::symlink(&d, d.join("up")).unwrap();
    std::os::unix::fs::symlink(&d, d.join("again")).unwrap();
    let prp = dir().join("error.prp");
    let out = tmp("loops.jsonl");
    let o = mpv(&["batch", s(&d), "--prp", s(&prp), "--out", s(&out)]);
    ok(&o);
    assert_eq!(by_key(&out).len(), 1, "{:?}", by_key(&out).keys());
    // `x.c` and `./x.c` are one task.
    let out = tmp("dot.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .current_dir(&d)
        .args(["batch", "dead_error_true.c", "./dead_error_true.c", "--prp"])
        .arg(&prp)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(by_key(&out).len(), 1);
}

#[test]
fn a_scanned_task_definition_with_nothing_to_check_is_left_out_with_a_warning() {
    let d = scratch("memsafety");
    std::fs::write(
        d.join("mem.prp"),
        "CHECK( init(main()), LTL(G valid-free) )\n",
    )
    .unwrap();
    std::fs::write(
        d.join("mem.yml"),
        "format_version: '2.0'\ninput_files: dead_error_true.c\nproperties:\n  - property_file: mem.prp\n    expected_verdict: true\n",
    )
    .unwrap();
    std::fs::copy(dir().join("error.prp"), d.join("error.prp")).unwrap();
    std::fs::write(
        d.join("dead.yml"),
        "format_version: '2.0'\ninput_files: dead_error_true.c\nproperties:\n  - property_file: error.prp\n    expected_verdict: true\n",
    )
    .unwrap();
    let out = tmp("memsafety.jsonl");
    let o = mpv(&["batch", s(&d), "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    ok(&o);
    assert!(err.contains("mem.yml") && err.contains("left out"), "{err}");
    assert_eq!(by_key(&out).len(), 1);
}

#[test]
fn resuming_with_other_limits_is_refused() {
    let prp = dir().join("error.prp");
    let module = dir().join("mods/dead_error_true.c");
    let out = tmp("config.jsonl");
    ok(&mpv(&[
        "batch",
        s(&module),
        "--prp",
        s(&prp),
        "--out",
        s(&out),
        "--time-limit",
        "5",
    ]));
    let o = mpv(&[
        "batch",
        s(&module),
        "--prp",
        s(&prp),
        "--out",
        s(&out),
        "--time-limit",
        "9",
        "--resume",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--time-limit"), "{err}");
    let o = mpv(&[
        "batch",
        s(&module),
        "--prp",
        s(&prp),
        "--out",
        s(&out),
        "--time-limit",
        "5",
        "--resume",
        "--",
        "--strategy",
        "s0",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("verify arguments"),
        "{err}"
    );
    ok(&mpv(&[
        "batch",
        s(&module),
        "--prp",
        s(&prp),
        "--out",
        s(&out),
        "--time-limit",
        "5",
        "--resume",
    ]));
}

/// `mpv batch` under a shell whose hard limits lie below what it would give
/// each task: an error naming the limit before any task runs.
#[test]
fn limits_above_the_shells_hard_limits_are_refused_before_the_batch_starts() {
    let run = |ulimit: &str, limits: &str| {
        let out = tmp(&format!("ulimit-{}.jsonl", ulimit.replace(' ', "")));
        let script = format!(
            "ulimit {ulimit} && exec {} batch --manifest {} --out {} {limits}",
            env!("CARGO_BIN_EXE_mpv"),
            s(&dir().join("single.tsv")),
            s(&out)
        );
        let o = Command::new("sh").args(["-c", &script]).output().unwrap();
        (o, out)
    };
    let (o, out) = run("-v 3000000", "--memory-limit 4000 --time-limit 5");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--memory-limit 4000 MB") && err.contains("ulimit -H -v"),
        "{err}"
    );
    assert!(!out.exists(), "no task ran");
    let (o, _) = run("-t 10", "--time-limit 20");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("ulimit -H -t"), "{err}");
    // Within the limits the batch runs.
    let (o, out) = run("-v 3000000", "--memory-limit 2000 --time-limit 5");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!lines(&out).is_empty());
}
