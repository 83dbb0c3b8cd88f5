//! Source text preparation: a UTF-8 byte-order mark dropped, comments
//! removed, GNU's `a ?: b` and `__thread` rewritten ([`prepare`]), and the
//! map from byte offsets to original positions given by `#line N "file"` /
//! `# N "file"` directives.

use crate::hash::HashMap;
use crate::ir::SrcPos;

/// The identifier that stands for the omitted middle operand of GNU's `a ?: b`.
pub const ELVIS: &str = "__mpv_elvis";

/// Bytes at which [`strip_comments`] stops copying: literal quotes, a
/// possible comment start and a possible GNU `?:`.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'/' as usize] = true;
    t[b'?' as usize] = true;
    t
};

/// The text the parser reads: a leading UTF-8 byte-order mark dropped
/// (positions are then those an editor shows), comments blanked and
/// `a ?: b` rewritten ([`strip_comments`]), and the GNU storage class
/// `__thread` blanked ([`blank_thread_storage`]).
pub fn prepare(src: &str) -> String {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut text = strip_comments(src);
    blank_thread_storage(&mut text);
    text
}

/// Replaces the GNU storage class `__thread` by spaces (outside literals
/// and directive lines), which the parser does not know: thread-local
/// storage is ordinary static storage for a program that runs one thread,
/// as LDV's environment model does (C11's `_Thread_local`, which the parser
/// knows, is ignored for the same reason).
fn blank_thread_storage(text: &mut String) {
    const WORD: &[u8] = b"__thread";
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let hits: Vec<usize> = memchr::memmem::find_iter(b, WORD)
        .filter(|&at| {
            let end = at + WORD.len();
            let inside_word = (at > 0 && ident(b[at - 1])) || b.get(end).is_some_and(|&c| ident(c));
            !inside_word && !in_literal_or_directive(b, at)
        })
        .collect();
    if hits.is_empty() {
        return;
    }
    let mut bytes = std::mem::take(text).into_bytes();
    for at in hits {
        bytes[at..at + WORD.len()].fill(b' ');
    }
    // ASCII bytes were replaced by ASCII bytes.
    *text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// Whether `at` is inside a string or character literal or on a directive
/// line (of comment-free text, where literals end with their line).
fn in_literal_or_directive(b: &[u8], at: usize) -> bool {
    let start = memchr::memrchr(b'\n', &b[..at]).map_or(0, |k| k + 1);
    let line = &b[start..at];
    if line.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'#') {
        return true;
    }
    let mut i = start;
    while let Some(k) = memchr::memchr2(b'"', b'\'', &b[i..at]) {
        let end = literal_end(b, i + k);
        if end > at {
            return true;
        }
        i = end;
    }
    false
}

