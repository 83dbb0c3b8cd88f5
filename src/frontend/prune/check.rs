//! A token-level syntax check of the text pruning leaves out. The parser
//! never sees that text, so without the check a file with garbage in an
//! unreachable place (after `main`, say) would be accepted where a compiler
//! rejects it. The check runs over the tokens pruning has already scanned
//! and costs one more pass over them: each left-out item must be made of
//! C tokens (no stray `@`, `` ` ``, `\` or `#`, literals closed on their
//! line), its brackets must pair up, it must end with `;` or a function
//! body's `}`, start with an identifier or keyword, name in its declaration
//! specifiers only keywords, names some item declares and names of the
//! implementation (`__x`, `_X`), and have no two operands in a row (`1 x`,
//! `"s" y`, `x 1`).
//!
//! The statement syntax inside a left-out function body is checked only so
//! far (tokens, brackets, adjacent operands). A suspicion is not an error:
//! the caller parses the whole text instead, so the parser's own error
//! reports the problem with its position, and text the parser accepts is
//! used as it is (a suspicion costs time, never a verdict).

use super::tokens::{close_of, punct_at, Item, Keywords, Kind, Token};
use super::{after_tag_keyword, declarator_names};
use crate::hash::HashMap;

/// Why left-out text may not be C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suspicion {
    /// A byte that starts no C token: `@`, `` ` ``, `\`, a `#` that does
    /// not start a directive line, a control character.
    StrayByte(u8),
    /// A string or character literal not closed on its line.
    UnterminatedLiteral,
    /// A closing bracket without its opening one or of another kind, or an
    /// item that ends with a bracket open.
    Unbalanced,
    /// The text ends inside an item (no `;` or function body closes it).
    UnterminatedItem,
    /// An item that does not start with an identifier or keyword.
    BadStart,
    /// An identifier in declaration specifiers that is no keyword and that
    /// no item declares.
    UnknownTypeName,
    /// Two operands without an operator between them.
    MissingOperator,
}

/// The first suspicious place in the left-out text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suspect {
    /// Byte offset in the text.
    pub offset: usize,
    pub why: Suspicion,
}

/// Checks the items `keep` leaves out; `declared`: the names some item
/// declares (declarators, tags, enumeration constants).
pub(super) fn check_dropped(
    text: &[u8],
    tokens: &[Token],
    items: &[Item],
    keep: &[bool],
    kw: &Keywords,
    declared: &HashMap<u32, Vec<u32>>,
) -> Option<Suspect> {
    let at = |k: usize, why| {
        Some(Suspect {
            offset: tokens[k].start as usize,
            why,
        })
    };
    for (item, _) in items.iter().zip(keep).filter(|(_, &kept)| !kept) {
        if let Some((k, why)) = tokens_and_brackets(text, tokens, item, kw) {
            return at(k, why);
        }
        if !matches!(tokens[item.first].kind, Kind::Ident(_)) {
            return at(item.first, Suspicion::BadStart);
        }
        let closed = match tokens[item.last].kind {
            Kind::Punct(b';') => true,
            Kind::Punct(b'}') => item.body.is_some(),
            _ => false,
        };
        if !closed {
            return at(item.last, Suspicion::UnterminatedItem);
        }
        if let Some(k) = unknown_type_name(text, tokens, item, kw, declared) {
            return at(k, Suspicion::UnknownTypeName);
        }
    }
    None
}

/// The first token of `item` that is no C token, closes the wrong
/// bracket, or is an operand right after another; or its last token if a
/// bracket stays open.
fn tokens_and_brackets(
    text: &[u8],
    tokens: &[Token],
    item: &Item,
    kw: &Keywords,
) -> Option<(usize, Suspicion)> {
    let mut open: Vec<u8> = Vec::new();
    let mut prev = Operand::None;
    for k in item.first..=item.last {
        let t = tokens[k];
        let bytes = &text[t.start as usize..t.end as usize];
        match t.kind {
            Kind::Punct(c @ (b'(' | b'[' | b'{')) => open.push(c),
            Kind::Punct(c @ (b')' | b']' | b'}')) => {
                let opener = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if open.pop() != Some(opener) {
                    return Some((k, Suspicion::Unbalanced));
                }
            }
            Kind::Punct(c) if !b"[](){}.-+*/%&|^!~<>=?:;,".contains(&c) => {
                return Some((k, Suspicion::StrayByte(c)));
            }
            Kind::Literal if matches!(bytes[0], b'"' | b'\'') && !closed_literal(bytes) => {
                return Some((k, Suspicion::UnterminatedLiteral));
            }
            _ => {}
        }
        let this = Operand::of(t, bytes, kw);
        if this == Operand::Name && is_literal_prefix(bytes) {
            // `L"..."`, `u8'x'`: the prefix belongs to the literal after it.
            let next = tokens.get(k + 1).filter(|n| n.start == t.end);
            if next.is_some_and(|n| matches!(text[n.start as usize], b'"' | b'\'')) {
                continue;
            }
        }
        // Adjacent strings concatenate; adjacent names are specifiers
        // and declarators (`unsigned long x`, `size_t n`).
        let missing = !matches!(
            (prev, this),
            (Operand::None, _)
                | (_, Operand::None)
                | (Operand::Str, Operand::Str)
                | (Operand::Name, Operand::Name)
        );
        if missing {
            return Some((k, Suspicion::MissingOperator));
        }
        prev = this;
    }
    (!open.is_empty()).then_some((item.last, Suspicion::Unbalanced))
}

