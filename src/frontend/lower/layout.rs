//! Struct and union layout (GCC's rules, under the type table's data model), with the layout attributes:
//! `packed` on a type or field (alignment 1; bit-fields at any bit),
//! `aligned(N)` on a type or field (raises the alignment) and
//! `#pragma pack(N)` / `pack(push, N)` / `pack(pop)` / `pack()` (caps the
//! alignment of members).

use crate::hash::HashMap;

/// A member as the layout sees it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Member {
    pub size: u64,
    /// The natural alignment of its type.
    pub align: u64,
    pub bit_width: Option<u32>,
    /// `__attribute__((packed))` on the member.
    pub packed: bool,
    /// `__attribute__((aligned(N)))` on the member.
    pub aligned: Option<u64>,
}

/// The rules in force for one struct or union.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rules {
    /// `__attribute__((packed))` on the type.
    pub packed: bool,
    /// `__attribute__((aligned(N)))` on the type.
    pub aligned: Option<u64>,
    /// The `#pragma pack` cap at the definition.
    pub pack: Option<u64>,
}

/// Where a member lies: its byte offset and, for a bit-field, the bit
/// offset within the storage unit read from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placement {
    pub offset: u64,
    pub bit_offset: u32,
}

/// The layout of a struct or union: member placements, size, alignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    pub members: Vec<Placement>,
    pub size: u64,
    pub align: u64,
}

/// A run of adjacent bit-fields: its storage unit in bytes, or bit-granular
/// (packed bit-fields).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Run {
    Unit(u64),
    Bits,
}

fn round_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a.max(1)) * a.max(1)
}

/// The alignment of a member under `rules`.
fn member_align(m: &Member, rules: Rules) -> u64 {
    let mut a = if m.packed || rules.packed { 1 } else { m.align };
    if let Some(n) = m.aligned {
        a = a.max(n);
    }
    if let Some(p) = rules.pack {
        a = a.min(p);
    }
    a.max(1)
}

/// Lays out `members` of a struct (`is_union` false) or union.
pub(super) fn layout(members: &[Member], is_union: bool, rules: Rules) -> Layout {
    let (mut offset, mut size, mut align, mut bits_used) = (0u64, 0u64, 1u64, 0u32);
    let mut run = Run::Unit(0);
    // The byte after the current bit-field run.
    let run_end = |offset: u64, bits_used: u32, run: Run| match run {
        Run::Unit(u) => offset + u,
        Run::Bits => offset + u64::from(bits_used).div_ceil(8),
    };
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        let falign = member_align(m, rules);
        align = align.max(falign);
        let packed = m.packed || rules.packed;
        let placed = if is_union {
            size = size.max(m.size);
            Placement {
                offset: 0,
                bit_offset: 0,
            }
        } else if let (Some(w), true) = (m.bit_width, packed) {
            if bits_used > 0 && run != Run::Bits {
                offset = run_end(offset, bits_used, run);
                bits_used = 0;
            }
            run = Run::Bits;
            let bit = offset * 8 + u64::from(bits_used);
            bits_used += w;
            Placement {
                offset: bit / 8,
                bit_offset: (bit % 8) as u32,
            }
        } else if let Some(w) = m.bit_width {
            let unit_bits = (m.size * 8) as u32;
            let fits = bits_used > 0 && bits_used + w <= unit_bits && run == Run::Unit(m.size);
            if w == 0 || !fits {
                if bits_used > 0 {
                    offset = match run {
                        Run::Unit(u) => round_up(round_up(offset, falign) + u, falign),
                        Run::Bits => round_up(run_end(offset, bits_used, run), falign),
                    };
                } else {
                    offset = round_up(offset, falign);
                }
                bits_used = 0;
                run = Run::Unit(m.size);
            }
            let bit_offset = bits_used;
            bits_used += w;
            Placement { offset, bit_offset }
        } else {
            if bits_used > 0 {
                offset = run_end(offset, bits_used, run);
                bits_used = 0;
            }
            offset = round_up(offset, falign);
            let o = offset;
            offset += m.size;
            Placement {
                offset: o,
                bit_offset: 0,
            }
        };
        out.push(placed);
    }
    if !is_union {
        if bits_used > 0 {
            offset = run_end(offset, bits_used, run);
        }
        size = offset;
    }
    if let Some(n) = rules.aligned {
        align = align.max(n);
    }
    Layout {
        members: out,
        size: round_up(size, align),
        align,
    }
}

