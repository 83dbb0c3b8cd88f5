//! Memory in the encoding: reads that look through the latest writes to
//! the same base ([`read_over_writes`]), loads and stores of one width's
//! cells, writes of whole spans (zeroes or input bytes on an exact path
//! check, [`Encoder::fill`]; a kernel writer's span in the analysis,
//! [`Encoder::overwrite_span`]; `memcpy`, [`Encoder::copy`]) and the
//! heap's bump allocator ([`Encoder::allocate`]).

use super::accesses::SpanContents;
use super::fixed_writes::FixedWrites;
use super::state::{width_class, Space, WIDTHS};
use super::{Encoder, SymState};
use z3::ast::{Array, Bool, BV};

/// The largest span an exact path check fills byte by byte (a zeroed
/// allocation, or bytes copied from user memory).
pub const MAX_FILL: u64 = 64;

/// How many writes [`read_over_writes`] looks through.
const MAX_WRITES_LOOKED_THROUGH: usize = 512;

/// `select(mem, a)`, simplified over the latest writes to `mem`: a write to
/// the same address gives the value read, one to an address that differs
/// from `a` by a constant is skipped (the arrays are cells by address; how
/// cells of different widths overlap is the byte replay's business,
/// [`super::inconsistent_accesses`]). The first write whose address may or may not
/// equal `a` ends the walk. The result equals `select(mem, a)` in every
/// model; it only spares the solver the case splits.
pub(super) fn read_over_writes(mem: &Array, a: &BV) -> z3::ast::Dynamic {
    read_past_writes(mem, a, None).value
}

/// What [`read_past_writes`] read.
pub(super) struct PastWrites {
    /// The value read.
    pub(super) value: z3::ast::Dynamic,
    /// The writes to fixed addresses skipped, if any.
    pub(super) skipped: Option<Skipped>,
}

/// The lowest and highest address of the writes to fixed addresses a read
/// skipped.
#[derive(Clone, Copy)]
pub(super) struct Skipped {
    pub(super) lo: u64,
    pub(super) hi: u64,
}

/// [`read_over_writes`]; with `fixed` (an exact path check) and an address
/// with a symbolic base, runs of writes to fixed addresses are skipped too,
/// and the lowest and highest address skipped are returned: the result
/// equals `select(mem, a)` wherever `a` lies outside them.
pub(super) fn read_past_writes(mem: &Array, a: &BV, fixed: Option<&FixedWrites>) -> PastWrites {
    let mut m = mem.clone();
    let mut read_at = None;
    let mut skipped: Option<Skipped> = None;
    let mut looked = 0;
    while let Some((inner, at, value)) = store_parts(&m) {
        let (base, offset) = read_at.get_or_insert_with(|| base_and_offset(a));
        let (b, o) = base_and_offset(&at);
        if let (None, Some(_), Some(fixed)) = (&b, &*base, fixed) {
            let run = fixed.skip(&m);
            skipped = Some(match skipped {
                None => Skipped {
                    lo: run.lo,
                    hi: run.hi,
                },
                Some(s) => Skipped {
                    lo: s.lo.min(run.lo),
                    hi: s.hi.max(run.hi),
                },
            });
            m = run.below;
            continue;
        }
        if b != *base || looked == MAX_WRITES_LOOKED_THROUGH {
            break;
        }
        if o == *offset {
            return PastWrites { value, skipped };
        }
        looked += 1;
        m = inner;
    }
    PastWrites {
        value: m.select(a),
        skipped,
    }
}

/// The array, address and value of a `store` term.
pub(super) fn store_parts(m: &Array) -> Option<(Array, BV, z3::ast::Dynamic)> {
    use z3::ast::Ast;
    if !m.is_app() || m.decl().kind() != z3::DeclKind::STORE {
        return None;
    }
    Some((
        m.nth_child(0)?.as_array()?,
        m.nth_child(1)?.as_bv()?,
        m.nth_child(2)?,
    ))
}

