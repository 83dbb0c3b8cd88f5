//! Encoding of IR expressions and assignments over a [`SymState`]: values
//! (exact machine arithmetic, pointer arithmetic, conversions), addresses
//! of lvalues, reads and writes of registers, memory cells and bit-fields,
//! and aggregate copies leaf by leaf.

use super::state::{width_class, Space};
use super::{Encoder, SymState};
use crate::ir::{BinaryOp, Expr, ExprKind, NondetReason, Type, TypeId, UnaryOp};
use z3::ast::{Bool, BV};

/// The most scalar leaves an aggregate copy writes one by one (kernel
/// structures embedding a `struct device` have hundreds); a larger copy
/// makes the path inexact.
const MAX_LEAVES: usize = 2048;

/// A bit-field's place in its storage unit.
struct BitField {
    /// Its first bit.
    lo: u32,
    /// Its width in bits.
    bits: u32,
    /// The width of its storage unit in bits.
    unit: u32,
}

impl Encoder<'_> {
    /// The truth of `e` (non-zero).
    pub fn cond(&self, st: &mut SymState, e: &Expr) -> Bool {
        let v = self.eval(st, e);
        self.nonzero(&v)
    }

    /// Address of an lvalue, if it lives in memory.
    pub fn address(&self, st: &mut SymState, e: &Expr) -> Option<BV> {
        self.located(st, e).map(|(a, _)| a)
    }

    /// Address of an lvalue that lives in memory, and the memory space of
    /// its root: the variable's own, or shared through a pointer.
    fn located(&self, st: &mut SymState, e: &Expr) -> Option<(BV, Space)> {
        match &e.kind {
            ExprKind::Var(v) => self.addr[v.0 as usize].map(|a| (self.caddr(a), self.space_of(*v))),
            ExprKind::Deref(p) => Some((self.eval_address(st, p), Space::Shared)),
            ExprKind::Member(b, f) => {
                let (base, space) = self.located(st, b)?;
                // A bit-field's address is its storage unit's; `read` and
                // `write` select its bits.
                let off = match self.p.types.get(b.ty) {
                    Type::Composite(c) => self
                        .p
                        .types
                        .composite(*c)
                        .fields
                        .get(*f as usize)
                        .map(|x| x.offset)
                        .unwrap_or(0),
                    _ => 0,
                };
                Some((self.offset(base, off), space))
            }
            ExprKind::Index(a, i) => {
                let (base, space) = match self.p.types.get(a.ty) {
                    Type::Array { .. } => self.located(st, a)?,
                    _ => (self.eval_address(st, a), Space::Shared),
                };
                let size = self.p.types.size_of(e.ty);
                let iv = self.eval(st, i);
                let iv = self.resize(iv, self.regions.bits, self.signed(i.ty));
                let at = match iv.as_u64() {
                    Some(n) => self.offset(base, n.wrapping_mul(size)),
                    None => base.bvadd(iv.bvmul(self.caddr(size))),
                };
                Some((at, space))
            }
            ExprKind::Func(f) => Some((
                self.caddr(self.regions.func + f.0 as u64 * 16),
                Space::Shared,
            )),
            ExprKind::StrLit(i) => Some((
                self.caddr(self.regions.str + *i as u64 * self.regions.str_slot),
                Space::Shared,
            )),
            _ => None,
        }
    }

    /// `e`'s value as an address.
    fn eval_address(&self, st: &mut SymState, e: &Expr) -> BV {
        let v = self.eval(st, e);
        self.resize(v, self.regions.bits, false)
    }

    /// The bit-field `e` designates, if any.
    fn bit_field(&self, e: &Expr) -> Option<BitField> {
        let ExprKind::Member(b, f) = &e.kind else {
            return None;
        };
        let Type::Composite(c) = self.p.types.get(b.ty) else {
            return None;
        };
        let fld = self.p.types.composite(*c).fields.get(*f as usize)?;
        let w = fld.bit_width?;
        let unit = (self.p.types.size_of(fld.ty) * 8) as u32;
        (w > 0 && fld.bit_offset + w <= unit && unit <= 128).then_some(BitField {
            lo: fld.bit_offset,
            bits: w,
            unit,
        })
    }

    /// Reads the lvalue `e` (scalar).
    fn read(&self, st: &mut SymState, e: &Expr) -> BV {
        let w = self.width(e.ty);
        if let Some(BitField { lo, bits, unit }) = self.bit_field(e) {
            let Some((a, space)) = self.located(st, e) else {
                return self.havoc(st, w);
            };
            let cell = self.load(st, width_class(unit), &a, space);
            let v = self.resize(cell, unit, false).extract(lo + bits - 1, lo);
            return self.resize(v, w, self.signed(e.ty));
        }
        if let ExprKind::Var(v) = &e.kind {
            if self.addr[v.0 as usize].is_none() {
                if let Some(t) = st.regs.get(v) {
                    return t.clone();
                }
                return Self::register_symbol(*v, w);
            }
        }
        match self.located(st, e) {
            Some((a, space)) => {
                let val = self.load(st, width_class(w), &a, space);
                self.resize(val, w, false)
            }
            None => self.havoc(st, w),
        }
    }

    /// Writes `val` to the lvalue `e`; aggregates are copied leaf by leaf from `src`.
    pub fn write(&self, st: &mut SymState, e: &Expr, val: BV) {
        let w = self.width(e.ty);
        let val = self.resize(val, w, false);
        if let Some(BitField { lo, bits, unit }) = self.bit_field(e) {
            let Some((a, space)) = self.located(st, e) else {
                st.exact = false;
                st.sound = false;
                return;
            };
            let cell = self.load(st, width_class(unit), &a, space);
            let cell = self.resize(cell, unit, false);
            let field = self.resize(val, bits, false);
            let mut parts = Vec::new();
            if lo + bits < unit {
                parts.push(cell.extract(unit - 1, lo + bits));
            }
            parts.push(field);
            if lo > 0 {
                parts.push(cell.extract(lo - 1, 0));
            }
            let mut new = parts[0].clone();
            for p in &parts[1..] {
                new = new.concat(p);
            }
            self.store(st, &a, unit, new, space);
            return;
        }
        if let ExprKind::Var(v) = &e.kind {
            if self.addr[v.0 as usize].is_none() {
                st.regs.insert(*v, val);
                return;
            }
        }
        match self.located(st, e) {
            Some((a, space)) => self.store(st, &a, w, val, space),
            None => {
                st.exact = false;
                st.sound = false;
            }
        }
    }

    /// `lhs = rhs` for any type (struct copies leaf by leaf).
    pub fn assign(&self, st: &mut SymState, lhs: &Expr, rhs: &Expr) -> Option<BV> {
        if Self::is_register_ty(self.p, lhs.ty) {
            let v = self.eval(st, rhs);
            let v = self.convert(v, rhs.ty, lhs.ty);
            self.write(st, lhs, v.clone());
            return Some(v);
        }
        let (Some((dst, to)), Some((src, from))) = (self.located(st, lhs), self.located(st, rhs))
        else {
            st.exact = false;
            st.sound = false;
            return None;
        };
        let mut leaves = Vec::new();
        if !self.leaves(lhs.ty, 0, &mut leaves) {
            st.exact = false;
            st.sound = false;
            return None;
        }
        for (off, w) in leaves {
            let k = width_class(w);
            let s = src.bvadd(self.caddr(off));
            let d = dst.bvadd(self.caddr(off));
            let v = self.load(st, k, &s, from);
            self.store(st, &d, w, v, to);
        }
        None
    }

    /// Scalar leaves (offset, width) of an aggregate; false if too many or bit-fields.
    fn leaves(&self, ty: TypeId, base: u64, out: &mut Vec<(u64, u32)>) -> bool {
        if out.len() > MAX_LEAVES {
            return false;
        }
        match self.p.types.get(ty) {
            Type::Int(_) | Type::Pointer(_) | Type::Float(_) => {
                out.push((base, self.width(ty)));
                true
            }
            Type::Array { elem, len } => {
                let n = len.unwrap_or(0);
                if n > MAX_LEAVES as u64 {
                    return false;
                }
                let s = self.p.types.size_of(*elem);
                (0..n).all(|i| self.leaves(*elem, base + i * s, out))
            }
            Type::Composite(c) => {
                let comp = self.p.types.composite(*c);
                // A bit-field's leaf is its whole storage unit (copied once
                // per field in it).
                comp.complete
                    && comp
                        .fields
                        .iter()
                        .all(|f| self.leaves(f.ty, base + f.offset, out))
            }
            _ => false,
        }
    }

    fn convert(&self, v: BV, from: TypeId, to: TypeId) -> BV {
        if matches!(self.p.types.get(to), Type::Int(crate::ir::IntKind::Bool)) {
            let nz = self.nonzero(&v);
            return self.of_bool(nz, 8);
        }
        self.resize(v, self.width(to), self.signed(from))
    }

    /// Evaluates a side-effect-free scalar expression.
    pub fn eval(&self, st: &mut SymState, e: &Expr) -> BV {
        let w = self.width(e.ty);
        match &e.kind {
            ExprKind::IntConst(c) if w <= 64 => self.num(*c as u64, w),
            ExprKind::IntConst(c) => {
                let lo = BV::from_u64(*c as u64, 64);
                let hi = BV::from_u64((*c >> 64) as u64, 64);
                self.resize(hi.concat(&lo), w, false)
            }
            // The entry function's parameters are arbitrary inputs: exact.
            ExprKind::Nondet(NondetReason::EntryArgument) => self.fresh(w),
            ExprKind::FloatConst(_) | ExprKind::Nondet(_) => self.havoc(st, w),
            ExprKind::Strlen(s) => {
                let s = self.eval(st, s);
                let s = self.resize(s, self.regions.bits, false);
                self.strlen(st, &s, w)
            }
            ExprKind::StrLit(_) | ExprKind::Func(_) => self
                .address(st, e)
                .unwrap_or_else(|| self.fresh(self.regions.bits)),
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Member(..) | ExprKind::Index(..) => {
                match self.p.types.get(e.ty) {
                    Type::Array { .. } | Type::Function { .. } | Type::Composite(_) => {
                        self.address(st, e).unwrap_or_else(|| {
                            st.exact = false;
                            self.fresh(self.regions.bits)
                        })
                    }
                    Type::Float(_) => self.havoc(st, w),
                    _ => self.read(st, e),
                }
            }
            ExprKind::AddrOf(a) => match &a.kind {
                ExprKind::Func(_) => self
                    .address(st, a)
                    .unwrap_or_else(|| self.fresh(self.regions.bits)),
                _ => self.address(st, a).unwrap_or_else(|| {
                    st.exact = false;
                    self.fresh(self.regions.bits)
                }),
            },
            ExprKind::Cast(a, _) => {
                if matches!(self.p.types.get(a.ty), Type::Float(_))
                    || matches!(self.p.types.get(e.ty), Type::Float(_))
                {
                    return self.havoc(st, w);
                }
                // A pointer's integer value is its view, independent of
                // the encoding's layout ([`layout`]); an integer's pointer
                // value is the integer, or the pointer it is the view of.
                let v = self.eval(st, a);
                let from_pointer = matches!(
                    self.p.types.get(a.ty),
                    Type::Pointer(_) | Type::Array { .. } | Type::Function { .. }
                );
                let to_pointer = self.p.types.is_pointer(e.ty);
                if from_pointer
                    && matches!(self.p.types.get(e.ty), Type::Int(k) if *k != crate::ir::IntKind::Bool)
                {
                    let x = self.integer_of_pointer(st, self.resize(v, self.regions.bits, false));
                    return self.resize(x, w, false);
                }
                if to_pointer && !from_pointer && v.get_size() == self.regions.bits {
                    return self.pointer_of_integer(v);
                }
                self.convert(v, a.ty, e.ty)
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(st, a);
                match op {
                    UnaryOp::Neg => self.resize(v, w, self.signed(a.ty)).bvneg(),
                    UnaryOp::BitNot => self.resize(v, w, self.signed(a.ty)).bvnot(),
                    UnaryOp::LogNot => {
                        let z = self.nonzero(&v).not();
                        self.of_bool(z, w)
                    }
                }
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.cond(st, c);
                let a = self.eval(st, a);
                let b = self.eval(st, b);
                let a = self.resize(a, w, false);
                let b = self.resize(b, w, false);
                c.ite(&a, &b)
            }
            ExprKind::Binary(op, a, b) => self.binary(st, *op, a, b, e.ty),
        }
    }

    fn binary(&self, st: &mut SymState, op: BinaryOp, a: &Expr, b: &Expr, ty: TypeId) -> BV {
        let w = self.width(ty);
        let pa =
            self.p.types.is_pointer(a.ty) || matches!(self.p.types.get(a.ty), Type::Array { .. });
        let pb =
            self.p.types.is_pointer(b.ty) || matches!(self.p.types.get(b.ty), Type::Array { .. });
        if matches!(self.p.types.get(a.ty), Type::Float(_))
            || matches!(self.p.types.get(b.ty), Type::Float(_))
        {
            return self.havoc(st, w);
        }
        let va = self.eval(st, a);
        let vb = self.eval(st, b);
        let elem_size = |t: TypeId| -> u64 {
            match self.p.types.get(t) {
                Type::Pointer(x) => self.p.types.size_of(*x).max(1),
                Type::Array { elem, .. } => self.p.types.size_of(*elem).max(1),
                _ => 1,
            }
        };
        // Equalities of views that no layout decides ([`layout`]).
        let aw = self.regions.bits;
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne) && va.get_size() == aw && vb.get_size() == aw {
            if let Some(same) = self.views_equal(&va, &vb) {
                let r = if op == BinaryOp::Eq { same } else { same.not() };
                return self.of_bool(r, w);
            }
        }
        match op {
            BinaryOp::LogAnd | BinaryOp::LogOr => {
                let (x, y) = (self.nonzero(&va), self.nonzero(&vb));
                let r = if op == BinaryOp::LogAnd {
                    Bool::and(&[&x, &y])
                } else {
                    Bool::or(&[&x, &y])
                };
                return self.of_bool(r, w);
            }
            // Ordering pointers compares their integer values, the views
            // of [`layout`]: exact for values that are no object's address
            // (NULL, constants, error pointers, what an external function
            // returned outside the objects), as arbitrary as the layout
            // for the addresses of objects.
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge if pa || pb => {
                let integer = |st: &mut SymState, v: BV, pointer: bool, t: TypeId| {
                    if pointer {
                        self.integer_of_pointer(st, self.resize(v, aw, false))
                    } else {
                        self.resize(v, aw, self.signed(t))
                    }
                };
                let x = integer(st, va, pa, a.ty);
                let y = integer(st, vb, pb, b.ty);
                let r = match op {
                    BinaryOp::Lt => x.bvult(&y),
                    BinaryOp::Le => x.bvule(&y),
                    BinaryOp::Gt => x.bvugt(&y),
                    _ => x.bvuge(&y),
                };
                return self.of_bool(r, w);
            }
            _ if op.is_comparison() => {
                let cw = va.get_size().max(vb.get_size());
                let signed = !pa && !pb && self.signed(a.ty);
                let x = self.resize(va, cw, self.signed(a.ty));
                let y = self.resize(vb, cw, self.signed(b.ty));
                let r = match (op, signed) {
                    (BinaryOp::Eq, _) => x.eq(&y),
                    (BinaryOp::Ne, _) => x.eq(&y).not(),
                    (BinaryOp::Lt, true) => x.bvslt(&y),
                    (BinaryOp::Le, true) => x.bvsle(&y),
                    (BinaryOp::Gt, true) => x.bvsgt(&y),
                    (BinaryOp::Ge, true) => x.bvsge(&y),
                    (BinaryOp::Lt, false) => x.bvult(&y),
                    (BinaryOp::Le, false) => x.bvule(&y),
                    (BinaryOp::Gt, false) => x.bvugt(&y),
                    _ => x.bvuge(&y),
                };
                return self.of_bool(r, w);
            }
            _ => {}
        }
        if pa && (op == BinaryOp::Add || op == BinaryOp::Sub) && !pb {
            let off = self
                .resize(vb, aw, self.signed(b.ty))
                .bvmul(self.caddr(elem_size(a.ty)));
            let base = self.resize(va, aw, false);
            return if op == BinaryOp::Add {
                base.bvadd(&off)
            } else {
                base.bvsub(&off)
            };
        }
        if pa && pb && op == BinaryOp::Sub {
            let d = self.resize(va, aw, false).bvsub(self.resize(vb, aw, false));
            return self.resize(d.bvsdiv(self.caddr(elem_size(a.ty))), w, true);
        }
        let signed = self.signed(ty);
        let x = self.resize(va, w, self.signed(a.ty));
        let y = self.resize(vb, w, self.signed(b.ty));
        match op {
            BinaryOp::Add => x.bvadd(&y),
            BinaryOp::Sub => x.bvsub(&y),
            BinaryOp::Mul => x.bvmul(&y),
            BinaryOp::Div if signed => x.bvsdiv(&y),
            BinaryOp::Div => x.bvudiv(&y),
            BinaryOp::Rem if signed => x.bvsrem(&y),
            BinaryOp::Rem => x.bvurem(&y),
            BinaryOp::Shl => x.bvshl(&y),
            BinaryOp::Shr if signed => x.bvashr(&y),
            BinaryOp::Shr => x.bvlshr(&y),
            BinaryOp::BitAnd => x.bvand(&y),
            BinaryOp::BitOr => x.bvor(&y),
            BinaryOp::BitXor => x.bvxor(&y),
            _ => self.havoc(st, w),
        }
    }
}
