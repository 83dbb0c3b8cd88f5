//! The memory accesses of one execution and their replay byte by byte.
//!
//! The encoding keeps one memory array per access width, which is exact
//! only while accesses of different addresses or widths do not overlap (the
//! type-based separation of the module doc). While an exact path check runs,
//! the [`Encoder`] records every access ([`Encoder::recording_accesses`]);
//! [`inconsistent_accesses`] replays them under a model over byte-addressed
//! memory and names the reads the arrays may answer differently, which the
//! check then keeps apart ([`disjoint`]).

use super::state::{Space, WIDTHS};
use super::Encoder;
use crate::hash::HashMap;
use z3::ast::{Bool, BV};

/// One memory access of an execution: the address term, the width class
/// of the array it used, and whether it wrote.
#[derive(Clone, Debug)]
pub struct MemoryAccess {
    pub address: BV,
    pub bytes: u32,
    pub write: bool,
    /// The memory space the access used (spans are always shared: their
    /// start is a pointer's).
    pub space: Space,
    /// A write of unknown bytes by a kernel function (`memcpy`,
    /// `sprintf`, ...) over this many bytes from `address` (as wide as an address; its
    /// value under the model counts, `bytes` does not).
    pub clobber: Option<BV>,
    /// What a span (`clobber`) holds.
    pub contents: SpanContents,
}

/// The bytes a span write ([`MemoryAccess::clobber`]) leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpanContents {
    /// Bytes the encoding does not know: no read may see them.
    Unknown,
    /// Zeroes, in every array (a small zeroed allocation,
    /// [`Encoder::fill`]): reads inside them are exact.
    Zero,
    /// Arbitrary bytes from outside the module (user memory,
    /// [`Encoder::fill`]), fresh values in every array: the first
    /// read of a byte determines it, as for initial memory.
    Input,
    /// The bytes from this address (as wide as an address) at the time of the write,
    /// in every width's array ([`Encoder::copy`]): a read of them is exact
    /// where the same read of the source would have been, and bytes the
    /// source never had determined are unknown.
    Copied(BV),
}

impl MemoryAccess {
    /// The access's first byte and the address past its last one, in one
    /// bit more than an address: an access at the top of the address
    /// space does not wrap around to 0.
    fn bounds(&self) -> (BV, BV) {
        let start = self.address.zero_ext(1);
        let len = match &self.clobber {
            Some(len) => len.zero_ext(1),
            None => BV::from_u64(u64::from(self.bytes), start.get_size()),
        };
        let end = start.bvadd(&len);
        (start, end)
    }
}

/// The longest write of unknown bytes a path may make exactly.
const MAX_CLOBBER: u64 = 1 << 20;

/// A read the byte replay finds the arrays may answer differently from
/// byte-addressed memory ([`inconsistent_accesses`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InconsistentRead {
    /// The read (an index into the accesses).
    pub read: usize,
    /// The access that determined its bytes otherwise; `None` where the
    /// model does not fix the accesses enough to tell (the scan ends).
    pub other: Option<usize>,
}

/// The reads (indices into `accesses`, which are in execution order)
/// whose value the memory of one array per width ([`super::SymState::mem`]) may
/// give differently from byte-addressed memory under `model`: a read of
/// bytes last written by an access of another address or width, or of
/// initial bytes another such access read before; each with that access.
/// There the execution the model describes may not be real. The scan goes
/// on past such a read (as if the arrays' value were right), up to `limit`
/// of them, so that an exact path check can keep them all apart at once. An
/// address the model does not fix counts as such a read with no access
/// (`None`), and ends the scan.
pub fn inconsistent_accesses(
    accesses: &[MemoryAccess],
    model: &z3::Model,
    limit: usize,
) -> Vec<InconsistentRead> {
    let mut found = Vec::new();
    let mut owners = ByteOwners::default();
    for (i, a) in accesses.iter().enumerate() {
        match owners.replay(i, a, model) {
            Replayed::Consistent => {}
            Replayed::Mixed(j) => {
                found.push(InconsistentRead {
                    read: i,
                    other: Some(j),
                });
                if found.len() >= limit {
                    break;
                }
            }
            Replayed::Undecided => {
                found.push(InconsistentRead {
                    read: i,
                    other: None,
                });
                break;
            }
        }
    }
    found
}

