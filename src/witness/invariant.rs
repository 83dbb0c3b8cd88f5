//! Invariants as C expressions: the abstraction formulas of the predicate
//! analysis (Z3 bit-vector terms over the canonical symbols of registers)
//! and the known values of the explicit-value analysis, turned into C
//! expressions over program variables, for correctness witnesses.
//!
//! The translation is sound before it is strong: a formula becomes a
//! [`CExpr`] in negation normal form whose every atom is an exact C
//! rendering of a bit-vector atom, and every atom that has none (memory,
//! uninterpreted functions, symbols that are not a program variable, widths
//! or operations C does not have) becomes `1` (true). Weakening atoms of a
//! formula in negation normal form to true gives a formula it implies, so
//! what is printed holds wherever the formula holds. The same weakening
//! drops the atoms over variables that are not in scope where the invariant
//! is placed ([`CExpr::weaken`]).
//!
//! Terms print exactly under C's semantics with GCC's conversions (a value
//! converted to a signed type of its width keeps its bits), for LP64 and
//! ILP32 alike (64-bit values are `long long`): each
//! comparison reads its operands with the signedness the bit-vector
//! operation uses (`bvslt` on an `unsigned int` prints `(int)x < c`),
//! arithmetic is done in the unsigned type of its width and converted
//! (no signed overflow), and constants print as literals of that type.

use z3::ast::{Ast, Bool, Dynamic};
use z3::DeclKind;

use crate::ir::{IntKind, VarId};

use simplify::{decided_by_equalities, mask, simplify_once, tightened};

/// A program variable an invariant may name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CVar {
    /// The name as written in the source.
    pub name: String,
    pub ty: CType,
    pub scope: VarScope,
}

/// The type of a [`CVar`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    Int(IntKind),
    /// A pointer (compared with 0 only).
    Pointer,
}

impl CType {
    fn width(self) -> u32 {
        match self {
            CType::Int(k) => k.bits(),
            CType::Pointer => 64,
        }
    }

    fn signed(self) -> bool {
        matches!(self, CType::Int(k) if k.signed())
    }
}

/// Where a [`CVar`] is visible in its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarScope {
    /// A global or a parameter: everywhere in the function.
    Function,
    /// A local declared at this 1-based line and column of the input file:
    /// from there to the end of its block.
    Block { line: u32, column: u32 },
}

/// A comparison: the orderings of its operands it accepts (one of the six
/// C comparisons; negation takes the other orderings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmpOp {
    less: bool,
    equal: bool,
    greater: bool,
}

impl CmpOp {
    pub const EQ: CmpOp = CmpOp::accepting(false, true, false);
    pub const NE: CmpOp = CmpOp::EQ.negated();
    pub const LT: CmpOp = CmpOp::accepting(true, false, false);
    pub const GE: CmpOp = CmpOp::LT.negated();
    pub const GT: CmpOp = CmpOp::accepting(false, false, true);
    pub const LE: CmpOp = CmpOp::GT.negated();

    const fn accepting(less: bool, equal: bool, greater: bool) -> CmpOp {
        CmpOp {
            less,
            equal,
            greater,
        }
    }

    const fn negated(self) -> CmpOp {
        CmpOp::accepting(!self.less, !self.equal, !self.greater)
    }

    /// The comparison with its operands swapped (`<` for `>`).
    const fn mirrored(self) -> CmpOp {
        CmpOp::accepting(self.greater, self.equal, self.less)
    }

    /// Whether operands ordered so satisfy it.
    fn accepts(self, o: std::cmp::Ordering) -> bool {
        match o {
            std::cmp::Ordering::Less => self.less,
            std::cmp::Ordering::Equal => self.equal,
            std::cmp::Ordering::Greater => self.greater,
        }
    }

    fn text(self) -> &'static str {
        match (self.less, self.equal, self.greater) {
            (false, true, false) => "==",
            (true, false, true) => "!=",
            (true, false, false) => "<",
            (true, true, false) => "<=",
            (false, false, true) => ">",
            (false, true, true) => ">=",
            // Neither all nor no orderings: the constants and their
            // negations are the six above.
            _ => unreachable!("a comparison accepts some orderings, not all"),
        }
    }
}

/// A wrapping binary operation on bit-vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
}

impl ArithOp {
    fn text(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::And => "&",
            ArithOp::Or => "|",
            ArithOp::Xor => "^",
        }
    }
}

