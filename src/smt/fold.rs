//! Constant folding of bit-vector terms without Z3's simplifier.
//!
//! The encoder asks of many terms only whether they are a constant (is
//! this pointer an object's address or a plain number? is this length
//! fixed?). Z3's `simplify` answers that by rewriting the whole term, and
//! a value read from memory late on a long path is a `select` over every
//! store before it: a rewrite costs the path's length, so asking at every
//! step of an exact path check costs its square (on a 1,500-condition
//! path of hfs, half the check). [`constant`] walks the term instead and
//! stops at the first leaf that is not a numeral: a variable or a read of
//! memory is not a constant, whatever lies below it.

use z3::ast::{Ast, BV};
use z3::DeclKind;

/// Nodes [`constant`] looks at before it gives up.
const NODES: u32 = 256;

/// What [`constant`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Folded {
    /// The term's value (of width at most 64).
    Value(u64),
    /// Not taken for a constant: the term depends on a variable or a
    /// memory read (the encoder builds no `x - x`), or is larger than a
    /// constant expression of C.
    Open,
    /// An operation the walk does not fold.
    Unknown,
}

/// The value of `t` if it is a constant: folded where the walk can
/// ([`constant`]), by Z3's simplifier where the walk meets an operation
/// it does not fold.
pub fn value(t: &BV) -> Option<u64> {
    match constant(t) {
        Folded::Value(v) => Some(v),
        Folded::Open => None,
        Folded::Unknown => super::interrupt::simplified(t).as_u64(),
    }
}

/// The constant value of `t` where its numerals alone decide it (see the
/// module doc).
pub fn constant(t: &BV) -> Folded {
    let mut nodes = NODES;
    fold(t, &mut nodes)
}

/// The low `width` bits of `v` (`width` at most 64).
fn mask(v: u128, width: u32) -> u128 {
    v & ((1u128 << width) - 1)
}

fn fold(t: &BV, nodes: &mut u32) -> Folded {
    let width = t.get_size();
    if width > 64 {
        return Folded::Unknown;
    }
    if let Some(v) = t.as_u64() {
        return Folded::Value(v);
    }
    if *nodes == 0 {
        return Folded::Open;
    }
    *nodes -= 1;
    if !t.is_app() {
        return Folded::Unknown;
    }
    let decl = t.decl();
    let kind = decl.kind();
    if matches!(kind, DeclKind::SELECT | DeclKind::UNINTERPRETED) {
        return Folded::Open;
    }
    if kind == DeclKind::ITE {
        return fold_ite(t, nodes);
    }
    let children: Vec<BV> = t.children().iter().filter_map(|c| c.as_bv()).collect();
    if children.len() != decl.arity() {
        return Folded::Unknown;
    }
    let mut values = Vec::with_capacity(children.len());
    let mut open = false;
    for c in &children {
        match fold(c, nodes) {
            Folded::Value(v) => values.push((u128::from(v), c.get_size())),
            Folded::Open => open = true,
            Folded::Unknown => return Folded::Unknown,
        }
    }
    let known = matches!(
        kind,
        DeclKind::BADD
            | DeclKind::BSUB
            | DeclKind::BMUL
            | DeclKind::BNEG
            | DeclKind::BAND
            | DeclKind::BOR
            | DeclKind::BXOR
            | DeclKind::BNOT
            | DeclKind::CONCAT
            | DeclKind::EXTRACT
            | DeclKind::ZERO_EXT
            | DeclKind::SIGN_EXT
    );
    if !known {
        return Folded::Unknown;
    }
    if open {
        return Folded::Open;
    }
    let v = match kind {
        DeclKind::BADD => values.iter().fold(0u128, |a, (v, _)| a.wrapping_add(*v)),
        DeclKind::BMUL => values
            .iter()
            .fold(1u128, |a, (v, _)| mask(a.wrapping_mul(*v), 64)),
        DeclKind::BAND => values.iter().fold(u128::MAX, |a, (v, _)| a & v),
        DeclKind::BOR => values.iter().fold(0u128, |a, (v, _)| a | v),
        DeclKind::BXOR => values.iter().fold(0u128, |a, (v, _)| a ^ v),
        DeclKind::BSUB if values.len() == 2 => values[0].0.wrapping_sub(values[1].0),
        DeclKind::BNEG if values.len() == 1 => 0u128.wrapping_sub(values[0].0),
        DeclKind::BNOT if values.len() == 1 => !values[0].0,
        DeclKind::CONCAT => values.iter().fold(0u128, |a, (v, w)| (a << w) | v),
        DeclKind::ZERO_EXT if values.len() == 1 => values[0].0,
        DeclKind::SIGN_EXT if values.len() == 1 => {
            let (v, w) = values[0];
            if w > 0 && v >> (w - 1) & 1 == 1 {
                v | !mask(u128::MAX, w)
            } else {
                v
            }
        }
        DeclKind::EXTRACT if values.len() == 1 => match extract_low(t) {
            Some(lo) => values[0].0 >> lo,
            None => return Folded::Unknown,
        },
        _ => return Folded::Unknown,
    };
    Folded::Value(mask(v, width) as u64)
}

