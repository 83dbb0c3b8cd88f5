//! x86 inline-assembly templates whose effect on C state is known exactly:
//! the read-modify-write instructions of the kernel's atomic operations
//! (`lock; incl %0`, `lock; subl %2,%0; sete %1`, `lock; xaddl %0, %1`,
//! `lock; orb %1,%0`, ...), the byte swap of the kernel's `__arch_swab32`
//! and `__arch_swab64` (`bswapl %0`, `bswapq %0`, behind every
//! `be32_to_cpu` and `cpu_to_be64`) and compiler barriers (an empty
//! template without outputs). Lowering turns a recognised template into
//! assignments to its operands; any other template stays a havoc of its
//! outputs.
//!
//! Templates are AT&T syntax (`op src, dst`); an instruction's size suffix
//! (`b`, `w`, `l`, `q`) must match the width of the operands it touches,
//! which lowering checks. `lock` prefixes, `.pushsection`/`.popsection`
//! bookkeeping (the kernel's `LOCK_PREFIX`) and local labels are skipped:
//! they do not change what the instruction computes.

use lang_c::ast::{AsmStatement, GnuExtendedAsmStatement};
use lang_c::span::Node;

use super::Lowerer;
use crate::cfa::EdgeOp;
use crate::ir::{BinaryOp, Expr, ExprKind, HavocReason, IntKind, SrcPos, Type, UnaryOp};
use crate::Result;

/// A source operand: an asm operand (`%N`) or an immediate (`$N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    Operand(usize),
    Imm(i128),
}

/// The condition of a `setCC` instruction, on the result of the last
/// arithmetic instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flag {
    /// `sete`/`setz`: the result is zero.
    Zero,
    /// `setne`/`setnz`: the result is not zero.
    NotZero,
    /// `sets`: the result is negative (its sign bit is set).
    Negative,
}

/// One instruction's effect on the asm operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Insn {
    /// `dst = dst op src` on `bits`-wide operands (`inc`, `dec`, `add`,
    /// `sub`, `and`, `or`, `xor`).
    Update {
        op: BinaryOp,
        dst: usize,
        src: Source,
        bits: u32,
    },
    /// `xadd src, dst`: `dst = dst + src` and `src` = the old `dst`.
    ExchangeAdd { src: usize, dst: usize, bits: u32 },
    /// `setCC dst`: `dst` = 1 if the flag holds for the operand the last
    /// arithmetic instruction wrote, else 0 (one byte).
    Set { dst: usize, flag: Flag, of: usize },
    /// `bt`/`bts`/`btr`/`btc bit, base`: bit `bit` of the bit string at
    /// `base` (a memory operand; the bit offset may lie past its word) is
    /// tested (into the carry flag) and set, cleared or flipped.
    Bit { op: BitOp, base: usize, bit: Source },
    /// `sbb dst, dst`: -1 if the last bit instruction found its bit set,
    /// else 0.
    BorrowMask { dst: usize },
    /// `bswap dst`: the bytes of the `bits`-wide `dst` in reverse order.
    ByteSwap { dst: usize, bits: u32 },
}

/// What a bit instruction does to the bit after testing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BitOp {
    Test,
    Set,
    Reset,
    Complement,
}

impl Insn {
    /// The operands whose width the instruction fixes, and that width
    /// (`None`: 32 or 64 bits, as the operand's type says).
    pub(super) fn sized_operands(&self) -> (Vec<usize>, Option<u32>) {
        match *self {
            Insn::Update { dst, src, bits, .. } => {
                let mut ops = vec![dst];
                if let Source::Operand(s) = src {
                    ops.push(s);
                }
                (ops, Some(bits))
            }
            Insn::ExchangeAdd { src, dst, bits } => (vec![src, dst], Some(bits)),
            Insn::Set { dst, .. } => (vec![dst], Some(8)),
            Insn::Bit { base, .. } => (vec![base], None),
            Insn::BorrowMask { dst } => (vec![dst], None),
            Insn::ByteSwap { dst, bits } => (vec![dst], Some(bits)),
        }
    }

    /// The operands the instruction writes.
    pub(super) fn written(&self) -> Vec<usize> {
        match *self {
            Insn::ExchangeAdd { src, dst, .. } => vec![src, dst],
            Insn::Update { dst, .. }
            | Insn::Set { dst, .. }
            | Insn::BorrowMask { dst }
            | Insn::ByteSwap { dst, .. } => vec![dst],
            Insn::Bit {
                op: BitOp::Test, ..
            } => Vec::new(),
            Insn::Bit { base, .. } => vec![base],
        }
    }

