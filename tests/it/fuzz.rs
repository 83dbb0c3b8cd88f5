//! mpv neither panics nor crashes on broken input, end to end through the
//! `mpv` binary: fixed-seed mutants of real inputs — the C programs of
//! `tests/programs/`, a few `.i` modules of the LDV corpus when it is there,
//! the bundled rules (`properties/*.spec`) and CPAchecker automata (the
//! `.spc` files of `../shared/reference/cpachecker-ldv-spc`) — with bytes
//! flipped, token ranges deleted or duplicated, numerals and identifiers
//! swapped, the text truncated, and hostile constructs inserted (deep
//! nesting, `__int128`, `goto *p`, nested functions, `__thread`, a UTF-8
//! byte-order mark, garbage after `main`, very long string literals and
//! identifiers, huge numerals, constant division by zero, ...).
//!
//! A C mutant runs as `mpv verify MUTANT --prp LABEL.prp --time-limit 2`, a
//! rule mutant as `mpv spec check MUTANT`. A run passes when it ends by
//! itself within a wall-clock guard (a multiple of the time limit: a hang,
//! not a slow run), not by a signal nor with exit code 101, without
//! `panicked` or `RUST_BACKTRACE` on standard error, and, when it fails,
//! with an `error:` line saying why. Every offending mutant is saved with the
//! command that reproduces it under `target/tmp/fuzz-failures/` and listed.
//!
//! The test runs a small sample; `cargo bench --bench fuzz` runs
//! `MPV_FUZZ_N` cases (`benches/fuzz.rs`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::common::{self, Rng};

/// The seed of the test's sample (the bench takes `MPV_FUZZ_SEED`).
pub const SEED: u64 = 0x5EED_F022_0000_0034;

/// `--time-limit` of `mpv verify` on a C mutant, in seconds.
const TIME_LIMIT: u64 = 2;

/// The wall-clock guard of one run: far beyond the time limit even on a
/// loaded machine, so only a run that ignores its limit reaches it.
const GUARD: Duration = Duration::from_secs(30 * TIME_LIMIT);

/// Failures of the test's sample that are known mpv bugs not fixed yet:
/// the case, a text its standard error shows, and the bug. Such a case is
/// reported but does not fail the test; a listed case that no longer fails
/// that way does (remove its entry).
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A C module: `mpv verify`.
    C,
    /// A rule file (`.spec`, `.spc`): `mpv spec check`.
    Rule,
}

/// A real input the mutants are made of.
pub struct Input {
    pub path: PathBuf,
    pub kind: Kind,
    /// The property file a C input is verified against.
    pub prp: Option<PathBuf>,
    pub text: Vec<u8>,
}

/// The inputs by origin.
pub struct Inputs {
    /// `tests/programs/**/*.c`.
    pub programs: Vec<Input>,
    /// `.i` modules of the LDV corpus (none when it is not there).
    pub corpus: Vec<Input>,
    /// `properties/*.spec` and the CPAchecker `.spc` files.
    pub rules: Vec<Input>,
}

/// How many cases of each origin a run makes.
pub struct Plan {
    pub programs: usize,
    pub corpus: usize,
    pub rules: usize,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

fn input(path: PathBuf, kind: Kind, prp: Option<PathBuf>) -> Input {
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Input {
        path,
        kind,
        prp,
        text,
    }
}

/// The inputs, with `corpus_files` `.i` modules of at most 300 KB from
/// `single.tsv` (a fixed-seed choice) when the corpus is there.
pub fn inputs(corpus_files: usize) -> Inputs {
    let label = root().join("tests/programs/engine/error.prp");
    let mut c = Vec::new();
    files_under(&root().join("tests/programs"), "c", &mut c);
    c.sort();
    let programs = c
        .into_iter()
        .map(|p| input(p, Kind::C, Some(label.clone())))
        .collect();
    let mut corpus = Vec::new();
    if corpus_files > 0 && common::corpus_available() {
        let dir = common::corpus_dir();
        let mut rows = common::manifest("single.tsv");
        rows.retain(|r| r.len() > 3 && r[1].ends_with(".i"));
        rows.sort_by_key(|r| common::seeded_hash(&r[1], SEED));
        for r in rows {
            if corpus.len() == corpus_files {
                break;
            }
            let path = dir.join(&r[1]);
            if std::fs::metadata(&path).is_ok_and(|m| m.len() <= 300_000) {
                corpus.push(input(path, Kind::C, Some(dir.join(&r[3]))));
            }
        }
    }
    let mut r = Vec::new();
    files_under(&root().join("properties"), "spec", &mut r);
    files_under(
        &root().join("../shared/reference/cpachecker-ldv-spc"),
        "spc",
        &mut r,
    );
    r.sort();
    let rules = r.into_iter().map(|p| input(p, Kind::Rule, None)).collect();
    Inputs {
        programs,
        corpus,
        rules,
    }
}

/// One mutant: its id (`c17`: case 17 of the test programs, `m` corpus
/// modules, `r` rules), what it is made of and the generator that makes it.
pub struct Case<'a> {
    pub id: String,
    pub input: &'a Input,
    seed: u64,
}

