//! The correctness witness of a TRUE property: SV-COMP YAML format 2.0,
//! one `invariant_set` entry with the metadata of the violation witnesses
//! and an invariant per loop head the proof knows something of: a
//! `loop_invariant` at a `while`/`for`/`do` keyword, a `location_invariant`
//! at the label of a loop made of `goto`s (it holds whenever control
//! reaches the label).
//!
//! An invariant comes from the analysis as a [`LoopInvariant`]: the loop
//! head's places in the input file, what labels it carries, and a
//! [`CExpr`] over program variables. Here it is placed and weakened: the
//! location is the loop's `while`/`for`/`do` keyword, or the label of a
//! loop made of `goto`s, found at one of those places (a loop head found at
//! none, or at the place of another loop head, is left out); a comparison
//! over a variable not in scope there (a local declared later, or in a
//! block closed before the loop) becomes `1`; an invariant that becomes
//! `1` is left out. An invariant set without invariants claims nothing
//! and is valid.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::invariant::{CExpr, CVar, VarScope};
use super::yaml::{metadata, Entry, Location};
use super::{parenthesised_from, word_at, Metadata, Task};

/// What the proof of a property knows at one loop head.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopInvariant {
    /// The function of the loop.
    pub function: String,
    /// The labels at the loop head (a loop made of `goto`s).
    pub labels: Vec<String>,
    /// 1-based line and column of the places in the input file that may be
    /// the loop's keyword or label, in order of preference.
    pub places: Vec<(u32, u32)>,
    /// What holds at every arrival at the loop head.
    pub invariant: CExpr,
}

/// What an invariant's place is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvariantKind {
    /// A loop's keyword: before each evaluation of its condition (each
    /// iteration of a `do` loop).
    Loop,
    /// A label: whenever control reaches it.
    Location,
}

impl InvariantKind {
    /// The `type` in the YAML format.
    pub fn name(self) -> &'static str {
        match self {
            InvariantKind::Loop => "loop_invariant",
            InvariantKind::Location => "location_invariant",
        }
    }
}

/// An invariant placed in the input file and printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub kind: InvariantKind,
    pub line: u32,
    pub column: u32,
    pub function: String,
    /// The C expression.
    pub value: String,
}

#[derive(Serialize)]
struct Item<'a> {
    invariant: Invariant<'a>,
}

#[derive(Serialize)]
struct Invariant<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    location: Location<'a>,
    value: &'a str,
    format: &'static str,
}

/// The path of the correctness witness of `property` on `input` in `dir`:
/// `<file name>.<property>.correctness.yml`.
pub fn file_path(dir: &Path, input: &Path, property: &str) -> PathBuf {
    dir.join(format!(
        "{}.correctness.yml",
        super::base_name(input, property)
    ))
}

/// Writes the correctness witness of `task` with `invariants` into `dir`
/// (created if need be); returns its path.
pub fn write(dir: &Path, task: &Task, invariants: &[LoopInvariant]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = file_path(dir, task.input_file, task.property);
    let placed = place(invariants, task.source);
    std::fs::write(&path, render(task, &placed, &Metadata::now()))?;
    Ok(path)
}

/// The witness as YAML text.
pub fn render(task: &Task, invariants: &[Placed], meta: &Metadata) -> String {
    let file = task.input_file.display().to_string();
    let content = invariants
        .iter()
        .map(|p| Item {
            invariant: Invariant {
                kind: p.kind.name(),
                location: Location {
                    file_name: &file,
                    line: p.line,
                    column: p.column,
                    function: &p.function,
                },
                value: &p.value,
                format: "c_expression",
            },
        })
        .collect();
    let entry = Entry {
        entry_type: "invariant_set",
        metadata: metadata(task, meta, &file, &[]),
        content,
    };
    serde_yaml_ng::to_string(&vec![entry]).expect("a witness serialises")
}

