//! The symbolic state of one path ([`SymState`]) and where the encoding
//! puts things: register values, one memory array per access width
//! ([`WIDTHS`]) in each memory [`Space`], the concrete address regions of
//! objects, string literals, functions and the heap ([`Regions`], by data
//! model).

use crate::hash::HashMap;
use crate::ir::VarId;
use z3::ast::{Array, BV};

/// Objects start here: no object lies in the first page (NULL-based
/// addresses such as `&((T *)0)->f` are below it).
pub(super) const VAR_REGION: u64 = 0x1000;

/// Where the encoding puts objects, for one address width: variables from
/// [`VAR_REGION`] up, then string literals, functions and the heap (a bump
/// allocator's objects, `heap_stride` apart) in regions of their own, all
/// below the kernel's error-pointer page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Regions {
    /// Bits of an address (and of a pointer).
    pub bits: u32,
    pub str: u64,
    /// The space of one string literal in its region: literal `i` starts
    /// at `str + i * str_slot`.
    pub str_slot: u64,
    pub func: u64,
    pub heap: u64,
    pub heap_stride: u64,
    pub heap_size: u64,
}

impl Regions {
    /// LP64: 64-bit addresses, objects 4 GiB apart on the heap.
    pub const LP64: Regions = Regions {
        bits: 64,
        str: 0x4000_0000_0000,
        str_slot: 0x1_0000,
        func: 0x5000_0000_0000,
        heap: 0x6000_0000_0000,
        heap_stride: 0x1_0000_0000,
        heap_size: 0x1000_0000_0000,
    };

    /// ILP32: 32-bit addresses; variables below 256 MiB (else the other
    /// regions move up, [`Regions::above`]), 65,536 string literals of up
    /// to 4 KiB, and 768 heap objects 4 MiB apart per path.
    pub const ILP32: Regions = Regions {
        bits: 32,
        str: 0x1000_0000,
        str_slot: 0x1000,
        func: 0x2000_0000,
        heap: 0x3000_0000,
        heap_stride: 0x40_0000,
        heap_size: 0xc000_0000,
    };

    pub fn of(model: crate::ir::DataModel) -> Regions {
        match model {
            crate::ir::DataModel::Lp64 => Regions::LP64,
            crate::ir::DataModel::Ilp32 => Regions::ILP32,
        }
    }

    /// These regions moved up, in steps of 16 MiB, so that the string
    /// literals' region starts at `vars_end` or above (variables of more
    /// than 256 MiB under ILP32); the heap region shrinks by as much.
    pub fn above(self, vars_end: u64) -> Regions {
        if vars_end <= self.str {
            return self;
        }
        let shift = (vars_end - self.str).div_ceil(0x100_0000) * 0x100_0000;
        Regions {
            str: self.str + shift,
            func: self.func + shift,
            heap: self.heap + shift,
            heap_size: self.heap_size.saturating_sub(shift),
            ..self
        }
    }

    /// The addresses of the string literals' region (their slots).
    pub fn literals(&self) -> std::ops::Range<u64> {
        self.str..self.func
    }

    /// The end of the region of concrete object addresses.
    pub fn object_end(&self) -> u64 {
        self.heap + self.heap_size
    }

    /// The start of the error-pointer page (`-4096`, the page `IS_ERR`
    /// tests for).
    pub fn error_page(&self) -> u64 {
        low_bits(self.bits) - 4095
    }
}

/// Name of the canonical symbol of the next free heap address.
pub(super) const HEAP_TOP: &str = "heaptop";

/// The symbolic program state along one path.
#[derive(Clone)]
pub struct SymState {
    pub regs: HashMap<VarId, BV>,
    /// Memory per space and width class ([`Space::array`]).
    pub mem: Vec<Array>,
    /// False once the path used an over-approximating operation.
    pub exact: bool,
    /// False once the path used an operation that is not an
    /// over-approximation (no TRUE may be concluded).
    pub sound: bool,
    /// True once a value the encoding does not model (what an external
    /// call writes, floating point, a nondeterministic expression, a
    /// pointer's layout-dependent bits) became a havoc symbol
    /// ([`Encoder::havoc`](super::Encoder::havoc),
    /// [`Encoder::havoc_memory`](super::Encoder::havoc_memory)): the real value is
    /// one of the symbol's values, so a path whose feasibility does not
    /// depend on them is still a counterexample.
    pub havocked: bool,
    /// The next free heap address (`None`: the canonical symbol `heaptop`).
    pub heap_top: Option<BV>,
}

impl SymState {
    /// The canonical symbol of the next free heap address, an address of
    /// `bits` bits.
    pub fn heap_top_symbol(bits: u32) -> BV {
        BV::new_const(HEAP_TOP, bits)
    }
}

/// The access widths in bits, one memory array each.
pub(super) const WIDTHS: [u32; 5] = [8, 16, 32, 64, 128];

/// Both memory spaces.
pub(super) const SPACES: [Space; 2] = [Space::Shared, Space::Private];

/// The two memories of the encoding. No pointer the program makes can
/// address a variable whose address it never takes (an aggregate or array
/// used only by name, member and index): such variables live in *private*
/// memory, which no call of a function outside the module can write, and
/// everything else (the heap, string literals, variables whose address is
/// taken) in *shared* memory. An access goes to the space of the lvalue's
/// root: a variable's own, or shared through a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Shared,
    Private,
}

impl Space {
    /// The index in [`SymState::mem`] of this space's array of width class
    /// `k`.
    pub(super) fn array(self, k: usize) -> usize {
        match self {
            Space::Shared => k,
            Space::Private => WIDTHS.len() + k,
        }
    }

    /// This space's arrays: their index in [`SymState::mem`] and the width
    /// of their cells.
    pub(super) fn arrays(self) -> impl Iterator<Item = (usize, u32)> {
        WIDTHS
            .iter()
            .enumerate()
            .map(move |(k, &w)| (self.array(k), w))
    }

    /// The canonical name of this space's array of `w`-bit cells.
    pub(super) fn array_name(self, w: u32) -> String {
        match self {
            Space::Shared => format!("mem{w}"),
            Space::Private => format!("pmem{w}"),
        }
    }
}

/// The index in [`WIDTHS`] of the array a `w`-bit access uses.
pub(super) fn width_class(w: u32) -> usize {
    WIDTHS.iter().position(|&x| x >= w).unwrap_or(4)
}

/// The mask of the low `w` bits (all 64 for `w` ≥ 64).
pub(super) fn low_bits(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::Regions;

    #[test]
    fn regions_move_up_past_large_variables_and_stay_apart() {
        let r = Regions::ILP32;
        assert_eq!(r.above(0x1000), r);
        let moved = r.above(r.str + 1);
        assert_eq!(moved.str, r.str + 0x100_0000);
        assert_eq!(moved.object_end(), r.object_end());
        for r in [Regions::LP64, Regions::ILP32, moved] {
            assert!(r.str < r.func && r.func < r.heap);
            assert!(r.object_end() <= r.error_page());
            assert!(r.heap_size >= 256 * r.heap_stride);
        }
    }
}
