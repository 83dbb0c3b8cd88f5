//! The [`Encoder`] of one program: its construction (a fixed address for
//! every variable that lives in memory), the initial state, the effects of
//! a call cut for recursion, and the term helpers the encoding builds on
//! (widths, shared numerals, resizing).

use super::state::{low_bits, Regions, Space, SPACES, VAR_REGION};
use super::{deferred_reads, fixed_writes, LdvAssumption, MemoryAccess, SymState};
use crate::cfa::Program;
use crate::hash::HashMap;
use crate::ir::{Type, TypeId, VarId};
use z3::ast::{Array, Bool, BV};
use z3::Sort;

/// The encoder of one program: where each variable lives, the fresh-symbol
/// counter, and the modes and records of the execution being encoded
/// (LDV's assumptions, user input, recorded memory accesses, deferred reads,
/// reads past fixed writes).
pub struct Encoder<'p> {
    pub p: &'p Program,
    /// Where objects lie, and the width of addresses (the program's data
    /// model).
    pub(super) regions: Regions,
    /// Per variable: its fixed address, or `None` for a register.
    pub(super) addr: Vec<Option<u64>>,
    /// The number of the next fresh symbol.
    pub(super) fresh: std::cell::Cell<u64>,
    /// Functions a specification automaton models (LDV's rule models
    /// change only the model's state): their calls may keep the module's
    /// memory under LDV's assumptions whatever their name suggests.
    pub modelled_functions: std::cell::RefCell<crate::hash::HashSet<String>>,
    /// While an error path is checked under LDV's assumptions
    /// ([`Encoder::under_ldv_assumptions`]): how often each was made.
    pub(super) ldv: std::cell::RefCell<Option<std::collections::BTreeMap<LdvAssumption, u32>>>,
    /// While an execution is recorded ([`Encoder::recording_accesses`]):
    /// its memory accesses.
    pub(super) accesses: std::cell::RefCell<Option<Vec<MemoryAccess>>>,
    /// The labels the properties of the analysis observe (error labels,
    /// labels automata match), once known: a recursive call is then
    /// over-approximated by its effects ([`Encoder::recursion_effects`]).
    /// Set, with `modelled_functions`, before the analysis starts: the
    /// decision per callee is cached.
    pub observed_labels: std::cell::RefCell<Option<Vec<String>>>,
    /// [`crate::cfa::effects`] of recursive callees, and the edges of each
    /// function they are computed from.
    effects: std::cell::RefCell<RecursionEffects>,
    /// While recording: reads through symbolic pointers past the writes
    /// to fixed addresses, with their side conditions.
    pub fixed_writes: fixed_writes::FixedWrites,
    /// While an exact path check defers reads over stores
    /// ([`deferred_reads`]): the reads deferred.
    pub deferred_reads: deferred_reads::DeferredReads,
    /// Numerals made so far, by value and width ([`Encoder::num`]).
    numerals: std::cell::RefCell<HashMap<(u64, u32), BV>>,
    /// Integer views of pointers made so far, to the pointer
    /// ([`super::layout`]): a view converted back is the pointer again.
    pub(super) views: std::cell::RefCell<HashMap<BV, BV>>,
    /// While an error path is checked with user input
    /// ([`Encoder::with_user_input`]).
    pub(super) user_input: std::cell::Cell<bool>,
}

/// The cache of [`Encoder::recursion_effects`].
#[derive(Default)]
struct RecursionEffects {
    edges: Option<Vec<Vec<crate::cfa::EdgeId>>>,
    /// Per callee: its effects, or `None` when a property observes it.
    of: HashMap<crate::ir::FuncId, Option<std::rc::Rc<crate::cfa::effects::CallEffects>>>,
}

impl<'p> Encoder<'p> {
    /// The encoder of `p`: every variable that is not a register (address
    /// taken, or not a scalar) gets a fixed, 8-byte aligned address.
    pub fn new(p: &'p Program) -> Self {
        let mut addr = vec![None; p.vars.len()];
        let mut next = VAR_REGION;
        for (i, v) in p.vars.iter().enumerate() {
            if !Self::is_register_ty(p, v.ty) || v.address_taken {
                let align = p.types.align_of(v.ty).max(8);
                next = next.div_ceil(align) * align;
                addr[i] = Some(next);
                next += p.types.size_of(v.ty).max(1) + 16;
            }
        }
        let regions = Regions::of(p.types.model()).above(next);
        Encoder {
            p,
            regions,
            addr,
            fresh: std::cell::Cell::new(0),
            modelled_functions: Default::default(),
            ldv: Default::default(),
            user_input: Default::default(),
            accesses: Default::default(),
            observed_labels: Default::default(),
            effects: Default::default(),
            fixed_writes: Default::default(),
            deferred_reads: Default::default(),
            numerals: Default::default(),
            views: Default::default(),
        }
    }