/// A bit-vector term of width 8, 16, 32 or 64 with a C rendering.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CTerm {
    Var(CVar),
    /// A constant: its bits.
    Const {
        bits: u64,
        width: u32,
    },
    /// `a op b`, wrapping at `width` bits.
    Binary {
        op: ArithOp,
        a: Box<CTerm>,
        b: Box<CTerm>,
        width: u32,
    },
    /// `-a` (`negate`) or `~a`, wrapping.
    Unary {
        negate: bool,
        a: Box<CTerm>,
    },
    /// `a` widened to `to` bits, by its sign or by zeros.
    Extend {
        signed: bool,
        a: Box<CTerm>,
        to: u32,
    },
    /// The `to` bits of `a` from bit `low` up, read as an unsigned number
    /// (of any width up to 64; read with a sign only of a C type's width).
    Bits {
        a: Box<CTerm>,
        low: u32,
        to: u32,
    },
}

/// The C integer type of `width` bits and signedness `signed` (`long
/// long` for 64 bits: so under ILP32 as under LP64).
fn type_name(signed: bool, width: u32) -> &'static str {
    match (signed, width) {
        (true, 8) => "signed char",
        (true, 16) => "short",
        (true, 32) => "int",
        (true, _) => "long long",
        (false, 8) => "unsigned char",
        (false, 16) => "unsigned short",
        (false, 32) => "unsigned int",
        (false, _) => "unsigned long long",
    }
}

/// `bits` of a `width`-bit value read with `signed` as a C literal whose
/// value is that number (of the type of that width for 32 and 64 bits).
fn literal(bits: u64, width: u32, signed: bool) -> String {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let u = bits & mask;
    if !signed {
        return match width {
            64 => format!("{u}ULL"),
            32 => format!("{u}U"),
            _ => u.to_string(),
        };
    }
    let shift = 64 - width;
    let v = ((u << shift) as i64) >> shift;
    let suffix = if width == 64 { "LL" } else { "" };
    if width >= 32 && v == i64::MIN >> shift {
        // The most negative value has no literal of its own.
        format!("({}{suffix} - 1)", v + 1)
    } else {
        format!("{v}{suffix}")
    }
}

impl CTerm {
    pub fn width(&self) -> u32 {
        match self {
            CTerm::Var(v) => v.ty.width(),
            CTerm::Const { width, .. } | CTerm::Binary { width, .. } => *width,
            CTerm::Unary { a, .. } => a.width(),
            CTerm::Extend { to, .. } | CTerm::Bits { to, .. } => *to,
        }
    }

    fn vars<'a>(&'a self, out: &mut Vec<&'a CVar>) {
        match self {
            CTerm::Var(v) => out.push(v),
            CTerm::Const { .. } => {}
            CTerm::Binary { a, b, .. } => {
                a.vars(out);
                b.vars(out);
            }
            CTerm::Unary { a, .. } | CTerm::Extend { a, .. } | CTerm::Bits { a, .. } => a.vars(out),
        }
    }

    /// The term as a C expression whose value is its bits read with
    /// `signed`; its type is the C type of its width and signedness, or
    /// (below 32 bits) one that promotes to `int` with that value.
    pub fn to_c(&self, signed: bool) -> String {
        let w = self.width();
        let cast = type_name(signed, w);
        match self {
            CTerm::Var(v) if v.ty == CType::Pointer || v.ty.signed() == signed => v.name.clone(),
            CTerm::Var(v) => format!("({cast}){}", v.name),
            CTerm::Const { bits, width } => literal(*bits, *width, signed),
            CTerm::Binary { op, a, b, width } => {
                // Below 32 bits the operands promote to `int`, where a
                // product may overflow: it is formed in `unsigned int`.
                let widen = *op == ArithOp::Mul && *width < 32;
                let operand = |t: &CTerm| match widen {
                    true => format!("(unsigned int){}", t.to_c(false)),
                    false => t.to_c(false),
                };
                format!("({cast})({} {} {})", operand(a), op.text(), operand(b))
            }
            CTerm::Unary { negate, a } => {
                let op = if *negate { "-" } else { "~" };
                format!("({cast})({op}{})", a.to_c(false))
            }
            // Every rendering is a name, a literal, a cast or parenthesised:
            // an operand of a cast as it is.
            CTerm::Extend {
                signed: by_sign, a, ..
            } => format!("({cast}){}", a.to_c(*by_sign)),
            CTerm::Bits { a, low: 0, to } if c_width(*to) => {
                // The low bits are the same however the operand is read.
                let own = matches!(&**a, CTerm::Var(v) if v.ty.signed());
                format!("({cast}){}", a.to_c(own))
            }
            CTerm::Bits { a, low, to } => {
                // Shifted and masked in the operand's unsigned type: a
                // number below 2^to.
                let mut u = a.to_c(false);
                if *low > 0 {
                    u = format!("({u} >> {low})");
                }
                if low + to < a.width() {
                    u = format!("({u} & {})", literal(mask(*to), a.width().max(32), false));
                }
                match signed {
                    true => format!("({cast}){u}"),
                    false => u,
                }
            }
        }
    }
}

