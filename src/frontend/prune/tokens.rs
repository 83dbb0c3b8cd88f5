//! The token scan under pruning and the token-level checks: comment-free
//! C split into identifiers (interned), punctuation and literals, with
//! preprocessor directive lines skipped, and the tokens split into
//! top-level items (declarations ending in `;`, function definitions
//! ending in their body's `}`); the keywords that matter to finding the
//! names an item declares.

use crate::hash::HashMap;

/// What a token is: an identifier (interned in [`Names`]), one byte of
/// punctuation, or a literal (number, string or character constant).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::frontend) enum Kind {
    Ident(u32),
    Punct(u8),
    Literal,
}

/// A token and its byte range in the text.
#[derive(Clone, Copy, Debug)]
pub(in crate::frontend) struct Token {
    pub(in crate::frontend) kind: Kind,
    pub(in crate::frontend) start: u32,
    pub(in crate::frontend) end: u32,
}

/// One top-level item: a token range and, for a function definition, where
/// its body starts.
pub(in crate::frontend) struct Item {
    pub(in crate::frontend) first: usize,
    pub(in crate::frontend) last: usize,
    pub(in crate::frontend) body: Option<usize>,
}

/// The identifiers of a text, interned as byte slices.
#[derive(Default)]
pub(in crate::frontend) struct Names<'a> {
    pub(in crate::frontend) index: HashMap<&'a [u8], u32>,
}

impl<'a> Names<'a> {
    pub(in crate::frontend) fn intern(&mut self, s: &'a [u8]) -> u32 {
        let n = self.index.len() as u32;
        *self.index.entry(s).or_insert(n)
    }
    pub(in crate::frontend) fn get(&self, s: &str) -> Option<u32> {
        self.index.get(s.as_bytes()).copied()
    }
    pub(in crate::frontend) fn len(&self) -> usize {
        self.index.len()
    }
}

/// Byte classes of the tokenizer.
const SPACE: u8 = 1;
const IDENT: u8 = 2;
const DIGIT: u8 = 3;
const OTHER: u8 = 4;
const NON_ASCII: u8 = 5;

const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b == b' ' || b == b'\t' || b == b'\r' || b == 0x0b || b == 0x0c {
            SPACE
        } else if b.is_ascii_alphabetic() || b == b'_' || b == b'$' {
            IDENT
        } else if b.is_ascii_digit() {
            DIGIT
        } else if !b.is_ascii() {
            NON_ASCII
        } else {
            OTHER
        };
        c += 1;
    }
    t
};

fn is_ident_char(c: u8) -> bool {
    matches!(CLASS[c as usize], IDENT | DIGIT)
}

/// Splits comment-free C into identifiers, punctuation and literals;
/// preprocessor directive lines are skipped. Every byte of a module passes
/// through here, so it works on byte classes and interns identifiers as
/// byte slices.
pub(in crate::frontend) fn tokenize<'a>(b: &'a [u8], names: &mut Names<'a>) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(b.len() / 6);
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match CLASS[c as usize] {
            SPACE => {
                i += 1;
                while i < b.len() && CLASS[b[i] as usize] == SPACE {
                    i += 1;
                }
                continue;
            }
            IDENT => {
                i += 1;
                while i < b.len() && is_ident_char(b[i]) {
                    i += 1;
                }
                Kind::Ident(names.intern(&b[start..i]))
            }
            DIGIT => {
                while i < b.len() {
                    let d = b[i];
                    let sign =
                        (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                    if is_ident_char(d) || d == b'.' || sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                Kind::Literal
            }
            NON_ASCII => {
                // A non-ASCII byte outside literals: part of an identifier
                // in extended C; treat the run as one literal token.
                while i < b.len() && !b[i].is_ascii() {
                    i += 1;
                }
                Kind::Literal
            }
            _ => match c {
                b'\n' => {
                    line_start = true;
                    i += 1;
                    continue;
                }
                b'#' if line_start => {
                    i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k);
                    continue;
                }
                b'"' | b'\'' => {
                    i = crate::frontend::source::literal_end(b, i);
                    Kind::Literal
                }
                _ => {
                    i += 1;
                    Kind::Punct(c)
                }
            },
        };
        line_start = false;
        tokens.push(Token {
            kind,
            start: start as u32,
            end: i as u32,
        });
    }
    tokens
}