/// What a `#pragma pack` line does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PackOp {
    /// `pack(N)`; `pack()` restores the default (no cap).
    Set(Option<u64>),
    /// `pack(push)`, `pack(push, N)`.
    Push(Option<u64>),
    /// `pack(pop)`.
    Pop,
}

/// The `#pragma pack` state along the text: which cap is in force at each
/// byte offset.
#[derive(Clone, Debug, Default)]
pub(super) struct PackPragmas {
    /// Offsets where the cap changes, in order, with the new cap.
    changes: Vec<(usize, Option<u64>)>,
}

impl PackPragmas {
    /// Scans comment-free C text for `#pragma pack` lines.
    fn scan(text: &str) -> Self {
        let mut changes = Vec::new();
        if !text.contains("pragma") {
            return PackPragmas { changes };
        }
        let (mut cap, mut stack) = (None, Vec::new());
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            if let Some(op) = parse_pack(line) {
                match op {
                    PackOp::Set(n) => cap = n,
                    PackOp::Push(n) => {
                        stack.push(cap);
                        if n.is_some() {
                            cap = n;
                        }
                    }
                    PackOp::Pop => cap = stack.pop().unwrap_or(None),
                }
                changes.push((start, cap));
            }
            start += line.len();
        }
        PackPragmas { changes }
    }

    /// The cap in force at byte `offset`.
    pub(super) fn at(&self, offset: usize) -> Option<u64> {
        let i = self.changes.partition_point(|&(o, _)| o <= offset);
        i.checked_sub(1).and_then(|i| self.changes[i].1)
    }
}

/// `#pragma pack(...)` (spaces anywhere between the tokens).
fn parse_pack(line: &str) -> Option<PackOp> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("pragma")?.trim_start();
    let rest = rest.strip_prefix("pack")?.trim_start();
    let inner = rest.strip_prefix('(')?.split(')').next()?;
    let args: Vec<&str> = inner
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    let number = |a: &&str| a.parse::<u64>().ok().filter(|n| n.is_power_of_two());
    Some(match args.first().copied() {
        None => PackOp::Set(None),
        Some("push") => PackOp::Push(args.iter().rev().find_map(number)),
        Some("pop") => PackOp::Pop,
        Some(n) => PackOp::Set(number(&n)),
    })
}

/// What the text says about layouts that the parser drops: `#pragma pack`
/// lines and attributes right after `struct` / `union`.
#[derive(Clone, Debug, Default)]
pub(crate) struct TextHints {
    pub(super) pack: PackPragmas,
    pub(super) heads: HashMap<usize, HeadAttributes>,
}

impl TextHints {
    /// Scans comment-free C text, blanking out what the parser misreads.
    pub(crate) fn scan(text: &mut String) -> Self {
        TextHints {
            pack: PackPragmas::scan(text),
            heads: scan_head_attributes(text),
        }
    }
}

/// `packed` and `aligned(N)` written between `struct` / `union` and the
/// tag or brace: the parser drops them, so the text is scanned for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct HeadAttributes {
    pub packed: bool,
    pub aligned: Option<u64>,
}