    /// The operands the instruction reads.
    pub(super) fn read(&self) -> Vec<usize> {
        let src = |s: Source| match s {
            Source::Operand(k) => Some(k),
            Source::Imm(_) => None,
        };
        match *self {
            Insn::Update { dst, src: s, .. } => std::iter::once(dst).chain(src(s)).collect(),
            Insn::ExchangeAdd { src, dst, .. } => vec![src, dst],
            Insn::ByteSwap { dst, .. } => vec![dst],
            Insn::Bit { base, bit, .. } => std::iter::once(base).chain(src(bit)).collect(),
            Insn::Set { .. } | Insn::BorrowMask { .. } => Vec::new(),
        }
    }
}

impl<'a> Lowerer<'a> {
    /// An inline-assembly statement: assignments to its operands if its
    /// template is recognised ([`recognise`]), nothing for a compiler
    /// barrier, else a havoc of its outputs.
    pub(super) fn asm_statement(&mut self, a: &'a Node<AsmStatement>, pos: SrcPos) -> Result<()> {
        let g = match &a.node {
            AsmStatement::GnuExtended(g) => g,
            AsmStatement::GnuBasic(t) => {
                // No operands: an empty template does nothing; any other
                // may touch memory without saying so (inexact).
                if !literal_text(&t.node).is_some_and(|t| t.trim().is_empty()) {
                    self.emit(
                        EdgeOp::Havoc {
                            lvalues: Vec::new(),
                            reason: HavocReason::InlineAssembly,
                        },
                        pos,
                    );
                }
                return Ok(());
            }
        };
        let mut outs = Vec::new();
        let mut complete = true;
        for o in &g.outputs {
            match self.lvalue(&o.node.variable_name) {
                Ok(lv) => outs.push(lv),
                Err(_) => complete = false,
            }
        }
        let mut ins = Vec::new();
        for i in &g.inputs {
            ins.push(self.rvalue(&i.node.variable_name)?);
        }
        if complete && self.asm_exactly(g, &outs, ins, pos) {
            return Ok(());
        }
        self.emit(
            EdgeOp::Havoc {
                lvalues: outs,
                reason: HavocReason::InlineAssembly,
            },
            pos,
        );
        Ok(())
    }

    /// Emits the assignments of a recognised template; `false` (nothing
    /// emitted) if the template, its constraints or its operands' widths are
    /// not understood.
    fn asm_exactly(
        &mut self,
        g: &GnuExtendedAsmStatement,
        outs: &[Expr],
        ins: Vec<Expr>,
        pos: SrcPos,
    ) -> bool {
        let Some(insns) =
            literal_text(&g.template.node).and_then(|t| recognise(&t, outs.len() + ins.len()))
        else {
            return false;
        };
        if insns.is_empty() {
            // A compiler barrier: no instruction; with outputs, they are
            // whatever their registers hold (left as a havoc).
            return outs.is_empty();
        }
        let Some(ties) = self.asm_operands_fit(g, outs, &ins, &insns) else {
            return false;
        };
        for (n, i) in ties {
            let v = ins[i].clone();
            self.assign(outs[n].clone(), v, pos);
        }
        self.asm_instructions(insns, outs, &ins, pos);
        true
    }