/// Replaces comments by spaces and newlines are kept, so line numbers stay
/// valid; string and character literals are left untouched. GNU's `a ?: b`
/// (which the parser does not know) becomes `a ? __mpv_elvis : b`.
/// Runs of ordinary bytes are copied whole: this pass sees every byte of a
/// module, so it is kept to a few instructions per byte.
pub fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len() + 64);
    let mut i = 0;
    while i < b.len() {
        let run = b[i..]
            .iter()
            .position(|&c| SPECIAL[c as usize])
            .unwrap_or(b.len() - i);
        out.extend_from_slice(&b[i..i + run]);
        i += run;
        if i == b.len() {
            break;
        }
        match b[i] {
            b'"' | b'\'' => {
                let j = literal_end(b, i);
                out.extend_from_slice(&b[i..j]);
                i = j;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k);
                out.resize(out.len() + (end - i), b' ');
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end =
                    memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |k| i + 2 + k + 2);
                out.extend(
                    b[i..end]
                        .iter()
                        .map(|&c| if c == b'\n' { b'\n' } else { b' ' }),
                );
                i = end;
            }
            b'?' => {
                out.push(b'?');
                i += 1;
                let mut j = i;
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                    j += 1;
                }
                if b.get(j) == Some(&b':') {
                    out.push(b' ');
                    out.extend_from_slice(ELVIS.as_bytes());
                    out.push(b' ');
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes, so UTF-8 stays valid.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The end of the character or string literal whose opening quote is at
/// `open`: just after its closing quote, skipping escapes; a literal ends
/// with its line at the latest (the newline included), or with the text.
pub(super) fn literal_end(b: &[u8], open: usize) -> usize {
    let q = b[open];
    let mut j = open + 1;
    while let Some(k) = memchr::memchr3(q, b'\\', b'\n', &b[j..]) {
        j += k;
        if b[j] != b'\\' {
            return j + 1;
        }
        j = (j + 2).min(b.len());
    }
    b.len()
}

/// Whether `line` is a preprocessor directive (`#line`, `# N "file"`, ...).
pub(super) fn is_directive_line(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// Maps byte offsets of the (comment-free) text to original file:line.
pub struct LineMap {
    /// Byte offset where each physical line starts.
    starts: Vec<usize>,
    /// Original position of each physical line.
    pos: Vec<SrcPos>,
    /// The line of the last lookup: lowering asks for positions mostly in
    /// text order, so the next one is usually on the same or a close line.
    last: std::cell::Cell<usize>,
}

impl LineMap {
    /// Builds the map; file names are interned into `files`.
    pub fn new(text: &str, main_file: &str, files: &mut Vec<String>) -> Self {
        let mut index: HashMap<String, u32> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.clone(), i as u32))
            .collect();
        let mut intern = |name: &str, files: &mut Vec<String>| -> u32 {
            if let Some(&i) = index.get(name) {
                return i;
            }
            files.push(name.to_string());
            index.insert(name.to_string(), files.len() as u32 - 1);
            files.len() as u32 - 1
        };
        let mut file = intern(main_file, files);
        let mut line = 1u32;
        let b = text.as_bytes();
        // Preprocessed C has lines of some tens of bytes.
        let mut starts = Vec::with_capacity(b.len() / 32);
        let mut pos = Vec::with_capacity(b.len() / 32);
        let mut offset = 0;
        for end in memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len())) {
            starts.push(offset);
            pos.push(SrcPos {
                file,
                line,
                input_line: 0,
                input_column: 0,
            });
            // Newlines are char boundaries.
            let l = &text[offset..end];
            offset = end + 1;
            if !is_directive_line(l) {
                line += 1;
                continue;
            }
            match parse_directive(l) {
                Some((n, f)) => {
                    if let Some(f) = f {
                        file = intern(f, files);
                    }
                    line = n;
                }
                None => line += 1,
            }
        }
        LineMap {
            starts,
            pos,
            last: std::cell::Cell::new(0),
        }
    }

    /// The original position of `offset`, with its line and column in the text.
    pub fn pos(&self, offset: usize) -> SrcPos {
        let i = self.line_of(offset);
        let mut p = self.pos.get(i).copied().unwrap_or_default();
        p.input_line = i as u32 + 1;
        p.input_column = (offset - self.starts.get(i).copied().unwrap_or(0)) as u32 + 1;
        p
    }

    /// The index of the physical line holding `offset`.
    fn line_of(&self, offset: usize) -> usize {
        let on = |i: usize| {
            self.starts.get(i).is_some_and(|&s| s <= offset)
                && self.starts.get(i + 1).is_none_or(|&e| offset < e)
        };
        let last = self.last.get();
        let i = if on(last) {
            last
        } else if on(last + 1) {
            last + 1
        } else {
            match self.starts.binary_search(&offset) {
                Ok(i) => i,
                Err(i) => i.saturating_sub(1),
            }
        };
        self.last.set(i);
        i
    }
}

/// `#line 12 "f.c"`, `# 12 "f.c" 1`, `#line 12`: the number and file name.
fn parse_directive(line: &str) -> Option<(u32, Option<&str>)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let n: u32 = rest[..end].parse().ok()?;
    let rest = rest[end..].trim_start();
    let file = rest
        .strip_prefix('"')
        .and_then(|r| r.find('"').map(|e| &r[..e]));
    Some((n, file))
}

/// The most nested parentheses, brackets and braces (and the longest run
/// of operators) the front end parses: its parser and lowering recurse
/// once per level.
pub const MAX_NESTING: usize = 100_000;

