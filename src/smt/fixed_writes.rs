//! Reads through pointers of unknown origin on an exact path check.
//!
//! A pointer the environment model supplies (an uninitialised local of
//! `main`, a nondeterministic value) is a symbolic address. Read through it,
//! `select` over the store chain of the whole path makes the solver decide,
//! for every write to a fixed address before (every global initialiser,
//! every field of the module's objects), whether the two addresses meet: on
//! real modules thousands of case splits per read, and queries of minutes.
//!
//! While an exact path is checked, such a read looks past the writes to
//! fixed addresses instead ([`FixedWrites::read`]) and adds a *side
//! condition*: the read's address lies below or above every address those
//! writes used. Under the side conditions the shortened term equals the
//! full one (array cells are addressed exactly; how cells of different
//! widths overlap is still the byte replay's business), so a model of the
//! path with them is a real execution: the environment's pointer simply
//! points elsewhere than the module's objects. A path that is unsatisfiable
//! with them proves nothing; the check is repeated without
//! ([`FixedWrites::set_enabled`]).

use std::cell::{Cell, RefCell};

use crate::hash::HashMap;
use z3::ast::{Array, Bool, Dynamic, BV};

use super::memory::{base_and_offset, read_past_writes, store_parts};

/// The writes to fixed addresses at the top of a store chain: the first
/// node below them, and the lowest and highest address they wrote.
#[derive(Clone)]
pub(super) struct Skip {
    pub(super) below: Array,
    pub(super) lo: u64,
    pub(super) hi: u64,
}

/// The reads past writes to fixed addresses of one exact path check.
#[derive(Default)]
pub struct FixedWrites {
    enabled: Cell<bool>,
    /// Per store node at the top of a run of writes to fixed addresses.
    memo: RefCell<HashMap<Array, Skip>>,
    /// Side conditions not yet taken by the path check.
    side: RefCell<Vec<Bool>>,
}

impl FixedWrites {
    /// Turns the reads past fixed writes on or off (for the next checks);
    /// either way the side conditions of the last check are dropped.
    pub fn set_enabled(&self, on: bool) {
        self.enabled.set(on);
        self.side.borrow_mut().clear();
        self.memo.borrow_mut().clear();
    }

    pub fn enabled(&self) -> bool {
        self.enabled.get()
    }

    /// The side conditions made since the last call.
    pub fn take_side_conditions(&self) -> Vec<Bool> {
        std::mem::take(&mut *self.side.borrow_mut())
    }

    /// `select(mem, a)`; for an address with a symbolic base, past the
    /// writes to fixed addresses ([`read_past_writes`]), with the side
    /// condition that keeps `a` away from them.
    pub fn read(&self, mem: &Array, a: &BV) -> Dynamic {
        let read = read_past_writes(mem, a, Some(self));
        if let Some(skipped) = read.skipped {
            let bits = a.get_size();
            self.side.borrow_mut().push(Bool::or(&[
                &a.bvult(BV::from_u64(skipped.lo, bits)),
                &a.bvugt(BV::from_u64(skipped.hi, bits)),
            ]));
        }
        read.value
    }

    /// The run of writes to fixed addresses from the store `top` down
    /// (memoised for every node of the run).
    pub(super) fn skip(&self, top: &Array) -> Skip {
        let mut memo = self.memo.borrow_mut();
        let mut run = Vec::new();
        let mut m = top.clone();
        let mut acc = loop {
            if let Some(s) = memo.get(&m) {
                break s.clone();
            }
            match store_parts(&m).map(|(inner, at, _)| (inner, base_and_offset(&at))) {
                Some((inner, (None, c))) => {
                    run.push((m, c));
                    m = inner;
                }
                _ => {
                    break Skip {
                        below: m,
                        lo: u64::MAX,
                        hi: 0,
                    }
                }
            }
        };
        for (node, c) in run.into_iter().rev() {
            acc.lo = acc.lo.min(c);
            acc.hi = acc.hi.max(c);
            memo.insert(node, acc.clone());
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{SatResult, Solver, Sort};

    fn c(n: u64) -> BV {
        BV::from_u64(n, 64)
    }

    #[test]
    fn a_symbolic_read_skips_fixed_writes_and_stays_equal_under_its_side_condition() {
        let mem0 = Array::new_const("m", &Sort::bitvector(64), &Sort::bitvector(8));
        let p = BV::new_const("p", 64);
        let v = BV::from_u64(7, 8);
        // p+1 := 7, then 300 fixed writes, then a read of p+1.
        let mut mem = mem0.store(&p.bvadd(c(1)), &v);
        for i in 0..300u64 {
            mem = mem.store(&c(0x1000 + i), &BV::from_u64(i, 8));
        }
        let fw = FixedWrites::default();
        fw.set_enabled(true);
        let read = fw.read(&mem, &p.bvadd(c(1))).as_bv().unwrap();
        assert_eq!(read, v, "the write through the same base is found");
        let side = fw.take_side_conditions();
        assert_eq!(side.len(), 1);
        // Under the side condition the short read equals the full select.
        let full = mem.select(&p.bvadd(c(1))).as_bv().unwrap();
        let s = Solver::new();
        s.assert(&side[0]);
        s.assert(full.eq(&read).not());
        assert_eq!(s.check(), SatResult::Unsat);
        // Without it they may differ (p+1 on a fixed write).
        let s = Solver::new();
        s.assert(full.eq(&read).not());
        assert_eq!(s.check(), SatResult::Sat);
        // The side condition keeps p+1 out of the written range.
        let s = Solver::new();
        s.assert(&side[0]);
        s.assert(p.bvadd(c(1)).eq(c(0x1000 + 150)));
        assert_eq!(s.check(), SatResult::Unsat);
    }

    #[test]
    fn fixed_reads_are_left_to_the_ordinary_walk() {
        let mem0 = Array::new_const("m", &Sort::bitvector(64), &Sort::bitvector(8));
        let mem = mem0
            .store(&c(0x1000), &BV::from_u64(1, 8))
            .store(&c(0x1001), &BV::from_u64(2, 8));
        let fw = FixedWrites::default();
        fw.set_enabled(true);
        let r = fw.read(&mem, &c(0x1000)).as_bv().unwrap();
        assert_eq!(r, BV::from_u64(1, 8));
        assert!(fw.take_side_conditions().is_empty());
    }
}
