//! The integer value of a pointer, independent of the encoding's layout.
//!
//! The encoding gives every object a fixed concrete address (see the
//! module doc of [`crate::smt`]): one layout among all the ones a kernel
//! could produce. Memory accesses and pointer equality do not depend on
//! which one (distinct objects are distinct in every layout), but a
//! pointer converted to an integer does: `(unsigned long)p <= 0xffffffff`
//! holds in some layouts and not in others, and LDV's Linux 4.x models
//! assume it of every allocation (`ldv_is_err`). So the integer value of
//! an object's address is not its concrete address but its *view*: an
//! element of the array `layout` (one value per concrete address,
//! unconstrained), with the guarantees every layout gives the kernel:
//! - it is not NULL (nor below 8) and does not lie in the error-pointer
//!   page (`IS_ERR` of an object is false);
//! - its low three bits are the concrete address's, i.e. an object's
//!   address is 8-byte aligned (kmalloc's minimum alignment; mpv's
//!   encoding aligns every object to 8 bytes, an assumption for objects
//!   the compiler could place at a smaller alignment).
//!
//! Values that are no object's address (NULL, the offsetof idiom's
//! constants in the first page, `ERR_PTR` codes in the top page) are
//! their own integer value. The same pointer term always has the same
//! view, and a view, or a view plus or minus other terms, converted back
//! to a pointer is the pointer with the same sum again
//! ([`Encoder::pointer_of_integer`]: CIL's `container_of` subtracts the
//! member's offset from the integer, and its member accesses add it); two
//! such sums are equal exactly when their pointers are (CIL compares
//! pointers as integers), and a view equals NULL or an error code exactly
//! when its pointer does ([`Encoder::view_is_constant`]), so neither
//! comparison depends on the layout; anything else computed from a view
//! (a mask, an ordering of two views, a view stored and read back) is as
//! arbitrary as the layout. Ordering two pointers (`p < q`) orders their
//! views: CPAchecker's LDV automata tell a valid pointer from an error
//! pointer by comparing it with a constant (`(void *)p <= (void *)2012`),
//! which is exact for a value that is no object's address.
//!
//! In the analysis a view over-approximates every layout, so a TRUE holds
//! for all of them. `layout` is a havoc symbol: a path whose feasibility
//! depends on the layout is a counterexample only if it is feasible
//! whatever the layout is (the check of `algorithm/path_check.rs`), so no
//! FALSE rests on one layout either. `layout` never changes, so it is also a
//! canonical symbol: predicates over it survive abstraction.

use super::state::VAR_REGION;
use super::{Encoder, SymState};
use z3::ast::{Array, Bool, BV};
use z3::Sort;

/// Name of the array from concrete addresses to their integer views.
pub const LAYOUT: &str = "layout";