/// A token as an operand, for finding two operands in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operand {
    /// Not an operand: punctuation, a keyword, a non-ASCII run.
    None,
    /// A number or character constant.
    Number,
    /// A string literal.
    Str,
    /// An identifier that is no keyword.
    Name,
}

impl Operand {
    fn of(t: Token, bytes: &[u8], kw: &Keywords) -> Operand {
        match t.kind {
            Kind::Ident(s) if !kw.is_reserved(s) => Operand::Name,
            Kind::Literal => match bytes[0] {
                b'"' => Operand::Str,
                b'\'' | b'0'..=b'9' => Operand::Number,
                _ => Operand::None,
            },
            _ => Operand::None,
        }
    }
}

/// Whether an identifier is one of the prefixes of wide and Unicode literals.
fn is_literal_prefix(word: &[u8]) -> bool {
    matches!(word, b"L" | b"u" | b"U" | b"u8")
}

/// Whether a literal token (from its opening quote) ends with its closing
/// quote, not with its line or the text.
fn closed_literal(bytes: &[u8]) -> bool {
    let q = bytes[0];
    let n = bytes.len();
    if n < 2 || bytes[n - 1] != q {
        return false;
    }
    // The last quote is escaped if an odd number of backslashes precede it.
    let backslashes = bytes[1..n - 1]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count();
    backslashes % 2 == 0
}

/// The first identifier in the declaration specifiers of `item` (before
/// its first declarator name) that is no keyword, not declared by any item
/// and not a name of the implementation (`__x`, `_X`).
fn unknown_type_name(
    text: &[u8],
    tokens: &[Token],
    item: &Item,
    kw: &Keywords,
    declared: &HashMap<u32, Vec<u32>>,
) -> Option<usize> {
    let end = item.body.map_or(item.last, |b| b.saturating_sub(1));
    let mut names = Vec::new();
    declarator_names(tokens, item.first, end, kw, &mut names);
    let first_name = names.first().copied()?;
    let mut j = item.first;
    while j < first_name {
        match tokens[j].kind {
            Kind::Ident(s) if kw.tag_kw.contains(&s) => {
                j = after_tag_keyword(tokens, j, end, kw).1;
                if punct_at(tokens, j, end) == Some(b'{') {
                    j = close_of(tokens, j, end) + 1;
                }
                continue;
            }
            Kind::Ident(s)
                if kw.group_kw.contains(&s) && punct_at(tokens, j + 1, end) == Some(b'(') =>
            {
                j = close_of(tokens, j + 1, end) + 1;
                continue;
            }
            Kind::Ident(s) if !kw.is_reserved(s) && !declared.contains_key(&s) => {
                let t = tokens[j];
                let word = &text[t.start as usize..t.end as usize];
                let implementation = word.starts_with(b"__")
                    || (word.len() > 1 && word[0] == b'_' && word[1].is_ascii_uppercase());
                if !implementation {
                    return Some(j);
                }
            }
            Kind::Ident(_) => {}
            // A declarator begins (`*`, `(`): the specifiers are over.
            _ => return None,
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::prune;
    use super::*;

    /// The suspicion in the text `prune` leaves out of `src` (entry
    /// `main`), and the text from there on.
    fn suspect(src: &str) -> Option<(Suspicion, &str)> {
        let p = prune(src, &["main"]).expect("something is left out");
        p.suspect.map(|s| (s.why, &src[s.offset..]))
    }

    const MAIN: &str =
        "typedef unsigned long size_t;\nstruct s { int a; };\nint main(void) { return 0; }\n";

    #[test]
    fn well_formed_left_out_items_pass() {
        let ok = format!(
            "{MAIN}static size_t f(struct s *p, const char *m) {{ return p->a + sizeof(L\"x\") + 'a'; }}\n\
             static struct t {{ int b[2]; }} g = {{ {{1, 2}} }};\nstatic int c = L'a' + u8'b';\nunsigned int __attribute__((unused)) h;\n\
             typedef int (*fn_t)(size_t);\n__extension__ typedef long long ll_t;\nstatic __int128_t big;\n\
             enum e {{ A = 1 ... 2 }};\n"
        );
        assert_eq!(suspect(&ok), None);
    }

    #[test]
    fn garbage_after_main_is_suspect() {
        let cases: [(&str, Suspicion, &str); 8] = [
            ("this is garbage;", Suspicion::UnknownTypeName, "this i"),
            ("int x = 1 2;", Suspicion::MissingOperator, "2;"),
            ("int y = 1 @ 2;", Suspicion::StrayByte(b'@'), "@ 2;"),
            (
                "char *z = \"open;\n",
                Suspicion::UnterminatedLiteral,
                "\"open;",
            ),
            ("int f(void) { return (1]; }", Suspicion::Unbalanced, "]; }"),
            ("int w", Suspicion::UnterminatedItem, "w"),
            ("struct q { int a; }", Suspicion::UnterminatedItem, "}"),
            (
                "static int g(void) { return x \"s\"; }",
                Suspicion::MissingOperator,
                "\"s\"; }",
            ),
        ];
        for (tail, why, at) in cases {
            let src = format!("{MAIN}{tail}\n");
            let found = suspect(&src);
            assert_eq!(found.map(|f| f.0), Some(why), "{tail}");
            assert!(
                found.is_some_and(|f| f.1.starts_with(at)),
                "{tail}: {found:?}"
            );
        }
    }
}
