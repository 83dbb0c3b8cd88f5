//! Lexical pruning of top-level items the entry function cannot name.
//!
//! An LDV module carries every header it was compiled with: thousands of
//! static inline functions, prototypes and type definitions of which the
//! environment model and the driver use a small part. Parsing them is most of
//! the front end's time. This pass splits the comment-free text into
//! top-level items (declarations ending in `;`, function definitions ending
//! in their body's `}`) with a token scan, finds the names each item defines
//! (declarator names, struct/union/enum tags, enumeration constants) and keeps
//! the items reachable from the entry through the identifiers they mention.
//!
//! Soundness: an item nobody names cannot execute (a function's address needs
//! its name, a variable's value too), so dropping it changes no behaviour.
//! Items that use a function name other than as a callee are kept whatever
//! names them, so the candidates of calls through pointers (every function
//! whose address is taken) are those of the whole text. The
//! name extraction is an over-approximation where it is easy to be one (all
//! identifiers of a kept item count as references; an item defining nothing
//! recognisable is kept). A name it misses would leave a reference without
//! declaration: the caller ([`super::parse_source_timed`]) lowers the pruned
//! text with undeclared functions as errors and falls back to the whole text
//! on any parse or lowering error, so a miss costs time, never a verdict.
//!
//! Dropped text is replaced by its newlines and `#line` directives, so line
//! numbers, directives and the columns of kept text stay as they were.
//!
//! The parser never sees dropped text, so [`check`] checks it on the tokens
//! (`Pruned::suspect`): where it may not be C, the caller parses the whole
//! text, so garbage in unreachable code is reported as the parser reports
//! it elsewhere. The token scan and the item split are in [`tokens`].

mod check;
pub(super) mod tokens;

use crate::hash::HashMap;
pub use check::{Suspect, Suspicion};
use tokens::{close_of, punct_at, split_items, tokenize, Item, Keywords, Kind, Names, Token};

/// The result of [`prune`]: the text to parse and what was left out.
pub struct Pruned {
    pub text: String,
    /// Top-level items left out.
    pub dropped_items: usize,
    /// Bytes of text left out.
    pub dropped_bytes: usize,
    /// Where the left-out text may not be C ([`check`]): the whole text
    /// must be parsed to know.
    pub suspect: Option<Suspect>,
}