/// A formula in negation normal form over [`CTerm`] comparisons; `True`
/// and `False` only at the top (the constructors simplify them away).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CExpr {
    True,
    False,
    And(Vec<CExpr>),
    Or(Vec<CExpr>),
    /// `a op b`, both read with `signed`.
    Cmp {
        op: CmpOp,
        signed: bool,
        a: CTerm,
        b: CTerm,
    },
}

impl CExpr {
    /// The conjunction, simplified (`1` and duplicates dropped, `0` absorbs).
    pub fn and(items: impl IntoIterator<Item = CExpr>) -> CExpr {
        Self::junction(items, true)
    }

    /// The disjunction, simplified (`0` and duplicates dropped, `1` absorbs).
    pub fn or(items: impl IntoIterator<Item = CExpr>) -> CExpr {
        Self::junction(items, false)
    }

    fn junction(items: impl IntoIterator<Item = CExpr>, and: bool) -> CExpr {
        let (unit, absorbing) = match and {
            true => (CExpr::True, CExpr::False),
            false => (CExpr::False, CExpr::True),
        };
        let mut out: Vec<CExpr> = Vec::new();
        for e in items {
            let parts = match e {
                CExpr::And(v) if and => v,
                CExpr::Or(v) if !and => v,
                e if e == absorbing => return absorbing,
                e if e == unit => continue,
                e => vec![e],
            };
            for p in parts {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        if and && !(decided_by_equalities(&mut out) && tightened(&mut out)) {
            return CExpr::False;
        }
        match out.len() {
            0 => unit,
            1 => out.pop().expect("one item"),
            _ if and => CExpr::And(out),
            _ => CExpr::Or(out),
        }
    }

    /// `a op b` read with `signed`.
    /// `a op b` read with `signed`; a constant goes to the right.
    pub fn cmp(op: CmpOp, signed: bool, a: CTerm, b: CTerm) -> CExpr {
        match (&a, &b) {
            (CTerm::Const { .. }, CTerm::Var(_) | CTerm::Binary { .. } | CTerm::Unary { .. })
            | (CTerm::Const { .. }, CTerm::Extend { .. } | CTerm::Bits { .. }) => CExpr::Cmp {
                op: op.mirrored(),
                signed,
                a: b,
                b: a,
            },
            _ => CExpr::Cmp { op, signed, a, b },
        }
    }

    /// The negation of a comparison.
    fn negated_cmp(&self) -> Option<CExpr> {
        match self {
            CExpr::Cmp { op, signed, a, b } => Some(CExpr::Cmp {
                op: op.negated(),
                signed: *signed,
                a: a.clone(),
                b: b.clone(),
            }),
            _ => None,
        }
    }

    /// An equivalent formula with fewer comparisons, for a disjunction of
    /// conjunctions (cubes, as abstractions are): a cube that contains
    /// another goes (`a || a && b` is `a`), two that differ in one
    /// comparison and its negation become one (`a && b || a && !b` is
    /// `a`), and a cube of one comparison takes its negation out of the
    /// others (`a || !a && b` is `a || b`).
    pub fn simplified(&self) -> CExpr {
        let CExpr::Or(items) = self else {
            return self.clone();
        };
        let mut cubes: Vec<Vec<CExpr>> = items
            .iter()
            .map(|e| match e {
                CExpr::And(v) => v.clone(),
                e => vec![e.clone()],
            })
            .collect();
        while simplify_once(&mut cubes) {}
        CExpr::or(cubes.into_iter().map(CExpr::and))
    }

    /// The number of comparisons.
    pub fn atoms(&self) -> usize {
        match self {
            CExpr::True | CExpr::False => 0,
            CExpr::And(v) | CExpr::Or(v) => v.iter().map(CExpr::atoms).sum(),
            CExpr::Cmp { .. } => 1,
        }
    }

    /// The formula with every comparison over a variable that `keep`
    /// rejects replaced by `1` (true), simplified: a formula it implies.
    pub fn weaken(&self, keep: &dyn Fn(&CVar) -> bool) -> CExpr {
        match self {
            CExpr::And(v) => CExpr::and(v.iter().map(|e| e.weaken(keep))),
            CExpr::Or(v) => CExpr::or(v.iter().map(|e| e.weaken(keep))),
            CExpr::Cmp { a, b, .. } => {
                let mut vars = Vec::new();
                a.vars(&mut vars);
                b.vars(&mut vars);
                match vars.into_iter().all(keep) {
                    true => self.clone(),
                    false => CExpr::True,
                }
            }
            e => e.clone(),
        }
    }

    /// The formula as a C expression (`1` for true, `0` for false).
    pub fn to_c(&self) -> String {
        match self {
            CExpr::True => "1".into(),
            CExpr::False => "0".into(),
            // A pointer is compared with the null pointer constant `0`.
            CExpr::Cmp { a, b, op, .. } if points(a) || points(b) => {
                let side = |t: &CTerm| match t {
                    CTerm::Var(v) => v.name.clone(),
                    CTerm::Const { bits: 0, .. } => "0".into(),
                    t => t.to_c(false),
                };
                format!("{} {} {}", side(a), op.text(), side(b))
            }
            CExpr::Cmp { op, signed, a, b } => {
                format!("{} {} {}", a.to_c(*signed), op.text(), b.to_c(*signed))
            }
            CExpr::And(v) => Self::join(v, " && ", |e| matches!(e, CExpr::Or(_))),
            CExpr::Or(v) => Self::join(v, " || ", |e| matches!(e, CExpr::And(_))),
        }
    }

    fn join(items: &[CExpr], sep: &str, nested: fn(&CExpr) -> bool) -> String {
        items
            .iter()
            .map(|e| match nested(e) {
                true => format!("({})", e.to_c()),
                false => e.to_c(),
            })
            .collect::<Vec<_>>()
            .join(sep)
    }
}

/// The program variable of register `v` of `width` bits, if an invariant
/// may name it.
pub type Resolve<'a> = dyn Fn(VarId, u32) -> Option<CVar> + 'a;

/// The formula `f` (over canonical register symbols `v<id>`) as a C
/// formula it implies: in negation normal form, every atom without an
/// exact C rendering weakened to true.
pub fn from_z3(f: &Bool, vars: &Resolve) -> CExpr {
    let cx = Cx {
        vars,
        steps: std::cell::Cell::new(MAX_STEPS),
    };
    formula(&Dynamic::from_ast(f), true, &cx)
}

/// Subterms [`from_z3`] visits before it weakens the rest to true: the
/// expansion of `ite` and equivalences may double a formula per nesting.
const MAX_STEPS: usize = 100_000;

/// What a translation needs: the variables, and the steps it has left.
struct Cx<'a> {
    vars: &'a Resolve<'a>,
    steps: std::cell::Cell<usize>,
}

impl Cx<'_> {
    /// Takes a step; whether one was left.
    fn step(&self) -> bool {
        let n = self.steps.get();
        self.steps.set(n.saturating_sub(1));
        n > 0
    }
}