/// An `ite`: its branches' value where they agree or its condition is a
/// literal, otherwise open.
fn fold_ite(t: &BV, nodes: &mut u32) -> Folded {
    let children = t.children();
    let (Some(c), Some(a), Some(b)) = (
        children.first().and_then(|c| c.as_bool()),
        children.get(1).and_then(|c| c.as_bv()),
        children.get(2).and_then(|c| c.as_bv()),
    ) else {
        return Folded::Unknown;
    };
    match c.as_bool() {
        Some(true) => return fold(&a, nodes),
        Some(false) => return fold(&b, nodes),
        None => {}
    }
    match (fold(&a, nodes), fold(&b, nodes)) {
        (Folded::Value(x), Folded::Value(y)) if x == y => Folded::Value(x),
        (Folded::Unknown, _) | (_, Folded::Unknown) => Folded::Unknown,
        _ => Folded::Open,
    }
}

/// The low bit of an `extract` term.
fn extract_low(t: &BV) -> Option<u32> {
    let ctx = t.get_ctx().get_z3_context();
    // SAFETY: `t` is a live application term of `ctx` (checked by the
    // caller: `is_app`, kind EXTRACT, whose declaration has two integer
    // parameters, high and low).
    unsafe {
        let app = z3_sys::Z3_to_app(ctx, t.get_z3_ast())?;
        let decl = z3_sys::Z3_get_app_decl(ctx, app)?;
        if z3_sys::Z3_get_decl_num_parameters(ctx, decl) != 2 {
            return None;
        }
        u32::try_from(z3_sys::Z3_get_decl_int_parameter(ctx, decl, 1)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::{constant, Folded};
    use z3::ast::{Array, Ast, BV};
    use z3::Sort;

    /// `constant` agrees with Z3's simplifier on every term it folds.
    fn agrees(t: &BV) -> Folded {
        let f = constant(t);
        if let Folded::Value(v) = f {
            assert_eq!(t.simplify().as_u64(), Some(v), "{t}");
        }
        f
    }

    #[test]
    fn arithmetic_of_numerals_folds_as_z3_does() {
        let c = |v: u64, w: u32| BV::from_u64(v, w);
        let terms = [
            c(0x1000, 64).bvadd(c(24, 64)),
            c(0x1000, 64).bvsub(c(0x2000, 64)),
            c(3, 32).bvmul(c(0xffff_ffff, 32)),
            c(5, 16).bvneg().zero_ext(48),
            c(0x8000, 16).sign_ext(48),
            c(0x1234_5678, 32).extract(23, 8).zero_ext(48),
            c(0xab, 8).concat(c(0xcd, 8)).bvor(c(1, 16)),
            c(0xf0, 8).bvand(c(0x3c, 8)).bvxor(c(0xff, 8)).bvnot(),
        ];
        for t in &terms {
            assert!(matches!(agrees(t), Folded::Value(_)), "{t}");
        }
    }

    #[test]
    fn a_variable_or_a_memory_read_is_open_however_deep() {
        let x = BV::new_const("x", 64);
        assert_eq!(constant(&x.bvadd(BV::from_u64(8, 64))), Folded::Open);
        let mem = Array::new_const("mem", &Sort::bitvector(64), &Sort::bitvector(64));
        let mut m = mem.clone();
        for i in 0..10_000u64 {
            m = m.store(&BV::from_u64(i * 8, 64), &BV::from_u64(i, 64));
        }
        let read = m.select(&x).as_bv().expect("a bit-vector");
        assert_eq!(constant(&read.bvadd(BV::from_u64(8, 64))), Folded::Open);
        let same = x
            .bvugt(&read)
            .ite(&BV::from_u64(4, 64), &BV::from_u64(4, 64));
        assert_eq!(agrees(&same), Folded::Value(4));
        let either = x
            .bvugt(&read)
            .ite(&BV::from_u64(4, 64), &BV::from_u64(5, 64));
        assert_eq!(constant(&either), Folded::Open);
    }

    #[test]
    fn an_operation_it_does_not_fold_is_unknown() {
        let t = BV::from_u64(7, 64).bvudiv(BV::from_u64(2, 64));
        assert_eq!(constant(&t), Folded::Unknown);
    }
}