/// Prunes `text` (comment-free C) to the items reachable from `roots`.
/// Returns `None` when every item is reachable, no root occurs in the text,
/// or the text is too large for 32-bit offsets.
pub fn prune(text: &str, roots: &[&str]) -> Option<Pruned> {
    if text.len() >= u32::MAX as usize {
        return None;
    }
    let mut names = Names::default();
    let tokens = tokenize(text.as_bytes(), &mut names);
    let items = split_items(&tokens);
    let keywords = Keywords::new(&mut names);

    // Function names: every identifier directly followed by `(`.
    let mut is_function = vec![false; names.len()];
    for w in tokens.windows(2) {
        if let (Kind::Ident(s), Kind::Punct(b'(')) = (w[0].kind, w[1].kind) {
            is_function[s as usize] = !keywords.is_reserved(s);
        }
    }

    // Which items define each name.
    let mut defined_by: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut keep = vec![false; items.len()];
    let mut work: Vec<u32> = Vec::new();
    let mut defs = Vec::new();
    let mut members = Vec::new();
    for (i, item) in items.iter().enumerate() {
        defs.clear();
        item_defs(&tokens, item, &keywords, &mut defs);
        if defs.is_empty()
            || takes_function_address(&tokens, item, &keywords, &is_function, &mut members)
        {
            keep[i] = true;
            work.push(i as u32);
        }
        for &d in &defs {
            defined_by.entry(d).or_default().push(i as u32);
        }
    }
    let mut reached = vec![false; names.len()];
    let visit = |sym: u32, reached: &mut Vec<bool>, keep: &mut Vec<bool>, work: &mut Vec<u32>| {
        if !std::mem::replace(&mut reached[sym as usize], true) {
            for &i in defined_by.get(&sym).map(|v| v.as_slice()).unwrap_or(&[]) {
                if !std::mem::replace(&mut keep[i as usize], true) {
                    work.push(i);
                }
            }
        }
    };
    let roots: Vec<u32> = roots.iter().filter_map(|r| names.get(r)).collect();
    if roots.is_empty() {
        return None;
    }
    for sym in roots {
        visit(sym, &mut reached, &mut keep, &mut work);
    }
    while let Some(i) = work.pop() {
        let item = &items[i as usize];
        members.clear();
        member_declarators(&tokens, item, &keywords, &mut members);
        members.sort_unstable();
        for k in item.first..=item.last {
            if let Kind::Ident(sym) = tokens[k].kind {
                if !is_member_name(&tokens, k) && members.binary_search(&k).is_err() {
                    visit(sym, &mut reached, &mut keep, &mut work);
                }
            }
        }
    }
    if keep.iter().all(|&k| k) {
        return None;
    }
    let suspect = check::check_dropped(
        text.as_bytes(),
        &tokens,
        &items,
        &keep,
        &keywords,
        &defined_by,
    );

    // Items start and end at ASCII bytes, so the cuts are char boundaries
    // (`get` declines to prune otherwise).
    let mut out = String::with_capacity(text.len());
    let mut copied = 0usize;
    let mut dropped_items = 0;
    let mut dropped_bytes = 0;
    for (item, &kept) in items.iter().zip(&keep) {
        if kept {
            continue;
        }
        let a = tokens[item.first].start as usize;
        let b = tokens[item.last].end as usize;
        out.push_str(text.get(copied..a)?);
        blank(text.get(a..b)?, &mut out);
        copied = b;
        dropped_items += 1;
        dropped_bytes += b - a;
    }
    out.push_str(text.get(copied..)?);
    let text = out;
    Some(Pruned {
        text,
        dropped_items,
        dropped_bytes,
        suspect,
    })
}

/// Whether `item` uses a function name other than as a callee: it may take
/// the function's address. Such items are always kept, so every function
/// whose address the module takes anywhere stays a candidate of calls
/// through pointers: LDV's environment models hand the driver objects that
/// other entry points filled with the module's function pointers.
fn takes_function_address(
    tokens: &[Token],
    item: &Item,
    kw: &Keywords,
    is_function: &[bool],
    members: &mut Vec<usize>,
) -> bool {
    let mut scanned = false;
    for k in item.first..=item.last {
        let Kind::Ident(sym) = tokens[k].kind else {
            continue;
        };
        if !is_function[sym as usize]
            || tokens.get(k + 1).map(|t| t.kind) == Some(Kind::Punct(b'('))
            || is_member_name(tokens, k)
        {
            continue;
        }
        if !scanned {
            members.clear();
            member_declarators(tokens, item, kw, members);
            members.sort_unstable();
            scanned = true;
        }
        if members.binary_search(&k).is_err() {
            return true;
        }
    }
    false
}

/// Whether the identifier at `k` follows `.` or `->`: a member or
/// designator name, which names nothing at file scope.
fn is_member_name(tokens: &[Token], k: usize) -> bool {
    match k.checked_sub(1).map(|p| tokens[p]) {
        Some(Token {
            kind: Kind::Punct(b'.'),
            ..
        }) => true,
        Some(Token {
            kind: Kind::Punct(b'>'),
            start,
            ..
        }) => k >= 2 && tokens[k - 2].kind == Kind::Punct(b'-') && tokens[k - 2].end == start,
        _ => false,
    }
}