/// `x` (a Boolean term) if `positive`, else its negation.
fn formula(x: &Dynamic, positive: bool, vars: &Cx) -> CExpr {
    if !vars.step() {
        // Out of steps: true, which the formula implies.
        return CExpr::True;
    }
    if let Some(b) = x.as_bool().and_then(|b| b.as_bool()) {
        return match b == positive {
            true => CExpr::True,
            false => CExpr::False,
        };
    }
    if !x.is_app() {
        return CExpr::True;
    }
    let kids = x.children();
    let all = |pos: bool| kids.iter().map(move |k| formula(k, pos, vars));
    let bool_kids = kids.iter().all(|k| k.as_bool().is_some());
    match x.decl().kind() {
        DeclKind::NOT if kids.len() == 1 => formula(&kids[0], !positive, vars),
        DeclKind::AND if positive => CExpr::and(all(true)),
        DeclKind::AND => CExpr::or(all(false)),
        DeclKind::OR if positive => CExpr::or(all(true)),
        DeclKind::OR => CExpr::and(all(false)),
        DeclKind::IMPLIES if kids.len() == 2 => {
            let (a, b) = (&kids[0], &kids[1]);
            match positive {
                true => CExpr::or([formula(a, false, vars), formula(b, true, vars)]),
                false => CExpr::and([formula(a, true, vars), formula(b, false, vars)]),
            }
        }
        DeclKind::ITE if kids.len() == 3 && bool_kids => {
            let (c, t, e) = (&kids[0], &kids[1], &kids[2]);
            CExpr::or([
                CExpr::and([formula(c, true, vars), formula(t, positive, vars)]),
                CExpr::and([formula(c, false, vars), formula(e, positive, vars)]),
            ])
        }
        DeclKind::EQ | DeclKind::IFF if kids.len() == 2 && bool_kids => {
            iff(&kids[0], &kids[1], positive, vars)
        }
        DeclKind::XOR if kids.len() == 2 => iff(&kids[0], &kids[1], !positive, vars),
        DeclKind::DISTINCT if kids.len() == 2 && bool_kids => {
            iff(&kids[0], &kids[1], !positive, vars)
        }
        kind => match kids.iter().position(is_bv_ite) {
            Some(j) => lift_ite(x, &kids, j, positive, vars),
            None => atom(kind, &kids, positive, vars).unwrap_or(CExpr::True),
        },
    }
}