/// The cases of `plan`: case `i` of an origin is the same mutant of the same
/// input whatever the plan's size (for a given seed and set of inputs).
pub fn cases<'a>(inputs: &'a Inputs, plan: &Plan, seed: u64) -> Vec<Case<'a>> {
    let mut out = Vec::new();
    for (prefix, from, n) in [
        ("c", &inputs.programs, plan.programs),
        ("m", &inputs.corpus, plan.corpus),
        ("r", &inputs.rules, plan.rules),
    ] {
        if from.is_empty() {
            continue;
        }
        for i in 0..n {
            let id = format!("{prefix}{i}");
            let case_seed = common::seeded_hash(&id, seed) | 1;
            let mut rng = Rng(case_seed);
            let input = &from[rng.below(from.len())];
            out.push(Case {
                id,
                input,
                seed: rng.next() | 1,
            });
        }
    }
    out
}

// ---------------------------------------------------------------- mutation

/// Token spans `[start, end)` covering the text: identifier or number runs,
/// whitespace runs, string and character literals (to the end of the line
/// at most), single other bytes.
fn tokens(b: &[u8]) -> Vec<(usize, usize)> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let mut j = i + 1;
        if word(c) {
            while j < b.len() && word(b[j]) {
                j += 1;
            }
        } else if c.is_ascii_whitespace() {
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
        } else if c == b'"' || c == b'\'' {
            while j < b.len() && b[j] != c && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            j = (j + 1).min(b.len());
        }
        out.push((i, j));
        i = j;
    }
    out
}

/// Byte offsets where a statement may start (after `{` or `;` in a block
/// of code: a brace after `)`, `else`, `do`, `:` or another statement, not
/// a struct body or an initialiser) and where a top-level declaration may
/// (the start, the end, after `}` or `;` outside braces).
fn positions(b: &[u8], toks: &[(usize, usize)]) -> (Vec<usize>, Vec<usize>) {
    let (mut stmt, mut top) = (Vec::new(), vec![0, b.len()]);
    // Whether each open brace is a block of code.
    let mut braces: Vec<bool> = Vec::new();
    let mut prev: &[u8] = b";";
    for &(s, e) in toks {
        let t = &b[s..e];
        if t.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match t {
            b"{" => {
                let code = matches!(prev, b")" | b"else" | b"do" | b":" | b";" | b"{" | b"}")
                    && (!braces.is_empty() || prev == b")");
                braces.push(code);
                if code {
                    stmt.push(e);
                }
            }
            b"}" => {
                braces.pop();
                if braces.is_empty() {
                    top.push(e);
                }
            }
            b";" => match braces.last() {
                None => top.push(e),
                Some(true) => stmt.push(e),
                Some(false) => {}
            },
            _ => {}
        }
        prev = t;
    }
    (stmt, top)
}

const HUGE_NUMERALS: &[&str] = &[
    "99999999999999999999999999999999999999",
    "0x1ffffffffffffffffffffffffffffffff",
    "18446744073709551616",
    "-9223372036854775808",
    "0777777777777777777777777777777",
    "1e99999",
    "1e-99999",
    "0x1p99999",
    "0x",
    "1.5e",
    "0b102",
    "4294967296ULL",
    "1LLL",
    "'\\777'",
    "'\\x123456789'",
    "'abcde'",
    "L'\\U0010FFFF'",
];

