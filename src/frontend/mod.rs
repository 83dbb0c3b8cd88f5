//! The C front end: preprocessed, CIL-simplified GNU C (LDV modules) to the
//! typed IR and CFA. `#line` directives give every edge its original position.
//!
//! Pipeline: [`source`] (comments out, line map) → [`prune`] (top-level items
//! the entry cannot reach left out) → lang-c parse (GNU flavour)
//! → [`lower`] (types, expressions, statements → [`crate::cfa::Program`]) →
//! [`crate::cfa::loops`] (loop heads).
//!
//! Modelling choices (imprecise spots are explicit in the IR):
//! - bit-fields are ordinary integer fields (no truncation to their width);
//! - floating-point arithmetic is not interpreted: its results are
//!   `Expr::Nondet`, comparisons with floats included;
//! - `va_arg` and `__builtin_va_*` give `Expr::Nondet` / `Havoc`;
//! - inline assembly havocs its output operands, except the x86 templates of
//!   the kernel's atomic and bit operations (`lock; incl %0`,
//!   `subl %2,%0; sete %1`, `xaddl`, `bts %2,%1; sbb %0,%0`, ...) and byte
//!   swaps (`bswapl %0`, `bswapq %0`), which become exact assignments to
//!   their operands, and compiler barriers
//!   (empty templates without outputs), which do nothing (`lower/asm.rs`);
//! - globals are zero-initialised in the start function; aggregates with more
//!   than 256 scalar leaves get only their explicit
//!   initialisers, the rest is left to the analysis (documented imprecision).
//! - struct and union layouts are GCC's, with `packed`, `aligned(N)` and
//!   `#pragma pack` (`lower/layout.rs`); `aligned` on a typedef of a
//!   scalar type is not modelled;
//! - a call of a function declared `noreturn` / `_Noreturn`, and
//!   `__builtin_unreachable()`, end the path; `cleanup(f)` on a local
//!   variable calls `f(&var)` when its scope is left (`lower/cleanup.rs`);
//! - the bytes of string literals the module may read are written in the
//!   start function (`lower/strings.rs`); `strlen` of a literal is its
//!   length, of another string a value the analysis does not model;
//! - a second function body, or a second initialised definition of a
//!   global, for one name is an error, as a compiler says;
//! - thread-local storage (GNU `__thread`, blanked before parsing, and
//!   C11 `_Thread_local`) is ordinary static storage: LDV's environment
//!   model runs the module in one thread, where each thread-local
//!   variable has one instance, as a global does (`source.rs`);
//! - a UTF-8 byte-order mark at the start of the file is dropped.
//!
//! Errors: syntax errors name the input file's own line and column and,
//! where `#line` maps them elsewhere, the header line
//! (`module.i:1234:5 (from include/linux/foo.h:88)`); GNU constructs the
//! parser does not know (`__int128`, computed goto, nested functions) are
//! named where they are ([`diagnose`]); text pruning leaves out is checked
//! on its tokens, and parsed whole where it may not be C
//! ([`prune`]).

mod diagnose;
mod lower;
pub mod prune;
pub mod source;

use crate::util::thread_cpu_time;
use std::path::Path;

use crate::cfa::Program;
use crate::error::InputPos;
use crate::ir::DataModel;
use crate::{Error, Result};

/// Options of the front end.
#[derive(Clone, Debug)]
pub struct FrontendOptions {
    /// The function the analysis starts in.
    pub entry: String,
    /// Leave out top-level items the entry cannot reach ([`prune`]).
    pub prune: bool,
    /// The sizes of `long` and of pointers.
    pub data_model: DataModel,
}

impl Default for FrontendOptions {
    fn default() -> Self {
        FrontendOptions {
            entry: "main".to_string(),
            prune: true,
            data_model: DataModel::Lp64,
        }
    }
}

/// Time spent in each front-end phase, and the text pruning left out.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrontendTimes {
    /// Comment stripping, pruning and parsing.
    pub parse: std::time::Duration,
    pub cfa: std::time::Duration,
    /// Bytes of unreachable top-level items not parsed.
    pub pruned_bytes: usize,
    /// The pruned text did not parse or lower, and the whole text was used.
    pub prune_fell_back: bool,
}

/// Reads, parses and lowers a C file.
pub fn parse_file(path: &Path, options: &FrontendOptions) -> Result<Program> {
    parse_file_timed(path, options).map(|(p, _)| p)
}