/// Writes the replacement of dropped text: its newlines and directive lines,
/// and spaces for the part after its last newline (columns of what follows).
fn blank(dropped: &str, out: &mut String) {
    let tail = dropped.rfind('\n').map_or(0, |i| i + 1);
    for (k, line) in dropped[..tail].split_terminator('\n').enumerate() {
        if k > 0 && super::source::is_directive_line(line) {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.extend(std::iter::repeat_n(' ', dropped[tail..].len()));
}

/// For the `struct`/`union`/`enum` keyword at `j`: its tag, if any, and the
/// index of the token after the tag (attribute groups skipped).
fn after_tag_keyword(
    tokens: &[Token],
    j: usize,
    end: usize,
    kw: &Keywords,
) -> (Option<u32>, usize) {
    let mut k = j + 1;
    while k <= end {
        match tokens[k].kind {
            Kind::Ident(s)
                if kw.group_kw.contains(&s) && punct_at(tokens, k + 1, end) == Some(b'(') =>
            {
                k = close_of(tokens, k + 1, end) + 1;
            }
            Kind::Ident(s) if !kw.is_reserved(s) => return (Some(s), k + 1),
            _ => break,
        }
    }
    (None, k)
}

/// The names an item defines at file scope: declarator names, tags with a
/// body (or forward-declared), and enumeration constants.
fn item_defs(tokens: &[Token], item: &Item, kw: &Keywords, defs: &mut Vec<u32>) {
    // The declaration part: a function definition's head, or the whole item.
    let end = item.body.map_or(item.last, |b| b.saturating_sub(1));
    // Tags and enumeration constants, nested ones included.
    for j in item.first..=end {
        let Kind::Ident(sym) = tokens[j].kind else {
            continue;
        };
        if !kw.tag_kw.contains(&sym) {
            continue;
        }
        let (tag, k) = after_tag_keyword(tokens, j, end, kw);
        match punct_at(tokens, k, end) {
            Some(b'{') => {
                defs.extend(tag);
                if sym == kw.tag_kw[2] {
                    enum_constants(tokens, k, close_of(tokens, k, end), kw, defs);
                }
            }
            Some(b';') => defs.extend(tag),
            _ => {}
        }
    }
    let mut names = Vec::new();
    declarator_names(tokens, item.first, end, kw, &mut names);
    defs.extend(names.iter().filter_map(|&j| match tokens[j].kind {
        Kind::Ident(sym) => Some(sym),
        _ => None,
    }));
}

/// The token indices of the declarator names in `from..=end`: the first
/// identifier of each declarator that is followed by what may follow a
/// declarator's name. Declarations are separated by `;`, declarators by `,`;
/// bodies and initializers are skipped.
fn declarator_names(
    tokens: &[Token],
    from: usize,
    end: usize,
    kw: &Keywords,
    out: &mut Vec<usize>,
) {
    let punct = |j: usize| punct_at(tokens, j, end);
    let mut j = from;
    let mut expect_name = true;
    let mut depth = 0usize;
    while j <= end {
        match tokens[j].kind {
            Kind::Ident(sym) if kw.tag_kw.contains(&sym) => {
                // Skip the tag; a body is skipped by the brace rule below.
                j = after_tag_keyword(tokens, j, end, kw).1;
                continue;
            }
            Kind::Ident(sym) if kw.group_kw.contains(&sym) && punct(j + 1) == Some(b'(') => {
                j = close_of(tokens, j + 1, end) + 1;
                continue;
            }
            Kind::Ident(sym) if expect_name && !kw.is_reserved(sym) => {
                let follows_name = match tokens.get(j + 1).filter(|_| j < end) {
                    None => true,
                    Some(t) => match t.kind {
                        // `T (*name)(...)`: a type, then a parenthesised declarator.
                        Kind::Punct(b'(') => punct(j + 2) != Some(b'*'),
                        Kind::Punct(p) => b")[=,;:{".contains(&p),
                        Kind::Ident(s) => kw.group_kw.contains(&s),
                        Kind::Literal => false,
                    },
                };
                if follows_name {
                    out.push(j);
                    expect_name = false;
                }
            }
            Kind::Punct(b'{') => {
                // A struct/union/enum body or an initializer.
                j = close_of(tokens, j, end) + 1;
                continue;
            }
            Kind::Punct(b'(' | b'[') => depth += 1,
            Kind::Punct(b')' | b']') => depth = depth.saturating_sub(1),
            Kind::Punct(b'=') if depth == 0 => {
                // Skip the initializer up to the next declarator.
                j += 1;
                let mut d = 0usize;
                while j <= end {
                    match tokens[j].kind {
                        Kind::Punct(b'(' | b'[' | b'{') => d += 1,
                        Kind::Punct(b')' | b']' | b'}') => d = d.saturating_sub(1),
                        Kind::Punct(b',' | b';') if d == 0 => break,
                        _ => {}
                    }
                    j += 1;
                }
                continue;
            }
            Kind::Punct(b',' | b';') if depth == 0 => expect_name = true,
            _ => {}
        }
        j += 1;
    }
}

/// The token indices of member names declared in the struct and union
/// bodies of `item`: they name nothing at file scope.
fn member_declarators(tokens: &[Token], item: &Item, kw: &Keywords, out: &mut Vec<usize>) {
    for j in item.first..=item.last {
        let Kind::Ident(sym) = tokens[j].kind else {
            continue;
        };
        if sym != kw.tag_kw[0] && sym != kw.tag_kw[1] {
            continue;
        }
        let (_, k) = after_tag_keyword(tokens, j, item.last, kw);
        if punct_at(tokens, k, item.last) == Some(b'{') {
            let close = close_of(tokens, k, item.last);
            if close > k + 1 {
                declarator_names(tokens, k + 1, close - 1, kw, out);
            }
        }
    }
}

/// Enumeration constants of the enum body `open..=close`.
fn enum_constants(tokens: &[Token], open: usize, close: usize, kw: &Keywords, defs: &mut Vec<u32>) {
    let mut expect = true;
    let mut depth = 0usize;
    for t in &tokens[open + 1..close] {
        match t.kind {
            Kind::Ident(s) if expect && depth == 0 && !kw.is_reserved(s) => {
                defs.push(s);
                expect = false;
            }
            Kind::Punct(b'(' | b'[' | b'{') => depth += 1,
            Kind::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            Kind::Punct(b',') if depth == 0 => expect = true,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(src: &str) -> String {
        match prune(src, &["main"]) {
            Some(p) => {
                assert_eq!(p.text.matches('\n').count(), src.matches('\n').count());
                p.text.split_whitespace().collect::<Vec<_>>().join(" ")
            }
            None => src.split_whitespace().collect::<Vec<_>>().join(" "),
        }
    }

    #[test]
    fn unreachable_functions_and_types_are_dropped() {
        let src = "typedef int u32;\ntypedef long unused_t;\n\
                   struct s { u32 a; };\nstruct t { int b; };\n\
                   static int helper(struct s *p) { return p->a; }\n\
                   static int dead(struct t *q) { return q->b; }\n\
                   int main(void) { struct s x; return helper(&x); }\n";
        let k = kept(src);
        assert!(k.contains("typedef int u32;"), "{k}");
        assert!(k.contains("struct s { u32 a; };"));
        assert!(k.contains("helper"));
        assert!(!k.contains("dead"));
        assert!(!k.contains("struct t"));
        assert!(!k.contains("unused_t"));
    }

    #[test]
    fn declarators_of_every_shape_define_their_names() {
        let src = "typedef long ssize_t;\nssize_t (*fp)(int a);\nint x, *y, z[3] = {1, 2, 3}, (*w)(int);\n\
                   typedef void (*handler_t)(int);\n\
                   static int __attribute__((section(\"s\"))) g(void) { return 1; }\n\
                   enum e { A, B = 2, C };\n\
                   struct outer { struct inner { int i; } in; enum { D, E } k; };\n\
                   int main(void) { handler_t h; return fp(x) + *y + z[0] + w(1) + g() + C + E; }\n";
        let mut names = Names::default();
        let tokens = tokenize(src.as_bytes(), &mut names);
        let items = split_items(&tokens);
        let kw = Keywords::new(&mut names);
        let defs_of = |i: usize| {
            let mut d = Vec::new();
            item_defs(&tokens, &items[i], &kw, &mut d);
            let mut v: Vec<&str> = d
                .iter()
                .map(|s| *names.index.iter().find(|(_, &v)| v == *s).unwrap().0)
                .map(|b| std::str::from_utf8(b).unwrap())
                .collect();
            v.sort();
            v
        };
        assert_eq!(items.len(), 8);
        assert_eq!(defs_of(0), vec!["ssize_t"]);
        assert_eq!(defs_of(1), vec!["fp"]);
        assert_eq!(defs_of(2), vec!["w", "x", "y", "z"]);
        assert_eq!(defs_of(3), vec!["handler_t"]);
        assert_eq!(defs_of(4), vec!["g"]);
        assert_eq!(defs_of(5), vec!["A", "B", "C", "e"]);
        assert_eq!(defs_of(6), vec!["D", "E", "inner", "outer"]);
        assert_eq!(defs_of(7), vec!["main"]);
        assert!(prune(src, &["main"]).is_none(), "everything is reachable");
    }

    #[test]
    fn dropped_text_keeps_lines_directives_and_columns() {
        let src = "int dead(void) {\n# 7 \"h.h\"\n  return 0;\n}  int main(void) { return 0; }\n";
        let p = prune(src, &["main"]).unwrap();
        assert_eq!(p.dropped_items, 1);
        assert!(p.text.len() <= src.len());
        let lines: Vec<&str> = p.text.split('\n').collect();
        assert_eq!(lines[1], "# 7 \"h.h\"");
        assert_eq!(
            lines[3].find("int main"),
            src.split('\n').nth(3).unwrap().find("int main")
        );
    }

    #[test]
    fn member_names_do_not_keep_functions_of_the_same_name() {
        let src = "typedef long ssize_t;\nstruct s { ssize_t (*open)(void); int n; };\n\
                   int open(void) { return 1; }\nint n(void) { return 2; }\n\
                   struct s v = { .n = 1 };\n\
                   int main(void) { struct s *p = &v; return p->open() + v.n; }\n";
        let k = kept(src);
        assert!(!k.contains("int open(void)"), "{k}");
        assert!(!k.contains("int n(void)"), "{k}");
        assert!(k.contains("struct s v"));
        assert!(
            k.contains("typedef long ssize_t;"),
            "a member's type is a reference"
        );
    }

    #[test]
    fn items_taking_a_function_address_are_kept() {
        let src = "struct ops { int (*cb)(void); };\n\
                   static int target(void) { return 1; }\n\
                   static int other(void) { return 2; }\n\
                   static struct ops table = { .cb = target };\n\
                   static void setup(struct ops *o) { o->cb = other; }\n\
                   static int unused(void) { return 3; }\n\
                   int main(void) { return 0; }\n";
        let k = kept(src);
        assert!(k.contains("struct ops table"), "{k}");
        assert!(k.contains("int target(void)"), "{k}");
        assert!(k.contains("o->cb = other"), "{k}");
        assert!(k.contains("int other(void)"), "{k}");
        assert!(!k.contains("unused"), "{k}");
    }

    #[test]
    fn without_the_entry_nothing_is_pruned() {
        assert!(prune("int f(void) { return 0; }\n", &["main"]).is_none());
    }

    #[test]
    fn items_without_names_are_kept_and_compound_literals_do_not_end_items() {
        let src = "__asm__(\".globl x\");\nstruct p { int a, b; };\n\
                   static struct p q = (struct p){1, 2};\nint main(void) { return q.a; }\n";
        let k = kept(src);
        assert!(k.contains("__asm__"));
        assert!(k.contains("(struct p){1, 2};"));
    }
}
