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
    let b = text.as_bytes();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut out = Vec::new();
    // Advances over `n` bytes, keeping line and column.
    let adv = |i: &mut usize, line: &mut u32, col: &mut u32, n: usize| {
        for _ in 0..n {
            if b.get(*i) == Some(&b'\n') {
                *line += 1;
                *col = 1;
            } else if b.get(*i).is_some_and(|c| c & 0xC0 != 0x80) {
                *col += 1;
            }
            *i += 1;
        }
    };
    while i < b.len() {
        let c = b[i];
        let pos = Pos { line, column: col };
        if c.is_ascii_whitespace() {
            adv(&mut i, &mut line, &mut col, 1);
            continue;
        }
        if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            while i < b.len() && b[i] != b'\n' {
                adv(&mut i, &mut line, &mut col, 1);
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            adv(&mut i, &mut line, &mut col, 2);
            loop {
                if i >= b.len() {
                    return Err((pos, "unterminated comment `/*`".into()));
                }
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    adv(&mut i, &mut line, &mut col, 2);
                    break;
                }
                adv(&mut i, &mut line, &mut col, 1);
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
                col += 1;
            }
            out.push(Token {
                tok: Tok::Ident(text[s..i].to_string()),
                pos,
            });
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric()) {
                i += 1;
                col += 1;
            }
            let raw = text[s..i].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = raw.strip_prefix("0x").or_else(|| raw.strip_prefix("0X")) {
                i128::from_str_radix(h, 16)
            } else {
                raw.parse::<i128>()
            };
            match v {
                Ok(v) if v <= u64::MAX as i128 => out.push(Token {
                    tok: Tok::Int(v),
                    pos,
                }),
                _ => return Err((pos, format!("bad integer literal `{}`", &text[s..i]))),
            }
            continue;
        }
        if c == b'"' {
            adv(&mut i, &mut line, &mut col, 1);
            let mut s = String::new();
            loop {
                match b.get(i) {
                    None | Some(b'\n') => return Err((pos, "unterminated string".into())),
                    Some(b'"') => {
                        adv(&mut i, &mut line, &mut col, 1);
                        break;
                    }
                    Some(b'\\') if matches!(b.get(i + 1), Some(b'"') | Some(b'\\')) => {
                        s.push(b[i + 1] as char);
                        adv(&mut i, &mut line, &mut col, 2);
                    }
                    Some(_) => {
                        let ch = text[i..].chars().next().unwrap_or('?');
                        s.push(ch);
                        adv(&mut i, &mut line, &mut col, ch.len_utf8());
                    }
                }
            }
            out.push(Token {
                tok: Tok::Str(s),
                pos,
            });
            continue;
        }
        if c == b'$' {
            match b.get(i + 1) {
                Some(b'?') => {
                    adv(&mut i, &mut line, &mut col, 2);
                    out.push(Token {
                        tok: Tok::Wild,
                        pos,
                    });
                }
                Some(b'$') => {
                    adv(&mut i, &mut line, &mut col, 2);
                    let s = i;
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                        i += 1;
                        col += 1;
                    }
                    if s == i {
                        return Err((pos, "`$$` must be followed by a variable name".into()));
                    }
                    out.push(Token {
                        tok: Tok::AutVar(text[s..i].to_string()),
                        pos,
                    });
                }
                Some(d) if d.is_ascii_digit() => {
                    adv(&mut i, &mut line, &mut col, 1);
                    let s = i;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                        col += 1;
                    }
                    match text[s..i].parse::<u32>() {
                        Ok(n) if (1..=64).contains(&n) => out.push(Token {
                            tok: Tok::PatVar(n),
                            pos,
                        }),
                        _ => return Err((pos, "pattern variables are `$1` .. `$64`".into())),
                    }
                }
                _ => {
                    return Err((
                        pos,
                        "`$` starts a pattern variable: `$1`, `$?` (or `$$var` in .spc)".into(),
                    ))
                }
            }
            continue;
        }
        if let Some(p) = PUNCT.iter().find(|p| text[i..].starts_with(**p)) {
            adv(&mut i, &mut line, &mut col, p.len());
            out.push(Token {
                tok: Tok::Punct(p),
                pos,
            });
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        return Err((pos, format!("unexpected character `{ch}`")));
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: Pos { line, column: col },
    });
    Ok(out)
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