impl Encoder<'_> {
    /// The integer value of the pointer value `p` (see the module
    /// doc). Sets `havocked` when the value is an object's view.
    pub(super) fn integer_of_pointer(&self, st: &mut SymState, p: BV) -> BV {
        let (bits, object_end) = (self.regions.bits, self.regions.object_end());
        if let Some(c) = super::fold::value(&p) {
            if !(VAR_REGION..object_end).contains(&c) {
                return p;
            }
        }
        st.havocked = true;
        let layout = Array::new_const(LAYOUT, &Sort::bitvector(bits), &Sort::bitvector(bits));
        let chosen = layout
            .select(&p)
            .as_bv()
            .expect("layout maps to bit-vectors");
        let low = p.extract(2, 0);
        let view = chosen.extract(bits - 1, 3).concat(&low);
        let in_range = self.address_in(&view, 8..self.regions.error_page());
        let folded = in_range.ite(&view, &self.caddr(8).bvor(low.zero_ext(bits - 3)));
        let object = self.address_in(&p, VAR_REGION..object_end);
        let v = object.ite(&folded, &p);
        self.views.borrow_mut().insert(v.clone(), p);
        v
    }

    /// `a == b` without the layout, for address-wide integers where the
    /// layout does not decide it: two view sums are equal exactly when
    /// their pointers' sums are; a view equals a constant no object's view
    /// can be exactly when its pointer does ([`Encoder::view_is_constant`]).
    /// `None` for any other pair of terms.
    pub(super) fn views_equal(&self, a: &BV, b: &BV) -> Option<Bool> {
        if let (Some(x), Some(y)) = (self.pointer_of_view_sum(a), self.pointer_of_view_sum(b)) {
            return Some(x.eq(&y));
        }
        self.view_is_constant(a, b)
            .or_else(|| self.view_is_constant(b, a))
    }

    /// `view == c` without the layout, where `view` is the integer value of
    /// a pointer `p` and `c` a constant no object's view can be (NULL, the
    /// first eight addresses, the error-pointer page): `p == c`, since `p`
    /// is then no object's address and its own view. `None` for any other
    /// pair of terms.
    fn view_is_constant(&self, view: &BV, c: &BV) -> Option<Bool> {
        let p = self.views.borrow().get(view)?.clone();
        let k = super::fold::value(c)?;
        let beyond_views = k < 8 || k >= self.regions.error_page();
        beyond_views.then(|| p.eq(c))
    }

    /// The pointer value of the address-wide integer `x`: where `x` is the view
    /// of a pointer `p`, or a sum with one (`view(p) - 24`, the
    /// `container_of` of CIL's integer arithmetic), the same sum with `p`;
    /// otherwise `x` itself.
    pub(super) fn pointer_of_integer(&self, x: BV) -> BV {
        self.pointer_of_view_sum(&x).unwrap_or(x)
    }

    /// The pointer a view sum `x` stands for (see [`Encoder::pointer_of_integer`]).
    pub(super) fn pointer_of_view_sum(&self, x: &BV) -> Option<BV> {
        use z3::ast::Ast;
        if let Some(p) = self.views.borrow().get(x) {
            return Some(p.clone());
        }
        if !x.is_app() {
            return None;
        }
        let children: Vec<BV> = x.children().iter().filter_map(|c| c.as_bv()).collect();
        match x.decl().kind() {
            z3::DeclKind::BADD => {
                let mut sum: Option<BV> = None;
                let mut rest = Vec::new();
                for c in &children {
                    match self.pointer_of_view_sum(c) {
                        Some(p) if sum.is_none() => sum = Some(p),
                        Some(_) => return None,
                        None => rest.push(c.clone()),
                    }
                }
                let p = sum?;
                Some(rest.iter().fold(p, |acc, c| acc.bvadd(c)))
            }
            z3::DeclKind::BSUB if children.len() == 2 => {
                let p = self.pointer_of_view_sum(&children[0])?;
                Some(p.bvsub(&children[1]))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::empty_program;
    use super::super::Encoder;
    use z3::ast::BV;
    use z3::{SatResult, Solver};

    fn sat(cond: &z3::ast::Bool) -> SatResult {
        let s = Solver::new();
        s.assert(cond);
        s.check()
    }

    #[test]
    fn an_objects_view_may_lie_anywhere_but_at_null_and_in_the_error_page() {
        let p = empty_program();
        let e = Encoder::new(&p);
        let mut st = e.initial();
        let obj = BV::from_u64(super::super::state::Regions::LP64.heap, 64);
        let v = e.integer_of_pointer(&mut st, obj.clone());
        assert!(st.havocked);
        let below_4g = v.bvule(BV::from_u64(0xffff_ffff, 64));
        assert_eq!(sat(&below_4g), SatResult::Sat);
        let above_4g = v.bvugt(BV::from_u64(0xffff_ffff, 64));
        assert_eq!(sat(&above_4g), SatResult::Sat);
        let first_page = v.bvult(BV::from_u64(4096, 64));
        assert_eq!(sat(&first_page), SatResult::Sat);
        let null = v.eq(BV::from_u64(0, 64));
        assert_eq!(sat(&null), SatResult::Unsat);
        let error_page = v.bvuge(BV::from_u64(0u64.wrapping_sub(4096), 64));
        assert_eq!(sat(&error_page), SatResult::Unsat);
        let misaligned = v.extract(2, 0).eq(BV::from_u64(0, 3)).not();
        assert_eq!(sat(&misaligned), SatResult::Unsat);
        assert_eq!(e.pointer_of_integer(v.clone()), obj);
        // container_of through integers: the view less an offset.
        let field = BV::from_u64(24, 64);
        let back = e.pointer_of_integer(v.bvsub(&field));
        let expected = obj.bvsub(&field);
        assert_eq!(sat(&back.eq(&expected).not()), SatResult::Unsat);
    }

    #[test]
    fn under_ilp32_objects_views_and_the_error_page_have_32_bits() {
        let p = super::super::tests::empty_program_under(crate::ir::DataModel::Ilp32);
        let e = Encoder::new(&p);
        let mut st = e.initial();
        let a = e.allocate(&mut st);
        assert_eq!(a.object.get_size(), 32);
        let v = e.integer_of_pointer(&mut st, a.object.clone());
        assert_eq!(v.get_size(), 32);
        let c = |n: u64| BV::from_u64(n, 32);
        let with_heap = |cond: &z3::ast::Bool| z3::ast::Bool::and(&[&a.in_heap, cond]);
        assert_eq!(sat(&with_heap(&v.eq(c(0)))), SatResult::Unsat);
        assert_eq!(sat(&with_heap(&v.bvuge(c(0xffff_f000)))), SatResult::Unsat);
        assert_eq!(sat(&with_heap(&v.bvult(c(0xffff_f000)))), SatResult::Sat);
        // The error page's codes are their own integers.
        let err = e.integer_of_pointer(&mut st, c(0xffff_fff4));
        assert_eq!(err.as_u64(), Some(0xffff_fff4));
        // A second object lies a stride further, still in the heap region.
        let b = e.allocate(&mut st);
        let apart = b.object.bvsub(&a.object).eq(c(0x40_0000));
        assert_eq!(sat(&with_heap(&apart.not())), SatResult::Unsat);
    }

    #[test]
    fn a_views_equality_with_null_or_an_error_code_is_the_pointers_own() {
        let p = empty_program();
        let e = Encoder::new(&p);
        let mut st = e.initial();
        let ptr = BV::new_const("p", 64);
        let v = e.integer_of_pointer(&mut st, ptr.clone());
        let mut scan = crate::smt::HavocScan::default();
        for c in [0u64, 7, 0u64.wrapping_sub(12)] {
            let c = BV::from_u64(c, 64);
            let same = e.view_is_constant(&v, &c).expect("a constant no view is");
            assert!(!scan.mentions_havoc(&z3::ast::Dynamic::from_ast(&same)));
            // Exact: the view equals the constant exactly when the pointer does.
            assert_eq!(sat(&same.xor(v.eq(&c))), SatResult::Unsat);
        }
        // An object's view may be 4096 in some layout: not rewritten.
        assert!(e.view_is_constant(&v, &BV::from_u64(4096, 64)).is_none());
        assert!(e.view_is_constant(&ptr, &BV::from_u64(0, 64)).is_none());
    }

    #[test]
    fn null_and_error_pointers_are_their_own_integers() {
        let p = empty_program();
        let e = Encoder::new(&p);
        let mut st = e.initial();
        for c in [0u64, 24, 0u64.wrapping_sub(12)] {
            let v = e.integer_of_pointer(&mut st, BV::from_u64(c, 64));
            assert_eq!(v.as_u64(), Some(c));
        }
        assert!(!st.havocked);
    }
}
