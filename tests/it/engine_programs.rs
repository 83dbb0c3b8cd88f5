//! Small C programs with known verdicts through bounded symbolic execution
//! on the exact bit-vector encoding (`algorithm::symexec::check_label` of the
//! label `ERROR`): every program of `tests/programs/engine/` whose `expect:`
//! comment has a `symexec=` entry gives one of the verdicts it names (or,
//! for `error`, is refused by the front end); a redefinition is refused with
//! an error naming both definitions.

use std::path::Path;

use mpv::algorithm::symexec::check_label;
use mpv::frontend::{parse_file, FrontendOptions};

use crate::common;

/// The verdict of symbolic execution on the program at `path` (20 s at
/// most), or `error` when the front end refuses it.
fn symexec(path: &Path) -> (&'static str, Option<String>) {
    let options = FrontendOptions {
        entry: "main".into(),
        ..FrontendOptions::default()
    };
    match parse_file(path, &options) {
        Ok(p) => {
            let r = check_label(&p, "ERROR", Some(std::time::Duration::from_secs(20)));
            (common::verdict_word(r.verdict), r.reason)
        }
        Err(e) => ("error", Some(e.to_string())),
    }
}

#[test]
fn every_program_gives_its_expected_verdict() {
    let programs = common::test_programs("engine", &["symexec", "cegar"]);
    let mut checked = 0;
    let mut failures = Vec::new();
    for prog in &programs {
        let Some(want) = prog.expected("symexec") else {
            continue;
        };
        let (got, why) = symexec(&prog.path);
        if !want.admits(got) {
            failures.push(format!(
                "{}: expected {}, got {got} ({})",
                prog.name(),
                want.text(),
                why.unwrap_or_default()
            ));
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} programs with `symexec=`");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_second_definition_is_an_error_naming_both() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/engine");
    for (name, what, second, first) in [
        ("redefinition_unknown.c", "`main`", 8, 3),
        ("redefinition_global_unknown.c", "`g`", 7, 6),
    ] {
        let err = parse_file(&dir.join(name), &FrontendOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{name}: accepted"))
            .to_string();
        assert!(
            err.contains(&format!("{name}:{second}: redefinition of {what}"))
                && err.contains(&format!(
                    "first defined at {}:{first}",
                    dir.join(name).display()
                )),
            "{err}"
        );
    }
}