    /// Whether the operands suit the instructions: the constraints are
    /// understood, every instruction writes only outputs and reads only
    /// outputs that have a start value, and the operands have the widths
    /// the instructions name. If so, the inputs tied to an output (`"0"`),
    /// as (output, input) pairs.
    fn asm_operands_fit(
        &self,
        g: &GnuExtendedAsmStatement,
        outs: &[Expr],
        ins: &[Expr],
        insns: &[Insn],
    ) -> Option<Vec<(usize, usize)>> {
        // Outputs an instruction may read: read-write ones ("+m") and those
        // an input is tied to ("0"), which gives them their start value.
        let mut readable: Vec<bool> = Vec::with_capacity(outs.len());
        for op in &g.outputs {
            let c = literal_text(&op.node.constraints.node)?;
            readable.push(c.contains('+'));
        }
        let mut ties = Vec::new();
        for (i, op) in g.inputs.iter().enumerate() {
            let c = literal_text(&op.node.constraints.node)?;
            if let Ok(n) = c.parse::<usize>() {
                if n >= outs.len() {
                    return None;
                }
                ties.push((n, i));
                readable[n] = true;
            }
        }
        for insn in insns {
            if insn.written().iter().any(|&w| w >= outs.len())
                || insn.read().iter().any(|&k| k < outs.len() && !readable[k])
            {
                return None;
            }
            // A bit string is addressed from its operand's place in memory.
            if let Insn::Bit { base, .. } = *insn {
                if !operand(outs, ins, base).is_some_and(Expr::is_lvalue) {
                    return None;
                }
            }
            let (ops, bits) = insn.sized_operands();
            for k in ops {
                let e = operand(outs, ins, k)?;
                let bit_string = matches!(insn, Insn::Bit { .. } | Insn::BorrowMask { .. });
                let width = match self.p.types.get(e.ty) {
                    Type::Int(kind) => kind.bits(),
                    Type::Pointer(_) if !bit_string => 64,
                    _ => return None,
                };
                let fits = match bits {
                    Some(b) => width == b,
                    None => width == 32 || width == 64,
                };
                if !fits {
                    return None;
                }
            }
        }
        Some(ties)
    }

    /// The assignments of `insns` to the operands ([`Self::asm_operands_fit`]
    /// checked them).
    fn asm_instructions(&mut self, insns: Vec<Insn>, outs: &[Expr], ins: &[Expr], pos: SrcPos) {
        let long = self.p.types.int(IntKind::Long);
        let value = |s: Source| match s {
            Source::Operand(k) => operand(outs, ins, k)
                .cloned()
                .expect("operands checked above"),
            Source::Imm(v) => Expr::int(v, long),
        };
        // The bit the last bit instruction tested (a temporary, 0 or 1),
        // kept only if an `sbb` reads it.
        let borrows = insns.iter().any(|i| matches!(i, Insn::BorrowMask { .. }));
        let mut carry: Option<Expr> = None;
        for insn in insns {
            match insn {
                Insn::Update { op, dst, src, .. } => {
                    let v = self.binary(op, outs[dst].clone(), value(src));
                    self.assign(outs[dst].clone(), v, pos);
                }
                Insn::ExchangeAdd { src, dst, .. } => {
                    // dst + src, then (dst + src) - src: the old dst, in
                    // the same modular arithmetic.
                    let sum = self.binary(BinaryOp::Add, outs[dst].clone(), outs[src].clone());
                    self.assign(outs[dst].clone(), sum, pos);
                    let old = self.binary(BinaryOp::Sub, outs[dst].clone(), outs[src].clone());
                    self.assign(outs[src].clone(), old, pos);
                }
                Insn::Set { dst, flag, of } => {
                    let c = self.flag_value(flag, outs[of].clone());
                    self.assign(outs[dst].clone(), c, pos);
                }
                Insn::Bit { op, base, bit } => {
                    let base = operand(outs, ins, base)
                        .cloned()
                        .expect("operands checked above");
                    let tested = self.bit_instruction(op, base, value(bit), borrows, pos);
                    if tested.is_some() {
                        carry = tested;
                    }
                }
                Insn::BorrowMask { dst } => {
                    let bit = carry
                        .take()
                        .expect("recognise pairs sbb with a bit instruction");
                    let zero = Expr::int(0, outs[dst].ty);
                    let v = self.binary(BinaryOp::Sub, zero, bit);
                    self.assign(outs[dst].clone(), v, pos);
                }
                Insn::ByteSwap { dst, bits } => {
                    let v = self.byte_swap(outs[dst].clone(), bits);
                    self.assign(outs[dst].clone(), v, pos);
                }
            }
        }
    }

    /// The bytes of the `bits`-wide `x` in reverse order: byte `i` of `x`,
    /// shifted to byte `n - 1 - i`, for each of its `n` bytes (unsigned,
    /// so that no shift brings in a sign).
    fn byte_swap(&mut self, x: Expr, bits: u32) -> Expr {
        let kind = if bits == 64 {
            IntKind::ULong
        } else {
            IntKind::UInt
        };
        let ty = self.p.types.int(kind);
        let x = self.convert(x, ty);
        let bytes = bits / 8;
        let mut swapped: Option<Expr> = None;
        for i in 0..bytes {
            let shifted = self.binary(BinaryOp::Shr, x.clone(), Expr::int(i128::from(8 * i), ty));
            let byte = self.binary(BinaryOp::BitAnd, shifted, Expr::int(0xff, ty));
            let to = Expr::int(i128::from(8 * (bytes - 1 - i)), ty);
            let placed = self.binary(BinaryOp::Shl, byte, to);
            swapped = Some(match swapped {
                None => placed,
                Some(acc) => self.binary(BinaryOp::BitOr, acc, placed),
            });
        }
        swapped.expect("a byte swap has bytes")
    }

