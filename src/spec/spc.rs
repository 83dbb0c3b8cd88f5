//! Import of CPAchecker control automata (`.spc`), with CPAchecker's
//! semantics, into mpv's automaton form. Supported: `CONTROL|OBSERVER
//! AUTOMATON`, `LOCAL int x = n;`, `LOCAL set<string> s [= []];`,
//! `INITIAL STATE q;`, `STATE [USEALL|USEFIRST] q :`, transitions
//! `MATCH {C pattern} | MATCH EXIT | MATCH FUNCTIONCALL "f" | MATCH LABEL "l"`
//! with an optional `&& (guard)`, `ASSUME {c1; c2}`, `DO x = e` /
//! `DO s[$n] = true|false`, and `GOTO q | ERROR("msg") | ERROR | STOP | BREAK`.
//!
//! Semantics kept: `f($1)` matches calls without assignment, `$1 = f($2)`
//! calls with one; `$?` as the whole argument list matches any arity;
//! `USEFIRST` takes only the first transition whose trigger matches; every
//! transition is its own case (several matching transitions are
//! alternatives); `ASSUME` sees the values after the transition's `DO`
//! actions (mpv substitutes the assigned expressions, because its moves
//! weave assumes before assignments); `STOP` and `BREAK` end the path;
//! sets are keyed by expression text. Each automaton is one property, named
//! after it, with one error state per distinct message. No coverage check:
//! CPAchecker does not require one.

use std::path::Path;

use super::automaton::{compile, ArgBinding, CompileOptions, SpecAutomaton};
use super::dsl::lexer::{lex, Tok};
use super::dsl::parser::{spec_error, PErr, Parser};
use super::dsl::*;
use crate::ir::{BinaryOp, IntKind};
use crate::{Error, Result};

/// Reads the automata of a `.spc` file.
pub fn load(path: &Path) -> Result<Vec<SpecAutomaton>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&path.display().to_string(), &text)
}

/// Parses `.spc` text; `name` is used in errors and origins.
pub fn parse(name: &str, text: &str) -> Result<Vec<SpecAutomaton>> {
    let toks = lex(text).map_err(|e| spec_error(name, e))?;
    let mut p = Parser::new(toks);
    let mut out = Vec::new();
    while !matches!(p.peek(), Tok::Eof) {
        let f = automaton(&mut p, name).map_err(|e| spec_error(name, e))?;
        out.push(compile(
            name,
            &f,
            CompileOptions {
                require_coverage: false,
                arg_binding: ArgBinding::AsWritten,
            },
        )?);
    }
    if out.is_empty() {
        return Err(spec_error(
            name,
            (
                Pos { line: 1, column: 1 },
                "no automaton in this file".into(),
            ),
        ));
    }
    Ok(out)
}

