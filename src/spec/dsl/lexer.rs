//! Tokens of the rule language (and of the CPAchecker `.spc` import, which
//! shares them). Every token carries its 1-based line and column; the lexer
//! never panics: an unexpected character is an error at its position.

use super::Pos;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Int(i128),
    Str(String),
    /// `$1`, `$2`, ...
    PatVar(u32),
    /// `$?`
    Wild,
    /// `$$name` (CPAchecker's automaton-variable reference).
    AutVar(String),
    /// Punctuation and operators, as written (`->`, `==`, `{`, ...).
    Punct(&'static str),
    Eof,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
}

/// Longest first, so `->` wins over `-`.
const PUNCT: &[&str] = &[
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->", "(", ")", "{", "}", "[", "]", ",", ";",
    ":", "=", "!", "~", "+", "-", "*", "/", "%", "&", "|", "^", "<", ">", ".",
];

/// Splits `text` into tokens; `//` and `#` start comments to the end of the
/// line, `/* */` block comments are skipped.
pub fn lex(text: &str) -> Result<Vec<Token>, (Pos, String)> {
    let mut lx = Lexer {
        text,
        b: text.as_bytes(),
        i: 0,
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    while lx.i < lx.b.len() {
        let c = lx.b[lx.i];
        let pos = lx.pos();
        if lx.skip_blank(c, pos)? {
            continue;
        }
        let tok = if c.is_ascii_alphabetic() || c == b'_' {
            Tok::Ident(lx.take_while(is_word_byte).to_string())
        } else if c.is_ascii_digit() {
            lx.number(pos)?
        } else if c == b'"' {
            lx.string(pos)?
        } else if c == b'$' {
            lx.dollar(pos)?
        } else if let Some(p) = PUNCT.iter().find(|p| text[lx.i..].starts_with(**p)) {
            lx.adv(p.len());
            Tok::Punct(p)
        } else {
            let ch = text[lx.i..].chars().next().unwrap_or('?');
            return Err((pos, format!("unexpected character `{ch}`")));
        };
        out.push(Token { tok, pos });
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: lx.pos(),
    });
    Ok(out)
}

/// A byte of an identifier (after its first).
fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The lexer's place in the text: byte offset, line and column.
struct Lexer<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    line: u32,
    col: u32,
}

impl<'a> Lexer<'a> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.col,
        }
    }

    /// Advances over `n` bytes, keeping line and column.
    fn adv(&mut self, n: usize) {
        for _ in 0..n {
            if self.b.get(self.i) == Some(&b'\n') {
                self.line += 1;
                self.col = 1;
            } else if self.b.get(self.i).is_some_and(|c| c & 0xC0 != 0x80) {
                self.col += 1;
            }
            self.i += 1;
        }
    }

    /// Advances over the ASCII bytes that satisfy `p` (on one line) and
    /// returns them.
    fn take_while(&mut self, p: impl Fn(u8) -> bool) -> &'a str {
        let s = self.i;
        while self.i < self.b.len() && p(self.b[self.i]) {
            self.i += 1;
            self.col += 1;
        }
        &self.text[s..self.i]
    }

    /// Skips whitespace or a comment starting with `c` at `pos`; false if
    /// there is none.
    fn skip_blank(&mut self, c: u8, pos: Pos) -> Result<bool, (Pos, String)> {
        let b = self.b;
        let i = self.i;
        if c.is_ascii_whitespace() {
            self.adv(1);
            return Ok(true);
        }
        if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            while self.i < b.len() && b[self.i] != b'\n' {
                self.adv(1);
            }
            return Ok(true);
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            self.adv(2);
            loop {
                if self.i >= b.len() {
                    return Err((pos, "unterminated comment `/*`".into()));
                }
                if b[self.i] == b'*' && b.get(self.i + 1) == Some(&b'/') {
                    self.adv(2);
                    break;
                }
                self.adv(1);
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// An integer literal (decimal or `0x`, C suffixes ignored) up to `u64::MAX`.
    fn number(&mut self, pos: Pos) -> Result<Tok, (Pos, String)> {
        let written = self.take_while(|c| c.is_ascii_alphanumeric());
        let raw = written.trim_end_matches(['u', 'U', 'l', 'L']);
        let v = if let Some(h) = raw.strip_prefix("0x").or_else(|| raw.strip_prefix("0X")) {
            i128::from_str_radix(h, 16)
        } else {
            raw.parse::<i128>()
        };
        match v {
            Ok(v) if v <= u64::MAX as i128 => Ok(Tok::Int(v)),
            _ => Err((pos, format!("bad integer literal `{written}`"))),
        }
    }

    /// A string literal on one line; `\"` and `\\` are its escapes.
    fn string(&mut self, pos: Pos) -> Result<Tok, (Pos, String)> {
        let b = self.b;
        self.adv(1);
        let mut s = String::new();
        loop {
            match b.get(self.i) {
                None | Some(b'\n') => return Err((pos, "unterminated string".into())),
                Some(b'"') => {
                    self.adv(1);
                    break;
                }
                Some(b'\\') if matches!(b.get(self.i + 1), Some(b'"') | Some(b'\\')) => {
                    s.push(b[self.i + 1] as char);
                    self.adv(2);
                }
                Some(_) => {
                    let ch = self.text[self.i..].chars().next().unwrap_or('?');
                    s.push(ch);
                    self.adv(ch.len_utf8());
                }
            }
        }
        Ok(Tok::Str(s))
    }

    /// `$?`, `$$name` or `$1` .. `$64`.
    fn dollar(&mut self, pos: Pos) -> Result<Tok, (Pos, String)> {
        match self.b.get(self.i + 1) {
            Some(b'?') => {
                self.adv(2);
                Ok(Tok::Wild)
            }
            Some(b'$') => {
                self.adv(2);
                let name = self.take_while(is_word_byte);
                if name.is_empty() {
                    return Err((pos, "`$$` must be followed by a variable name".into()));
                }
                Ok(Tok::AutVar(name.to_string()))
            }
            Some(d) if d.is_ascii_digit() => {
                self.adv(1);
                match self.take_while(|c| c.is_ascii_digit()).parse::<u32>() {
                    Ok(n) if (1..=64).contains(&n) => Ok(Tok::PatVar(n)),
                    _ => Err((pos, "pattern variables are `$1` .. `$64`".into())),
                }
            }
            _ => Err((
                pos,
                "`$` starts a pattern variable: `$1`, `$?` (or `$$var` in .spc)".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_with_positions() {
        let t = lex("on $1 = f($?, $2) // c\n  -> s;").unwrap();
        let toks: Vec<_> = t.iter().map(|t| t.tok.clone()).collect();
        assert_eq!(
            toks[..5],
            [
                Tok::Ident("on".into()),
                Tok::PatVar(1),
                Tok::Punct("="),
                Tok::Ident("f".into()),
                Tok::Punct("(")
            ]
        );
        let arrow = t.iter().find(|t| t.tok == Tok::Punct("->")).unwrap();
        assert_eq!((arrow.pos.line, arrow.pos.column), (2, 3));
    }

    #[test]
    fn errors_have_positions() {
        let (p, m) = lex("a\n  @").unwrap_err();
        assert_eq!((p.line, p.column), (2, 3));
        assert!(m.contains('@'));
        assert!(lex("\"abc").is_err());
        assert!(lex("$0").is_err());
        assert!(lex("99999999999999999999999").is_err());
        assert_eq!(lex("0x20U").unwrap()[0].tok, Tok::Int(32));
    }
}
