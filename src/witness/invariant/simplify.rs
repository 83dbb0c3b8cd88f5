//! Simplifications of [`CExpr`]s that keep them equivalent: equalities
//! and bounds of a conjunction deciding its other comparisons, and the
//! merging of the cubes of a disjunction.

use super::{compare, ArithOp, CExpr, CTerm, CVar, CmpOp};

/// One step of [`CExpr::simplified`] on `cubes`; whether it changed them.
pub(super) fn simplify_once(cubes: &mut Vec<Vec<CExpr>>) -> bool {
    let subset = |a: &[CExpr], b: &[CExpr]| a.iter().all(|x| b.contains(x));
    for i in 0..cubes.len() {
        for j in 0..cubes.len() {
            if i == j {
                continue;
            }
            let (a, b) = (&cubes[i], &cubes[j]);
            if subset(a, b) {
                cubes.remove(j);
                return true;
            }
            // `a` is `c && x`, `b` is `c && !x`: both are `c`.
            if a.len() == b.len() {
                let only_a: Vec<&CExpr> = a.iter().filter(|x| !b.contains(x)).collect();
                let only_b: Vec<&CExpr> = b.iter().filter(|x| !a.contains(x)).collect();
                if let ([x], [y]) = (&only_a[..], &only_b[..]) {
                    if x.negated_cmp().as_ref() == Some(*y) {
                        let x = (*x).clone();
                        cubes[i].retain(|e| *e != x);
                        cubes.remove(j);
                        return true;
                    }
                }
            }
            if let [unit] = &a[..] {
                if let Some(not) = unit.negated_cmp().filter(|n| b.contains(n)) {
                    cubes[j].retain(|e| *e != not);
                    return true;
                }
            }
        }
    }
    false
}

/// Simplifies the conjunction of `items` by its equalities `v == c`: a
/// comparison over variables they fix is evaluated and dropped if true
/// (equivalent); whether none is false (else the conjunction is).
pub(super) fn decided_by_equalities(items: &mut Vec<CExpr>) -> bool {
    let fixed: Vec<(CVar, u64)> = items
        .iter()
        .filter_map(|e| match e {
            CExpr::Cmp {
                op: CmpOp::EQ,
                a: CTerm::Var(v),
                b: CTerm::Const { bits, .. },
                ..
            }
            | CExpr::Cmp {
                op: CmpOp::EQ,
                a: CTerm::Const { bits, .. },
                b: CTerm::Var(v),
                ..
            } => Some((v.clone(), *bits)),
            _ => None,
        })
        .collect();
    if fixed.is_empty() {
        return true;
    }
    let value = |v: &CVar| fixed.iter().find(|(w, _)| w == v).map(|(_, b)| *b);
    let mut consistent = true;
    let mut kept: Vec<CExpr> = Vec::new();
    for e in items.drain(..) {
        let CExpr::Cmp { op, signed, a, b } = &e else {
            kept.push(e);
            continue;
        };
        let is_fixing = *op == CmpOp::EQ && fixed.iter().any(|(v, bits)| {
            matches!((a, b), (CTerm::Var(w), CTerm::Const { bits: c, .. }) | (CTerm::Const { bits: c, .. }, CTerm::Var(w)) if w == v && c == bits)
        });
        match (a.eval(&value), b.eval(&value)) {
            (Some(x), Some(y)) if !is_fixing => {
                consistent &= compare(*op, *signed, x, y, a.width());
            }
            _ if !kept.contains(&e) => kept.push(e),
            _ => {}
        }
    }
    *items = kept;
    consistent
}

/// What a conjunction's comparisons of one term with constants allow:
/// the values from `low` to `high` but `excluded` (read as the comparisons
/// read the term).
struct Bounds {
    term: CTerm,
    signed: bool,
    low: i128,
    high: i128,
    excluded: Vec<i128>,
    /// The comparisons, as they were.
    atoms: Vec<CExpr>,
}

