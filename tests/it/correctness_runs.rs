//! Correctness witnesses checked by running the programs: every invariant
//! mpv writes for a TRUE program of `tests/programs/witness` becomes a
//! check at its place (before each evaluation of the loop condition, or
//! where control reaches the label), the program is compiled with gcc and
//! run with many nondeterministic inputs, and no check may fail. A
//! deliberately false invariant shows that the checks run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One invariant of a witness: its type, place and value.
struct Invariant {
    kind: String,
    line: usize,
    column: usize,
    value: String,
}

fn invariants(text: &str) -> Vec<Invariant> {
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).unwrap();
    let content = doc[0]["content"].as_sequence().unwrap();
    content
        .iter()
        .map(|i| {
            let inv = &i["invariant"];
            let loc = &inv["location"];
            Invariant {
                kind: inv["type"].as_str().unwrap().to_string(),
                line: loc["line"].as_u64().unwrap() as usize,
                column: loc["column"].as_u64().unwrap() as usize,
                value: inv["value"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

/// `source` with a check of each invariant at its place: inside the
/// condition of a `while`/`for` (before each evaluation), at the start of
/// a `do` body, after a label.
fn instrument(source: &str, invs: &[Invariant]) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut at: Vec<(usize, usize, &Invariant)> = invs
        .iter()
        .enumerate()
        .map(|(n, i)| (starts[i.line - 1] + i.column - 1, n, i))
        .collect();
    at.sort_by_key(|(o, _, _)| std::cmp::Reverse(*o));
    let mut out = source.to_string();
    for (offset, n, inv) in at {
        let check = format!("__mpv_check({}, {n})", inv.value);
        let rest = &out[offset..];
        let (pos, text) = if inv.kind == "location_invariant" {
            (offset + rest.find(':').unwrap() + 1, format!(" {check};"))
        } else if rest.starts_with("while") {
            (offset + rest.find('(').unwrap() + 1, format!("{check}, "))
        } else if rest.starts_with("do") {
            (offset + rest.find('{').unwrap() + 1, format!(" {check};"))
        } else {
            assert!(rest.starts_with("for"), "a loop_invariant at {rest:.20}");
            let open = rest.find('(').unwrap();
            let mut depth = 0;
            let semi = rest[open..]
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    c == ';' && depth == 1
                })
                .unwrap()
                .0;
            let after = offset + open + semi + 1;
            match out[after..].trim_start().starts_with(';') {
                true => (after, format!(" {check}, 1")),
                false => (after, format!(" {check}, ")),
            }
        };
        out.insert_str(pos, &text);
    }
    format!("{PRELUDE}{out}{APPENDIX}")
}

const PRELUDE: &str =
    "int __mpv_broken(int n);\n#define __mpv_check(e, n) ((e) ? 0 : __mpv_broken(n))\n";

const APPENDIX: &str = r#"
#include <stdio.h>
#include <stdlib.h>
int __mpv_broken(int n) { printf("broken %d\n", n); exit(3); }
int __VERIFIER_nondet_int(void) { return rand() % 21 - 10; }
unsigned int __VERIFIER_nondet_uint(void) { return (unsigned int)(rand() % 21); }
__attribute__((constructor)) static void __mpv_seed(void) { srand(atoi(getenv("MPV_SEED"))); }
"#;

/// Compiles `source` into `dir`; `None` without gcc.
fn compile(source: &str, dir: &Path, name: &str) -> Option<PathBuf> {
    let c = dir.join(format!("{name}.c"));
    let bin = dir.join(name);
    std::fs::write(&c, source).unwrap();
    let out = match Command::new("gcc")
        .args(["-w", "-O0", "-o"])
        .arg(&bin)
        .arg(&c)
        .output()
    {
        Ok(o) => o,
        Err(_) => return None,
    };
    assert!(
        out.status.success(),
        "{name}: {}\n{source}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(bin)
}

/// Runs `bin` with seeds `0..runs`: the first output of a broken check.
fn broken(bin: &Path, runs: u32) -> Option<String> {
    (0..runs).find_map(|seed| {
        let o = Command::new(bin)
            .env("MPV_SEED", seed.to_string())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.code().is_some(),
            "{}: seed {seed}: a signal",
            bin.display()
        );
        said.contains("broken")
            .then(|| format!("seed {seed}: {said}"))
    })
}

fn witness_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs/witness")
}

#[test]
fn every_invariant_holds_on_runs_of_its_program() {
    let dir = std::env::temp_dir().join(format!("mpv-correctness-runs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut programs: Vec<PathBuf> = std::fs::read_dir(witness_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("_true.c"))
        .collect();
    programs.sort();
    let mut checked = 0;
    for input in &programs {
        let j = crate::witness_cli::verify(input, &dir.join("w"));
        let p = &j["properties"][0];
        assert_eq!(p["verdict"], "true", "{}", input.display());
        let text = std::fs::read_to_string(p["witnesses"][0].as_str().unwrap()).unwrap();
        let invs = invariants(&text);
        let source = std::fs::read_to_string(input).unwrap();
        let name = input.file_stem().unwrap().to_string_lossy().into_owned();
        let Some(bin) = compile(&instrument(&source, &invs), &dir, &name) else {
            eprintln!("SKIPPED: no gcc to run the programs");
            return;
        };
        if let Some(b) = broken(&bin, 200) {
            panic!(
                "{}: an invariant does not hold: {b}\n{text}",
                input.display()
            );
        }
        checked += invs.len();
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked >= 4, "{checked} invariants checked");
    eprintln!(
        "{checked} invariants of {} programs held on 200 runs each",
        programs.len()
    );
}

#[test]
fn a_false_invariant_is_caught_by_the_runs() {
    let dir = std::env::temp_dir().join(format!("mpv-correctness-false-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "counting_loop_true.c",
            "loop_invariant",
            "for (i = 0",
            "i < 10",
        ),
        (
            "flag_loops_true.c",
            "location_invariant",
            "again:",
            "busy == 1",
        ),
        (
            "flag_loops_true.c",
            "loop_invariant",
            "while (",
            "rounds == 4U",
        ),
    ];
    for (file, kind, place, value) in cases {
        let input = witness_dir().join(file);
        let source = std::fs::read_to_string(&input).unwrap();
        let line = source.lines().position(|l| l.contains(place)).unwrap();
        let column = source
            .lines()
            .nth(line)
            .unwrap()
            .find(|c: char| !c.is_whitespace())
            .unwrap();
        let inv = Invariant {
            kind: kind.into(),
            line: line + 1,
            column: column + 1,
            value: value.into(),
        };
        let Some(bin) = compile(&instrument(&source, &[inv]), &dir, "wrong") else {
            eprintln!("SKIPPED: no gcc to run the programs");
            return;
        };
        assert!(
            broken(&bin, 50).is_some(),
            "{file}: `{value}` at {place} is false"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