/// Who determines a byte: the access (its span and index) that last
/// wrote it, or that first read it from the initial memory.
#[derive(Clone, Copy)]
struct Owner {
    at: u64,
    bytes: u32,
    index: usize,
    space: Space,
}

/// The `bytes` of an owner that is a span of unknown bytes.
const UNKNOWN: u32 = u32::MAX;

/// The `bytes` of an owner that is a zeroed span.
const ZEROED: u32 = u32::MAX - 1;

/// What the replay of one access found.
enum Replayed {
    /// Nothing the arrays may get wrong.
    Consistent,
    /// A read of bytes this other access determined.
    Mixed(usize),
    /// An address or length the model does not fix, or a read partly of
    /// its own bytes and partly of bytes never touched: the scan ends.
    Undecided,
}

/// The value of `t` under `model`, if it fixes one.
fn value(model: &z3::Model, t: &BV) -> Option<u64> {
    model.eval(t, true).and_then(|v| v.as_u64())
}

/// The owner of each byte the accesses replayed so far touched.
#[derive(Default)]
struct ByteOwners {
    owner: HashMap<u64, Owner>,
}

impl ByteOwners {
    /// Replays access `i`, `a`, under `model`.
    fn replay(&mut self, i: usize, a: &MemoryAccess, model: &z3::Model) -> Replayed {
        let Some(at) = value(model, &a.address) else {
            return Replayed::Undecided;
        };
        let me = Owner {
            at,
            bytes: a.bytes,
            index: i,
            space: a.space,
        };
        match &a.clobber {
            Some(len) => self.span(me, len, &a.contents, model),
            None if a.write => {
                self.own(at, u64::from(a.bytes), me);
                Replayed::Consistent
            }
            None => self.read(me),
        }
    }

    /// Makes `o` the owner of the `n` bytes from `at`.
    fn own(&mut self, at: u64, n: u64, o: Owner) {
        for k in 0..n {
            self.owner.insert(at.wrapping_add(k), o);
        }
    }

    /// A span write of `len` bytes at `me.at`: bytes nobody may read
    /// afterwards (no span matches them), zeroed bytes any read inside them
    /// gets right, input bytes the next read determines (as if never
    /// touched), or bytes copied with their owners.
    fn span(
        &mut self,
        me: Owner,
        len: &BV,
        contents: &SpanContents,
        model: &z3::Model,
    ) -> Replayed {
        let Some(n) = value(model, len).filter(|&n| n <= MAX_CLOBBER) else {
            return Replayed::Undecided;
        };
        let bytes = match contents {
            SpanContents::Unknown => UNKNOWN,
            SpanContents::Zero => ZEROED,
            SpanContents::Input => {
                for k in 0..n {
                    self.owner.remove(&me.at.wrapping_add(k));
                }
                return Replayed::Consistent;
            }
            SpanContents::Copied(from) => {
                let Some(src) = value(model, from) else {
                    return Replayed::Undecided;
                };
                self.copy(me, src, n);
                return Replayed::Consistent;
            }
        };
        self.own(me.at, n, Owner { bytes, ..me });
        Replayed::Consistent
    }

    /// A copy of `n` bytes from `src` to `me.at`: each byte's owner moves
    /// along with it (first all are read, then written: the source may
    /// overlap), as the copy's: a read that mixes it up is kept apart from
    /// the copy. A byte nobody determined is unknown at its new place.
    fn copy(&mut self, me: Owner, src: u64, n: u64) {
        let (at, i) = (me.at, me.index);
        let moved: Vec<Owner> = (0..n)
            .map(|k| match self.owner.get(&src.wrapping_add(k)) {
                Some(o) if o.bytes == ZEROED => Owner { index: i, ..*o },
                Some(o) if o.bytes < ZEROED => Owner {
                    at: o.at.wrapping_add(at).wrapping_sub(src),
                    index: i,
                    ..*o
                },
                _ => Owner {
                    at,
                    bytes: UNKNOWN,
                    index: i,
                    space: me.space,
                },
            })
            .collect();
        for (k, o) in (0..n).zip(moved) {
            self.owner.insert(at.wrapping_add(k), o);
        }
    }