    /// The value `setCC` stores: 1 if `flag` holds for `result`, else 0.
    fn flag_value(&mut self, flag: Flag, result: Expr) -> Expr {
        let (op, result) = match flag {
            Flag::Zero => (BinaryOp::Eq, result),
            Flag::NotZero => (BinaryOp::Ne, result),
            Flag::Negative => {
                let signed = match self.p.types.get(result.ty) {
                    Type::Int(k) => match k.bits() {
                        8 => IntKind::SChar,
                        16 => IntKind::Short,
                        32 => IntKind::Int,
                        _ => IntKind::Long,
                    },
                    _ => IntKind::Long,
                };
                let t = self.p.types.int(signed);
                (BinaryOp::Lt, self.convert(result, t))
            }
        };
        let zero = Expr::int(0, self.int_ty());
        self.binary(op, result, zero)
    }

    /// A bit instruction on bit `bit` of the bit string at `base`: the
    /// bit's update, after, if `keep_tested`, a temporary holding the bit
    /// it tested (0 or 1, for an `sbb`), which it returns.
    fn bit_instruction(
        &mut self,
        op: BitOp,
        base: Expr,
        bit: Expr,
        keep_tested: bool,
        pos: SrcPos,
    ) -> Option<Expr> {
        let (word, shift) = self.bit_word(base, bit);
        let ty = word.ty;
        let one = Expr::int(1, ty);
        let mut tested = None;
        if keep_tested {
            // The old bit, for the `sbb` after this instruction.
            let old = self.binary(BinaryOp::Shr, word.clone(), shift.clone());
            let old = self.binary(BinaryOp::BitAnd, old, one.clone());
            let t = self.temp(ty, pos);
            self.assign(t.clone(), old, pos);
            tested = Some(t);
        }
        let mask = self.binary(BinaryOp::Shl, one, shift);
        let updated = match op {
            BitOp::Test => return tested,
            BitOp::Set => self.binary(BinaryOp::BitOr, word.clone(), mask),
            BitOp::Reset => {
                let inverse = Expr::new(ExprKind::Unary(UnaryOp::BitNot, Box::new(mask)), ty);
                self.binary(BinaryOp::BitAnd, word.clone(), inverse)
            }
            BitOp::Complement => self.binary(BinaryOp::BitXor, word.clone(), mask),
        };
        self.assign(word, updated, pos);
        tested
    }

    /// The word of the bit string at `base` that holds bit `bit` (which may
    /// lie past `base`'s own word, either way) and the bit's place in it.
    fn bit_word(&mut self, base: Expr, bit: Expr) -> (Expr, Expr) {
        let ty = base.ty;
        let bits = match self.p.types.get(ty) {
            Type::Int(k) => k.bits(),
            _ => 64,
        };
        let long = self.p.types.int(IntKind::Long);
        let bit = self.convert(bit, long);
        let log2 = Expr::int(i128::from(bits.trailing_zeros()), long);
        let index = self.binary(BinaryOp::Shr, bit.clone(), log2);
        let start = self.addr_of(base);
        let at = self.binary(BinaryOp::Add, start, index);
        let word = Expr::new(ExprKind::Deref(Box::new(at)), ty);
        let low = Expr::int(i128::from(bits - 1), long);
        let shift = self.binary(BinaryOp::BitAnd, bit, low);
        (word, shift)
    }
}

/// Asm operand `k`: outputs first, then inputs.
fn operand<'e>(outs: &'e [Expr], ins: &'e [Expr], k: usize) -> Option<&'e Expr> {
    if k < outs.len() {
        outs.get(k)
    } else {
        ins.get(k - outs.len())
    }
}

