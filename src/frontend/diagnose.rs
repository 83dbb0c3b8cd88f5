//! Names the GNU C constructs the parser does not know, at a syntax error:
//! 128-bit integers (`__int128`), computed goto (`goto *p;`, `&&label`)
//! and nested functions (a function definition inside a function body).
//! The parser reports only the token it could not take; when one of these
//! constructs comes at or before that token in the same top-level item,
//! the error names it, where it is and what to do instead.

use super::prune::tokens::{close_of, split_items, tokenize, Keywords, Kind, Names, Token};

/// A construct of GNU C that mpv does not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unparsed {
    /// `__int128`, `unsigned __int128`, `__int128_t`, `__uint128_t`.
    Int128,
    /// `goto *p;`: a jump to a label address.
    ComputedGoto,
    /// `&&label`: the address of a label.
    LabelAddress,
    /// A function definition inside a function body.
    NestedFunction,
}

impl Unparsed {
    /// What the construct is, for the error message.
    pub fn construct(self) -> &'static str {
        match self {
            Unparsed::Int128 => "128-bit integer type `__int128`",
            Unparsed::ComputedGoto => "computed goto `goto *...`",
            Unparsed::LabelAddress => "label address `&&label` (computed goto)",
            Unparsed::NestedFunction => "nested function (a function defined inside another)",
        }
    }

    /// What to do about it.
    pub fn hint(self) -> &'static str {
        match self {
            Unparsed::Int128 => {
                "mpv models integers of at most 64 bits: use a 64-bit type where the values fit"
            }
            Unparsed::ComputedGoto | Unparsed::LabelAddress => {
                "mpv has no computed goto: jump through a `switch` over the labels instead"
            }
            Unparsed::NestedFunction => {
                "mpv does not parse GNU nested functions: move the function to file scope"
            }
        }
    }
}

/// The unparsed construct closest before `offset` (where the parser
/// stopped) in the top-level item holding it, and where it starts.
pub fn near(text: &str, offset: usize) -> Option<(usize, Unparsed)> {
    let mut names = Names::default();
    let tokens = tokenize(text.as_bytes(), &mut names);
    let items = split_items(&tokens);
    let kw = Keywords::new(&mut names);
    let item = items
        .iter()
        .take_while(|it| tokens[it.first].start as usize <= offset)
        .last()?;
    let word = |t: &Token| &text[t.start as usize..t.end as usize];
    let punct = |k: usize| match tokens.get(k).map(|t| t.kind) {
        Some(Kind::Punct(p)) if k <= item.last => Some(p),
        _ => None,
    };
    let mut found = None;
    for k in item.first..=item.last {
        let t = &tokens[k];
        if t.start as usize > offset {
            break;
        }
        let in_body = item.body.is_some_and(|b| k > b);
        let hit = match t.kind {
            Kind::Ident(_) if matches!(word(t), "__int128" | "__int128_t" | "__uint128_t") => {
                Some(Unparsed::Int128)
            }
            Kind::Ident(_) if word(t) == "goto" && punct(k + 1) == Some(b'*') => {
                Some(Unparsed::ComputedGoto)
            }
            Kind::Punct(b'&') if is_label_address(&tokens, k, &kw) => Some(Unparsed::LabelAddress),
            Kind::Ident(s) if in_body && !kw.is_reserved(s) => {
                let prev = k.checked_sub(1).map(|p| tokens[p].kind);
                let after_type = matches!(prev, Some(Kind::Ident(_) | Kind::Punct(b'*')));
                let defines = after_type
                    && punct(k + 1) == Some(b'(')
                    && punct(close_of(&tokens, k + 1, item.last) + 1) == Some(b'{');
                defines.then_some(Unparsed::NestedFunction)
            }
            _ => None,
        };
        if let Some(h) = hit {
            found = Some((t.start as usize, h));
        }
    }
    found
}

/// Whether the `&` at `k` starts `&&label` in operand position (not the
/// binary `a && b`).
fn is_label_address(tokens: &[Token], k: usize, kw: &Keywords) -> bool {
    let (Some(second), Some(label)) = (tokens.get(k + 1), tokens.get(k + 2)) else {
        return false;
    };
    if second.kind != Kind::Punct(b'&')
        || second.start != tokens[k].end
        || !matches!(label.kind, Kind::Ident(_))
    {
        return false;
    }
    // After an operand, `&&` is the logical operator.
    match k.checked_sub(1).map(|p| tokens[p].kind) {
        Some(Kind::Ident(s)) => kw.is_reserved(s),
        Some(Kind::Literal) => false,
        Some(Kind::Punct(p)) => !matches!(p, b')' | b']'),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, error_at: &str) -> Option<(usize, Unparsed)> {
        near(text, text.find(error_at).expect("error token"))
    }

    #[test]
    fn constructs_before_the_error_are_named() {
        let t = "int a;\nunsigned __int128 x;\nint b;\n";
        assert_eq!(
            at(t, "x;"),
            Some((t.find("__int128").unwrap(), Unparsed::Int128))
        );
        let t = "void f(void *p) { goto *p; }";
        assert_eq!(at(t, "*p;").map(|f| f.1), Some(Unparsed::ComputedGoto));
        let t = "void f(void) { void *p = &&done; done: ; }";
        assert_eq!(at(t, "done;").map(|f| f.1), Some(Unparsed::LabelAddress));
        let t = "int f(int a) { int g(int x) { return x; } return g(a); }";
        assert_eq!(
            at(t, "{ return x"),
            Some((t.find("g(int").unwrap(), Unparsed::NestedFunction))
        );
    }

    #[test]
    fn ordinary_code_is_no_construct() {
        // `&&` between operands, calls and control statements followed by
        // blocks, constructs in another item.
        let t = "int f(int a, int b) { if (a && b) { g(a); } while (f(a, b)) { } return a && (b); }\nint z = 1 2;";
        assert_eq!(at(t, "2;"), None);
        let t = "unsigned __int128 y;\nint f(void) { return 0 }";
        assert_eq!(at(t, "}"), None);
    }
}