impl Bounds {
    /// The comparisons that say the same: `==` for one value, else `>=`,
    /// `<=` and `!=` where they bound it; `None` if no value is left.
    fn atoms(mut self) -> Option<Vec<CExpr>> {
        if !self.settle() {
            return None;
        }
        if self.atoms.len() == 1 {
            return Some(self.atoms);
        }
        let width = self.term.width();
        let (min, max) = range(width, self.signed);
        let atom = |op, v: i128| {
            let bits = v as u64 & mask(width);
            CExpr::cmp(
                op,
                self.signed,
                self.term.clone(),
                CTerm::Const { bits, width },
            )
        };
        if self.low == self.high {
            return Some(vec![atom(CmpOp::EQ, self.low)]);
        }
        let mut out = Vec::new();
        if self.low > min {
            out.push(atom(CmpOp::GE, self.low));
        }
        if self.high < max {
            out.push(atom(CmpOp::LE, self.high));
        }
        self.excluded.sort_unstable();
        self.excluded.dedup();
        for &v in self
            .excluded
            .iter()
            .filter(|&&v| self.low < v && v < self.high)
        {
            out.push(atom(CmpOp::NE, v));
        }
        Some(out)
    }
}

impl Bounds {
    /// Moves the bounds off excluded values; whether a value is left.
    fn settle(&mut self) -> bool {
        while self.low <= self.high && self.excluded.contains(&self.low) {
            self.low += 1;
        }
        while self.low <= self.high && self.excluded.contains(&self.high) {
            self.high -= 1;
        }
        self.low <= self.high
    }