/// Splits the tokens into top-level items.
pub(in crate::frontend) fn split_items(tokens: &[Token]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut first = 0;
    let (mut parens, mut braces) = (0usize, 0usize);
    let mut assigned = false;
    let mut body = None;
    for (i, t) in tokens.iter().enumerate() {
        let mut end = false;
        match t.kind {
            Kind::Punct(b'(' | b'[') => parens += 1,
            Kind::Punct(b')' | b']') => parens = parens.saturating_sub(1),
            Kind::Punct(b'=') if parens == 0 && braces == 0 => assigned = true,
            Kind::Punct(b'{') => {
                if parens == 0
                    && braces == 0
                    && !assigned
                    && i > first
                    && tokens[i - 1].kind == Kind::Punct(b')')
                {
                    body = Some(i);
                }
                braces += 1;
            }
            Kind::Punct(b'}') => {
                braces = braces.saturating_sub(1);
                end = braces == 0 && parens == 0 && body.is_some();
            }
            Kind::Punct(b';') => end = braces == 0 && parens == 0,
            _ => {}
        }
        if end {
            items.push(Item {
                first,
                last: i,
                body: body.take(),
            });
            first = i + 1;
            assigned = false;
        }
    }
    if first < tokens.len() {
        items.push(Item {
            first,
            last: tokens.len() - 1,
            body,
        });
    }
    items
}

/// The identifiers that matter to name extraction.
pub(in crate::frontend) struct Keywords {
    /// C and GNU keywords: never a declarator name.
    pub(in crate::frontend) reserved: Vec<bool>,
    /// `struct`, `union`, `enum`.
    pub(in crate::frontend) tag_kw: [u32; 3],
    /// Keywords followed by a parenthesised group that declares nothing.
    pub(in crate::frontend) group_kw: Vec<u32>,
}

const RESERVED: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "__const",
    "__const__",
    "__inline",
    "__inline__",
    "__restrict",
    "__restrict__",
    "__signed",
    "__signed__",
    "__volatile",
    "__volatile__",
    "__extension__",
    "__label__",
    "__thread",
    "__int128",
    "__complex__",
    "__real__",
    "__imag__",
    "__builtin_va_list",
    "_Float128",
    "__float128",
    "_Float64",
    "_Float32",
    "__auto_type",
];

const GROUP: &[&str] = &[
    "__attribute__",
    "__attribute",
    "__asm__",
    "__asm",
    "asm",
    "__typeof__",
    "__typeof",
    "typeof",
    "__declspec",
    "__alignof__",
    "__alignof",
    "_Alignas",
    "_Static_assert",
];

impl Keywords {
    pub(in crate::frontend) fn new(names: &mut Names<'_>) -> Self {
        let mut ids = |list: &[&'static str]| -> Vec<u32> {
            list.iter()
                .map(|k| names.intern(k.as_bytes()))
                .collect::<Vec<_>>()
        };
        let reserved_ids = ids(RESERVED);
        let group_kw = ids(GROUP);
        let tag_kw = [
            names.intern(b"struct"),
            names.intern(b"union"),
            names.intern(b"enum"),
        ];
        let mut reserved = vec![false; names.len()];
        for &k in reserved_ids.iter().chain(&group_kw) {
            reserved[k as usize] = true;
        }
        Keywords {
            reserved,
            tag_kw,
            group_kw,
        }
    }

    pub(in crate::frontend) fn is_reserved(&self, sym: u32) -> bool {
        self.reserved.get(sym as usize).copied().unwrap_or(false)
    }
}

/// The index of the token that closes the group opened at `open`.
pub(in crate::frontend) fn close_of(tokens: &[Token], open: usize, end: usize) -> usize {
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().take(end + 1).skip(open) {
        match t.kind {
            Kind::Punct(b'(' | b'[' | b'{') => depth += 1,
            Kind::Punct(b')' | b']' | b'}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    end
}

/// The punctuation at `j`, if `j` is within `..=end`.
pub(in crate::frontend) fn punct_at(tokens: &[Token], j: usize, end: usize) -> Option<u8> {
    match tokens.get(j) {
        Some(Token {
            kind: Kind::Punct(p),
            ..
        }) if j <= end => Some(*p),
        _ => None,
    }
}