/// The invariants placed in `source` and weakened to the variables in
/// scope there; those that cannot be placed or become `1` are left out.
pub fn place(invariants: &[LoopInvariant], source: &str) -> Vec<Placed> {
    let text = Source::new(source);
    let located: Vec<Option<(u32, u32, InvariantKind)>> =
        invariants.iter().map(|i| text.locate(i)).collect();
    let mut out: Vec<Placed> = Vec::new();
    for (inv, at) in invariants.iter().zip(&located) {
        let Some((line, column, kind)) = *at else {
            continue;
        };
        // Two loop heads at one place: which one an invariant is of is
        // not clear from the place.
        let here = |l: &&Option<(u32, u32, InvariantKind)>| {
            l.is_some_and(|(a, b, _)| (a, b) == (line, column))
        };
        if located.iter().filter(here).count() > 1 {
            continue;
        }
        let weak = inv
            .invariant
            .weaken(&|v: &CVar| text.in_scope(v, (line, column)))
            .simplified();
        if weak == CExpr::True {
            continue;
        }
        out.push(Placed {
            kind,
            line,
            column,
            function: inv.function.clone(),
            value: weak.to_c(),
        });
    }
    out.sort_by_key(|p| (p.line, p.column));
    out
}

/// The input file: its lines and where each starts.
struct Source<'a> {
    text: &'a str,
    /// Byte offset of each line's start.
    starts: Vec<usize>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source { text, starts }
    }

    fn line(&self, line: u32) -> Option<&'a str> {
        let start = *self.starts.get((line as usize).checked_sub(1)?)?;
        let rest = &self.text[start..];
        Some(
            rest.split('\n')
                .next()
                .unwrap_or(rest)
                .trim_end_matches('\r'),
        )
    }

    /// The byte offset of a 1-based line and column.
    fn offset(&self, (line, column): (u32, u32)) -> Option<usize> {
        let start = *self.starts.get((line as usize).checked_sub(1)?)?;
        let at = start + (column as usize).checked_sub(1)?;
        (at <= self.text.len()).then_some(at)
    }

    /// The first place of `inv` that holds its loop's keyword or one of its
    /// labels (followed by `:`), and what kind of place it is.
    fn locate(&self, inv: &LoopInvariant) -> Option<(u32, u32, InvariantKind)> {
        inv.places.iter().find_map(|&(line, column)| {
            let text = self.line(line)?;
            let i = (column as usize).checked_sub(1)?;
            if i >= text.len() || !text.is_char_boundary(i) {
                return None;
            }
            let keyword = ["while", "for", "do"].iter().any(|k| word_at(text, i, k));
            let label = inv.labels.iter().any(|l| {
                word_at(text, i, l) && {
                    let after = text[i + l.len()..].trim_start();
                    after.starts_with(':') && !after.starts_with("::")
                }
            });
            match (keyword, label) {
                (true, _) => Some((line, column, InvariantKind::Loop)),
                (false, true) => Some((line, column, InvariantKind::Location)),
                (false, false) => None,
            }
        })
    }

    /// Whether `v` is in scope at the loop keyword or label at `at`: a
    /// global or parameter always; a local declared before it whose block
    /// is still open there, or in the header of the `for` at `at`.
    fn in_scope(&self, v: &CVar, at: (u32, u32)) -> bool {
        let VarScope::Block { line, column } = v.scope else {
            return true;
        };
        let (Some(decl), Some(loop_at)) = (self.offset((line, column)), self.offset(at)) else {
            return false;
        };
        if decl < loop_at {
            return block_open(&self.text[decl..loop_at]);
        }
        // `for (int i = 0; ...)`: the header is the loop's scope.
        let Some(text) = self.line(at.0) else {
            return false;
        };
        let k = at.1 as usize - 1;
        line == at.0
            && word_at(text, k, "for")
            && parenthesised_from(text, k + 3).is_some_and(|close| (column as usize) <= close)
    }
}