/// An address as a base term (`None`: the constant 0) plus a constant
/// (sums of constants and nested sums folded, with wrap-around).
pub(super) fn base_and_offset(a: &BV) -> (Option<BV>, u64) {
    use z3::ast::Ast;
    if let Some(n) = a.as_u64() {
        return (None, n);
    }
    // Z3 flattens nested sums into one application of any arity.
    if a.is_app() && a.decl().kind() == z3::DeclKind::BADD {
        let mut base = None;
        let mut offset = 0u64;
        for i in 0..a.num_children() {
            let Some(c) = a.nth_child(i).and_then(|c| c.as_bv()) else {
                return (Some(a.clone()), 0);
            };
            match base_and_offset(&c) {
                (None, n) => offset = offset.wrapping_add(n),
                (Some(b), n) if base.is_none() => {
                    base = Some(b);
                    offset = offset.wrapping_add(n);
                }
                _ => return (Some(a.clone()), 0),
            }
        }
        return (base, offset & super::state::low_bits(a.get_size()));
    }
    (Some(a.clone()), 0)
}

/// What an allocation function returns ([`Encoder::allocate`]).
pub struct Allocation {
    /// The result: NULL or the object.
    pub value: BV,
    /// The object's address.
    pub object: BV,
    /// The object's condition: it lies in the heap region, 8-byte aligned.
    pub in_heap: Bool,
}