    /// A read of `me.bytes` bytes at `me.at`.
    fn read(&mut self, me: Owner) -> Replayed {
        let at = me.at;
        let bytes = (0..u64::from(me.bytes)).map(|k| at.wrapping_add(k));
        let mut untouched = None;
        let mut other = None;
        let mut zeroed = None;
        let mut own = false;
        for b in bytes.clone() {
            match self.owner.get(&b) {
                None => untouched = Some(b),
                // A byte of the other space: the two arrays are not one
                // memory there.
                Some(o) if o.space != me.space => {
                    other = Some(o.index);
                    break;
                }
                Some(o) if o.bytes == ZEROED && zeroed.is_none_or(|z| z == o.index) => {
                    zeroed = Some(o.index)
                }
                Some(o) if (o.at, o.bytes) == (at, me.bytes) => own = true,
                Some(o) => {
                    other = Some(o.index);
                    break;
                }
            }
        }
        if let (None, Some(z)) = (other, zeroed) {
            if untouched.is_none() && !own {
                // Wholly inside one zeroed span: every array reads 0.
                return Replayed::Consistent;
            }
            other = Some(z);
        }
        if let Some(j) = other {
            return Replayed::Mixed(j);
        }
        match untouched {
            // Partly this span's own bytes, partly never touched.
            Some(_) if bytes.clone().any(|b| self.owner.contains_key(&b)) => Replayed::Undecided,
            Some(_) => {
                self.own(at, u64::from(me.bytes), me);
                Replayed::Consistent
            }
            None => Replayed::Consistent,
        }
    }
}

/// A read of a string literal whose bytes the start function does not
/// write ([`Encoder::unmodelled_literal_read`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiteralRead {
    /// The read (an index into the accesses).
    pub access: usize,
    /// The literal (an index into
    /// [`Program::unmodelled_literals`](crate::cfa::Program)).
    pub literal: usize,
    /// Whether the read is of one byte, which the literal's bytes in the
    /// initial memory ([`Encoder::literal_in_initial_memory`]) make exact.
    pub byte: bool,
}

/// The two accesses' bytes do not overlap and neither wraps around the
/// top of the address space (as a constraint on the addresses: with
/// modular ends, an access at `-8` would end at 0, below every address,
/// and the constraint would hold while the bytes overlap).
pub fn disjoint(a: &MemoryAccess, b: &MemoryAccess) -> Bool {
    let ((a0, a1), (b0, b1)) = (a.bounds(), b.bounds());
    let bits = a.address.get_size();
    let top = BV::from_u64(1, 1).concat(BV::from_u64(0, bits));
    Bool::and(&[
        &a1.bvule(&top),
        &b1.bvule(&top),
        &Bool::or(&[&a1.bvule(&b0), &b1.bvule(&a0)]),
    ])
}