/// Whether the block open at the start of `text` (C source) is still open
/// at its end: its braces, outside comments and literals, never close more
/// than they open.
fn block_open(text: &str) -> bool {
    let b = text.as_bytes();
    let mut depth = 0i64;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n').unwrap_or(b.len() - i);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += text[i + 2..].find("*/").map_or(b.len() - i, |e| e + 3);
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::IntKind;
    use crate::witness::invariant::{CTerm, CType, CmpOp};

    fn var(name: &str, scope: VarScope) -> CVar {
        CVar {
            name: name.into(),
            ty: CType::Int(IntKind::Int),
            scope,
        }
    }

    fn le(v: CVar, c: u64) -> CExpr {
        CExpr::cmp(
            CmpOp::LE,
            true,
            CTerm::Var(v),
            CTerm::Const { bits: c, width: 32 },
        )
    }

    const SRC: &str = "int g;\nint main(void) {\n  int i = 0;\n  { int t = 1; }\n  while (i < 10) {\n    int k = i;\n    i++;\n  }\n  for (int j = 0; j < 3; j++) ;\n again:\n  if (g) goto again;\n}\n";

    fn inv(places: Vec<(u32, u32)>, labels: &[&str], e: CExpr) -> LoopInvariant {
        LoopInvariant {
            function: "main".into(),
            labels: labels.iter().map(|s| s.to_string()).collect(),
            places,
            invariant: e,
        }
    }

    #[test]
    fn invariants_sit_at_loop_keywords_and_labels_only() {
        let i = var("i", VarScope::Block { line: 3, column: 3 });
        let g = var("g", VarScope::Function);
        let placed = place(
            &[
                inv(vec![(3, 3), (5, 3)], &[], le(i.clone(), 10)),
                inv(vec![(10, 2)], &["again"], le(g.clone(), 1)),
                inv(vec![(11, 3)], &["again"], le(g, 2)),
            ],
            SRC,
        );
        let got: Vec<_> = placed
            .iter()
            .map(|p| (p.kind, p.line, p.column, p.value.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (InvariantKind::Loop, 5, 3, "i <= 10"),
                (InvariantKind::Location, 10, 2, "g <= 1")
            ]
        );
    }

    #[test]
    fn variables_out_of_scope_are_weakened_away() {
        let i = var("i", VarScope::Block { line: 3, column: 3 });
        let t = var("t", VarScope::Block { line: 4, column: 5 });
        let k = var("k", VarScope::Block { line: 6, column: 5 });
        let j = var(
            "j",
            VarScope::Block {
                line: 9,
                column: 12,
            },
        );
        let both = CExpr::and([le(i.clone(), 10), le(t.clone(), 1)]);
        let placed = place(&[inv(vec![(5, 3)], &[], both)], SRC);
        assert_eq!(placed[0].value, "i <= 10", "`t`'s block is closed");
        let later = CExpr::or([le(i, 10), le(k, 1)]);
        assert!(
            place(&[inv(vec![(5, 3)], &[], later)], SRC).is_empty(),
            "`k` is declared in the body: the disjunction becomes 1"
        );
        let header = place(&[inv(vec![(9, 3)], &[], le(j, 3))], SRC);
        assert_eq!(header[0].value, "j <= 3", "declared in the `for` header");
    }

    #[test]
    fn two_loop_heads_at_one_place_give_no_invariant() {
        let g = var("g", VarScope::Function);
        let a = inv(vec![(5, 3)], &[], le(g.clone(), 1));
        let b = inv(vec![(5, 3)], &[], le(g, 2));
        assert!(place(&[a, b], SRC).is_empty());
    }

    #[test]
    fn braces_in_comments_and_literals_do_not_count() {
        assert!(block_open("x; /* } */ s = \"}\"; c = '}'; // }\n {}"));
        assert!(!block_open("x; } {"));
    }
}