    /// The effects of a call of `f` that is not entered because `f` is on
    /// the call stack, when they over-approximate the call for the
    /// properties: nothing in it carries an observed label or calls a
    /// function a specification automaton models (or the final-state check).
    /// `None` when the observed labels are not known or the call is observed.
    pub fn recursion_effects(
        &self,
        f: crate::ir::FuncId,
    ) -> Option<std::rc::Rc<crate::cfa::effects::CallEffects>> {
        let observed = self.observed_labels.borrow();
        let observed = observed.as_ref()?;
        let mut cache = self.effects.borrow_mut();
        let cache = &mut *cache;
        if let Some(known) = cache.of.get(&f) {
            return known.clone();
        }
        let edges = cache
            .edges
            .get_or_insert_with(|| crate::cfa::effects::edges_by_function(self.p));
        let effects = crate::cfa::effects::call_effects(self.p, edges, f);
        let modelled = self.modelled_functions.borrow();
        let entry = self.p.entry_func.map(|e| self.p.func(e).name.as_str());
        let observed_call = |c: &String| {
            modelled.contains(c) || c == "ldv_check_final_state" || Some(c.as_str()) == entry
        };
        let unobserved = !effects.labels.iter().any(|l| observed.contains(l))
            && !effects.callees.iter().any(observed_call);
        let known = unobserved.then(|| std::rc::Rc::new(effects));
        cache.of.insert(f, known.clone());
        known
    }

    /// The memory space of variable `v`, which lives in memory: private
    /// if the program never takes its address.
    pub(super) fn space_of(&self, v: VarId) -> Space {
        if self.p.var(v).address_taken {
            Space::Shared
        } else {
            Space::Private
        }
    }

    /// Whether a variable of type `ty` can be a register (a scalar).
    pub(super) fn is_register_ty(p: &Program, ty: TypeId) -> bool {
        matches!(
            p.types.get(ty),
            Type::Int(_) | Type::Pointer(_) | Type::Float(_)
        )
    }

    /// The state where execution starts: registers and memory are their
    /// canonical symbols.
    pub fn initial(&self) -> SymState {
        SymState {
            regs: HashMap::default(),
            mem: self.canonical_memory(),
            exact: true,
            sound: true,
            havocked: false,
            heap_top: None,
        }
    }

    /// The canonical memory arrays (`mem<w>`, `pmem<w>`), in the order of
    /// [`SymState::mem`].
    pub(super) fn canonical_memory(&self) -> Vec<Array> {
        SPACES
            .iter()
            .flat_map(|s| s.arrays().map(move |(_, w)| (s, w)))
            .map(|(s, w)| self.memory_array(s.array_name(w), w))
            .collect()
    }

    /// The memory array named `name`, from addresses to `w`-bit cells.
    pub(super) fn memory_array(&self, name: String, w: u32) -> Array {
        Array::new_const(
            name,
            &Sort::bitvector(self.regions.bits),
            &Sort::bitvector(w),
        )
    }

    /// What a call with `effects` may do: the globals it assigns get fresh
    /// values; memory of both spaces (and globals that live there) becomes
    /// arbitrary if it may write any.
    pub fn apply_call_effects(
        &self,
        st: &mut SymState,
        effects: &crate::cfa::effects::CallEffects,
    ) {
        let mut memory = effects.writes_memory;
        for &g in &effects.globals {
            match self.addr[g.0 as usize] {
                None => self.forget_register(st, g),
                Some(_) => memory = true,
            }
        }
        if memory {
            self.havoc_memory(st);
        }
    }

    /// Gives the register variable `v` a fresh value (a new activation).
    pub fn forget_register(&self, st: &mut SymState, v: VarId) {
        if self.addr[v.0 as usize].is_none() {
            let w = self.width(self.p.var(v).ty);
            let t = self.fresh(w);
            st.regs.insert(v, t);
        }
    }