/// Whether `t` is a bit-vector `ite` (C's `c ? a : b`, and the value 0 or
/// 1 of a condition).
fn is_bv_ite(t: &Dynamic) -> bool {
    t.is_app() && t.decl().kind() == DeclKind::ITE && t.as_bv().is_some()
}

/// The atom `x` whose operand `j` is `ite(c, t, e)` as `(c && x[t/j]) ||
/// (!c && x[e/j])`, negated unless `positive`.
fn lift_ite(x: &Dynamic, kids: &[Dynamic], j: usize, positive: bool, vars: &Cx) -> CExpr {
    let choice = kids[j].children();
    let [c, t, e] = choice.as_slice() else {
        return CExpr::True;
    };
    let with = |v: &Dynamic| {
        let args: Vec<&dyn Ast> = kids
            .iter()
            .enumerate()
            .map(|(i, k)| if i == j { v as &dyn Ast } else { k as &dyn Ast })
            .collect();
        x.decl().apply(&args)
    };
    CExpr::or([
        CExpr::and([formula(c, true, vars), formula(&with(t), positive, vars)]),
        CExpr::and([formula(c, false, vars), formula(&with(e), positive, vars)]),
    ])
}

/// `a <=> b` if `positive`, else `a xor b`.
fn iff(a: &Dynamic, b: &Dynamic, positive: bool, vars: &Cx) -> CExpr {
    CExpr::or([
        CExpr::and([formula(a, true, vars), formula(b, positive, vars)]),
        CExpr::and([formula(a, false, vars), formula(b, !positive, vars)]),
    ])
}

/// A bit-vector comparison, negated unless `positive`; `None` if it has no
/// exact C rendering.
fn atom(kind: DeclKind, kids: &[Dynamic], positive: bool, vars: &Cx) -> Option<CExpr> {
    let (op, signed) = match kind {
        DeclKind::EQ => (CmpOp::EQ, false),
        DeclKind::DISTINCT => (CmpOp::NE, false),
        DeclKind::SLT => (CmpOp::LT, true),
        DeclKind::SLEQ => (CmpOp::LE, true),
        DeclKind::SGT => (CmpOp::GT, true),
        DeclKind::SGEQ => (CmpOp::GE, true),
        DeclKind::ULT => (CmpOp::LT, false),
        DeclKind::ULEQ => (CmpOp::LE, false),
        DeclKind::UGT => (CmpOp::GT, false),
        DeclKind::UGEQ => (CmpOp::GE, false),
        _ => return None,
    };
    let [a, b] = kids else {
        return None;
    };
    let (a, b) = (term(a, vars)?, term(b, vars)?);
    if a.width() != b.width() || [&a, &b].iter().any(|t| points(t)) {
        return None;
    }
    // A sign is read in a C type only (equality reads none).
    if signed && !c_width(a.width()) {
        return None;
    }
    // Equality does not depend on how both sides are read: as a variable
    // operand is, so that it prints without a cast.
    let signed = match (op, &a, &b) {
        (CmpOp::EQ | CmpOp::NE, CTerm::Var(v), _) | (CmpOp::EQ | CmpOp::NE, _, CTerm::Var(v)) => {
            v.ty.signed()
        }
        _ => signed,
    };
    let op = if positive { op } else { op.negated() };
    if let (CTerm::Const { bits: x, width }, CTerm::Const { bits: y, .. }) = (&a, &b) {
        return Some(match compare(op, signed, *x, *y, *width) {
            true => CExpr::True,
            false => CExpr::False,
        });
    }
    Some(CExpr::cmp(op, signed, a, b))
}