/// What is appended after the end of an input.
const GARBAGE: &[&[u8]] = &[
    b" }}} @@@ $$$ garbage (((",
    b"\0\xff\xfe int",
    b"\nint main(void) {",
];

/// A size for nested or repeated constructs: small to very large.
fn size(rng: &mut Rng) -> usize {
    *rng.pick(&[8, 300, 5_000, 50_000])
}

/// A length for long literals and identifiers.
fn length(rng: &mut Rng) -> usize {
    *rng.pick(&[100, 10_000, 1_000_000])
}

/// A hostile statement for the inside of a function body.
fn c_statement(rng: &mut Rng) -> String {
    let n = size(rng);
    match rng.below(22) {
        0 => format!("int __fz0 = {}1{};", "(".repeat(n), ")".repeat(n)),
        1 => "{".repeat(n) + &"}".repeat(n),
        2 => "if (__VERIFIER_nondet_int()) ".repeat(n) + ";",
        3 => "if (__VERIFIER_nondet_int()) ; else ".repeat(n) + ";",
        4 => format!("int __fz1 = 1{};", "+1".repeat(n)),
        5 => format!("int __fz2 = {}1;", "!~-".repeat(n)),
        6 => "{ void *__fz_p = &&__fz_l; goto *__fz_p; __fz_l: ; }".into(),
        7 => "{ __int128 __fz_w = (__int128)1 << 100; unsigned __int128 __fz_u = __fz_w * __fz_w; \
              if ((long)(__fz_u >> 64) == 3) ; }"
            .into(),
        8 => "{ int __fz_inner(int a) { return a + 1; } __fz_inner(1); }".into(),
        9 => format!("{{ char *__fz_s = \"{}\"; }}", "A".repeat(length(rng))),
        10 => "{ int __fz_d = 1 / 0; int __fz_m = 1 % 0; int __fz_h = 1 << 200; \
               int __fz_o = (-2147483647 - 1) / -1; }"
            .into(),
        11 => "{ int __fz_v[__VERIFIER_nondet_int()]; __fz_v[0] = sizeof(__fz_v); }".into(),
        12 => "({ int __fz_x = 1; __fz_x; });".into(),
        13 => "switch (__VERIFIER_nondet_int()) { case 1 ... 3: break; case 2: break; \
               default: ; default: ; }"
            .into(),
        14 => "goto __fz_nowhere;".into(),
        15 => "ERROR: ; ERROR: ;".into(),
        16 => "return main();".into(),
        17 => "for (;;) ;".into(),
        18 => "*(int *)0 = 1; { int __fz_a[2]; __fz_a[1L << 40] = __fz_a[-1]; }".into(),
        19 => format!("{{ int {} = 0; }}", "x".repeat(length(rng))),
        20 => format!("{{ unsigned long __fz_n = {}; }}", rng.pick(HUGE_NUMERALS)),
        _ => "asm goto (\"jmp %l0\" :::: __fz_al); __fz_al: ; __builtin_unreachable();".into(),
    }
}