/// The byte offset where the nesting of `(`, `[` and `{` outside string
/// and character literals first goes deeper than `max`, or a run of
/// operator characters (prefix operators nest too: `!!!!x`) grows longer
/// than `max`, if either does.
pub fn too_deep(text: &str, max: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut run = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'!' | b'~' | b'-' | b'+' | b'*' | b'&' => {
                run += 1;
                if run > max {
                    return Some(i);
                }
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        run = 0;
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_measured_outside_literals() {
        assert_eq!(too_deep("f((a[1]));", 3), None);
        assert_eq!(too_deep("f((a[1]));", 2), Some(4));
        assert_eq!(too_deep("s = \"((((\"; c = '(';", 1), None);
        assert_eq!(too_deep("{ { } { { } } }", 2), Some(8));
        assert_eq!(too_deep("x = - - !y;", 3), None);
        assert_eq!(too_deep("x = - - ! ~y;", 3), Some(10));
    }

    #[test]
    fn comments_become_spaces_but_literals_stay() {
        let s = "int a; /* x\ny */ char *s = \"/* no */\"; // tail\nint b;";
        let t = strip_comments(s);
        assert_eq!(t.len(), s.len());
        assert_eq!(strip_comments("x = a ?: b;"), "x = a ? __mpv_elvis : b;");
        assert_eq!(strip_comments("c ? d : e"), "c ? d : e");
        assert!(t.contains("\"/* no */\""));
        assert!(!t.contains("tail"));
        assert_eq!(t.matches('\n').count(), 2);
    }

    #[test]
    fn literal_and_comment_ends_at_the_edges() {
        // An escaped quote does not end a literal; a comment opener inside
        // one stays.
        assert_eq!(
            strip_comments(r#"s = "a\"/*b"; /* c */"#),
            r#"s = "a\"/*b";        "#
        );
        assert_eq!(strip_comments("c = '\\''; // x"), "c = '\\'';     ");
        // A literal ends with its line at the latest.
        assert_eq!(strip_comments("\"open\n/* x */"), "\"open\n       ");
        // Unterminated literal, escape or comment at the end of the text.
        assert_eq!(strip_comments("x = \"ab"), "x = \"ab");
        assert_eq!(strip_comments("x = \"a\\"), "x = \"a\\");
        assert_eq!(strip_comments("x; /* open\nstill"), "x;        \n     ");
        assert_eq!(strip_comments("a / b /"), "a / b /");
    }

    #[test]
    fn byte_order_mark_and_thread_storage_are_prepared_away() {
        assert_eq!(prepare("\u{feff}int x;"), "int x;");
        assert_eq!(
            prepare("static __thread int t; char *s = \"__thread\"; int __thread_x;"),
            "static          int t; char *s = \"__thread\"; int __thread_x;"
        );
        assert_eq!(
            prepare("# 1 \"__thread.h\"\n__thread int u;"),
            "# 1 \"__thread.h\"\n         int u;"
        );
        assert_eq!(
            prepare("c = '\"'; __thread int v;"),
            "c = '\"';          int v;"
        );
    }

    #[test]
    fn line_directives_set_file_and_line() {
        let mut files = Vec::new();
        let text = "aa\n#line 10 \"x.h\"\nbb\ncc\n# 3 \"y.h\" 1\ndd\n#line 7\nee";
        let m = LineMap::new(text, "main.c", &mut files);
        let at = |needle: &str| {
            let p = m.pos(text.find(needle).unwrap());
            (p.file, p.line)
        };
        assert_eq!(at("aa"), (0, 1));
        assert_eq!(at("bb"), (1, 10));
        assert_eq!(at("cc"), (1, 11));
        assert_eq!(at("dd"), (2, 3));
        assert_eq!(at("ee"), (2, 7));
        // Lookups out of order give the same answers.
        assert_eq!(at("bb"), (1, 10));
        assert_eq!(at("aa"), (0, 1));
        let d = m.pos(text.find("dd").unwrap() + 1);
        assert_eq!(
            (d.input_line, d.input_column),
            (6, 2),
            "the input file's line and column"
        );
        let end = m.pos(text.len());
        assert_eq!((end.input_line, end.input_column), (8, 3));
        assert_eq!(files, vec!["main.c", "x.h", "y.h"]);
    }
}