/// `x op y` on `width`-bit values read with `signed`.
fn compare(op: CmpOp, signed: bool, x: u64, y: u64, width: u32) -> bool {
    let shift = 64 - width;
    let read = |v: u64| match signed {
        true => i128::from(((v << shift) as i64) >> shift),
        false => i128::from((v << shift) >> shift),
    };
    op.accepts(read(x).cmp(&read(y)))
}

/// Whether `t` is a pointer variable (its encoding is no C integer).
fn points(t: &CTerm) -> bool {
    matches!(t, CTerm::Var(v) if v.ty == CType::Pointer)
}

/// The widths a [`CTerm`] may have: those of C's integer types.
fn c_width(w: u32) -> bool {
    matches!(w, 8 | 16 | 32 | 64)
}

/// The bit-vector term `x` as a [`CTerm`], if it has an exact rendering.
fn term(x: &Dynamic, vars: &Cx) -> Option<CTerm> {
    if !vars.step() {
        return None;
    }
    let bv = x.as_bv()?;
    let width = bv.get_size();
    if width > 64 || !x.is_app() {
        return None;
    }
    let kind = x.decl().kind();
    // Constants and bit ranges may have any width up to 64; the rest
    // print in a C type of theirs.
    if !c_width(width) && !matches!(kind, DeclKind::BNUM | DeclKind::EXTRACT) {
        return None;
    }
    let kids = x.children();
    // A pointer's encoding is no C integer: no operand of arithmetic.
    let sub = |i: usize| -> Option<Box<CTerm>> {
        let t = term(kids.get(i)?, vars)?;
        (!points(&t)).then(|| Box::new(t))
    };
    let binary = |op| -> Option<CTerm> {
        let mut acc = *sub(0)?;
        for i in 1..kids.len() {
            acc = CTerm::Binary {
                op,
                a: Box::new(acc),
                b: sub(i)?,
                width,
            };
        }
        (kids.len() >= 2).then_some(acc)
    };
    match kind {
        DeclKind::BNUM => Some(CTerm::Const {
            bits: bv.as_u64()?,
            width,
        }),
        DeclKind::UNINTERPRETED if kids.is_empty() => {
            let id = x.decl().name().strip_prefix('v')?.parse::<u32>().ok()?;
            let v = (vars.vars)(VarId(id), width)?;
            (v.ty.width() == width).then_some(CTerm::Var(v))
        }
        DeclKind::BADD => binary(ArithOp::Add),
        DeclKind::BSUB => binary(ArithOp::Sub),
        DeclKind::BMUL => binary(ArithOp::Mul),
        DeclKind::BAND => binary(ArithOp::And),
        DeclKind::BOR => binary(ArithOp::Or),
        DeclKind::BXOR => binary(ArithOp::Xor),
        DeclKind::BNEG | DeclKind::BNOT if kids.len() == 1 => Some(CTerm::Unary {
            negate: x.decl().kind() == DeclKind::BNEG,
            a: sub(0)?,
        }),
        DeclKind::SIGN_EXT | DeclKind::ZERO_EXT if kids.len() == 1 => {
            let signed = kind == DeclKind::SIGN_EXT;
            let a = sub(0)?;
            // A sign is read in a C type only.
            (!signed || c_width(a.width())).then_some(CTerm::Extend {
                signed,
                a,
                to: width,
            })
        }
        DeclKind::EXTRACT if kids.len() == 1 => {
            let a = sub(0)?;
            if !c_width(a.width()) {
                return None;
            }
            // The range's start: the one whose extraction is `x`.
            let of = kids[0].as_bv()?;
            let low = (0..=a.width() - width)
                .find(|&l| Dynamic::from_ast(&of.extract(l + width - 1, l)) == *x)?;
            Some(CTerm::Bits { a, low, to: width })
        }
        _ => None,
    }
}

mod simplify;
#[cfg(test)]
mod tests;