/// The [`HeadAttributes`] of the text, by the offset of their keyword.
/// The parser misreads attributes in that place, so they are blanked out
/// of `text` (newlines kept: offsets and lines stay as they were).
fn scan_head_attributes(text: &mut String) -> HashMap<usize, HeadAttributes> {
    let mut out = HashMap::default();
    let mut blank = Vec::new();
    for keyword in ["struct", "union"] {
        let b = text.as_bytes();
        for at in memchr::memmem::find_iter(b, keyword) {
            let word_start = at == 0 || !is_ident(b[at - 1]);
            let end = at + keyword.len();
            if !word_start || b.get(end).is_some_and(|&c| is_ident(c)) {
                continue;
            }
            let (head, len) = head_attributes(&text[end..]);
            if len > 0 {
                out.insert(at, head);
                blank.push(end..end + len);
            }
        }
    }
    for r in blank {
        let spaces: String = text[r.clone()]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        text.replace_range(r, &spaces);
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The attribute specifiers at the start of `rest` (after the keyword),
/// and the length of the text they take (0 if there are none).
fn head_attributes(text: &str) -> (HeadAttributes, usize) {
    let mut head = HeadAttributes::default();
    let mut taken = 0;
    loop {
        let rest = &text[taken..];
        let spaces = rest.len() - rest.trim_start().len();
        let rest = rest.trim_start();
        let Some(r) = rest
            .strip_prefix("__attribute__")
            .or_else(|| rest.strip_prefix("__attribute"))
        else {
            return (head, taken);
        };
        let keyword = rest.len() - r.len();
        let r_trimmed = r.trim_start();
        let gap = r.len() - r_trimmed.len();
        let Some(len) = balanced(r_trimmed) else {
            return (head, taken);
        };
        attribute_items(&r_trimmed[..len], &mut head);
        taken += spaces + keyword + gap + len;
    }
}

/// Reads `packed` and `aligned(N)` among the items of `((a, b(1)))`.
fn attribute_items(group: &str, head: &mut HeadAttributes) {
    let inner = group
        .trim()
        .strip_prefix('(')
        .and_then(|i| i.strip_suffix(')'));
    let inner = inner
        .map(str::trim)
        .and_then(|i| i.strip_prefix('(')?.strip_suffix(')'));
    for item in split_top(inner.unwrap_or("")) {
        let item = item.trim();
        let (name, args) = match item.find('(') {
            Some(p) => (item[..p].trim(), item[p + 1..].trim_end_matches(')').trim()),
            None => (item, ""),
        };
        match name.trim_matches('_') {
            "packed" => head.packed = true,
            "aligned" if args.is_empty() => head.aligned = Some(16),
            "aligned" => {
                let n = args.trim_end_matches(['u', 'U', 'l', 'L']).parse::<u64>();
                head.aligned = n.ok().or(head.aligned);
            }
            _ => {}
        }
    }
}

/// The length of the parenthesised group `s` starts with.
fn balanced(s: &str) -> Option<usize> {
    if !s.starts_with('(') {
        return None;
    }
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at the commas outside parentheses.
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(size: u64) -> Member {
        Member {
            size,
            align: size,
            ..Member::default()
        }
    }

    fn bits(size: u64, w: u32) -> Member {
        Member {
            bit_width: Some(w),
            ..scalar(size)
        }
    }

    fn offsets(l: &Layout) -> Vec<u64> {
        l.members.iter().map(|p| p.offset).collect()
    }

    #[test]
    fn natural_layout_pads_to_alignment() {
        let l = layout(&[scalar(1), scalar(4)], false, Rules::default());
        assert_eq!((offsets(&l), l.size, l.align), (vec![0, 4], 8, 4));
    }

    #[test]
    fn packed_type_has_no_padding() {
        let rules = Rules {
            packed: true,
            ..Rules::default()
        };
        let l = layout(&[scalar(1), scalar(4), scalar(2)], false, rules);
        assert_eq!((offsets(&l), l.size, l.align), (vec![0, 1, 5], 7, 1));
    }

    #[test]
    fn packed_member_alone_is_unaligned() {
        let m = Member {
            packed: true,
            ..scalar(4)
        };
        let l = layout(&[scalar(1), m, scalar(2)], false, Rules::default());
        assert_eq!((offsets(&l), l.size, l.align), (vec![0, 1, 6], 8, 2));
    }

    #[test]
    fn aligned_raises_member_and_type_alignment() {
        let m = Member {
            aligned: Some(16),
            ..scalar(4)
        };
        let l = layout(&[scalar(1), m], false, Rules::default());
        assert_eq!((offsets(&l), l.size, l.align), (vec![0, 16], 32, 16));
        let rules = Rules {
            aligned: Some(8),
            ..Rules::default()
        };
        let l = layout(&[scalar(1)], false, rules);
        assert_eq!((l.size, l.align), (8, 8));
        // Packed, then aligned: the type's alignment only.
        let rules = Rules {
            packed: true,
            aligned: Some(4),
            ..Rules::default()
        };
        let l = layout(&[scalar(1), scalar(4)], false, rules);
        assert_eq!((offsets(&l), l.size, l.align), (vec![0, 1], 8, 4));
    }

    #[test]
    fn pragma_pack_caps_member_alignment() {
        let rules = Rules {
            pack: Some(2),
            ..Rules::default()
        };
        let l = layout(&[scalar(1), scalar(8), scalar(1)], false, rules);
        assert_eq!((offsets(&l), l.size, l.align), (vec![0, 2, 10], 12, 2));
    }

    #[test]
    fn packed_bit_fields_share_bytes() {
        let rules = Rules {
            packed: true,
            ..Rules::default()
        };
        let l = layout(
            &[scalar(1), bits(4, 4), bits(4, 4), scalar(1)],
            false,
            rules,
        );
        let placed: Vec<_> = l.members.iter().map(|p| (p.offset, p.bit_offset)).collect();
        assert_eq!(placed, vec![(0, 0), (1, 0), (1, 4), (2, 0)]);
        assert_eq!(l.size, 3);
    }

    #[test]
    fn plain_bit_fields_keep_their_units() {
        let l = layout(
            &[bits(4, 3), bits(4, 5), scalar(1)],
            false,
            Rules::default(),
        );
        let placed: Vec<_> = l.members.iter().map(|p| (p.offset, p.bit_offset)).collect();
        assert_eq!(placed, vec![(0, 0), (0, 3), (4, 0)]);
        assert_eq!(l.size, 8);
    }

    #[test]
    fn packed_union_has_alignment_one() {
        let rules = Rules {
            packed: true,
            ..Rules::default()
        };
        let l = layout(&[scalar(1), scalar(4)], true, rules);
        assert_eq!((l.size, l.align), (4, 1));
        let l = layout(&[scalar(1), scalar(4)], true, Rules::default());
        assert_eq!((l.size, l.align), (4, 4));
    }

    #[test]
    fn attributes_after_the_keyword_are_found_in_the_text() {
        let text = "struct __attribute__((__packed__)) a { char c; };\nunion __attribute__ ((aligned(8), unused)) __attribute__((packed)) b;\nstruct c { int x; };\nint structure;";
        let mut blanked = text.to_string();
        let h = scan_head_attributes(&mut blanked);
        assert!(blanked.starts_with("struct  "));
        assert!(blanked[6..].trim_start().starts_with("a { char c; };"));
        assert_eq!(blanked.len(), text.len());
        let packed = HeadAttributes {
            packed: true,
            aligned: None,
        };
        assert_eq!(h.get(&0), Some(&packed));
        let both = HeadAttributes {
            packed: true,
            aligned: Some(8),
        };
        assert_eq!(h.get(&text.find("union").unwrap()), Some(&both));
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn pragma_pack_state_follows_push_and_pop() {
        let text = "int a;\n#pragma pack(push, 1)\nint b;\n# pragma pack (2)\nint c;\n#pragma pack(pop)\nint d;\n#pragma pack(4)\nint e;\n#pragma pack()\nint f;\n";
        let p = PackPragmas::scan(text);
        let at = |v: &str| p.at(text.find(&format!("int {v};")).unwrap());
        assert_eq!(
            [at("a"), at("b"), at("c"), at("d"), at("e"), at("f")],
            [None, Some(1), Some(2), None, Some(4), None]
        );
        assert!(PackPragmas::scan("struct s { int a; };").changes.is_empty());
    }
}
