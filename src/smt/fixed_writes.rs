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

use hashbrown::HashMap;
use z3::ast::{Array, Ast, Bool, Dynamic, BV};

use super::{base_and_offset, read_over_writes, MAX_WRITES_LOOKED_THROUGH};

/// The writes to fixed addresses at the top of a store chain: the first
/// node below them, and the lowest and highest address they wrote.
#[derive(Clone)]
struct Skip {
    below: Array,
    lo: u64,
    hi: u64,
}

/// The reads past writes to fixed addresses of one exact path check.
#[derive(Default)]
pub struct FixedWrites {
    enabled: Cell<bool>,
    /// Per store node at the top of a run of writes to fixed addresses.
    memo: RefCell<HashMap<Array, Skip>>,
    /// Side conditions not yet taken by the path check.
    side: RefCell<Vec<Bool>>,
    /// Whether the current check made any.
    made: Cell<bool>,
}

impl FixedWrites {
    /// Turns the reads past fixed writes on or off (for the next checks);
    /// either way the side conditions of the last check are dropped.
    pub fn set_enabled(&self, on: bool) {
        self.enabled.set(on);
        self.side.borrow_mut().clear();
        self.made.set(false);
        self.memo.borrow_mut().clear();
    }

    pub fn enabled(&self) -> bool {
        self.enabled.get()
    }

    /// The side conditions made since the last call.
    pub fn take_side_conditions(&self) -> Vec<Bool> {
        std::mem::take(&mut *self.side.borrow_mut())
    }

    /// Whether the check since [`FixedWrites::set_enabled`] made any side
    /// condition.
    pub fn made_any(&self) -> bool {
        self.made.get()
    }

    /// `select(mem, a)`; for an address with a symbolic base, past the
    /// writes to fixed addresses, with the side condition that keeps `a`
    /// away from them.
    pub fn read(&self, mem: &Array, a: &BV) -> Dynamic {
        let (base, offset) = base_and_offset(a);
        if base.is_none() {
            return read_over_writes(mem, a);
        }
        let mut m = mem.clone();
        let mut range: Option<(u64, u64)> = None;
        let mut looked = 0;
        let value = loop {
            let Some((inner, at, value)) = store_parts(&m) else {
                break m.select(a);
            };
            let (b, o) = base_and_offset(&at);
            if b.is_none() {
                let s = self.skip(&m);
                range = Some(range.map_or((s.lo, s.hi), |(l, h)| (l.min(s.lo), h.max(s.hi))));
                m = s.below;
                continue;
            }
            if b != base || looked >= MAX_WRITES_LOOKED_THROUGH {
                break m.select(a);
            }
            if o == offset {
                break value;
            }
            looked += 1;
            m = inner;
        };
        if let Some((lo, hi)) = range {
            let side = Bool::or(&[
                &a.bvult(BV::from_u64(lo, 64)),
                &a.bvugt(BV::from_u64(hi, 64)),
            ]);
            self.side.borrow_mut().push(side);
            self.made.set(true);
        }
        value
    }

    /// The run of writes to fixed addresses from the store `top` down
    /// (memoised for every node of the run).
    fn skip(&self, top: &Array) -> Skip {
        let mut memo = self.memo.borrow_mut();
        let mut run = Vec::new();
        let mut m = top.clone();
        let mut acc = loop {
            if let Some(s) = memo.get(&m) {
                break s.clone();
            }
            match store_parts(&m) {
                Some((inner, at, _)) if base_and_offset(&at).0.is_none() => {
                    let (_, c) = base_and_offset(&at);
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

/// The array, address and value of a `store` term.
fn store_parts(m: &Array) -> Option<(Array, BV, Dynamic)> {
    if !m.is_app() || m.decl().kind() != z3::DeclKind::STORE {
        return None;
    }
    Some((
        m.nth_child(0)?.as_array()?,
        m.nth_child(1)?.as_bv()?,
        m.nth_child(2)?,
    ))
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
        assert!(fw.made_any());
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
        assert!(!fw.made_any());
    }
}