fn automaton(p: &mut Parser, file: &str) -> std::result::Result<File, PErr> {
    if !(p.eat_kw("CONTROL") || p.eat_kw("OBSERVER")) {
        return p.err(format!(
            "expected `CONTROL AUTOMATON` or `OBSERVER AUTOMATON`, found {}",
            p.describe()
        ));
    }
    p.expect_kw("AUTOMATON")?;
    let (name, pos) = p.ident("the automaton name")?;
    let mut f = File {
        automaton: Some((name.clone(), pos)),
        ..File::default()
    };
    let stem = Path::new(file)
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or(file)
        .to_string();
    f.rules.push(RuleDecl {
        id: name.clone(),
        description: format!("CPAchecker automaton {name} ({stem})"),
        pos,
    });
    let mut messages: Vec<String> = Vec::new();
    loop {
        let pos = p.pos();
        if p.eat_kw("END") {
            p.expect_kw("AUTOMATON")?;
            break;
        } else if p.eat_kw("LOCAL") {
            let (ty, _) = p.ident("a type")?;
            if ty == "set" {
                p.expect_punct("<")?;
                p.expect_kw("string")?;
                p.expect_punct(">")?;
                let (n, _) = p.ident("a set name")?;
                if p.eat_punct("=") {
                    p.expect_punct("[")?;
                    p.expect_punct("]")?;
                }
                f.sets.push(SetDecl {
                    name: n,
                    key: KeyKind::Text,
                    pos,
                });
            } else if ty == "int" {
                let (n, _) = p.ident("a variable name")?;
                let mut init = 0;
                if p.eat_punct("=") {
                    let neg = p.eat_punct("-");
                    match p.bump() {
                        Tok::Int(v) => init = if neg { -v } else { v },
                        _ => return Err((pos, "expected an integer initial value".into())),
                    }
                }
                f.vars.push(VarDecl {
                    name: n,
                    ty: IntKind::Int,
                    init,
                    pos,
                });
            } else {
                return Err((
                    pos,
                    format!("unsupported LOCAL type `{ty}` (int, set<string>)"),
                ));
            }
            p.expect_punct(";")?;
        } else if p.eat_kw("INITIAL") {
            p.expect_kw("STATE")?;
            f.initial = Some(p.ident("the initial state")?);
            p.expect_punct(";")?;
        } else if p.eat_kw("STATE") {
            let use_first = if p.eat_kw("USEFIRST") {
                true
            } else {
                p.eat_kw("USEALL");
                false
            };
            let (sname, _) = p.ident("a state name")?;
            p.expect_punct(":")?;
            let mut blocks = Vec::new();
            while p.is_kw("MATCH") {
                blocks.push(transition(p, &mut messages)?);
            }
            f.states.push(StateDecl {
                name: sname,
                use_first,
                blocks,
                pos,
            });
        } else {
            return p.err(format!(
                "expected LOCAL, INITIAL STATE, STATE or END AUTOMATON, found {}",
                p.describe()
            ));
        }
    }
    for (i, m) in messages.iter().enumerate() {
        f.errors.push(ErrorDecl {
            state: format!("ERROR_{}", i + 1),
            rule: None,
            message: m.clone(),
            pos,
        });
    }
    Ok(f)
}

fn and(a: Ex, b: Ex) -> Ex {
    let pos = a.pos();
    Ex::Binary(BinaryOp::LogAnd, Box::new(a), Box::new(b), pos)
}

/// `true`/`false` as integers.
fn fix_bools(e: Ex) -> Ex {
    match e {
        Ex::Name(n, p) if n == "true" => Ex::Int(1, p),
        Ex::Name(n, p) if n == "false" => Ex::Int(0, p),
        Ex::Unary(o, a, p) => Ex::Unary(o, Box::new(fix_bools(*a)), p),
        Ex::Binary(o, a, b, p) => {
            Ex::Binary(o, Box::new(fix_bools(*a)), Box::new(fix_bools(*b)), p)
        }
        Ex::Cast(t, a, p) => Ex::Cast(t, Box::new(fix_bools(*a)), p),
        e => e,
    }
}

/// `e` with automaton storage `target` replaced by `value` (an assignment's
/// effect seen by a later `ASSUME`).
fn subst(e: &Ex, target: &Ex, value: &Ex) -> Ex {
    let same = match (e, target) {
        (Ex::Name(a, _), Ex::Name(b, _)) => a == b,
        (Ex::Elem(a, n, _), Ex::Elem(b, m, _)) => a == b && n == m,
        _ => false,
    };
    if same {
        return value.clone();
    }
    match e {
        Ex::Unary(o, a, p) => Ex::Unary(*o, Box::new(subst(a, target, value)), *p),
        Ex::Binary(o, a, b, p) => Ex::Binary(
            *o,
            Box::new(subst(a, target, value)),
            Box::new(subst(b, target, value)),
            *p,
        ),
        Ex::Cast(t, a, p) => Ex::Cast(t.clone(), Box::new(subst(a, target, value)), *p),
        e => e.clone(),
    }
}

