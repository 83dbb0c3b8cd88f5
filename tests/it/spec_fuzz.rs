//! Broken specification files never panic: a few hundred deterministic
//! mutations (byte deletions, insertions, swaps, truncations, token
//! duplications) of every bundled rule and of the nine CPAchecker `.spc`
//! references must give `Ok` or a positioned error.

use std::path::Path;

use mpv::spec::{automaton, library, spc};

use crate::common::Rng;

const SNIPPETS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    ";",
    "->",
    "$1",
    "$?",
    "$$",
    "\"",
    "else",
    "assume",
    "do",
    "on",
    "state",
    "error",
    "rule",
    "==",
    "!",
    "[",
    "]",
    "é",
    "/*",
    "0x",
    "99999999999999999999",
    "stop",
    ":",
    "MATCH",
    "GOTO",
    "ERROR(",
    "ASSUME {",
    "\n",
    "$65",
    "$0",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut b: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        if b.is_empty() {
            break;
        }
        let i = rng.below(b.len());
        match rng.below(5) {
            0 => {
                let n = rng.below(8).min(b.len() - i);
                b.drain(i..i + n);
            }
            1 => {
                let s = SNIPPETS[rng.below(SNIPPETS.len())];
                for (k, c) in s.chars().enumerate() {
                    b.insert(i + k, c);
                }
            }
            2 => {
                let j = rng.below(b.len());
                b.swap(i, j);
            }
            3 => b.truncate(i),
            _ => {
                let n = rng.below(12).min(b.len() - i);
                let dup: Vec<char> = b[i..i + n].to_vec();
                for (k, c) in dup.into_iter().enumerate() {
                    b.insert(i + k, c);
                }
            }
        }
    }
    b.into_iter().collect()
}

#[test]
fn mutated_rule_files_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut errors) = (0, 0);
    for (name, text) in library::BUNDLED {
        for _ in 0..30 {
            let m = mutate(&mut rng, text);
            let r = std::panic::catch_unwind(|| automaton::from_text(name, &m));
            match r {
                Ok(Ok(_)) => ok += 1,
                Ok(Err(e)) => {
                    let s = e.to_string();
                    assert!(s.starts_with(name), "error without position: {s}");
                    errors += 1;
                }
                Err(_) => panic!("panic on a mutation of {name}:\n{m}"),
            }
        }
    }
    assert!(ok + errors >= 500, "{ok} + {errors}");
    assert!(errors > 0);
}

#[test]
fn mutated_spc_files_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/cpachecker-ldv-spc");
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "spc") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for _ in 0..25 {
            let m = mutate(&mut rng, &text);
            if std::panic::catch_unwind(|| spc::parse("m.spc", &m)).is_err() {
                panic!("panic on a mutation of {}:\n{m}", path.display());
            }
            n += 1;
        }
    }
    assert!(n >= 200, "{n} mutations");
}