    /// Width in bits of a value of type `ty` (addresses for aggregates).
    pub fn width(&self, ty: TypeId) -> u32 {
        match self.p.types.get(ty) {
            Type::Int(k) => k.bits(),
            Type::Float(b) => *b,
            Type::Void => 32,
            _ => self.regions.bits,
        }
    }

    pub(super) fn signed(&self, ty: TypeId) -> bool {
        matches!(self.p.types.get(ty), Type::Int(k) if k.signed())
    }

    /// The address numeral `v` (its low bits).
    pub(super) fn caddr(&self, v: u64) -> BV {
        self.num(v, self.regions.bits)
    }

    /// That the address `a` lies in `range` (compared unsigned).
    pub(super) fn address_in(&self, a: &BV, range: std::ops::Range<u64>) -> Bool {
        Bool::and(&[
            &a.bvuge(self.caddr(range.start)),
            &a.bvult(self.caddr(range.end)),
        ])
    }

    /// Bits of an address (and of a pointer value).
    pub fn address_bits(&self) -> u32 {
        self.regions.bits
    }

    /// The numeral `v` (its low `w` bits) of width `w`, shared: making a
    /// numeral in Z3 costs a sort and a hash-consing lookup each time.
    pub fn num(&self, v: u64, w: u32) -> BV {
        let v = v & low_bits(w);
        self.numerals
            .borrow_mut()
            .entry((v, w))
            .or_insert_with(|| BV::from_u64(v, w))
            .clone()
    }

    /// `base + off`, folded when `base` is a numeral or `off` is 0.
    pub(super) fn offset(&self, base: BV, off: u64) -> BV {
        match base.as_u64() {
            _ if off == 0 => base,
            Some(b) if base.get_size() == self.regions.bits => self.caddr(b.wrapping_add(off)),
            _ => base.bvadd(self.caddr(off)),
        }
    }

    pub(super) fn resize(&self, v: BV, w: u32, signed: bool) -> BV {
        let cur = v.get_size();
        if cur == w {
            return v;
        }
        if let (Some(n), true) = (v.as_u64(), cur <= 64 && w <= 64) {
            let negative = signed && cur < w && (n >> (cur - 1)) & 1 == 1;
            let n = if negative { n | !low_bits(cur) } else { n };
            return self.num(n, w);
        }
        if cur > w {
            v.extract(w - 1, 0)
        } else if signed {
            v.sign_ext(w - cur)
        } else {
            v.zero_ext(w - cur)
        }
    }

    pub(super) fn nonzero(&self, v: &BV) -> Bool {
        v.eq(self.num(0, v.get_size())).not()
    }

    pub(super) fn of_bool(&self, b: Bool, w: u32) -> BV {
        b.ite(&self.num(1, w), &self.num(0, w))
    }
}

#[cfg(test)]
mod tests {
    use z3::ast::BV;

    #[test]
    fn numerals_are_folded_as_z3_would_compute_them() {
        use z3::ast::Ast;
        let p = crate::smt::tests::empty_program();
        let enc = super::Encoder::new(&p);
        let values = [0u64, 1, 0x7f, 0x80, 0xff, 0x1234, 0x8000_0000, u64::MAX];
        for &n in &values {
            for cur in [8u32, 16, 32, 64] {
                for w in [8u32, 16, 32, 64] {
                    for signed in [false, true] {
                        let v = enc.num(n, cur);
                        let folded = enc.resize(v.clone(), w, signed);
                        let by_z3 = if cur == w {
                            v.clone()
                        } else if cur > w {
                            v.extract(w - 1, 0)
                        } else if signed {
                            v.sign_ext(w - cur)
                        } else {
                            v.zero_ext(w - cur)
                        };
                        assert_eq!(
                            folded.as_u64(),
                            by_z3.simplify().as_u64(),
                            "{n:#x} {cur}->{w} {signed}"
                        );
                    }
                }
            }
        }
        // Constant offsets fold into constant addresses; others stay sums.
        assert_eq!(enc.offset(enc.caddr(0x1000), 8).as_u64(), Some(0x1008));
        let x = BV::new_const("x", 64);
        assert_eq!(enc.offset(x.clone(), 0), x);
        assert_eq!(
            crate::smt::memory::base_and_offset(&enc.offset(x.clone(), 8)),
            (Some(x), 8)
        );
    }
}
