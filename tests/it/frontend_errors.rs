//! Clear errors for bad C input: syntax errors at the input file's own
//! line and column and the header line `#line` maps them to, GNU
//! constructs the parser does not know named where they are, garbage in
//! text pruning leaves out rejected, and the GNU forms mpv accepts (a
//! byte-order mark, thread-local storage) parsed.

use std::path::{Path, PathBuf};
use std::process::Command;

use mpv::frontend::{parse_source, parse_source_timed, FrontendOptions};

fn prog(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/frontend/errors")
        .join(name)
}

/// `mpv cfa FILE`: whether it succeeded, and its standard error.
fn cfa(file: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("cfa")
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn error(src: &str) -> String {
    parse_source("t.c", src, &FrontendOptions::default())
        .map(|_| "accepted".to_string())
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn a_syntax_error_names_the_input_position_and_the_header_line() {
    let (ok, err) = cfa(&prog("header_syntax_error.i"));
    assert!(!ok);
    assert!(
        err.contains("header_syntax_error.i:7:1 (from include/linux/foo.h:5): syntax error:"),
        "{err}"
    );
    // Without `#line` directives, the input position alone.
    let e = error("int main(void) {\n  return 0\n}\n");
    assert!(e.starts_with("t.c:3:1: syntax error:"), "{e}");
}

#[test]
fn constructs_the_parser_does_not_know_are_named() {
    let (ok, err) = cfa(&prog("int128.c"));
    assert!(!ok);
    assert!(
        err.contains("int128.c:1:18: unsupported construct: 128-bit integer type `__int128`"),
        "{err}"
    );
    assert!(err.contains("64 bits"), "{err}");
    let e = error("int main(void) {\n  void *p = 0;\n  goto *p;\n}\n");
    assert!(
        e.starts_with("t.c:3:3: unsupported construct: computed goto"),
        "{e}"
    );
    let e =
        error("int main(void) {\n  int twice(int x) { return 2 * x; }\n  return twice(1);\n}\n");
    assert!(
        e.starts_with("t.c:2:7: unsupported construct: nested function"),
        "{e}"
    );
    assert!(e.contains("file scope"), "{e}");
    let e = error("int main(void) {\n  void *p = &&out;\nout:\n  return 0;\n}\n");
    assert!(e.contains("label address `&&label`"), "{e}");
}

#[test]
fn garbage_in_text_pruning_leaves_out_is_an_error() {
    let (ok, err) = cfa(&prog("garbage_after_main.c"));
    assert!(!ok, "a compiler rejects the file");
    assert!(err.contains("garbage_after_main.c:6:"), "{err}");
    assert!(err.contains("syntax error"), "{err}");
    // Well-formed unreachable text is still left out unparsed.
    let src = "static int dead(int x) { return x + 1; }\nint main(void) { return 0; }\n";
    let (p, times) = parse_source_timed("t.c", src, &FrontendOptions::default()).unwrap();
    assert!(times.pruned_bytes > 0 && !times.prune_fell_back);
    assert!(p.func_by_name("dead").is_none());
}

#[test]
fn a_byte_order_mark_and_thread_local_storage_are_accepted() {
    let (ok, err) = cfa(&prog("bom_thread_local.c"));
    assert!(ok, "{err}");
    let src = "\u{feff}static __thread int n;\n_Thread_local int m;\nint main(void) { n = 1; m = n; return m; }\n";
    let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
    let globals: Vec<&str> = p
        .vars
        .iter()
        .filter(|v| v.scope == mpv::ir::Scope::Global)
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(globals, ["n", "m"], "thread-local variables are globals");
    // The mark is not part of line 1's columns.
    let e = error("\u{feff}int main(void) { return 0 }\n");
    assert!(e.starts_with("t.c:1:27: syntax error"), "{e}");
}

#[test]
fn bit_field_widths_are_checked_as_compilers_check_them() {
    let with = |field: &str| {
        error(&format!(
            "struct s {{ {field}; int x; }};\nstruct s g;\nint main(void) {{ return g.x; }}"
        ))
    };
    for bad in [
        "unsigned int a : 33",
        "int a : 0",
        "int a : -1",
        "char a : 9",
    ] {
        let e = with(bad);
        assert!(e.contains("bit-field width"), "{bad}: {e}");
    }
    for good in [
        "unsigned int a : 32",
        "int : 0",
        "char a : 8",
        "unsigned int a : 1",
    ] {
        assert_eq!(with(good), "accepted", "{good}");
    }
}