impl Encoder<'_> {
    /// The first of `accesses` that reads, under `model`, a byte of a string
    /// literal whose bytes the start function does not write
    /// ([`Program::unmodelled_literals`](crate::cfa::Program)), other than a
    /// byte read of one of the literals `added` (whose bytes the check knows).
    pub fn unmodelled_literal_read(
        &self,
        accesses: &[MemoryAccess],
        model: &z3::Model,
        added: &[usize],
    ) -> Option<LiteralRead> {
        let literals = &self.p.unmodelled_literals;
        if literals.is_empty() {
            return None;
        }
        let r = self.regions;
        accesses.iter().enumerate().find_map(|(i, a)| {
            if a.write || a.clobber.is_some() {
                return None;
            }
            let at = value(model, &a.address)?;
            let end = at.saturating_add(u64::from(a.bytes.max(1)) - 1);
            if end < r.str || at >= r.func {
                return None;
            }
            let first = (at.max(r.str) - r.str) / r.str_slot;
            let last = (end.min(r.func - 1) - r.str) / r.str_slot;
            let byte = a.bytes == 1;
            (first..=last)
                .filter_map(|slot| u32::try_from(slot).ok())
                .filter_map(|slot| literals.binary_search_by_key(&slot, |l| l.0).ok())
                .find(|k| !(byte && added.contains(k)))
                .map(|literal| LiteralRead {
                    access: i,
                    literal,
                    byte,
                })
        })
    }

    /// That access `a` reads no byte of the string literals' region: its
    /// bytes lie below the region or start past it.
    pub fn outside_literals(&self, a: &MemoryAccess) -> Bool {
        let (first, end) = a.bounds();
        let wide = |x: u64| BV::from_u64(0, 1).concat(self.caddr(x));
        let literals = self.regions.literals();
        Bool::or(&[
            &end.bvule(wide(literals.start)),
            &first.bvuge(wide(literals.end)),
        ])
    }

    /// That the initial byte array holds the bytes of string literal `i`
    /// and its terminating NUL, as the start function would write them.
    pub fn literal_in_initial_memory(&self, i: u32, bytes: &[u8]) -> Bool {
        let mem = &self.memory_array(Space::Shared.array_name(8), 8);
        let base = self.regions.str + u64::from(i) * self.regions.str_slot;
        let each: Vec<Bool> = bytes
            .iter()
            .chain([&0])
            .enumerate()
            .map(|(k, &b)| {
                let at = self.caddr(base + k as u64);
                mem.select(&at)
                    .as_bv()
                    .expect("a byte array")
                    .eq(BV::from_u64(u64::from(b), 8))
            })
            .collect();
        Bool::and(&each)
    }

    /// Runs `f` (an execution) and returns its memory accesses too.
    pub fn recording_accesses<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<MemoryAccess>) {
        *self.accesses.borrow_mut() = Some(Vec::new());
        let r = f();
        let made = self.accesses.borrow_mut().take().unwrap_or_default();
        (r, made)
    }

    /// How many memory accesses the recorded execution made so far.
    pub fn access_count(&self) -> usize {
        self.accesses.borrow().as_ref().map_or(0, Vec::len)
    }

    pub(super) fn note_access(&self, a: &BV, k: usize, write: bool, space: Space) {
        if let Some(list) = self.accesses.borrow_mut().as_mut() {
            list.push(MemoryAccess {
                address: a.clone(),
                bytes: WIDTHS[k] / 8,
                write,
                space,
                clobber: None,
                contents: SpanContents::Unknown,
            });
        }
    }

    /// Whether memory accesses are being recorded (an exact path check).
    pub fn recording(&self) -> bool {
        self.accesses.borrow().is_some()
    }

    /// Records a write of unknown bytes over `len` bytes (as wide as an address) from
    /// `a`, which the byte replay forbids any later read of.
    pub fn note_clobber(&self, a: &BV, len: BV) {
        self.note_span(a, len, SpanContents::Unknown);
    }

    /// Records a write of `len` bytes from `a`.
    pub(super) fn note_span(&self, a: &BV, len: BV, contents: SpanContents) {
        if let Some(list) = self.accesses.borrow_mut().as_mut() {
            list.push(MemoryAccess {
                address: a.clone(),
                bytes: 0,
                write: true,
                space: Space::Shared,
                clobber: Some(len),
                contents,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        disjoint, inconsistent_accesses, InconsistentRead, MemoryAccess, Space, SpanContents,
    };
    use z3::ast::BV;

    /// The reads the byte replay finds, each with the other access.
    fn pairs(found: Vec<InconsistentRead>) -> Vec<(usize, Option<usize>)> {
        found.into_iter().map(|r| (r.read, r.other)).collect()
    }

    /// The first read the byte replay finds.
    fn inconsistent_access(
        accesses: &[MemoryAccess],
        model: &z3::Model,
    ) -> Option<(usize, Option<usize>)> {
        pairs(inconsistent_accesses(accesses, model, 1)).pop()
    }

    /// A model of no constraints (addresses here are constants).
    fn empty_model() -> z3::Model {
        let solver = z3::Solver::new();
        assert_eq!(solver.check(), z3::SatResult::Sat);
        solver.get_model().expect("a model")
    }

    /// A span write of `len` bytes from `a`.
    fn span(a: u64, len: u64, contents: SpanContents) -> MemoryAccess {
        MemoryAccess {
            address: BV::from_u64(a, 64),
            bytes: 0,
            write: true,
            space: Space::Shared,
            clobber: Some(BV::from_u64(len, 64)),
            contents,
        }
    }

    /// A plain access of `bytes` bytes at `a`.
    fn acc(a: u64, bytes: u32, write: bool) -> MemoryAccess {
        MemoryAccess {
            address: BV::from_u64(a, 64),
            bytes,
            write,
            space: Space::Shared,
            clobber: None,
            contents: SpanContents::Unknown,
        }
    }

    /// A plain access of private memory.
    fn private(a: u64, bytes: u32, write: bool) -> MemoryAccess {
        MemoryAccess {
            space: Space::Private,
            ..acc(a, bytes, write)
        }
    }

    #[test]
    fn reads_of_bytes_another_access_determined_are_found() {
        let model = empty_model();
        let (w, r) = (true, false);
        // Same spans throughout; overlapping writes alone are harmless.
        let same = [
            acc(0x100, 4, w),
            acc(0x100, 4, r),
            acc(0x101, 1, w),
            acc(0x100, 8, w),
        ];
        assert_eq!(inconsistent_access(&same, &model), None);
        let byte_of_int = [acc(0x100, 4, w), acc(0x104, 4, r), acc(0x101, 1, r)];
        assert_eq!(
            inconsistent_access(&byte_of_int, &model),
            Some((2, Some(0)))
        );
        let int_after_byte = [acc(0x100, 4, w), acc(0x102, 1, w), acc(0x100, 4, r)];
        assert_eq!(
            inconsistent_access(&int_after_byte, &model),
            Some((2, Some(1)))
        );
        let two_initial_views = [acc(0x200, 8, r), acc(0x204, 4, r)];
        assert_eq!(
            inconsistent_access(&two_initial_views, &model),
            Some((1, Some(0)))
        );
        let half_known = [acc(0x300, 4, w), acc(0x302, 4, w), acc(0x300, 4, r)];
        assert_eq!(inconsistent_access(&half_known, &model), Some((2, Some(1))));
        let partly_untouched = [acc(0x400, 2, w), acc(0x400, 2, r), acc(0x400, 4, r)];
        assert_eq!(
            inconsistent_access(&partly_untouched, &model),
            Some((2, Some(0)))
        );
        let rewritten = [acc(0x200, 8, r), acc(0x204, 4, w), acc(0x204, 4, r)];
        assert_eq!(inconsistent_access(&rewritten, &model), None);
        // The same cell in the two spaces is two arrays: a pointer that
        // meets a private variable's cell is kept apart from it.
        let across_spaces = [
            [private(0x500, 8, w), acc(0x500, 8, r)],
            [acc(0x600, 4, r), private(0x600, 4, r)],
        ];
        for pair in &across_spaces {
            assert_eq!(inconsistent_access(pair, &model), Some((1, Some(0))));
        }
        let unfixed = [MemoryAccess {
            address: BV::new_const("p", 64),
            ..acc(0, 8, r)
        }];
        assert_eq!(
            inconsistent_access(&unfixed, &model),
            None,
            "completion fixes it"
        );
    }

    #[test]
    fn bytes_a_kernel_function_wrote_are_never_read() {
        let model = empty_model();
        let clobber = |a: u64, len: u64| span(a, len, SpanContents::Unknown);
        let (w, r) = (true, false);
        // Reads beside the 16 written bytes, and rewritten bytes, are fine.
        let beside = [
            clobber(0x100, 16),
            acc(0xfc, 4, r),
            acc(0x110, 8, r),
            acc(0x108, 4, w),
            acc(0x108, 4, r),
        ];
        assert_eq!(inconsistent_access(&beside, &model), None);
        let inside = [acc(0x100, 4, w), clobber(0x100, 16), acc(0x10c, 4, r)];
        assert_eq!(inconsistent_access(&inside, &model), Some((2, Some(1))));
        let straddling = [clobber(0x100, 16), acc(0xfe, 4, r)];
        assert_eq!(inconsistent_access(&straddling, &model), Some((1, Some(0))));
        let huge = [clobber(0x100, 1 << 40)];
        assert_eq!(inconsistent_access(&huge, &model), Some((0, None)));
    }

    #[test]
    fn zeroed_bytes_read_as_zero_in_any_width_but_not_beyond() {
        let model = empty_model();
        let zeroed = |a: u64, len: u64| span(a, len, SpanContents::Zero);
        let (w, r) = (true, false);
        let inside = [
            zeroed(0x100, 16),
            acc(0x100, 8, r),
            acc(0x104, 1, r),
            acc(0x10c, 4, r),
            acc(0x108, 4, w),
            acc(0x108, 4, r),
        ];
        assert_eq!(inconsistent_access(&inside, &model), None);
        // Partly zeroed, partly written or untouched: the arrays may differ.
        let rewritten = [zeroed(0x100, 16), acc(0x104, 4, w), acc(0x100, 8, r)];
        assert_eq!(inconsistent_access(&rewritten, &model), Some((2, Some(1))));
        let beyond = [zeroed(0x100, 16), acc(0x10c, 8, r)];
        assert_eq!(inconsistent_access(&beyond, &model), Some((1, Some(0))));
        let two_objects = [zeroed(0x100, 8), zeroed(0x108, 8), acc(0x104, 8, r)];
        assert_eq!(
            inconsistent_access(&two_objects, &model),
            Some((2, Some(1)))
        );
    }

    #[test]
    fn copied_bytes_are_read_as_the_source_was() {
        let model = empty_model();
        let copy = |dst: u64, src: u64, len: u64| {
            span(dst, len, SpanContents::Copied(BV::from_u64(src, 64)))
        };
        let (w, r) = (true, false);
        // Written, or zeroed, at the source: the same view at the copy is exact.
        let same_view = [
            acc(0x100, 4, w),
            acc(0x108, 8, r),
            span(0x110, 8, SpanContents::Zero),
            copy(0x200, 0x100, 24),
            acc(0x200, 4, r),
            acc(0x208, 8, r),
            acc(0x212, 2, r),
        ];
        assert_eq!(inconsistent_access(&same_view, &model), None);
        // Another view of copied bytes, bytes the source never had
        // determined, a read past the copy's end.
        let other_view = [acc(0x100, 4, w), copy(0x200, 0x100, 8), acc(0x201, 1, r)];
        assert_eq!(inconsistent_access(&other_view, &model), Some((2, Some(1))));
        let undetermined = [copy(0x200, 0x100, 8), acc(0x204, 4, r)];
        assert_eq!(
            inconsistent_access(&undetermined, &model),
            Some((1, Some(0)))
        );
        let past_end = [acc(0x100, 8, w), copy(0x200, 0x100, 4), acc(0x200, 8, r)];
        assert_eq!(inconsistent_access(&past_end, &model), Some((2, None)));
        let past_end_written = [
            acc(0x100, 8, w),
            copy(0x200, 0x100, 4),
            acc(0x204, 4, w),
            acc(0x200, 8, r),
        ];
        assert_eq!(
            inconsistent_access(&past_end_written, &model),
            Some((3, Some(2)))
        );
        // Overlapping source and destination (memmove): read before written.
        let overlapping = [
            acc(0x100, 4, w),
            acc(0x104, 4, w),
            copy(0x104, 0x100, 8),
            acc(0x104, 4, r),
            acc(0x108, 4, r),
        ];
        assert_eq!(inconsistent_access(&overlapping, &model), None);
    }

    #[test]
    fn input_bytes_are_determined_by_their_first_read() {
        let model = empty_model();
        let input = |a: u64, len: u64| span(a, len, SpanContents::Input);
        let (w, r) = (true, false);
        // Written before, then copied in: the old write no longer counts.
        let first_read = [acc(0x100, 4, w), input(0x100, 8), acc(0x100, 8, r)];
        assert_eq!(inconsistent_access(&first_read, &model), None);
        // Read twice alike: consistent; in another width: the arrays differ.
        let same = [input(0x100, 8), acc(0x104, 4, r), acc(0x104, 4, r)];
        assert_eq!(inconsistent_access(&same, &model), None);
        let other = [input(0x100, 8), acc(0x100, 8, r), acc(0x104, 4, r)];
        assert_eq!(inconsistent_access(&other, &model), Some((2, Some(1))));
    }

    #[test]
    fn one_scan_finds_every_read_another_access_determined() {
        let model = empty_model();
        let (w, r) = (true, false);
        let two = [
            acc(0x100, 4, w),
            acc(0x101, 1, r),
            acc(0x200, 8, r),
            acc(0x204, 4, r),
        ];
        assert_eq!(
            pairs(inconsistent_accesses(&two, &model, 8)),
            vec![(1, Some(0)), (3, Some(2))]
        );
        assert_eq!(
            pairs(inconsistent_accesses(&two, &model, 1)),
            vec![(1, Some(0))]
        );
        assert_eq!(inconsistent_access(&two, &model), Some((1, Some(0))));
    }

    #[test]
    fn an_access_outside_the_literals_has_no_byte_in_their_region() {
        let p = crate::smt::tests::empty_program();
        let e = crate::smt::Encoder::new(&p);
        let (start, end) = (e.regions.str, e.regions.func);
        let outside = |a: u64, bytes: u32| {
            let solver = z3::Solver::new();
            solver.assert(e.outside_literals(&acc(a, bytes, false)));
            solver.check() == z3::SatResult::Sat
        };
        assert!(outside(start - 8, 8));
        assert!(!outside(start - 4, 8), "its last bytes are a literal's");
        assert!(!outside(start, 1));
        assert!(!outside(end - 1, 8));
        assert!(outside(end, 8));
    }

    #[test]
    fn accesses_kept_apart_do_not_overlap_across_the_top_of_the_address_space() {
        let sat = |accesses: &[MemoryAccess]| {
            let solver = z3::Solver::new();
            solver.assert(disjoint(&accesses[0], &accesses[1]));
            solver.check()
        };
        let (w, r) = (true, false);
        // An 8-byte write at -4 covers bytes -4..-1 and 0..3 of modular
        // memory: a read of byte 0 or of byte -1 is inside it.
        let top = 0u64.wrapping_sub(4);
        for read in [0, 3, u64::MAX] {
            assert_eq!(
                sat(&[acc(top, 8, w), acc(read, 1, r)]),
                z3::SatResult::Unsat
            );
            assert_eq!(
                sat(&[acc(read, 1, r), acc(top, 8, w)]),
                z3::SatResult::Unsat
            );
        }
        let span_at_top = span(top, 16, SpanContents::Unknown);
        assert_eq!(sat(&[span_at_top, acc(8, 1, r)]), z3::SatResult::Unsat);
        // The last bytes of the address space, and neighbours, are apart.
        assert_eq!(sat(&[acc(top, 4, w), acc(0, 1, r)]), z3::SatResult::Sat);
        assert_eq!(
            sat(&[acc(0x100, 4, w), acc(0x104, 4, r)]),
            z3::SatResult::Sat
        );
        assert_eq!(
            sat(&[acc(0x100, 4, w), acc(0x103, 4, r)]),
            z3::SatResult::Unsat
        );
    }
}