/// A hostile top-level declaration (or directive), and a statement that
/// uses what it declares (so that pruning does not leave it out).
fn c_declaration(rng: &mut Rng) -> (String, String) {
    let n = size(rng);
    let (decl, using): (String, &str) = match rng.below(24) {
        0 => ("__thread int __fz_t;".into(), "__fz_t = 1; if (__fz_t) ;"),
        1 => (
            "__int128 __fz_g; unsigned __int128 __fz_u = 0xffffffffffffffffffffffffffffffff;"
                .into(),
            "__fz_g = __fz_u;",
        ),
        2 => (
            "enum { __FZ_E = 1 / 0, __FZ_F = 1 << 99 };".into(),
            "{ long __fz_use = __FZ_E + __FZ_F; }",
        ),
        3 => (
            "int __fz_a[1 / 0]; int __fz_n[-1]; char __fz_big[1ULL << 62];".into(),
            "{ long __fz_use = sizeof(__fz_a) + sizeof(__fz_n); __fz_big[5] = 1; }",
        ),
        4 => (
            "struct __fz_b { int x : 99; int y : -1; };".into(),
            "{ struct __fz_b __fz_v; __fz_v.x = 1; }",
        ),
        5 => (
            "struct __fz_r { struct __fz_r r; };".into(),
            "{ struct __fz_r __fz_v; long __fz_use = sizeof(__fz_v); }",
        ),
        6 => (
            format!("int {}__fz_p;", "*".repeat(n)),
            "{ long __fz_use = (long)__fz_p; }",
        ),
        7 => (
            format!("int __fz_m{};", "[1]".repeat(n)),
            "{ long __fz_use = sizeof(__fz_m); }",
        ),
        8 => (
            format!("int {}__fz_q{};", "(".repeat(n), ")".repeat(n)),
            "__fz_q = 1;",
        ),
        9 => (
            format!(
                "struct __fz_n {{ {} int x; {} }};",
                "struct { ".repeat(n),
                "} a;".repeat(n)
            ),
            "{ struct __fz_n __fz_v; long __fz_use = sizeof(__fz_v); }",
        ),
        10 => ("int main;".into(), "main = 1;"),
        11 => ("int main(void) { return 0; }".into(), ""),
        12 => (
            rng.pick(&[
                "#line 0 \"\"",
                "#line 4294967296 \"big\"",
                "# 1 \"\\xff\" 3",
                "#pragma pack(0)",
                "#pragma pack(3)",
                "#include \"/dev/zero\"",
            ])
            .to_string(),
            "",
        ),
        13 => (
            rng.pick(&[
                "struct __attribute__((aligned(1L << 40))) __fz_al { int a; };",
                "struct __attribute__((aligned(0))) __fz_al { int a; };",
                "struct __attribute__((aligned(3))) __fz_al { int a; };",
            ])
            .to_string(),
            "{ struct __fz_al __fz_v; __fz_v.a = 1; long __fz_use = sizeof(__fz_v); }",
        ),
        14 => (
            format!(
                "const char *__fz_s = \"{}\";",
                "\\x41\\101\\n".repeat(length(rng) / 10)
            ),
            "{ long __fz_use = __fz_s[3]; }",
        ),
        15 => (
            format!("unsigned long __fz_n = {};", rng.pick(HUGE_NUMERALS)),
            "{ long __fz_use = __fz_n; }",
        ),
        16 => (
            "typedef int __fz_t; __fz_t __fz_t;".into(),
            "{ __fz_t __fz_v; }",
        ),
        17 => (
            "int __fz_f(int a, ...) { __builtin_va_list ap; __builtin_va_start(ap, a); \
             int r = __builtin_va_arg(ap, int); __builtin_va_end(ap); return r; }"
                .into(),
            "__fz_f(1, 2, 3);",
        ),
        18 => (
            "_Static_assert(0, \"no\"); _Complex double __fz_z;".into(),
            "__fz_z = __fz_z * __fz_z;",
        ),
        19 => (
            "int __fz_o __attribute__((vector_size(16)));".into(),
            "__fz_o = __fz_o + __fz_o;",
        ),
        20 => (
            "__typeof__(main) __fz_tm; static int __fz_i = sizeof(struct __fz_undefined);".into(),
            "{ long __fz_use = __fz_i; }",
        ),
        21 => (
            "int __fz_fn(void) { return __fz_fn(); }".into(),
            "__fz_fn();",
        ),
        22 => (
            "extern int __fz_x; int *__fz_px = &__fz_x + (1L << 62);".into(),
            "{ long __fz_use = *__fz_px; }",
        ),
        _ => {
            let name = "y".repeat(length(rng));
            return (format!("int {name};"), format!("{name} = 1;"));
        }
    };
    (decl, using.to_string())
}

/// A hostile piece of a rule file.
fn rule_snippet(rng: &mut Rng) -> String {
    let n = size(rng);
    match rng.below(9) {
        0 => "(".repeat(n),
        1 => "{".repeat(n) + &"}".repeat(n),
        2 => format!("({})", "!".repeat(n)),
        3 => format!("\"{}\"", "A".repeat(length(rng))),
        4 => rng.pick(HUGE_NUMERALS).to_string(),
        5 => "$99999999999999999999".into(),
        6 => "é".repeat(n),
        7 => "x".repeat(length(rng)),
        _ => "\0".into(),
    }
}

/// `b` with `what` inserted at byte `at`.
fn insert(b: &[u8], at: usize, what: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() + what.len());
    out.extend_from_slice(&b[..at]);
    out.extend_from_slice(what);
    out.extend_from_slice(&b[at..]);
    out
}

