//! Recursive-descent parser of the rule language. Every error names the
//! position of the offending token; the parser never panics (it only looks
//! at tokens through bounds-checked accessors and always ends at `Eof`).

use super::lexer::{lex, Tok, Token};
use super::*;
use crate::{Error, Result};

/// A parse error at a position.
pub type PErr = (Pos, String);

/// Parses rule-language text; `name` is used in errors.
pub fn parse(name: &str, text: &str) -> Result<File> {
    let toks = lex(text).map_err(|e| spec_error(name, e))?;
    let mut p = Parser::new(toks);
    p.file().map_err(|e| spec_error(name, e))
}

pub fn spec_error(file: &str, (pos, message): PErr) -> Error {
    Error::Spec {
        file: file.to_string(),
        line: pos.line,
        column: pos.column,
        message,
    }
}

/// Token cursor with the expression grammar shared by the `.spc` import.
pub struct Parser {
    toks: Vec<Token>,
    i: usize,
    /// Current expression nesting, bounded by [`MAX_DEPTH`].
    depth: u32,
    /// Binary operators in the current top-level expression, bounded by
    /// [`MAX_OPERATORS`] (later passes recurse over the expression tree).
    ops: u32,
}

const MAX_OPERATORS: u32 = 2000;

/// Deeper expressions are rejected (keeps recursion off the stack limit).
const MAX_DEPTH: u32 = 200;

impl Parser {
    pub fn new(toks: Vec<Token>) -> Self {
        Parser {
            toks,
            i: 0,
            depth: 0,
            ops: 0,
        }
    }

    pub fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    pub fn peek_at(&self, k: usize) -> &Tok {
        let last = self.toks.len().saturating_sub(1);
        self.toks
            .get((self.i + k).min(last))
            .map(|t| &t.tok)
            .unwrap_or(&Tok::Eof)
    }

    pub fn pos(&self) -> Pos {
        let last = self.toks.len().saturating_sub(1);
        self.toks
            .get(self.i.min(last))
            .map(|t| t.pos)
            .unwrap_or_default()
    }