impl Encoder<'_> {
    /// Reads the cell of width class `k` at `a` in memory `space`.
    pub(super) fn load(&self, st: &SymState, k: usize, a: &BV, space: Space) -> BV {
        self.note_access(a, k, false, space);
        let mem = &st.mem[space.array(k)];
        let read = if self.fixed_writes.enabled() && self.recording() {
            self.fixed_writes.read(mem, a)
        } else {
            read_over_writes(mem, a)
        };
        match read.as_bv() {
            Some(read) => self
                .deferred_reads
                .defer(read, || format!("rd{}", self.next_fresh())),
            None => self.fresh(WIDTHS[k]),
        }
    }

    /// Writes the `w`-bit value `val` at `a` in memory `space`.
    pub(super) fn store(&self, st: &mut SymState, a: &BV, w: u32, val: BV, space: Space) {
        let k = width_class(w);
        self.note_access(a, k, true, space);
        let val = self.resize(val, WIDTHS[k], false);
        let m = space.array(k);
        st.mem[m] = st.mem[m].store(a, &val);
    }

    /// Writes `contents` over the `n` bytes from `a` (a pointer's, in shared
    /// memory) in every width's array (zeroes, or fresh values for input:
    /// arbitrary, not havoc symbols) and records the span for the byte replay;
    /// only while recording, and for at most [`MAX_FILL`] bytes. Returns
    /// whether it did.
    pub fn fill(&self, st: &mut SymState, a: &BV, n: u64, contents: SpanContents) -> bool {
        if !self.recording()
            || n > MAX_FILL
            || matches!(contents, SpanContents::Unknown | SpanContents::Copied(_))
        {
            return false;
        }
        for (m, w) in Space::Shared.arrays() {
            for off in 0..n {
                let v = match contents {
                    SpanContents::Input => self.fresh(w),
                    _ => BV::from_u64(0, w),
                };
                st.mem[m] = st.mem[m].store(&a.bvadd(self.caddr(off)), &v);
            }
        }
        self.note_span(a, self.caddr(n), contents);
        true
    }

    /// Writes the `n` bytes from `a` (a pointer's, in shared memory) outside an
    /// exact path check (a kernel function that writes a span of constant
    /// length): a cell of any width inside the span gets zero if `zeroes`
    /// (`memset(a, 0, n)`), a fresh value otherwise; a cell that reaches over
    /// either end of the span gets a fresh value. So whatever a later read of
    /// the span sees is possible, and the rest of memory keeps its contents.
    /// Only for at most [`MAX_FILL`] bytes at a fixed address (a global or
    /// local object): stores at a symbolic address would make every later read
    /// a case split for the solver. Returns whether it did.
    pub fn overwrite_span(&self, st: &mut SymState, a: &BV, n: u64, zeroes: bool) -> bool {
        let Some(a) = super::fold::value(a).filter(|_| n <= MAX_FILL) else {
            return false;
        };
        for (m, w) in Space::Shared.arrays() {
            let bytes = u64::from(w / 8);
            // Cells start from `bytes - 1` before the span to its last byte.
            for start in 0..n + bytes - 1 {
                let inside = start >= bytes - 1 && start < n;
                let v = if zeroes && inside {
                    BV::from_u64(0, w)
                } else {
                    self.fresh(w)
                };
                let at = self.caddr(a.wrapping_add(start).wrapping_sub(bytes - 1));
                st.mem[m] = st.mem[m].store(&at, &v);
            }
        }
        true
    }

    /// Copies the `n` bytes from `src` to `dst` (`memcpy`, `memmove`; both
    /// pointers, in shared memory) in every width's array, at every offset
    /// where a cell fits inside them (all cells are read before any is
    /// written), and records the span for the byte replay
    /// ([`SpanContents::Copied`]); for at most [`MAX_FILL`] bytes. Under the
    /// encoding's type-based separation this is the copy itself: a read of the
    /// destination in any width sees what the same read of the source saw.
    /// Returns whether it did.
    pub fn copy(&self, st: &mut SymState, dst: &BV, src: &BV, n: u64) -> bool {
        if n > MAX_FILL {
            return false;
        }
        let mut cells = Vec::new();
        for (m, w) in Space::Shared.arrays() {
            for off in (0..n).take_while(|off| off + u64::from(w / 8) <= n) {
                let v = read_over_writes(&st.mem[m], &src.bvadd(self.caddr(off)));
                cells.push((m, off, v));
            }
        }
        for (m, off, v) in cells {
            st.mem[m] = st.mem[m].store(&dst.bvadd(self.caddr(off)), &v);
        }
        self.note_span(dst, self.caddr(n), SpanContents::Copied(src.clone()));
        true
    }

    /// A fresh result of an allocation function: NULL or a new heap object.
    /// Objects come from a bump allocator: the object is the heap top, in
    /// the heap region, and the top moves past it, so objects allocated on
    /// one path never share an address. Where the top is a canonical symbol
    /// (the start of a block of the predicate analysis) the new object may
    /// equal an older pointer's value: an over-approximation.
    pub fn allocate(&self, st: &mut SymState) -> Allocation {
        let obj = st
            .heap_top
            .clone()
            .unwrap_or_else(|| SymState::heap_top_symbol(self.regions.bits));
        st.heap_top = Some(obj.bvadd(self.caddr(self.regions.heap_stride)));
        let n = self.next_fresh();
        let fails = Bool::new_const(format!("nd{n}"));
        let v = fails.ite(&self.caddr(0), &obj);
        // 8-byte aligned, as kmalloc's objects are.
        let in_heap = Bool::and(&[
            &obj.bvuge(self.caddr(self.regions.heap)),
            &obj.bvult(self.caddr(self.regions.object_end())),
            &obj.extract(2, 0).eq(self.num(0, 3)),
        ]);
        Allocation {
            value: v,
            object: obj,
            in_heap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{base_and_offset, read_over_writes};
    use z3::ast::BV;

    #[test]
    fn sums_of_any_arity_split_into_base_and_offset() {
        let c = |n: u64| BV::from_u64(n, 64);
        let p = BV::new_const("p", 64);
        let q = BV::new_const("q", 64);
        // Z3 flattens `(a + b) + c` into one sum of three terms.
        let fixed = c(0x1298).bvadd(c(0xa8)).bvadd(c(0)).bvadd(c(8));
        assert_eq!(base_and_offset(&fixed), (None, 0x1298 + 0xa8 + 8));
        let nary = p.bvadd(c(4)).bvadd(c(0)).bvadd(c(8));
        assert_eq!(base_and_offset(&nary), (Some(p.clone()), 12));
        // Two symbolic terms: the whole sum is the base.
        let two = p.bvadd(c(4)).bvadd(q.clone());
        assert_eq!(base_and_offset(&two), (Some(two.clone()), 0));
        // Wrap-around.
        assert_eq!(base_and_offset(&p.bvadd(c(u64::MAX))).1, u64::MAX);
    }

    #[test]
    fn reads_look_through_writes_to_other_offsets_of_the_same_base() {
        use z3::ast::Array;
        use z3::Sort;
        let m = Array::new_const("m", &Sort::bitvector(64), &Sort::bitvector(32));
        let p = BV::new_const("p", 64);
        let q = BV::new_const("q", 64);
        let c = |n: u64| BV::from_u64(n, 64);
        let (v1, v2) = (BV::from_u64(1, 32), BV::from_u64(2, 32));
        let mem = m
            .store(&p.bvadd(c(8)), &v1)
            .store(&p.bvadd(c(4)).bvadd(c(12)), &v2);
        let read = |a: &BV| read_over_writes(&mem, a).as_bv().unwrap();
        assert_eq!(read(&p.bvadd(c(8))), v1);
        assert_eq!(read(&p.bvadd(c(16))), v2);
        assert_eq!(
            read(&p.bvadd(c(24))),
            m.select(&p.bvadd(c(24))).as_bv().unwrap()
        );
        // Another base may be any address: the read stays as it is.
        assert_eq!(read(&q), mem.select(&q).as_bv().unwrap());
        let at_constants = m.store(&c(0x100), &v1);
        let other = read_over_writes(&at_constants, &c(0x200));
        assert_eq!(other, m.select(&c(0x200)));
        assert_eq!(read_over_writes(&at_constants, &c(0x100)).as_bv(), Some(v1));
        // Same value in every model.
        let s = z3::Solver::new();
        let a = p.bvadd(c(20));
        s.assert(read(&a).eq(mem.select(&a).as_bv().unwrap()).not());
        assert_eq!(s.check(), z3::SatResult::Unsat);
    }

    #[test]
    fn an_overwritten_span_changes_only_the_cells_that_overlap_it() {
        use z3::ast::Ast;
        let p = crate::smt::tests::empty_program();
        let enc = crate::smt::Encoder::new(&p);
        let at = |n: u64| BV::from_u64(n, 64);
        let k32 = crate::smt::state::width_class(32);
        // Whether the 32-bit cell at `a` may differ from its value before.
        let changed = |zeroes: bool, a: u64| {
            let mut st = enc.initial();
            let before = st.mem[k32].select(&at(a)).as_bv().unwrap();
            assert!(enc.overwrite_span(&mut st, &at(0x100), 8, zeroes));
            let after = st.mem[k32].select(&at(a)).as_bv().unwrap();
            let s = z3::Solver::new();
            s.assert(after.eq(&before).not());
            (s.check() == z3::SatResult::Sat, after)
        };
        // Inside: fresh, or zero for memset(p, 0, n).
        assert!(changed(false, 0x104).0);
        assert_eq!(changed(true, 0x104).1.simplify().as_u64(), Some(0));
        // Reaching over either end of the span: fresh even when zeroing.
        for a in [0x0fd, 0x105] {
            let (differs, v) = changed(true, a);
            assert!(differs && v.simplify().as_u64().is_none(), "{a:#x}");
        }
        // Elsewhere: unchanged.
        for a in [0x0fc, 0x108] {
            assert!(!changed(false, a).0, "{a:#x}");
        }
        // Longer spans, and spans at a symbolic address, are not modelled.
        let mut st = enc.initial();
        assert!(!enc.overwrite_span(&mut st, &at(0x100), super::MAX_FILL + 1, false));
        let p = BV::new_const("p", 64);
        assert!(!enc.overwrite_span(&mut st, &p, 8, false));
    }
}