fn mutate_once(rng: &mut Rng, b: &[u8], kind: Kind) -> Vec<u8> {
    let toks = tokens(b);
    if toks.is_empty() {
        return c_declaration(rng).0.into_bytes();
    }
    let t = rng.below(toks.len());
    match rng.below(16) {
        // Flip bits or set bytes at a few places.
        0 | 1 => {
            let mut out = b.to_vec();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(out.len());
                if rng.below(2) == 0 {
                    out[i] ^= 1 << rng.below(8);
                } else {
                    out[i] = rng.next() as u8;
                }
            }
            out
        }
        // Delete a token range.
        2 | 3 => {
            let end = toks[(t + rng.below(8)).min(toks.len() - 1)].1;
            [&b[..toks[t].0], &b[end..]].concat()
        }
        // Duplicate a token range, in place or elsewhere.
        4 | 5 => {
            let end = toks[(t + rng.below(12)).min(toks.len() - 1)].1;
            let at = if rng.below(2) == 0 {
                end
            } else {
                toks[rng.below(toks.len())].0
            };
            insert(b, at, &b[toks[t].0..end])
        }
        // Truncate.
        6 => b[..rng.below(b.len())].to_vec(),
        // A numeral becomes a huge or malformed one, an identifier another
        // one of the file.
        7 => replace_token(rng, b, &toks, true),
        8 => replace_token(rng, b, &toks, false),
        // A UTF-8 byte-order mark, or garbage after the end.
        9 => {
            if rng.below(2) == 0 {
                insert(b, 0, "\u{feff}".as_bytes())
            } else {
                insert(b, b.len(), rng.pick::<&[u8]>(GARBAGE))
            }
        }
        // A hostile construct.
        _ => hostile(rng, b, &toks, kind),
    }
}

/// `b` with a hostile construct inserted: for C, a statement in a block of
/// code, or a declaration at the top level and a statement using it after
/// it; for rules, a piece anywhere.
fn hostile(rng: &mut Rng, b: &[u8], toks: &[(usize, usize)], kind: Kind) -> Vec<u8> {
    if kind == Kind::Rule {
        let at = toks[rng.below(toks.len())].0;
        return insert(b, at, rule_snippet(rng).as_bytes());
    }
    let (stmt, top) = positions(b, toks);
    if rng.below(2) == 0 && !stmt.is_empty() {
        let at = *rng.pick(&stmt);
        return insert(b, at, format!(" {} ", c_statement(rng)).as_bytes());
    }
    let at = *rng.pick(&top);
    let (decl, using) = c_declaration(rng);
    let later: Vec<usize> = stmt.into_iter().filter(|&p| p >= at).collect();
    let b = if using.is_empty() || later.is_empty() {
        b.to_vec()
    } else {
        insert(b, *rng.pick(&later), format!(" {using} ").as_bytes())
    };
    insert(&b, at, format!("\n{decl}\n").as_bytes())
}

/// One mutation that keeps most of the input intact: a hostile construct,
/// a huge numeral or another identifier.
fn mutate_mildly(rng: &mut Rng, b: &[u8], kind: Kind) -> Vec<u8> {
    let toks = tokens(b);
    if toks.is_empty() {
        return b.to_vec();
    }
    match rng.below(4) {
        0 => replace_token(rng, b, &toks, true),
        1 => replace_token(rng, b, &toks, false),
        _ => hostile(rng, b, &toks, kind),
    }
}

/// `b` with a numeral replaced by a huge or malformed one (`numeral`) or an
/// identifier by another one of the text.
fn replace_token(rng: &mut Rng, b: &[u8], toks: &[(usize, usize)], numeral: bool) -> Vec<u8> {
    let of_kind: Vec<&(usize, usize)> = toks
        .iter()
        .filter(|&&(s, _)| {
            if numeral {
                b[s].is_ascii_digit()
            } else {
                b[s].is_ascii_alphabetic() || b[s] == b'_'
            }
        })
        .collect();
    if of_kind.is_empty() {
        return b.to_vec();
    }
    let &&(s, e) = rng.pick(&of_kind);
    if numeral {
        [&b[..s], rng.pick(HUGE_NUMERALS).as_bytes(), &b[e..]].concat()
    } else {
        let &&(s2, e2) = rng.pick(&of_kind);
        [&b[..s], &b[s2..e2], &b[e..]].concat()
    }
}

