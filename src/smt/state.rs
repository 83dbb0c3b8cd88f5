//! The symbolic state of one path ([`SymState`]) and where the encoding
//! puts things: register values, one memory array per access width
//! ([`WIDTHS`]), the concrete address regions of objects, string
//! literals, functions and the heap.

use crate::hash::HashMap;
use crate::ir::VarId;
use z3::ast::{Array, BV};

/// Objects start here: no object lies in the first page (NULL-based
/// addresses such as `&((T *)0)->f` are below it).
pub(super) const VAR_REGION: u64 = 0x1000;
/// String literals, functions and the heap (a bump allocator's objects,
/// [`HEAP_STRIDE`] apart) lie in regions of their own above the objects.
pub(super) const STR_REGION: u64 = 0x4000_0000_0000;
/// The space of one string literal in its region: literal `i` starts at
/// `STR_REGION + i * STR_SLOT`.
pub(super) const STR_SLOT: u64 = 0x1_0000;
pub(super) const FUNC_REGION: u64 = 0x5000_0000_0000;
pub(super) const HEAP_REGION: u64 = 0x6000_0000_0000;
pub(super) const HEAP_STRIDE: u64 = 0x1_0000_0000;
pub(super) const HEAP_SIZE: u64 = 0x1000_0000_0000;
/// Name of the canonical symbol of the next free heap address.
pub(super) const HEAP_TOP: &str = "heaptop";

/// The symbolic program state along one path.
#[derive(Clone)]
pub struct SymState {
    pub regs: HashMap<VarId, BV>,
    /// Memory per width class (index of [`WIDTHS`]).
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
    /// The canonical symbol of the next free heap address.
    pub fn heap_top_symbol() -> BV {
        BV::new_const(HEAP_TOP, 64)
    }
}

/// The access widths in bits, one memory array each.
pub(super) const WIDTHS: [u32; 5] = [8, 16, 32, 64, 128];

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