    pub fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.i < self.toks.len() {
            self.i += 1;
        }
        t
    }

    pub fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    pub fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == k)
    }

    pub fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn eat_kw(&mut self, k: &str) -> bool {
        if self.is_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn err<T>(&self, msg: impl Into<String>) -> std::result::Result<T, PErr> {
        Err((self.pos(), msg.into()))
    }

    pub fn describe(&self) -> String {
        match self.peek() {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(v) => format!("`{v}`"),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::PatVar(n) => format!("`${n}`"),
            Tok::Wild => "`$?`".into(),
            Tok::AutVar(s) => format!("`$${s}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of file".into(),
        }
    }

    pub fn expect_punct(&mut self, p: &str) -> std::result::Result<(), PErr> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.err(format!("expected `{p}`, found {}", self.describe()))
        }
    }

    pub fn expect_kw(&mut self, k: &str) -> std::result::Result<(), PErr> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            self.err(format!("expected `{k}`, found {}", self.describe()))
        }
    }

    pub fn ident(&mut self, what: &str) -> std::result::Result<(String, Pos), PErr> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, pos))
            }
            _ => self.err(format!("expected {what}, found {}", self.describe())),
        }
    }

    pub fn string(&mut self, what: &str) -> std::result::Result<String, PErr> {
        match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.err(format!(
                "expected {what} (a string), found {}",
                self.describe()
            )),
        }
    }

    // ----- rule files -----

    fn file(&mut self) -> std::result::Result<File, PErr> {
        let mut f = File::default();
        loop {
            let pos = self.pos();
            match self.peek().clone() {
                Tok::Eof => break,
                Tok::Ident(k) => {
                    self.bump();
                    match k.as_str() {
                        "automaton" => {
                            if f.automaton.is_some() {
                                return Err((pos, "second `automaton` declaration".into()));
                            }
                            f.automaton = Some(self.ident("the automaton name")?);
                        }
                        "rule" => {
                            let id = self.string("the rule id")?;
                            let description = self.string("the rule description")?;
                            f.rules.push(RuleDecl {
                                id,
                                description,
                                pos,
                            });
                        }
                        "var" => {
                            let (name, _) = self.ident("a variable name")?;
                            self.expect_punct(":")?;
                            let tpos = self.pos();
                            let ty = match self.ctype()? {
                                Some(CType::Int(k)) => k,
                                _ => {
                                    return Err((
                                        tpos,
                                        "automaton variables have a C integer type".into(),
                                    ))
                                }
                            };
                            self.expect_punct("=")?;
                            let neg = self.eat_punct("-");
                            let init = match self.bump() {
                                Tok::Int(v) => {
                                    if neg {
                                        -v
                                    } else {
                                        v
                                    }
                                }
                                _ => return Err((self.pos(), "expected an integer".into())),
                            };
                            f.vars.push(VarDecl {
                                name,
                                ty,
                                init,
                                pos,
                            });
                        }
                        "set" => {
                            let (name, _) = self.ident("a set name")?;
                            self.expect_kw("by")?;
                            let key = match self.ident("`text` or `lock_class`")?.0.as_str() {
                                "text" => KeyKind::Text,
                                "lock_class" => KeyKind::LockClass,
                                other => {
                                    return self.err(format!(
                                        "unknown key kind `{other}`: use `text` or `lock_class`"
                                    ))
                                }
                            };
                            f.sets.push(SetDecl { name, key, pos });
                        }
                        "initial" => {
                            if f.initial.is_some() {
                                return Err((pos, "second `initial` declaration".into()));
                            }
                            f.initial = Some(self.ident("the initial state")?);
                        }
                        "error" => {
                            let (state, _) = self.ident("the error state's name")?;
                            let rule = if self.eat_kw("of") {
                                Some(self.string("the rule id")?)
                            } else {
                                None
                            };
                            let message = self.string("the error message")?;
                            f.errors.push(ErrorDecl {
                                state,
                                rule,
                                message,
                                pos,
                            });
                        }
                        "state" => {
                            let s = self.state(pos)?;
                            f.states.push(s);
                            continue;
                        }
                        other => {
                            return Err((
                                pos,
                                format!("unknown declaration `{other}` (expected automaton, rule, var, set, initial, error or state)"),
                            ))
                        }
                    }
                    self.expect_punct(";")?;
                }
                _ => return self.err(format!("expected a declaration, found {}", self.describe())),
            }
        }
        Ok(f)
    }

    fn state(&mut self, pos: Pos) -> std::result::Result<StateDecl, PErr> {
        let (name, _) = self.ident("a state name")?;
        let use_first = self.eat_kw("first");
        self.expect_punct("{")?;
        let mut blocks = Vec::new();
        while !self.eat_punct("}") {
            let bpos = self.pos();
            self.expect_kw("on")?;
            let mut patterns = vec![self.pattern()?];
            while self.eat_punct(",") {
                patterns.push(self.pattern()?);
            }
            let mut cases = Vec::new();
            if self.eat_punct("{") {
                while !self.eat_punct("}") {
                    if matches!(self.peek(), Tok::Eof) {
                        return self.err("unclosed `{` of an `on` block");
                    }
                    if cases.len() >= 256 {
                        return self.err("more than 256 cases in one `on` block");
                    }
                    cases.push(self.case()?);
                }
            } else {
                cases.push(self.case()?);
            }
            if cases.is_empty() {
                return Err((bpos, "an `on` block needs at least one case".into()));
            }
            blocks.push(OnBlock {
                patterns,
                cases,
                pos: bpos,
            });
        }
        Ok(StateDecl {
            name,
            use_first,
            blocks,
            pos,
        })
    }

    fn pattern(&mut self) -> std::result::Result<Pattern, PErr> {
        let pos = self.pos();
        let kind = if self.eat_kw("exit") {
            PatKind::ProgramExit
        } else if self.eat_kw("entry") {
            PatKind::Entry(self.ident("a function name")?.0)
        } else if self.eat_kw("return") {
            PatKind::Return(self.ident("a function name")?.0)
        } else if self.eat_kw("label") {
            PatKind::Label(self.ident("a label")?.0)
        } else {
            self.call_pattern()?
        };
        let mut unless_in = Vec::new();
        if self.eat_kw("unless") {
            self.expect_kw("in")?;
            self.expect_punct("(")?;
            loop {
                unless_in.push(self.ident("a function name")?.0);
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct(")")?;
        }
        Ok(Pattern {
            kind,
            unless_in,
            pos,
        })
    }

    /// `[$n =|$? =] f(args)`.
    pub fn call_pattern(&mut self) -> std::result::Result<PatKind, PErr> {
        let lhs = match (self.peek().clone(), self.peek_at(1).clone()) {
            (Tok::PatVar(n), Tok::Punct("=")) => {
                self.bump();
                self.bump();
                LhsPat::Bind(n)
            }
            (Tok::Wild, Tok::Punct("=")) => {
                self.bump();
                self.bump();
                LhsPat::Wild
            }
            _ => LhsPat::Absent,
        };
        let (func, _) =
            self.ident("a call pattern `f($1)`, `exit`, `entry f`, `return f` or `label L`")?;
        self.expect_punct("(")?;
        let args = if self.is_punct(")") {
            ArgsPat::List(Vec::new())
        } else if matches!(self.peek(), Tok::Wild) && matches!(self.peek_at(1), Tok::Punct(")")) {
            self.bump();
            ArgsPat::Any
        } else {
            let mut v = Vec::new();
            loop {
                match self.bump() {
                    Tok::PatVar(n) => v.push(Some(n)),
                    Tok::Wild => v.push(None),
                    _ => {
                        self.i = self.i.saturating_sub(1);
                        return self.err(format!(
                            "call arguments are pattern variables `$n` or `$?`, found {}",
                            self.describe()
                        ));
                    }
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
            ArgsPat::List(v)
        };
        self.expect_punct(")")?;
        Ok(PatKind::Call { lhs, func, args })
    }

    fn case(&mut self) -> std::result::Result<Case, PErr> {
        let pos = self.pos();
        let cond = if self.eat_kw("assume") {
            CaseCond::Assume(self.expr()?)
        } else if self.eat_kw("else") {
            CaseCond::Else
        } else {
            CaseCond::Always
        };
        let mut assigns = Vec::new();
        if self.eat_kw("do") {
            loop {
                let l = self.unary()?;
                self.expect_punct("=")?;
                let r = self.expr()?;
                assigns.push((l, r));
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.expect_punct("->")?;
        let target_pos = self.pos();
        let target = if self.eat_kw("stop") {
            Target::Stop
        } else {
            Target::State(self.ident("a target state or `stop`")?.0)
        };
        self.expect_punct(";")?;
        Ok(Case {
            cond,
            assigns,
            target,
            target_pos,
            pos,
        })
    }

    /// `int`, `unsigned long`, `struct s *`, `void *`, ... or `None` if the
    /// next tokens are not a type.
    pub fn ctype(&mut self) -> std::result::Result<Option<CType>, PErr> {
        let start = self.i;
        let base = if self.eat_kw("void") {
            CType::Void
        } else if self.eat_kw("struct") {
            CType::Struct(self.ident("a struct tag")?.0)
        } else {
            let (mut unsigned, mut long, mut short, mut char_, mut bool_) =
                (false, 0, false, false, false);
            loop {
                match self.peek() {
                    Tok::Ident(s) if s == "unsigned" => unsigned = true,
                    Tok::Ident(s) if s == "long" => long += 1,
                    Tok::Ident(s) if s == "short" => short = true,
                    Tok::Ident(s) if s == "char" => char_ = true,
                    Tok::Ident(s) if s == "_Bool" => bool_ = true,
                    // `signed` and `int` only confirm the default.
                    Tok::Ident(s) if s == "signed" || s == "int" => {}
                    _ => break,
                }
                self.bump();
            }
            if self.i == start {
                return Ok(None);
            }
            let signed_char = char_
                && self.toks[start..self.i]
                    .iter()
                    .any(|t| t.tok == Tok::Ident("signed".into()));
            let k = IntKind::from_specifiers(crate::ir::types::IntSpecifiers {
                bool_,
                char_,
                short,
                longs: long,
                signed: signed_char,
                unsigned,
            });
            CType::Int(k)
        };
        let mut t = base;
        while self.eat_punct("*") {
            t = CType::Ptr(Box::new(t));
        }
        Ok(Some(t))
    }

    // ----- expressions (C precedence) -----

    pub fn expr(&mut self) -> std::result::Result<Ex, PErr> {
        if self.depth == 0 {
            self.ops = 0;
        }
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> std::result::Result<Ex, PErr> {
        const LEVELS: &[&[(&str, BinaryOp)]] = &[
            &[("||", BinaryOp::LogOr)],
            &[("&&", BinaryOp::LogAnd)],
            &[("|", BinaryOp::BitOr)],
            &[("^", BinaryOp::BitXor)],
            &[("&", BinaryOp::BitAnd)],
            &[("==", BinaryOp::Eq), ("!=", BinaryOp::Ne)],
            &[
                ("<", BinaryOp::Lt),
                ("<=", BinaryOp::Le),
                (">", BinaryOp::Gt),
                (">=", BinaryOp::Ge),
            ],
            &[("<<", BinaryOp::Shl), (">>", BinaryOp::Shr)],
            &[("+", BinaryOp::Add), ("-", BinaryOp::Sub)],
            &[
                ("*", BinaryOp::Mul),
                ("/", BinaryOp::Div),
                ("%", BinaryOp::Rem),
            ],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut l = self.binary(level + 1)?;
        'outer: loop {
            for (s, op) in ops.iter() {
                if self.is_punct(s) {
                    let pos = self.pos();
                    self.ops += 1;
                    if self.ops > MAX_OPERATORS {
                        return self.err("expression too long");
                    }
                    self.bump();
                    let r = self.binary(level + 1)?;
                    l = Ex::Binary(*op, Box::new(l), Box::new(r), pos);
                    continue 'outer;
                }
            }
            return Ok(l);
        }
    }

    pub fn unary(&mut self) -> std::result::Result<Ex, PErr> {
        if self.depth >= MAX_DEPTH {
            return self.err("expression nested too deeply");
        }
        self.depth += 1;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> std::result::Result<Ex, PErr> {
        let pos = self.pos();
        for (s, op) in [
            ("!", UnaryOp::LogNot),
            ("-", UnaryOp::Neg),
            ("~", UnaryOp::BitNot),
        ] {
            if self.eat_punct(s) {
                let e = self.unary()?;
                return Ok(Ex::Unary(op, Box::new(e), pos));
            }
        }
        if self.is_punct("(") {
            let save = self.i;
            self.bump();
            if let Some(t) = self.ctype()? {
                self.expect_punct(")")?;
                let e = self.unary()?;
                return Ok(Ex::Cast(t, Box::new(e), pos));
            }
            self.i = save;
        }
        self.primary()
    }

    fn primary(&mut self) -> std::result::Result<Ex, PErr> {
        let pos = self.pos();
        match self.bump() {
            Tok::Int(v) => Ok(Ex::Int(v, pos)),
            Tok::PatVar(n) => Ok(Ex::Pat(n, pos)),
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect_punct(")")?;
                Ok(e)
            }
            Tok::Ident(s) if s == "empty" && self.is_punct("(") => {
                self.bump();
                let (set, _) = self.ident("a set name")?;
                self.expect_punct(")")?;
                Ok(Ex::Empty(set, pos))
            }
            Tok::Ident(s) | Tok::AutVar(s) => {
                if self.eat_punct("[") {
                    let n = match self.bump() {
                        Tok::PatVar(n) => n,
                        _ => {
                            self.i = self.i.saturating_sub(1);
                            return self.err("a set is indexed by a pattern variable: `s[$1]`");
                        }
                    };
                    self.expect_punct("]")?;
                    Ok(Ex::Elem(s, n, pos))
                } else if self.is_punct(".")
                    && matches!(self.peek_at(1), Tok::Ident(e) if e == "empty")
                {
                    self.bump();
                    self.bump();
                    Ok(Ex::Empty(s, pos))
                } else {
                    Ok(Ex::Name(s, pos))
                }
            }
            _ => {
                self.i = self.i.saturating_sub(1);
                self.err(format!("expected an expression, found {}", self.describe()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MUTEX: &str = r#"
rule "t_1" "test rule";
var n: unsigned long = 0;
set held by text;
initial Init;
error Double "double lock";
state Init {
  on mutex_lock($1), mutex_lock_nested($1, $?) {
    assume held[$1] -> Double;
    else do held[$1] = 1, n = n + 1 -> Init;
  }
  on exit assume !empty(held) -> Double;
}
"#;

    #[test]
    fn parses_a_rule_file() {
        let f = parse("m.spec", MUTEX).unwrap();
        assert_eq!(f.rules[0].id, "t_1");
        assert_eq!(f.vars[0].ty, IntKind::ULong);
        assert_eq!(f.sets[0].key, KeyKind::Text);
        assert_eq!(f.states[0].blocks.len(), 2);
        let b = &f.states[0].blocks[0];
        assert_eq!(b.patterns.len(), 2);
        assert!(matches!(b.cases[1].cond, CaseCond::Else));
        assert_eq!(b.cases[1].assigns.len(), 2);
        assert_eq!(
            b.patterns[1].kind,
            PatKind::Call {
                lhs: LhsPat::Absent,
                func: "mutex_lock_nested".into(),
                args: ArgsPat::List(vec![Some(1), None])
            }
        );
    }

    #[test]
    fn casts_and_precedence() {
        let toks = lex("(int)$3 != 32 && !x || y[$1]").unwrap();
        let e = Parser::new(toks).expr().unwrap();
        let Ex::Binary(BinaryOp::LogOr, l, _, _) = e else {
            panic!("{e:?}")
        };
        assert!(matches!(*l, Ex::Binary(BinaryOp::LogAnd, ..)));
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse("x.spec", "rule \"a\" \"b\";\nstate S {\n  on f($1) -> ;\n}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.spec:3:15: expected a target state or `stop`, found `;`"
        );
        let e = parse("x.spec", "var x: struct s = 0;").unwrap_err();
        assert!(e.to_string().starts_with("x.spec:1:8:"), "{e}");
        let e = parse("x.spec", "state S { on f(1) -> S; }").unwrap_err();
        assert!(e.to_string().contains("pattern variables"), "{e}");
        let deep = format!(
            "state S {{ on f($1) assume {}$1 -> S; }}",
            "(".repeat(100_000)
        );
        let e = parse("x.spec", &deep).unwrap_err();
        assert!(e.to_string().contains("nested too deeply"), "{e}");
        let deep = format!(
            "state S {{ on f($1) assume {}$1 -> S; }}",
            "!".repeat(100_000)
        );
        assert!(parse("x.spec", &deep).is_err());
        let long = format!(
            "state S {{ on f($1) assume $1{} -> S; }}",
            " + 1".repeat(100_000)
        );
        let e = parse("x.spec", &long).unwrap_err();
        assert!(e.to_string().contains("too long"), "{e}");
    }
}