/// The mutant of a case: half of them one mild mutation of the input
/// (most of it stays valid, so the mutant reaches the analysis), the others
/// one to three mutations of any kind.
pub fn mutant(case: &Case) -> Vec<u8> {
    let mut rng = Rng(case.seed);
    let b = &case.input.text;
    if rng.below(2) == 0 {
        return mutate_mildly(&mut rng, b, case.input.kind);
    }
    let mut b = b.clone();
    for _ in 0..1 + rng.below(3) {
        b = mutate_once(&mut rng, &b, case.input.kind);
    }
    b
}

// ---------------------------------------------------------------- running

/// How a run ended.
enum Exit {
    Code(i32),
    Signal(i32),
    /// Killed by the guard.
    Hung,
}

/// Runs `mpv ARGS` under the wall-clock guard: how it ended and its
/// standard error.
fn run_mpv(args: &[String]) -> (Exit, String) {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpv starts");
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = pipe.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for mpv") {
            break Some(s);
        }
        if start.elapsed() > GUARD {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let exit = match status {
        None => Exit::Hung,
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => Exit::Code(c),
            (None, Some(sig)) => Exit::Signal(sig),
            (None, None) => Exit::Signal(0),
        },
    };
    (exit, stderr)
}

/// What is wrong with a run, in one line, and the key that tells one bug
/// from another (a panic's location; the kind of failure and the first
/// line of standard error without numbers otherwise). `None`: nothing.
fn judge(exit: &Exit, stderr: &str, name: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = stderr.lines().collect();
    let clip = |s: &str| s.trim().chars().take(300).collect::<String>();
    let first = clip(lines.first().copied().unwrap_or(""));
    let key = |kind: &str, text: &str| {
        let t: String = text
            .replace(name, "FILE")
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .collect();
        format!("{kind}: {t}")
    };
    if let Some(i) = lines.iter().position(|l| l.contains("panicked")) {
        // `thread 'mpv' panicked at src/x.rs:1:2:`, then the message.
        let at = lines[i];
        let location = at.split("panicked at ").nth(1).unwrap_or(at);
        let message = lines.get(i + 1).map_or(String::new(), |m| clip(m));
        return Some((
            format!("panic at {} {message}", clip(location)),
            format!("panic at {}", clip(location)),
        ));
    }
    if stderr.contains("RUST_BACKTRACE") {
        return Some((format!("panic: {first}"), key("panic", &first)));
    }
    match *exit {
        Exit::Hung => Some((
            format!("no exit within {} s", GUARD.as_secs()),
            "hang".into(),
        )),
        Exit::Signal(s) => Some((
            format!("killed by signal {s}: {first}"),
            key(&format!("signal {s}"), &first),
        )),
        Exit::Code(101) => Some((format!("exit code 101: {first}"), key("exit 101", &first))),
        Exit::Code(0) => None,
        Exit::Code(c) if !lines.iter().any(|l| l.contains("error:")) => Some((
            format!("exit code {c} without an `error:` line: {first}"),
            key(&format!("exit {c} without error line"), &first),
        )),
        Exit::Code(_) => None,
    }
}

/// An offending mutant.
pub struct Failure {
    pub id: String,
    /// The input it was made of.
    pub input: PathBuf,
    /// What went wrong, in one line.
    pub what: String,
    /// What tells this bug from others (see `judge`).
    pub key: String,
    /// The command that reproduces the run on the saved mutant.
    pub command: String,
}

/// What a run of cases found.
pub struct Report {
    pub cases: usize,
    /// Runs that exited 0 (verified, or the rules checked).
    pub accepted: usize,
    /// Runs that failed with an `error:` line.
    pub refused: usize,
    pub failures: Vec<Failure>,
}

impl Report {
    /// The failures grouped by their keys, with their cases.
    pub fn distinct(&self) -> Vec<(String, Vec<&Failure>)> {
        let mut groups: Vec<(String, Vec<&Failure>)> = Vec::new();
        for f in &self.failures {
            match groups.iter_mut().find(|(k, _)| *k == f.key) {
                Some((_, v)) => v.push(f),
                None => groups.push((f.key.clone(), vec![f])),
            }
        }
        groups
    }