    /// Whether every value the bounds allow satisfies `term op v`
    /// (`Some(true)`), none does (`Some(false)`), or some do.
    fn decides(&self, op: CmpOp, v: i128) -> Option<bool> {
        let (lo, hi) = (self.low, self.high);
        let all = match op {
            CmpOp::EQ => lo == hi && hi == v,
            CmpOp::NE => v < lo || v > hi || self.excluded.contains(&v),
            CmpOp::LT => hi < v,
            CmpOp::LE => hi <= v,
            CmpOp::GT => lo > v,
            _ => lo >= v,
        };
        let none = match op {
            CmpOp::EQ => v < lo || v > hi || self.excluded.contains(&v),
            CmpOp::NE => lo == hi && hi == v,
            CmpOp::LT => lo >= v,
            CmpOp::LE => lo > v,
            CmpOp::GT => hi <= v,
            _ => hi < v,
        };
        match (all, none) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// `e`, a comparison of a term with a constant: the term, how it is read,
/// the comparison and the constant's value read so.
fn bound_of(e: &CExpr) -> Option<(&CTerm, bool, CmpOp, i128)> {
    let CExpr::Cmp {
        op,
        signed,
        a,
        b: CTerm::Const { bits, width },
    } = e
    else {
        return None;
    };
    let shift = 64 - width;
    let v = match signed {
        true => i128::from(((bits << shift) as i64) >> shift),
        false => i128::from(bits & mask(*width)),
    };
    Some((a, *signed, *op, v))
}

/// A disjunction inside a conjunction whose comparisons set `groups`:
/// `None` if the conjunction implies it, else without the disjuncts it
/// contradicts (`0` if none is left).
fn within(items: &[CExpr], groups: &[Bounds]) -> Option<CExpr> {
    let mut kept = Vec::new();
    for d in items {
        let decided = bound_of(d).and_then(|(t, signed, op, v)| {
            let g = groups.iter().find(|g| g.term == *t && g.signed == signed)?;
            g.decides(op, v)
        });
        match decided {
            Some(true) => return None,
            Some(false) => {}
            None => kept.push(d.clone()),
        }
    }
    Some(CExpr::or(kept))
}

/// The least and the greatest value of `width` bits read with `signed`.
fn range(width: u32, signed: bool) -> (i128, i128) {
    match signed {
        true => (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1),
        false => (0, (1i128 << width) - 1),
    }
}

/// Tightens the conjunction of `items`: the comparisons of one term with
/// constants become the bounds they set together (`k < 5U && k <=
/// 4294967294U` is `k <= 4U`), where there are several; whether a value
/// is left (else the conjunction is false).
pub(super) fn tightened(items: &mut Vec<CExpr>) -> bool {
    let mut groups: Vec<Bounds> = Vec::new();
    let mut first: Vec<Option<usize>> = Vec::new();
    for e in items.iter() {
        let Some((a, signed, op, v)) = bound_of(e) else {
            first.push(None);
            continue;
        };
        let (min, max) = range(a.width(), signed);
        let g = match groups
            .iter()
            .position(|g| g.term == *a && g.signed == signed)
        {
            Some(g) => {
                first.push(None);
                g
            }
            None => {
                first.push(Some(groups.len()));
                groups.push(Bounds {
                    term: a.clone(),
                    signed,
                    low: min,
                    high: max,
                    excluded: Vec::new(),
                    atoms: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let g = &mut groups[g];
        g.atoms.push(e.clone());
        match op {
            CmpOp::EQ => (g.low, g.high) = (g.low.max(v), g.high.min(v)),
            CmpOp::NE => g.excluded.push(v),
            CmpOp::LT => g.high = g.high.min(v - 1),
            CmpOp::LE => g.high = g.high.min(v),
            CmpOp::GT => g.low = g.low.max(v + 1),
            _ => g.low = g.low.max(v),
        }
    }
    if !groups.iter_mut().all(Bounds::settle) {
        return false;
    }
    // The disjunctions, under the bounds.
    let nested: Vec<Option<Option<CExpr>>> = items
        .iter()
        .map(|e| match e {
            CExpr::Or(v) => Some(within(v, &groups)),
            _ => None,
        })
        .collect();
    let mut bounds: Vec<Option<Vec<CExpr>>> = groups.into_iter().map(Bounds::atoms).collect();
    let old = std::mem::take(items);
    for ((e, f), n) in old.into_iter().zip(first).zip(nested) {
        match (f, n) {
            (Some(g), _) => items.extend(bounds[g].take().into_iter().flatten()),
            (None, Some(Some(CExpr::False))) => return false,
            (None, Some(Some(d))) => items.push(d),
            (None, Some(None)) => {}
            (None, None) if bound_of(&e).is_none() => items.push(e),
            (None, None) => {}
        }
    }
    true
}

/// The mask of `width` bits.
pub(super) fn mask(width: u32) -> u64 {
    match width {
        64.. => u64::MAX,
        w => (1u64 << w) - 1,
    }
}

impl CTerm {
    /// The term's bits when its variables have the bits `value` gives;
    /// `None` if one has none.
    fn eval(&self, value: &dyn Fn(&CVar) -> Option<u64>) -> Option<u64> {
        let w = self.width();
        let bits = match self {
            CTerm::Var(v) => value(v)?,
            CTerm::Const { bits, .. } => *bits,
            CTerm::Binary { op, a, b, .. } => {
                let (x, y) = (a.eval(value)?, b.eval(value)?);
                match op {
                    ArithOp::Add => x.wrapping_add(y),
                    ArithOp::Sub => x.wrapping_sub(y),
                    ArithOp::Mul => x.wrapping_mul(y),
                    ArithOp::And => x & y,
                    ArithOp::Or => x | y,
                    ArithOp::Xor => x ^ y,
                }
            }
            CTerm::Unary { negate: true, a } => a.eval(value)?.wrapping_neg(),
            CTerm::Unary { negate: false, a } => !a.eval(value)?,
            CTerm::Extend { signed, a, .. } => {
                let x = a.eval(value)? & mask(a.width());
                let shift = 64 - a.width();
                match signed {
                    true => (((x << shift) as i64) >> shift) as u64,
                    false => x,
                }
            }
            CTerm::Bits { a, low, .. } => a.eval(value)? >> low,
        };
        Some(bits & mask(w))
    }
}