/// The text of a string literal as lang-c keeps it (pieces with their
/// quotes and escapes), unescaped; `None` for an escape it does not know.
pub(super) fn literal_text(pieces: &[String]) -> Option<String> {
    let mut out = String::new();
    for piece in pieces {
        let inner = piece.strip_prefix('"')?.strip_suffix('"')?;
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            out.push(match chars.next()? {
                'n' => '\n',
                't' => '\t',
                '"' => '"',
                '\\' => '\\',
                '\'' => '\'',
                _ => return None,
            });
        }
    }
    Some(out)
}

/// The instructions of `template` with `operands` asm operands (outputs
/// first, then inputs), if every one of them is recognised. An empty list
/// is a template without instructions (a compiler barrier).
pub(super) fn recognise(template: &str, operands: usize) -> Option<Vec<Insn>> {
    let mut insns = Vec::new();
    // The operand the last arithmetic instruction wrote (the flags' source).
    let mut flags_of = None;
    // Whether the carry flag holds the bit the last bit instruction tested.
    let mut carry = false;
    let mut in_section = false;
    for line in template.split(['\n', ';']) {
        let line = line.trim();
        if in_section {
            in_section = !(line.starts_with(".popsection") || line.starts_with(".previous"));
            continue;
        }
        if line.starts_with(".pushsection") || line.starts_with(".section") {
            in_section = true;
            continue;
        }
        let line = line.strip_prefix("lock").map_or(line, str::trim_start);
        if line.is_empty() || is_local_label(line) {
            continue;
        }
        let (mnemonic, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let args: Vec<&str> = if args.trim().is_empty() {
            Vec::new()
        } else {
            args.split(',').map(str::trim).collect()
        };
        let operand = |s: &str| -> Option<usize> {
            let n: usize = s.strip_prefix('%')?.parse().ok()?;
            (n < operands).then_some(n)
        };
        let source = |s: &str| -> Option<Source> {
            match s.strip_prefix('$') {
                Some(imm) => Some(Source::Imm(parse_immediate(imm)?)),
                None => operand(s).map(Source::Operand),
            }
        };
        let flag = match mnemonic {
            "sete" | "setz" => Some(Flag::Zero),
            "setne" | "setnz" => Some(Flag::NotZero),
            "sets" => Some(Flag::Negative),
            _ => None,
        };
        if let Some(flag) = flag {
            let [dst] = args[..] else { return None };
            insns.push(Insn::Set {
                dst: operand(dst)?,
                flag,
                of: flags_of?,
            });
            continue;
        }
        let bit_op = match mnemonic.strip_suffix(['l', 'q']).unwrap_or(mnemonic) {
            "bt" => Some(BitOp::Test),
            "bts" => Some(BitOp::Set),
            "btr" => Some(BitOp::Reset),
            "btc" => Some(BitOp::Complement),
            _ => None,
        };
        if let (Some(op), [bit, base]) = (bit_op, &args[..]) {
            insns.push(Insn::Bit {
                op,
                base: operand(base)?,
                bit: source(bit)?,
            });
            flags_of = None;
            carry = true;
            continue;
        }
        if let ("sbb" | "sbbl" | "sbbq", [a, b]) = (mnemonic, &args[..]) {
            if a != b || !carry {
                return None;
            }
            insns.push(Insn::BorrowMask { dst: operand(a)? });
            carry = false;
            continue;
        }
        let (base, bits) = split_suffix(mnemonic)?;
        let insn = match (base, &args[..]) {
            ("inc" | "dec", [dst]) => Insn::Update {
                op: if base == "inc" {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                },
                dst: operand(dst)?,
                src: Source::Imm(1),
                bits,
            },
            ("add" | "sub" | "and" | "or" | "xor", [src, dst]) => Insn::Update {
                op: match base {
                    "add" => BinaryOp::Add,
                    "sub" => BinaryOp::Sub,
                    "and" => BinaryOp::BitAnd,
                    "or" => BinaryOp::BitOr,
                    _ => BinaryOp::BitXor,
                },
                dst: operand(dst)?,
                src: source(src)?,
                bits,
            },
            ("xadd", [src, dst]) => Insn::ExchangeAdd {
                src: operand(src)?,
                dst: operand(dst)?,
                bits,
            },
            ("bswap", [dst]) if bits >= 32 => Insn::ByteSwap {
                dst: operand(dst)?,
                bits,
            },
            _ => return None,
        };
        flags_of = match &insn {
            Insn::Update { dst, .. } | Insn::ExchangeAdd { dst, .. } => Some(*dst),
            _ => None,
        };
        carry = false;
        insns.push(insn);
    }
    Some(insns)
}

/// A GNU assembler local label (`671:`).
fn is_local_label(line: &str) -> bool {
    line.strip_suffix(':')
        .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
}

/// The instruction name without its size suffix, and the width the suffix
/// names.
fn split_suffix(mnemonic: &str) -> Option<(&str, u32)> {
    let (base, suffix) = mnemonic.split_at(mnemonic.len().checked_sub(1)?);
    let bits = match suffix {
        "b" => 8,
        "w" => 16,
        "l" => 32,
        "q" => 64,
        _ => return None,
    };
    matches!(
        base,
        "inc" | "dec" | "add" | "sub" | "and" | "or" | "xor" | "xadd" | "bswap"
    )
    .then_some((base, bits))
}

/// `$1`, `$-1`, `$0x10` without the `$`.
fn parse_immediate(s: &str) -> Option<i128> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let v = match digits.strip_prefix("0x") {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str =
        ".pushsection .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.popsection\n671:\n\tlock; ";

    #[test]
    fn kernel_atomic_operations_are_recognised() {
        let inc = recognise(&format!("{LOCK}incl %0"), 1).unwrap();
        assert_eq!(
            inc,
            vec![Insn::Update {
                op: BinaryOp::Add,
                dst: 0,
                src: Source::Imm(1),
                bits: 32
            }]
        );
        let sub_test = recognise(&format!("{LOCK}subl %2,%0; sete %1"), 3).unwrap();
        assert_eq!(
            sub_test,
            vec![
                Insn::Update {
                    op: BinaryOp::Sub,
                    dst: 0,
                    src: Source::Operand(2),
                    bits: 32
                },
                Insn::Set {
                    dst: 1,
                    flag: Flag::Zero,
                    of: 0
                }
            ]
        );
        let xadd = recognise(&format!("{LOCK}xaddl %0, %1"), 2).unwrap();
        assert_eq!(
            xadd,
            vec![Insn::ExchangeAdd {
                src: 0,
                dst: 1,
                bits: 32
            }]
        );
        let or = recognise(&format!("{LOCK}orb %1,%0"), 2).unwrap();
        assert!(matches!(
            or[..],
            [Insn::Update {
                op: BinaryOp::BitOr,
                bits: 8,
                ..
            }]
        ));
        assert_eq!(recognise("", 0), Some(vec![]));
        let old_lock =
            ".section .smp_locks,\"a\"\n.balign 4\n.long 671f - .\n.previous\n671:\n\tlock; ";
        let test_and_set = recognise(&format!("{old_lock}bts %2,%1\n\tsbb %0,%0"), 3).unwrap();
        assert_eq!(
            test_and_set,
            vec![
                Insn::Bit {
                    op: BitOp::Set,
                    base: 1,
                    bit: Source::Operand(2)
                },
                Insn::BorrowMask { dst: 0 }
            ]
        );
        assert_eq!(recognise("addq $-1, %0", 1).unwrap().len(), 1);
        assert_eq!(
            recognise("bswapq %0", 1).unwrap(),
            vec![Insn::ByteSwap { dst: 0, bits: 64 }]
        );
        // No 16-bit byte swap on x86 (its result is undefined).
        assert_eq!(recognise("bswapw %0", 1), None);
    }

    #[test]
    fn other_templates_are_not_recognised() {
        // Bit tests, registers by name, operands out of range, flags
        // without an arithmetic instruction before, symbolic names.
        for t in [
            "movl %1,%0",
            "movl %%eax, %0",
            "sbb %0,%0",
            "incl %1",
            "sete %0",
            "incl %[counter]",
            "rep; nop",
            "cmpxchgl %2,%1",
            "decl %0; sbb %1,%1",
        ] {
            assert_eq!(recognise(t, 1), None, "{t}");
        }
    }

    #[test]
    fn string_literal_pieces_are_unescaped() {
        let pieces = vec![
            "\"lock; incl %0\\n\\t\"".to_string(),
            "\"\\\"x\\\"\"".to_string(),
        ];
        assert_eq!(literal_text(&pieces).unwrap(), "lock; incl %0\n\t\"x\"");
        assert_eq!(literal_text(&["\"\\q\"".to_string()]), None);
    }
}