    /// Every failure and the distinct ones, for a panic message.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for f in &self.failures {
            s += &format!(
                "{} (a mutant of {}): {}\n    reproduce: {}\n",
                f.id,
                f.input.display(),
                f.what,
                f.command
            );
        }
        s += &format!("{} distinct:\n", self.distinct().len());
        for (_, fs) in self.distinct() {
            s += &format!(
                "  {} (cases {})\n",
                fs[0].what,
                fs.iter()
                    .map(|f| f.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        s
    }
}

/// Runs `cases` on `jobs` threads; mutants go to
/// `target/tmp/fuzz-LABEL`, the offending ones (mutant and a `.txt` with
/// the command, what went wrong and the end of standard error) to
/// `target/tmp/fuzz-failures/LABEL`, emptied first.
pub fn run(cases: &[Case], jobs: usize, label: &str, progress: bool) -> Report {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let work = tmp.join(format!("fuzz-{label}"));
    let saved = tmp.join("fuzz-failures").join(label);
    let _ = std::fs::remove_dir_all(&work);
    let _ = std::fs::remove_dir_all(&saved);
    std::fs::create_dir_all(&work).unwrap();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Option<Failure>, bool)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                let r = run_case(case, &work, &saved);
                let mut all = results.lock().unwrap();
                all.push((i, r.0, r.1));
                if progress && all.len().is_multiple_of(25) {
                    let bad = all.iter().filter(|r| r.1.is_some()).count();
                    eprintln!("fuzz: {}/{} cases, {bad} failures", all.len(), cases.len());
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    let _ = std::fs::remove_dir_all(&work);
    let mut report = Report {
        cases: results.len(),
        accepted: 0,
        refused: 0,
        failures: Vec::new(),
    };
    for (_, failure, accepted) in results {
        match failure {
            Some(f) => report.failures.push(f),
            None if accepted => report.accepted += 1,
            None => report.refused += 1,
        }
    }
    report
}

/// Runs one case: its failure if any, and whether mpv exited 0.
fn run_case(case: &Case, work: &Path, saved: &Path) -> (Option<Failure>, bool) {
    let ext = case
        .input
        .path
        .extension()
        .map_or("c".into(), |e| e.to_string_lossy().into_owned());
    let stem = case.input.path.file_stem().unwrap().to_string_lossy();
    let name = format!("{}-{stem}.{ext}", case.id);
    let file = work.join(&name);
    let text = mutant(case);
    std::fs::write(&file, &text).unwrap();
    let args = |file: &Path| -> Vec<String> {
        let f = file.display().to_string();
        match case.input.kind {
            Kind::C => vec![
                "verify".into(),
                f,
                "--prp".into(),
                case.input.prp.as_ref().unwrap().display().to_string(),
                "--time-limit".into(),
                TIME_LIMIT.to_string(),
            ],
            Kind::Rule => vec!["spec".into(), "check".into(), f],
        }
    };
    let (exit, stderr) = run_mpv(&args(&file));
    let _ = std::fs::remove_file(&file);
    if std::env::var_os("MPV_FUZZ_VERBOSE").is_some() {
        let how = match exit {
            Exit::Code(c) => format!("exit {c}"),
            Exit::Signal(s) => format!("signal {s}"),
            Exit::Hung => "hung".into(),
        };
        let last = stderr.lines().last().unwrap_or("");
        eprintln!(
            "{name}: {how}: {}",
            last.chars().take(200).collect::<String>()
        );
    }
    let Some((what, key)) = judge(&exit, &stderr, &name) else {
        return (None, matches!(exit, Exit::Code(0)));
    };
    std::fs::create_dir_all(saved).unwrap();
    let kept = saved.join(&name);
    std::fs::write(&kept, &text).unwrap();
    let command = format!("{} {}", env!("CARGO_BIN_EXE_mpv"), args(&kept).join(" "));
    let tail: Vec<String> = stderr
        .lines()
        .rev()
        .take(40)
        .map(|l| l.chars().take(300).collect())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    std::fs::write(
        saved.join(format!("{name}.txt")),
        format!(
            "case {} (a mutant of {})\n{what}\n\n$ {command}\n{}\n",
            case.id,
            case.input.path.display(),
            tail.join("\n")
        ),
    )
    .unwrap();
    let failure = Failure {
        id: case.id.clone(),
        input: case.input.path.clone(),
        what,
        key,
        command,
    };
    (Some(failure), false)
}

/// The test's sample: 100 mutants of the test programs, 4 of corpus
/// modules (when the corpus is there) and 50 of rule files, one at a time
/// (about 20 s of CPU).
#[test]
fn a_sample_of_mutants_neither_panics_nor_crashes_mpv() {
    let inputs = inputs(2);
    assert!(inputs.programs.len() >= 50 && inputs.rules.len() >= 20);
    let plan = Plan {
        programs: 100,
        corpus: 4,
        rules: 50,
    };
    let cases = cases(&inputs, &plan, SEED);
    let report = run(&cases, 1, "test", false);
    assert_eq!(report.cases, cases.len());
    let mut unexpected = Vec::new();
    for f in &report.failures {
        match KNOWN_FAILURES.iter().find(|k| k.0 == f.id) {
            Some((_, shows, bug)) if f.what.contains(shows) => {
                eprintln!("known failure {}: {} ({bug})", f.id, f.what)
            }
            _ => unexpected.push(f),
        }
    }
    let still: Vec<&str> = KNOWN_FAILURES
        .iter()
        .filter(|k| {
            !report
                .failures
                .iter()
                .any(|f| f.id == k.0 && f.what.contains(k.1))
        })
        .map(|k| k.0)
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} of {} mutants made mpv fail (saved in {}):\n{}",
        unexpected.len(),
        report.cases,
        Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("fuzz-failures/test")
            .display(),
        report.describe()
    );
    assert!(
        still.is_empty(),
        "known failures that no longer fail (remove them from KNOWN_FAILURES): {still:?}"
    );
    // Mutants that still verify and mutants mpv refuses: the runs reach
    // both mpv's analysis and its error paths.
    assert!(
        report.accepted >= 20 && report.refused >= 20,
        "{} accepted, {} refused",
        report.accepted,
        report.refused
    );
}