fn transition(p: &mut Parser, messages: &mut Vec<String>) -> std::result::Result<OnBlock, PErr> {
    let pos = p.pos();
    p.expect_kw("MATCH")?;
    let ppos = p.pos();
    let kind = if p.eat_punct("{") {
        let k = p.call_pattern()?;
        p.expect_punct("}")?;
        k
    } else if p.eat_kw("EXIT") {
        PatKind::ProgramExit
    } else if p.eat_kw("FUNCTIONCALL") {
        let f = p.string("a function name")?;
        PatKind::Call {
            lhs: LhsPat::Any,
            func: f,
            args: ArgsPat::Any,
        }
    } else if p.eat_kw("LABEL") {
        PatKind::Label(p.string("a label")?)
    } else {
        return p.err(format!(
            "unsupported trigger {} (supported: {{pattern}}, EXIT, FUNCTIONCALL, LABEL)",
            p.describe()
        ));
    };
    let mut conds: Vec<Ex> = Vec::new();
    if p.eat_punct("&&") {
        conds.push(fix_bools(p.unary()?));
    }
    p.expect_punct("->")?;
    let mut assumes: Vec<Ex> = Vec::new();
    let mut assigns: Vec<(Ex, Ex)> = Vec::new();
    loop {
        if p.eat_kw("ASSUME") {
            p.expect_punct("{")?;
            while !p.eat_punct("}") {
                if assumes.len() >= 256 {
                    return p.err("more than 256 conditions in one ASSUME");
                }
                assumes.push(fix_bools(p.expr()?));
                if !p.eat_punct(";") && !p.is_punct("}") {
                    return p.err(format!("expected `;` or `}}`, found {}", p.describe()));
                }
            }
        } else if p.eat_kw("DO") {
            let l = p.unary()?;
            p.expect_punct("=")?;
            let r = fix_bools(p.expr()?);
            assigns.push((l, r));
        } else if p.is_kw("ASSERT") {
            return p.err("ASSERT is not supported by the .spc import");
        } else {
            break;
        }
    }
    // ASSUME sees post-action values: substitute the actions' effects.
    for a in assumes {
        let mut a = a;
        for (l, r) in assigns.iter().rev() {
            a = subst(&a, l, r);
        }
        conds.push(a);
    }
    let target_pos = p.pos();
    let target = if p.eat_kw("GOTO") {
        Target::State(p.ident("a state name")?.0)
    } else if p.eat_kw("STOP") || p.eat_kw("BREAK") {
        Target::Stop
    } else if p.eat_kw("ERROR") {
        let msg = if p.eat_punct("(") {
            let m = p.string("the error message")?;
            p.expect_punct(")")?;
            m
        } else {
            "error".to_string()
        };
        let i = match messages.iter().position(|m| *m == msg) {
            Some(i) => i,
            None => {
                messages.push(msg);
                messages.len() - 1
            }
        };
        Target::State(format!("ERROR_{}", i + 1))
    } else {
        return p.err(format!(
            "expected GOTO, ERROR, STOP or BREAK, found {}",
            p.describe()
        ));
    };
    p.expect_punct(";")?;
    let cond = match conds.into_iter().reduce(and) {
        Some(c) => CaseCond::Assume(c),
        None => CaseCond::Always,
    };
    Ok(OnBlock {
        patterns: vec![Pattern {
            kind,
            unless_in: Vec::new(),
            pos: ppos,
        }],
        cases: vec![Case {
            cond,
            assigns,
            target,
            target_pos,
            pos,
        }],
        pos,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_a_small_automaton() {
        let a = parse(
            "m.spc",
            r#"CONTROL AUTOMATON m
LOCAL set<string> held;
LOCAL int n = 0;
INITIAL STATE Init;
STATE USEFIRST Init :
  MATCH {mutex_lock($1)} -> ASSUME {$$held[$1]} ERROR("double");
  MATCH {mutex_lock($1)} -> DO held[$1]=true DO n = n + 1 GOTO Init;
  MATCH {$1 = f($?)} && (n != 1) -> ASSUME {$$n > 0} DO n=n-1 STOP;
  MATCH EXIT -> ASSUME {!$$held.empty} ERROR("double");
END AUTOMATON"#,
        )
        .unwrap();
        assert_eq!(a.len(), 1);
        let a = &a[0];
        assert_eq!(a.properties[0].id, "m");
        assert!(a.states[0].use_first);
        assert_eq!(a.blocks.len(), 4);
        // The third transition's assume sees `n - 1` for `n`.
        let t = &a.transitions[2];
        assert!(format!("{:?}", t.assumes[0]).contains("Sub"));
        assert_eq!(
            a.states
                .iter()
                .filter(|s| matches!(s.kind, super::super::automaton::StateKind::Error { .. }))
                .count(),
            1
        );
    }

    #[test]
    fn errors_have_positions() {
        let e = parse("x.spc", "CONTROL AUTOMATON a\nINITIAL STATE I;\nSTATE I :\n  MATCH {f($1)} -> ASSERT x GOTO I;\nEND AUTOMATON").unwrap_err();
        assert!(e.to_string().starts_with("x.spc:4:20:"), "{e}");
        assert!(parse("x.spc", "").is_err());
    }
}