/// [`parse_file`], also returning the time of each phase.
pub fn parse_file_timed(
    path: &Path,
    options: &FrontendOptions,
) -> Result<(Program, FrontendTimes)> {
    // A pipe or a device would block or be read without end.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::Usage(format!(
            "{}: not a regular file: give the path of a C module",
            path.display()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8_lossy(&bytes);
    parse_source_timed(&path.display().to_string(), &text, options)
}

/// Parses and lowers C source text; `name` is used in positions and errors.
pub fn parse_source(name: &str, text: &str, options: &FrontendOptions) -> Result<Program> {
    parse_source_timed(name, text, options).map(|(p, _)| p)
}

/// [`parse_source`], also returning the time of each phase.
pub fn parse_source_timed(
    name: &str,
    text: &str,
    options: &FrontendOptions,
) -> Result<(Program, FrontendTimes)> {
    // CPU time of this thread: robust against other work on the machine.
    let t0 = thread_cpu_time();
    let clean = source::prepare(text);
    let mut fell_back = false;
    if options.prune {
        if let Some(pruned) = prune::prune(&clean, &[options.entry.as_str()]) {
            // A name the pruning missed shows as an error, left-out text
            // that may not be C as a suspect: redo on the whole text.
            let parsed = match pruned.suspect {
                None => parse_and_lower(name, pruned.text, options, true, t0).ok(),
                Some(_) => None,
            };
            match parsed {
                Some((program, mut times)) => {
                    times.pruned_bytes = pruned.dropped_bytes;
                    return Ok((program, times));
                }
                None => fell_back = true,
            }
        }
    }
    let (program, mut times) = parse_and_lower(name, clean, options, false, t0)?;
    times.prune_fell_back = fell_back;
    Ok((program, times))
}

/// Parses comment-free text and lowers it; `t0` is when the front end started.
fn parse_and_lower(
    name: &str,
    clean: String,
    options: &FrontendOptions,
    declared_only: bool,
    t0: std::time::Duration,
) -> Result<(Program, FrontendTimes)> {
    let mut files = Vec::new();
    let map = source::LineMap::new(&clean, name, &mut files);
    let input_pos = |at: usize| {
        let pos = map.pos(at);
        let file = &files[pos.file as usize];
        InputPos {
            input: name.to_string(),
            line: pos.input_line,
            column: pos.input_column,
            mapped: (file != name || pos.line != pos.input_line).then(|| (file.clone(), pos.line)),
        }
    };
    if let Some(at) = source::too_deep(&clean, source::MAX_NESTING) {
        return Err(Error::Parse {
            at: input_pos(at),
            message: format!(
                "parentheses, brackets and braces (or operators) nested deeper than {}: mpv does not parse this",
                source::MAX_NESTING
            ),
        });
    }
    let mut clean = clean;
    let layout_hints = lower::layout::TextHints::scan(&mut clean);
    let config = lang_c::driver::Config::with_gcc();
    // The parser is generated code; guard against panics on odd input.
    let parsed = std::panic::catch_unwind(|| lang_c::driver::parse_preprocessed(&config, clean));
    let unit = match parsed {
        Ok(Ok(p)) => p.unit,
        Ok(Err(e)) => {
            if let Some((at, construct)) = diagnose::near(&e.source, e.offset) {
                return Err(Error::UnsupportedSyntax {
                    at: input_pos(at),
                    construct: construct.construct().to_string(),
                    hint: construct.hint().to_string(),
                });
            }
            let mut expected: Vec<_> = e.expected.iter().cloned().collect();
            expected.sort();
            return Err(Error::Parse {
                at: input_pos(e.offset),
                message: format!(
                    "unexpected token, expected one of: {} (is the file preprocessed C?)",
                    expected.join(" ")
                ),
            });
        }
        Err(_) => {
            return Err(Error::Parse {
                at: InputPos {
                    input: name.to_string(),
                    line: 0,
                    column: 0,
                    mapped: None,
                },
                message: "the C parser failed on this input (is the file preprocessed C?)".into(),
            })
        }
    };
    let t1 = thread_cpu_time();
    let mut program = lower::lower(&unit, map, files, options, declared_only, layout_hints)?;
    crate::cfa::loops::mark_loop_heads(&mut program);
    drop(unit);
    Ok((
        program,
        FrontendTimes {
            parse: t1.saturating_sub(t0),
            cfa: thread_cpu_time().saturating_sub(t1),
            pruned_bytes: 0,
            prune_fell_back: false,
        },
    ))
}