#[test]
fn the_mutator_is_deterministic_and_changes_its_input() {
    let inputs = inputs(0);
    let plan = Plan {
        programs: 20,
        corpus: 0,
        rules: 10,
    };
    let (a, b) = (cases(&inputs, &plan, SEED), cases(&inputs, &plan, SEED));
    let mut changed = 0;
    for (x, y) in a.iter().zip(&b) {
        let m = mutant(x);
        assert_eq!(m, mutant(y), "{}", x.id);
        changed += usize::from(m != x.input.text);
    }
    assert!(
        changed >= 25,
        "{changed} of 30 mutants differ from their input"
    );
    let other = cases(&inputs, &plan, SEED + 1);
    assert!(a.iter().zip(&other).any(|(x, y)| mutant(x) != mutant(y)));
}

#[test]
fn a_run_fails_by_a_panic_a_signal_a_hang_or_an_error_without_a_reason() {
    let panic = "thread 'mpv' panicked at src/frontend/x.rs:12:5:\nindex out of bounds\n";
    let (what, key) = judge(&Exit::Code(101), panic, "c1-a.c").unwrap();
    assert!(what.contains("src/frontend/x.rs:12:5") && what.contains("index out of bounds"));
    assert_eq!(key, "panic at src/frontend/x.rs:12:5:");
    assert!(judge(&Exit::Code(1), "note: run with `RUST_BACKTRACE=1`", "f").is_some());
    assert!(judge(&Exit::Signal(11), "", "f")
        .unwrap()
        .0
        .contains("signal 11"));
    assert!(judge(&Exit::Hung, "", "f").is_some());
    assert!(judge(&Exit::Code(2), "something went wrong", "f").is_some());
    // Accepted, or refused with a reason: fine.
    assert!(judge(&Exit::Code(0), "", "f").is_none());
    assert!(judge(&Exit::Code(1), "mpv: error: f:1:2: syntax error", "f").is_none());
    // One bug whatever the mutant and the numbers in its message.
    let a = judge(&Exit::Signal(6), "c1-a.c: stack overflow at 1", "c1-a.c").unwrap();
    let b = judge(&Exit::Signal(6), "c7-b.c: stack overflow at 2", "c7-b.c").unwrap();
    assert_eq!(a.1, b.1);
}
