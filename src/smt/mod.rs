//! Encoding of C operations into Z3 bit-vector terms (exact machine
//! arithmetic of the LP64 target: wrap-around, signed/unsigned division,
//! shifts, casts by extension/truncation).
//!
//! Memory model: scalar variables whose address is never taken live in
//! registers (a map from variable to term); every other variable (address
//! taken, aggregate, array) gets a fixed concrete address, functions and
//! string literals too, in disjoint regions. Memory is one array per access
//! width (8/16/32/64/128 bits) from 64-bit addresses to values. A read
//! looks through the latest writes to the same base address at other
//! constant offsets before it becomes a `select` ([`read_over_writes`]: an
//! equivalent term with fewer case splits for the solver).
//!
//! Imprecise or unsound spots (each either makes the path *inexact*, so a
//! feasible path through it is not reported FALSE, or *havocked*, so it is
//! reported FALSE only if its feasibility does not depend on the havoc
//! symbols, or makes the search *incomplete*, so no TRUE is reported):
//! - bit-fields are read and written as bits of their storage unit (exact);
//! - floating point, `Expr::Nondet`, reads from an unknown address: havoc
//!   symbols (the real value is one of theirs), path havocked;
//! - `Havoc` statements, unknown function-pointer calls, recursion cut,
//!   large aggregate copies: fresh values, path inexact (and, where memory
//!   could change, incomplete);
//! - objects have fixed concrete, 8-byte aligned addresses below the
//!   kernel's error-pointer page, one layout among all possible ones.
//!   Memory accesses and pointer equality do not depend on which; the
//!   integer value of an object's address does, so it is not the concrete
//!   address but a view that covers every layout ([`layout`]: a havoc
//!   symbol, so no verdict rests on one layout); ordering two pointers is
//!   a havoc symbol; pointer differences across objects and out-of-bounds
//!   accesses into a neighbouring object follow the concrete layout;
//! - type-based separation: accesses of different widths never alias
//!   (a union read through a member of another width sees an unrelated value);
//!   this is an assumption of the encoding, as in CPAchecker's LDV setup,
//!   for the search (a TRUE rests on it). A counterexample never does: its
//!   path's memory accesses are recorded and replayed byte by byte under
//!   the model ([`inconsistent_accesses`]); a read the arrays may answer
//!   differently from real memory leaves the property UNKNOWN;
//! - on an exact path check, a read through a pointer with a symbolic base
//!   skips the writes to fixed addresses under a side condition that keeps
//!   it away from them ([`fixed_writes`]): a path feasible with the side
//!   conditions is feasible without; one infeasible with them is checked
//!   again without;
//! - body-less functions return a fresh value (the front end's
//!   `FunctionKind`); one that receives a pointer or array argument may
//!   write through it, so all memory becomes havoc arrays (path havocked);
//!   allocation functions (`malloc`, `kmalloc`, `kzalloc`, `calloc`, ...)
//!   return NULL or the next object of a bump allocator in a heap region
//!   (distinct along a path; see [`Encoder::allocate`]); heap contents are
//!   unconstrained, which is exact for `malloc`-like functions; for zeroing
//!   ones (`kzalloc`, `vzalloc`, `devm_kzalloc`) an exact path check zeroes
//!   an object of a constant size up to [`MAX_FILL`] bytes in every
//!   array, and otherwise forbids reads of its bytes before they are
//!   written (a clobber); other zeroing ones (`kcalloc`, `calloc`) and the
//!   analysis itself make the path inexact; the bytes a kernel copy writes
//!   (`memcpy`, `copy_from_user`, ...) are a clobber too, except on the
//!   re-check of an error path with user input
//!   ([`Encoder::with_user_input`]): there `copy_from_user` of a constant
//!   size up to [`MAX_FILL`] bytes succeeds (returns 0) and writes
//!   fresh bytes, which the user can send, so a path feasible with them is
//!   real;
//! - in the analysis, a kernel function known to write only a span from
//!   its first argument (`memset`, `copy_from_user`, `snprintf`, ...), of a
//!   constant length up to [`MAX_FILL`] bytes at a fixed address, leaves
//!   the rest of memory alone: every cell that overlaps the span gets a
//!   fresh value ([`Encoder::overwrite_span`]), zero inside the span for
//!   `memset(p, 0, n)`; any other span makes all memory havoc arrays, as
//!   for any other writing function (an exact path check records the span
//!   as a clobber, above);
//! - `memcpy` and `memmove` (also as `__builtin_memcpy`) of a constant
//!   length up to [`MAX_FILL`] bytes copy every width's cells that fit in
//!   the span ([`Encoder::copy`]), in the analysis and in a path check:
//!   exact under the type-based separation above; the byte replay moves
//!   each byte's owner along, so a counterexample never rests on a view of
//!   the copy the source did not have;
//! - a new activation of a function gets fresh values for its register
//!   locals; address-taken locals live at one fixed address per variable,
//!   so an uninitialised one reads what a previous activation left there
//!   (reading it is undefined behaviour in C);
//! - division by zero and signed overflow follow Z3's total bit-vector
//!   semantics (wrap-around), as compiled code behaves in practice.

use crate::hash::HashMap;
use z3::ast::{Array, Bool, BV};
use z3::Sort;

pub mod deferred_reads;
pub mod fixed_writes;
pub mod interrupt;
pub mod layout;
pub mod step;

/// Z3 resource units per second of solver time: a rough, uncalibrated
/// figure. A query's budget is therefore approximate; the analyses' own
/// deadline polling and `mpv verify`'s watchdog enforce the time limit.
const RLIMIT_PER_SECOND: f64 = 4_000_000.0;

/// A solver for checks under assumptions or in scopes (Z3's incremental
/// mode), set up for the encoding's logic: arrays and bit-vectors
/// (`QF_AUFBV`). Without a logic, Z3's incremental core is set up for
/// every theory at once: on hfs (32_7a) an unsat core over about 600
/// tracked conditions took 3-5 s that way and about 1.1 s this way. Not
/// every query gains: on em28xx-dvb (43_1a) one abstraction query over a
/// single predicate runs out of its 2 s here and not without a logic.
pub fn incremental_solver() -> z3::Solver {
    z3::Solver::new_for_logic("QF_AUFBV").unwrap_or_default()
}

/// A solver for one plain check (Z3 preprocesses its assertions) that gives
/// up at `deadline`, absolute thread CPU time, if there is one.
pub fn solver_until(deadline: Option<std::time::Duration>) -> z3::Solver {
    let s = z3::Solver::new();
    if let Some(d) = deadline {
        s.set_params(&query_limit(
            d.saturating_sub(crate::util::thread_cpu_time()),
        ));
    }
    s
}

/// Solver parameters that bound one query by about `budget` of CPU time.
///
/// A resource limit, not Z3's `timeout`: timeouts run on Z3's timer thread
/// pool, which in Z3 4.8.12 (Debian's) can crash the process when a timer
/// fires while its query ends (Z3 PR #5371). Resource limits need no timer.
pub fn query_limit(budget: std::time::Duration) -> z3::Params {
    let mut p = z3::Params::new();
    p.set_u32("rlimit", rlimit_units(budget));
    p
}

/// Z3 resource units for about `budget` of CPU time.
pub fn rlimit_units(budget: std::time::Duration) -> u32 {
    (budget.as_secs_f64() * RLIMIT_PER_SECOND).clamp(1_000.0, u32::MAX as f64) as u32
}

/// Granularity of [`QueryLimit`]: budgets are rounded up to a multiple of
/// it, so a solver asked repeatedly near a deadline is reconfigured at most
/// once per step.
const QUERY_LIMIT_STEP: std::time::Duration = std::time::Duration::from_millis(100);

/// The per-query resource limit last given to one solver.
///
/// Setting a solver's parameters reconfigures its whole engine, which on an
/// incremental solver holding a large block's formulas costs more than a
/// typical query (a third of all CPU time on small modules with many
/// abstraction queries). [`QueryLimit::apply`] sets them only when the
/// rounded limit changes; the CPU-clock interrupt armed around each query
/// still enforces the exact deadline.
#[derive(Debug, Default)]
pub struct QueryLimit {
    units: std::cell::Cell<Option<u32>>,
}

impl QueryLimit {
    /// Bounds `solver`'s next queries by about `budget` (rounded up to
    /// [`QUERY_LIMIT_STEP`]) of CPU time each.
    pub fn apply(&self, solver: &z3::Solver, budget: std::time::Duration) {
        let step = QUERY_LIMIT_STEP.as_nanos();
        let rounded = budget.as_nanos().div_ceil(step).max(1) * step;
        let rounded = std::time::Duration::from_nanos(rounded.min(u64::MAX as u128) as u64);
        let units = rlimit_units(rounded);
        if self.units.get() != Some(units) {
            solver.set_params(&query_limit(rounded));
            self.units.set(Some(units));
        }
    }
}

use crate::cfa::Program;
use crate::ir::{BinaryOp, Expr, ExprKind, Type, TypeId, UnaryOp, VarId};

/// Objects start here: no object lies in the first page (NULL-based
/// addresses such as `&((T *)0)->f` are below it).
const VAR_REGION: u64 = 0x1000;
const STR_REGION: u64 = 0x4000_0000_0000;
const FUNC_REGION: u64 = 0x5000_0000_0000;
const HEAP_REGION: u64 = 0x6000_0000_0000;
const HEAP_STRIDE: u64 = 0x1_0000_0000;
const HEAP_SIZE: u64 = 0x1000_0000_0000;
/// Name of the canonical symbol of the next free heap address.
const HEAP_TOP: &str = "heaptop";

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
    /// ([`Encoder::havoc`], [`Encoder::havoc_memory`]): the real value is
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

const WIDTHS: [u32; 5] = [8, 16, 32, 64, 128];

fn width_class(w: u32) -> usize {
    WIDTHS.iter().position(|&x| x >= w).unwrap_or(4)
}

/// The mask of the low `w` bits (all 64 for `w` ≥ 64).
fn low_bits(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Names of allocation functions: NULL or a fresh object.
pub fn is_allocator(name: &str) -> bool {
    matches!(
        name,
        "malloc"
            | "calloc"
            | "kmalloc"
            | "kzalloc"
            | "kcalloc"
            | "vmalloc"
            | "vzalloc"
            | "__kmalloc"
            | "kmem_cache_alloc"
            | "kmalloc_array"
            | "devm_kzalloc"
            | "devm_kmalloc"
    )
}

/// The `Nondet` reason of the entry function's arguments (see
/// `frontend::lower`).
pub const ENTRY_ARGUMENT: &str = "entry argument";

pub struct Encoder<'p> {
    pub p: &'p Program,
    addr: Vec<Option<u64>>,
    fresh: std::cell::Cell<u64>,
    /// Functions a specification automaton models (LDV's rule models
    /// change only the model's state): their calls may keep the module's
    /// memory under LDV's assumptions whatever their name suggests.
    pub modelled_functions: std::cell::RefCell<crate::hash::HashSet<String>>,
    /// While an error path is checked under LDV's assumptions
    /// ([`Encoder::under_ldv_assumptions`]): how often each was made.
    ldv: std::cell::RefCell<Option<std::collections::BTreeMap<LdvAssumption, u32>>>,
    /// While an execution is recorded ([`Encoder::recording_accesses`]):
    /// its memory accesses.
    accesses: std::cell::RefCell<Option<Vec<MemoryAccess>>>,
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
    /// ([`layout`]): a view converted back is the pointer again.
    views: std::cell::RefCell<HashMap<BV, BV>>,
    /// While an error path is checked with user input
    /// ([`Encoder::with_user_input`]).
    user_input: std::cell::Cell<bool>,
}

#[derive(Default)]
struct RecursionEffects {
    edges: Option<Vec<Vec<crate::cfa::EdgeId>>>,
    /// Per callee: its effects, or `None` when a property observes it.
    of: HashMap<crate::ir::FuncId, Option<std::rc::Rc<crate::cfa::effects::CallEffects>>>,
}

/// One memory access of an execution: the address term, the width class
/// of the array it used, and whether it wrote.
#[derive(Clone, Debug)]
pub struct MemoryAccess {
    pub address: BV,
    pub bytes: u32,
    pub write: bool,
    /// A write of unknown bytes by a kernel function (`memcpy`,
    /// `sprintf`, ...) over this many bytes from `address` (64 bits; its
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
    /// The bytes from this address (64 bits) at the time of the write,
    /// in every width's array ([`Encoder::copy`]): a read of them is exact
    /// where the same read of the source would have been, and bytes the
    /// source never had determined are unknown.
    Copied(BV),
}

impl MemoryAccess {
    /// The address past the access's last byte.
    fn end(&self) -> BV {
        match &self.clobber {
            Some(len) => self.address.bvadd(len),
            None => self.address.bvadd(BV::from_u64(u64::from(self.bytes), 64)),
        }
    }
}

/// The longest write of unknown bytes a path may make exactly.
const MAX_CLOBBER: u64 = 1 << 20;

/// The largest span an exact path check fills byte by byte (a zeroed
/// allocation, or bytes copied from user memory).
pub const MAX_FILL: u64 = 64;

/// The reads (indices into `accesses`, which are in execution order)
/// whose value the memory of one array per width ([`SymState::mem`]) may
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
) -> Vec<(usize, Option<usize>)> {
    let mut found = Vec::new();
    /// Who determines a byte: the access (its span and index) that last
    /// wrote it, or that first read it from the initial memory.
    #[derive(Clone, Copy)]
    struct Owner {
        at: u64,
        bytes: u32,
        index: usize,
    }
    /// The `bytes` of an owner that is a zeroed span.
    const ZEROED: u32 = u32::MAX - 1;
    let mut owner: HashMap<u64, Owner> = HashMap::default();
    for (i, a) in accesses.iter().enumerate() {
        let Some(at) = model.eval(&a.address, true).and_then(|v| v.as_u64()) else {
            found.push((i, None));
            return found;
        };
        if let Some(len) = &a.clobber {
            // Bytes nobody may read afterwards (no span matches them),
            // zeroed bytes any read inside them gets right, or input bytes
            // the next read determines (as if never touched).
            let n = model.eval(len, true).and_then(|v| v.as_u64());
            let Some(n) = n.filter(|&n| n <= MAX_CLOBBER) else {
                found.push((i, None));
                return found;
            };
            let bytes = match &a.contents {
                SpanContents::Unknown => u32::MAX,
                SpanContents::Zero => ZEROED,
                SpanContents::Input => {
                    for k in 0..n {
                        owner.remove(&at.wrapping_add(k));
                    }
                    continue;
                }
                SpanContents::Copied(from) => {
                    let Some(src) = model.eval(from, true).and_then(|v| v.as_u64()) else {
                        found.push((i, None));
                        return found;
                    };
                    // Each byte's owner moves along with it (first all are
                    // read, then written: the source may overlap), as the
                    // copy's: a read that mixes it up is kept apart from
                    // the copy. A byte nobody determined is unknown at its
                    // new place.
                    let moved: Vec<Owner> = (0..n)
                        .map(|k| match owner.get(&src.wrapping_add(k)) {
                            Some(o) if o.bytes == ZEROED => Owner { index: i, ..*o },
                            Some(o) if o.bytes < ZEROED => Owner {
                                at: o.at.wrapping_add(at).wrapping_sub(src),
                                bytes: o.bytes,
                                index: i,
                            },
                            _ => Owner {
                                at,
                                bytes: u32::MAX,
                                index: i,
                            },
                        })
                        .collect();
                    for (k, o) in (0..n).zip(moved) {
                        owner.insert(at.wrapping_add(k), o);
                    }
                    continue;
                }
            };
            let me = Owner {
                at,
                bytes,
                index: i,
            };
            for k in 0..n {
                owner.insert(at.wrapping_add(k), me);
            }
            continue;
        }
        let me = Owner {
            at,
            bytes: a.bytes,
            index: i,
        };
        let bytes = (0..u64::from(a.bytes)).map(|k| at.wrapping_add(k));
        if a.write {
            for b in bytes {
                owner.insert(b, me);
            }
            continue;
        }
        let mut untouched = None;
        let mut other = None;
        let mut zeroed = None;
        let mut own = false;
        for b in bytes.clone() {
            match owner.get(&b) {
                None => untouched = Some(b),
                Some(o) if o.bytes == ZEROED && zeroed.is_none_or(|z| z == o.index) => {
                    zeroed = Some(o.index)
                }
                Some(o) if (o.at, o.bytes) == (at, a.bytes) => own = true,
                Some(o) => {
                    other = Some(o.index);
                    break;
                }
            }
        }
        if let (None, Some(z)) = (other, zeroed) {
            if untouched.is_none() && !own {
                // Wholly inside one zeroed span: every array reads 0.
                continue;
            }
            other = Some(z);
        }
        if let Some(j) = other {
            found.push((i, Some(j)));
            if found.len() >= limit {
                return found;
            }
            continue;
        }
        match untouched {
            // Partly this span's own bytes, partly never touched.
            Some(_) if bytes.clone().any(|b| owner.contains_key(&b)) => {
                found.push((i, None));
                return found;
            }
            Some(_) => {
                for b in bytes {
                    owner.insert(b, me);
                }
            }
            None => {}
        }
    }
    found
}

/// The most scalar leaves an aggregate copy writes one by one (kernel
/// structures embedding a `struct device` have hundreds); a larger copy
/// makes the path inexact.
const MAX_LEAVES: usize = 2048;

/// How many writes [`read_over_writes`] looks through.
const MAX_WRITES_LOOKED_THROUGH: usize = 512;

/// `select(mem, a)`, simplified over the latest writes to `mem`: a write to
/// the same address gives the value read, one to an address that differs
/// from `a` by a constant is skipped (the arrays are cells by address; how
/// cells of different widths overlap is the byte replay's business,
/// [`inconsistent_accesses`]). The first write whose address may or may not
/// equal `a` ends the walk. The result equals `select(mem, a)` in every
/// model; it only spares the solver the case splits.
fn read_over_writes(mem: &Array, a: &BV) -> z3::ast::Dynamic {
    read_past_writes(mem, a, None).0
}

/// [`read_over_writes`]; with `fixed` (an exact path check) and an address
/// with a symbolic base, runs of writes to fixed addresses are skipped too,
/// and the lowest and highest address skipped are returned: the result
/// equals `select(mem, a)` wherever `a` lies outside them.
fn read_past_writes(
    mem: &Array,
    a: &BV,
    fixed: Option<&fixed_writes::FixedWrites>,
) -> (z3::ast::Dynamic, Option<(u64, u64)>) {
    let mut m = mem.clone();
    let mut read_at = None;
    let mut skipped: Option<(u64, u64)> = None;
    let mut looked = 0;
    while let Some((inner, at, value)) = store_parts(&m) {
        let (base, offset) = read_at.get_or_insert_with(|| base_and_offset(a));
        let (b, o) = base_and_offset(&at);
        if let (None, Some(_), Some(fixed)) = (&b, &*base, fixed) {
            let run = fixed.skip(&m);
            skipped =
                Some(skipped.map_or((run.lo, run.hi), |(l, h)| (l.min(run.lo), h.max(run.hi))));
            m = run.below;
            continue;
        }
        if b != *base || looked == MAX_WRITES_LOOKED_THROUGH {
            break;
        }
        if o == *offset {
            return (value, skipped);
        }
        looked += 1;
        m = inner;
    }
    (m.select(a), skipped)
}

/// The array, address and value of a `store` term.
fn store_parts(m: &Array) -> Option<(Array, BV, z3::ast::Dynamic)> {
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
fn base_and_offset(a: &BV) -> (Option<BV>, u64) {
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
        return (base, offset);
    }
    (Some(a.clone()), 0)
}

/// The two accesses' bytes do not overlap (as a constraint on the
/// addresses).
pub fn disjoint(a: &MemoryAccess, b: &MemoryAccess) -> Bool {
    Bool::or(&[&a.end().bvule(&b.address), &b.end().bvule(&a.address)])
}

/// Where mpv's exact encoding over-approximates and LDV's models and
/// verifiers assume more. An error path that is exact only under such
/// assumptions is reported FALSE with them listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LdvAssumption {
    /// A kernel function without a model (taking pointers) does not change
    /// the module's memory.
    ExternalKeepsMemory,
    /// A call through a pointer to no function of the module calls a kernel
    /// function without a model.
    UnknownTargetIsExternal,
    /// Inline assembly leaves memory unchanged; its register outputs are
    /// arbitrary.
    InlineAsmSkipped,
    /// The length a formatting or string-copying kernel function returns
    /// (`snprintf`, `strlcpy`, ...) is any non-negative value: the bytes
    /// it wrote are not modelled, so neither is their count.
    LengthResultArbitrary,
}

impl LdvAssumption {
    fn describe(self, n: u32) -> String {
        match self {
            LdvAssumption::ExternalKeepsMemory => format!("{n} call(s) of kernel functions without a model (taking pointers) do not change the module's memory, as LDV's models assume"),
            LdvAssumption::UnknownTargetIsExternal => format!("{n} call(s) through function pointers that match no function of the module call kernel functions without a model, as LDV's verifiers assume"),
            LdvAssumption::InlineAsmSkipped => format!("{n} inline assembly statement(s) leave memory unchanged and give arbitrary register outputs, as LDV's verifiers take them"),
            LdvAssumption::LengthResultArbitrary => format!("{n} length(s) returned by formatting or string-copying kernel functions (snprintf, strlcpy, ...) are arbitrary non-negative values, as LDV's verifiers take them"),
        }
    }
}

/// Whether `name` is `copy_from_user` or one of its `_`-prefixed
/// variants: a copy of bytes the user chooses.
pub fn copies_from_user(name: &str) -> bool {
    name.trim_start_matches('_') == "copy_from_user"
}

/// Whether a body-less function is known to (or may well) write through
/// the pointers it gets: copying, filling, reading input, formatting into a
/// buffer (`sprintf`, `snprintf`, `vsnprintf`; printing to a stream, as
/// `printf` and `printk` do, writes no memory of the module). The names
/// are matched by pattern, less the functions [`writes_no_memory_of_the_module`]
/// lists.
pub fn may_write_through_pointers(name: &str) -> bool {
    const WRITERS: [&str; 19] = [
        "copy", "memset", "memcpy", "memmove", "strcpy", "strncpy", "strlcpy", "strcat", "strncat",
        "strlcat", "read", "get_user", "recv", "scanf", "sprintf", "snprintf", "fill", "load",
        "sg_set",
    ];
    let lower = name.to_ascii_lowercase();
    !writes_no_memory_of_the_module(lower.trim_start_matches('_'))
        && WRITERS.iter().any(|w| lower.contains(w))
}

/// Kernel functions whose names match a writer's pattern but which write
/// no memory of the module through their pointers: `kasprintf` and
/// `kvasprintf` format into a string they allocate; reads of device
/// registers (`ioread32`, `readl`, `i2c_smbus_read_byte_data`) return the
/// value; the reader side of reader-writer locks and sequence locks
/// (`down_read`, `read_lock`, `read_seqbegin`) changes only the lock.
fn writes_no_memory_of_the_module(name: &str) -> bool {
    const EXACT: [&str; 16] = [
        "kasprintf",
        "kvasprintf",
        "readb",
        "readw",
        "readl",
        "readq",
        "raw_readb",
        "raw_readw",
        "raw_readl",
        "raw_readq",
        "i2c_smbus_read_byte",
        "i2c_smbus_read_byte_data",
        "i2c_smbus_read_word_data",
        "down_read",
        "down_read_trylock",
        "up_read",
    ];
    const PREFIXES: [&str; 6] = [
        "ioread",
        "read_lock",
        "read_unlock",
        "raw_read_lock",
        "raw_read_unlock",
        "read_seq",
    ];
    let name = name.strip_suffix("_relaxed").unwrap_or(name);
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether `s` is a non-empty run of decimal digits (symbol numbers).
fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Which terms mention a havoc symbol (see [`Encoder::is_havoc_symbol`]),
/// memoised across the terms asked about, so that scanning many terms that
/// share subterms (memory store chains) is linear in their DAG.
#[derive(Default)]
pub struct HavocScan {
    memo: HashMap<z3::ast::Dynamic, bool>,
}

impl HavocScan {
    /// Whether `t` mentions a havoc symbol.
    pub fn mentions_havoc(&mut self, t: &z3::ast::Dynamic) -> bool {
        use z3::ast::Ast;
        let mut stack = vec![(t.clone(), false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.memo.contains_key(&x) {
                continue;
            }
            if !x.is_app() {
                self.memo.insert(x, false);
                continue;
            }
            let children = x.children();
            if children.is_empty() {
                let havoc = x.decl().kind() == z3::DeclKind::UNINTERPRETED
                    && Encoder::is_havoc_symbol(&x.decl().name());
                self.memo.insert(x, havoc);
            } else if expanded {
                let havoc = children.iter().any(|c| self.memo[c]);
                self.memo.insert(x, havoc);
            } else {
                stack.push((x, true));
                stack.extend(children.into_iter().map(|c| (c, false)));
            }
        }
        self.memo[t]
    }

    /// The havoc symbols and the other constants among the terms asked
    /// about so far.
    pub fn constants(&self) -> (Vec<z3::ast::Dynamic>, Vec<z3::ast::Dynamic>) {
        use z3::ast::Ast;
        let leaves = self.memo.iter().filter(|(x, _)| {
            x.is_app() && x.num_children() == 0 && x.decl().kind() == z3::DeclKind::UNINTERPRETED
        });
        let (h, o): (Vec<_>, Vec<_>) = leaves.partition(|(_, &havoc)| havoc);
        (
            h.into_iter().map(|(x, _)| x.clone()).collect(),
            o.into_iter().map(|(x, _)| x.clone()).collect(),
        )
    }
}

impl<'p> Encoder<'p> {
    /// Runs `f` (re-executing an error path) with LDV's assumptions in
    /// force; returns its result and the assumptions it made, described.
    pub fn under_ldv_assumptions<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<String>) {
        let outer = self.ldv.borrow_mut().replace(Default::default());
        let r = f();
        let made = self.ldv.borrow_mut().take().unwrap_or_default();
        if let Some(mut outer) = outer {
            // Nested in an analysis under the assumptions: they stay in force.
            for (&a, &n) in &made {
                *outer.entry(a).or_default() += n;
            }
            *self.ldv.borrow_mut() = Some(outer);
        }
        (r, made.into_iter().map(|(a, n)| a.describe(n)).collect())
    }

    /// Puts LDV's assumptions in force for good: an analysis under them
    /// finds counterexamples under the assumptions, and proves nothing.
    pub fn assume_ldv_throughout(&self) {
        self.ldv.borrow_mut().get_or_insert_with(Default::default);
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

    /// Reads the cell of width class `k` at `a`.
    fn load(&self, st: &SymState, k: usize, a: &BV) -> BV {
        self.note_access(a, k, false);
        let read = if self.fixed_writes.enabled() && self.recording() {
            self.fixed_writes.read(&st.mem[k], a)
        } else {
            read_over_writes(&st.mem[k], a)
        };
        match read.as_bv() {
            Some(read) => self
                .deferred_reads
                .defer(read, || format!("rd{}", self.next_fresh())),
            None => self.fresh(WIDTHS[k]),
        }
    }

    fn note_access(&self, a: &BV, k: usize, write: bool) {
        if let Some(list) = self.accesses.borrow_mut().as_mut() {
            list.push(MemoryAccess {
                address: a.clone(),
                bytes: WIDTHS[k] / 8,
                write,
                clobber: None,
                contents: SpanContents::Unknown,
            });
        }
    }

    /// Whether memory accesses are being recorded (an exact path check).
    pub fn recording(&self) -> bool {
        self.accesses.borrow().is_some()
    }

    /// Records a write of unknown bytes over `len` bytes (64 bits) from
    /// `a`, which the byte replay forbids any later read of.
    pub fn note_clobber(&self, a: &BV, len: BV) {
        self.note_span(a, len, SpanContents::Unknown);
    }

    /// Records a write of `len` bytes from `a`.
    fn note_span(&self, a: &BV, len: BV, contents: SpanContents) {
        if let Some(list) = self.accesses.borrow_mut().as_mut() {
            list.push(MemoryAccess {
                address: a.clone(),
                bytes: 0,
                write: true,
                clobber: Some(len),
                contents,
            });
        }
    }

    /// Writes `contents` over the `n` bytes from `a` in every width's
    /// array (zeroes, or fresh values for input: arbitrary, not havoc
    /// symbols) and records the span for the byte replay; only while
    /// recording, and for at most [`MAX_FILL`] bytes. Returns whether
    /// it did.
    pub fn fill(&self, st: &mut SymState, a: &BV, n: u64, contents: SpanContents) -> bool {
        if !self.recording()
            || n > MAX_FILL
            || matches!(contents, SpanContents::Unknown | SpanContents::Copied(_))
        {
            return false;
        }
        for (k, &w) in WIDTHS.iter().enumerate() {
            for off in 0..n {
                let v = match contents {
                    SpanContents::Input => self.fresh(w),
                    _ => BV::from_u64(0, w),
                };
                st.mem[k] = st.mem[k].store(&a.bvadd(self.c64(off)), &v);
            }
        }
        self.note_span(a, self.c64(n), contents);
        true
    }

    /// Writes the `n` bytes from `a` outside an exact path check (a kernel
    /// function that writes a span of constant length): a cell of any width
    /// inside the span gets zero if `zeroes` (`memset(a, 0, n)`), a fresh
    /// value otherwise; a cell that reaches over either end of the span
    /// gets a fresh value. So whatever a later read of the span sees is
    /// possible, and the rest of memory keeps its contents. Only for at
    /// most [`MAX_FILL`] bytes at a fixed address (a global or local
    /// object): stores at a symbolic address would make every later read
    /// a case split for the solver. Returns whether it did.
    pub fn overwrite_span(&self, st: &mut SymState, a: &BV, n: u64, zeroes: bool) -> bool {
        let Some(a) = interrupt::simplified(a).as_u64().filter(|_| n <= MAX_FILL) else {
            return false;
        };
        for (k, &w) in WIDTHS.iter().enumerate() {
            let bytes = u64::from(w / 8);
            // Cells start from `bytes - 1` before the span to its last byte.
            for start in 0..n + bytes - 1 {
                let inside = start >= bytes - 1 && start < n;
                let v = if zeroes && inside {
                    BV::from_u64(0, w)
                } else {
                    self.fresh(w)
                };
                let at = self.c64(a.wrapping_add(start).wrapping_sub(bytes - 1));
                st.mem[k] = st.mem[k].store(&at, &v);
            }
        }
        true
    }

    /// Copies the `n` bytes from `src` to `dst` (`memcpy`, `memmove`) in
    /// every width's array, at every offset where a cell fits inside them
    /// (all cells are read before any is written), and records the span
    /// for the byte replay ([`SpanContents::Copied`]); for at most
    /// [`MAX_FILL`] bytes. Under the encoding's type-based separation this
    /// is the copy itself: a read of the destination in any width sees what
    /// the same read of the source saw. Returns whether it did.
    pub fn copy(&self, st: &mut SymState, dst: &BV, src: &BV, n: u64) -> bool {
        if n > MAX_FILL {
            return false;
        }
        let mut cells = Vec::new();
        for (k, &w) in WIDTHS.iter().enumerate() {
            for off in (0..n).take_while(|off| off + u64::from(w / 8) <= n) {
                let v = read_over_writes(&st.mem[k], &src.bvadd(self.c64(off)));
                cells.push((k, off, v));
            }
        }
        for (k, off, v) in cells {
            st.mem[k] = st.mem[k].store(&dst.bvadd(self.c64(off)), &v);
        }
        self.note_span(dst, self.c64(n), SpanContents::Copied(src.clone()));
        true
    }

    /// Runs `f` (re-executing an error path) with copies from user memory
    /// (`copy_from_user`) succeeding with arbitrary bytes
    /// ([`Encoder::fill`]): one real execution among those the
    /// module has, for a path that reads what such a copy wrote.
    pub fn with_user_input<T>(&self, f: impl FnOnce() -> T) -> T {
        let outer = self.user_input.replace(true);
        let r = f();
        self.user_input.set(outer);
        r
    }

    /// Whether copies from user memory give arbitrary bytes
    /// ([`Encoder::with_user_input`]).
    pub fn user_input_in_force(&self) -> bool {
        self.user_input.get()
    }

    /// Whether LDV's assumptions are in force (recording none).
    pub fn ldv_assumptions_in_force(&self) -> bool {
        self.ldv.borrow().is_some()
    }

    /// Whether LDV's assumptions are in force; if so, `a` is recorded as made.
    pub fn assume_ldv(&self, a: LdvAssumption) -> bool {
        match self.ldv.borrow_mut().as_mut() {
            Some(made) => {
                *made.entry(a).or_default() += 1;
                true
            }
            None => false,
        }
    }

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
        Encoder {
            p,
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

    fn is_register_ty(p: &Program, ty: TypeId) -> bool {
        matches!(
            p.types.get(ty),
            Type::Int(_) | Type::Pointer(_) | Type::Float(_)
        )
    }

    pub fn initial(&self) -> SymState {
        let mem = WIDTHS
            .iter()
            .map(|&w| {
                Array::new_const(format!("mem{w}"), &Sort::bitvector(64), &Sort::bitvector(w))
            })
            .collect();
        SymState {
            regs: HashMap::default(),
            mem,
            exact: true,
            sound: true,
            havocked: false,
            heap_top: None,
        }
    }

    /// Every memory cell gets an arbitrary value (a call that may write
    /// through the pointers it receives): fresh havoc arrays.
    pub fn havoc_memory(&self, st: &mut SymState) {
        let n = self.next_fresh();
        st.havocked = true;
        st.mem = WIDTHS
            .iter()
            .map(|&w| {
                Array::new_const(
                    format!("mem{w}_h{n}"),
                    &Sort::bitvector(64),
                    &Sort::bitvector(w),
                )
            })
            .collect();
    }

    /// The substitution that carries a formula over the canonical symbols
    /// (a state where `st`'s execution started) to the end of that
    /// execution: each register, memory array and the heap top that `st`
    /// changed, paired with its value in `st`.
    pub fn end_substitution(&self, st: &SymState) -> Vec<(z3::ast::Dynamic, z3::ast::Dynamic)> {
        use z3::ast::Dynamic;
        let mut subst = Vec::new();
        for (v, t) in &st.regs {
            let c = Self::register_symbol(*v, t.get_size());
            if c != *t {
                subst.push((Dynamic::from_ast(&c), Dynamic::from_ast(t)));
            }
        }
        for (c, t) in self.initial().mem.iter().zip(&st.mem) {
            if c != t {
                subst.push((Dynamic::from_ast(c), Dynamic::from_ast(t)));
            }
        }
        if let Some(t) = &st.heap_top {
            let c = SymState::heap_top_symbol();
            subst.push((Dynamic::from_ast(&c), Dynamic::from_ast(t)));
        }
        subst
    }

    /// The canonical symbol of a register variable: its value where the
    /// symbolic state started (the program start, or the last abstraction).
    pub fn register_symbol(v: VarId, w: u32) -> BV {
        BV::new_const(format!("v{}", v.0), w)
    }

    /// Whether `name` is a canonical symbol (a register's or memory's value
    /// where the symbolic state started) rather than a fresh value.
    pub fn is_canonical_symbol(name: &str) -> bool {
        name == HEAP_TOP
            || name == layout::LAYOUT
            || name.strip_prefix('v').is_some_and(all_digits)
            || name.strip_prefix("mem").is_some_and(all_digits)
    }

    /// What a call with `effects` may do: the globals it assigns get fresh
    /// values; memory (and globals that live there) becomes arbitrary if it
    /// may write any.
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

    /// The number of the next fresh symbol.
    fn next_fresh(&self) -> u64 {
        let n = self.fresh.get();
        self.fresh.set(n + 1);
        n
    }

    pub fn fresh(&self, w: u32) -> BV {
        let n = self.next_fresh();
        BV::new_const(format!("nd{n}"), w)
    }

    /// A fresh havoc symbol standing for a value the encoding does not
    /// model (see [`SymState::havocked`]).
    pub fn havoc(&self, st: &mut SymState, w: u32) -> BV {
        let n = self.next_fresh();
        st.havocked = true;
        BV::new_const(format!("hv{n}"), w)
    }

    /// Whether `name` is a havoc symbol: a value ([`Encoder::havoc`]) or a
    /// memory ([`Encoder::havoc_memory`]) the encoding does not model.
    pub fn is_havoc_symbol(name: &str) -> bool {
        name == layout::LAYOUT
            || name.strip_prefix("hv").is_some_and(all_digits)
            || name
                .strip_prefix("mem")
                .and_then(|r| r.split_once("_h"))
                .is_some_and(|(w, n)| all_digits(w) && all_digits(n))
    }

    /// Width in bits of a value of type `ty` (addresses for aggregates).
    pub fn width(&self, ty: TypeId) -> u32 {
        match self.p.types.get(ty) {
            Type::Int(k) => k.bits(),
            Type::Float(b) => *b,
            Type::Void => 32,
            _ => 64,
        }
    }

    fn signed(&self, ty: TypeId) -> bool {
        matches!(self.p.types.get(ty), Type::Int(k) if k.signed())
    }

    fn c64(&self, v: u64) -> BV {
        self.num(v, 64)
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
    fn offset(&self, base: BV, off: u64) -> BV {
        match base.as_u64() {
            _ if off == 0 => base,
            Some(b) if base.get_size() == 64 => self.c64(b.wrapping_add(off)),
            _ => base.bvadd(self.c64(off)),
        }
    }

    fn resize(&self, v: BV, w: u32, signed: bool) -> BV {
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

    fn nonzero(&self, v: &BV) -> Bool {
        v.eq(self.num(0, v.get_size())).not()
    }

    fn of_bool(&self, b: Bool, w: u32) -> BV {
        b.ite(&self.num(1, w), &self.num(0, w))
    }

    /// The truth of `e` (non-zero).
    pub fn cond(&self, st: &mut SymState, e: &Expr) -> Bool {
        let v = self.eval(st, e);
        self.nonzero(&v)
    }

    /// Address of an lvalue, if it lives in memory.
    pub fn address(&self, st: &mut SymState, e: &Expr) -> Option<BV> {
        match &e.kind {
            ExprKind::Var(v) => self.addr[v.0 as usize].map(|a| self.c64(a)),
            ExprKind::Deref(p) => Some(self.eval64(st, p)),
            ExprKind::Member(b, f) => {
                let base = self.address(st, b)?;
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
                Some(self.offset(base, off))
            }
            ExprKind::Index(a, i) => {
                let base = match self.p.types.get(a.ty) {
                    Type::Array { .. } => self.address(st, a)?,
                    _ => self.eval64(st, a),
                };
                let size = self.p.types.size_of(e.ty);
                let iv = self.eval(st, i);
                let iv = self.resize(iv, 64, self.signed(i.ty));
                Some(match iv.as_u64() {
                    Some(n) => self.offset(base, n.wrapping_mul(size)),
                    None => base.bvadd(iv.bvmul(self.c64(size))),
                })
            }
            ExprKind::Func(f) => Some(self.c64(FUNC_REGION + f.0 as u64 * 16)),
            ExprKind::StrLit(i) => Some(self.c64(STR_REGION + *i as u64 * 0x1_0000)),
            _ => None,
        }
    }

    fn eval64(&self, st: &mut SymState, e: &Expr) -> BV {
        let v = self.eval(st, e);
        self.resize(v, 64, false)
    }

    /// Reads the lvalue `e` (scalar).
    /// The bit-field `e` designates, if any: (first bit, width, unit width).
    fn bit_field(&self, e: &Expr) -> Option<(u32, u32, u32)> {
        let ExprKind::Member(b, f) = &e.kind else {
            return None;
        };
        let Type::Composite(c) = self.p.types.get(b.ty) else {
            return None;
        };
        let fld = self.p.types.composite(*c).fields.get(*f as usize)?;
        let w = fld.bit_width?;
        let unit = (self.p.types.size_of(fld.ty) * 8) as u32;
        (w > 0 && fld.bit_offset + w <= unit && unit <= 128).then_some((fld.bit_offset, w, unit))
    }

    fn read(&self, st: &mut SymState, e: &Expr) -> BV {
        let w = self.width(e.ty);
        if let Some((lo, bits, unit)) = self.bit_field(e) {
            let Some(a) = self.address(st, e) else {
                return self.havoc(st, w);
            };
            let cell = self.load(st, width_class(unit), &a);
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
        match self.address(st, e) {
            Some(a) => {
                let val = self.load(st, width_class(w), &a);
                self.resize(val, w, false)
            }
            None => self.havoc(st, w),
        }
    }

    /// Writes `val` to the lvalue `e`; aggregates are copied leaf by leaf from `src`.
    pub fn write(&self, st: &mut SymState, e: &Expr, val: BV) {
        let w = self.width(e.ty);
        let val = self.resize(val, w, false);
        if let Some((lo, bits, unit)) = self.bit_field(e) {
            let Some(a) = self.address(st, e) else {
                st.exact = false;
                st.sound = false;
                return;
            };
            let cell = self.load(st, width_class(unit), &a);
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
            self.store(st, &a, unit, new);
            return;
        }
        if let ExprKind::Var(v) = &e.kind {
            if self.addr[v.0 as usize].is_none() {
                st.regs.insert(*v, val);
                return;
            }
        }
        match self.address(st, e) {
            Some(a) => self.store(st, &a, w, val),
            None => {
                st.exact = false;
                st.sound = false;
            }
        }
    }

    fn store(&self, st: &mut SymState, a: &BV, w: u32, val: BV) {
        let k = width_class(w);
        self.note_access(a, k, true);
        let val = self.resize(val, WIDTHS[k], false);
        st.mem[k] = st.mem[k].store(a, &val);
    }

    /// `lhs = rhs` for any type (struct copies leaf by leaf).
    pub fn assign(&self, st: &mut SymState, lhs: &Expr, rhs: &Expr) -> Option<BV> {
        if Self::is_register_ty(self.p, lhs.ty) {
            let v = self.eval(st, rhs);
            let v = self.convert(v, rhs.ty, lhs.ty);
            self.write(st, lhs, v.clone());
            return Some(v);
        }
        let (Some(dst), Some(src)) = (self.address(st, lhs), self.address(st, rhs)) else {
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
            let s = src.bvadd(self.c64(off));
            let d = dst.bvadd(self.c64(off));
            let v = self.load(st, k, &s);
            self.note_access(&d, k, true);
            st.mem[k] = st.mem[k].store(&d, &v);
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
            ExprKind::Nondet(ENTRY_ARGUMENT) => self.fresh(w),
            ExprKind::FloatConst(_) | ExprKind::Nondet(_) => self.havoc(st, w),
            ExprKind::StrLit(_) | ExprKind::Func(_) => {
                self.address(st, e).unwrap_or_else(|| self.fresh(64))
            }
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Member(..) | ExprKind::Index(..) => {
                match self.p.types.get(e.ty) {
                    Type::Array { .. } | Type::Function { .. } | Type::Composite(_) => {
                        self.address(st, e).unwrap_or_else(|| {
                            st.exact = false;
                            self.fresh(64)
                        })
                    }
                    Type::Float(_) => self.havoc(st, w),
                    _ => self.read(st, e),
                }
            }
            ExprKind::AddrOf(a) => match &a.kind {
                ExprKind::Func(_) => self.address(st, a).unwrap_or_else(|| self.fresh(64)),
                _ => self.address(st, a).unwrap_or_else(|| {
                    st.exact = false;
                    self.fresh(64)
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
                    let x = self.integer_of_pointer(st, self.resize(v, 64, false));
                    return self.resize(x, w, false);
                }
                if to_pointer && !from_pointer && v.get_size() == 64 {
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
        // Integer views of pointers are equal exactly when the pointers
        // are, in every layout ([`layout`]).
        if matches!(op, BinaryOp::Eq | BinaryOp::Ne) && va.get_size() == 64 && vb.get_size() == 64 {
            if let (Some(x), Some(y)) =
                (self.pointer_of_view_sum(&va), self.pointer_of_view_sum(&vb))
            {
                let same = x.eq(&y);
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
            // Ordering pointers depends on the fixed layout too.
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge if pa || pb => {
                return self.havoc(st, w);
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
                .resize(vb, 64, self.signed(b.ty))
                .bvmul(self.c64(elem_size(a.ty)));
            let base = self.resize(va, 64, false);
            return if op == BinaryOp::Add {
                base.bvadd(&off)
            } else {
                base.bvsub(&off)
            };
        }
        if pa && pb && op == BinaryOp::Sub {
            let d = self.resize(va, 64, false).bvsub(self.resize(vb, 64, false));
            return self.resize(d.bvsdiv(self.c64(elem_size(a.ty))), w, true);
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

    /// A fresh result of an allocation function: NULL or a new heap object.
    /// Objects come from a bump allocator: the object is the heap top, in
    /// the heap region, and the top moves past it, so objects allocated on
    /// one path never share an address. Where the top is a canonical symbol
    /// (the start of a block of the predicate analysis) the new object may
    /// equal an older pointer's value: an over-approximation.
    /// Returns the result, the object's address and the object's condition.
    pub fn allocate(&self, st: &mut SymState) -> (BV, BV, Bool) {
        let obj = st
            .heap_top
            .clone()
            .unwrap_or_else(SymState::heap_top_symbol);
        st.heap_top = Some(obj.bvadd(self.c64(HEAP_STRIDE)));
        let n = self.next_fresh();
        let fails = Bool::new_const(format!("nd{n}"));
        let v = fails.ite(&self.c64(0), &obj);
        // 8-byte aligned, as kmalloc's objects are.
        let in_heap = Bool::and(&[
            &obj.bvuge(self.c64(HEAP_REGION)),
            &obj.bvult(self.c64(HEAP_REGION + HEAP_SIZE)),
            &obj.extract(2, 0).eq(self.num(0, 3)),
        ]);
        (v, obj, in_heap)
    }
}

#[cfg(test)]
mod tests {
    use super::{
        inconsistent_accesses, may_write_through_pointers, read_over_writes, MemoryAccess,
        SpanContents,
    };

    /// The incremental solver decides memory (arrays) and bit-vectors
    /// under assumptions, and names the assumptions an unsat core needs.
    #[test]
    fn incremental_solver_gives_cores_over_memory() {
        use z3::ast::{Array, Bool, BV};
        let mem = Array::new_const("mem", &z3::Sort::bitvector(64), &z3::Sort::bitvector(8));
        let (a, x) = (BV::new_const("a", 64), BV::new_const("x", 8));
        let stored = mem.store(&a, &x);
        let read = stored.select(&a).as_bv().expect("byte");
        let (t1, t2, t3) = (
            Bool::new_const("t1"),
            Bool::new_const("t2"),
            Bool::new_const("t3"),
        );
        let solver = super::incremental_solver();
        solver.assert(t1.implies(x.bvugt(BV::from_u64(3, 8))));
        solver.assert(t2.implies(a.bvugt(BV::from_u64(7, 64))));
        solver.assert(t3.implies(read.eq(BV::from_u64(2, 8))));
        assert_eq!(
            solver.check_assumptions(&[t1.clone(), t2.clone()]),
            z3::SatResult::Sat
        );
        let all = [t1.clone(), t2, t3.clone()];
        assert_eq!(solver.check_assumptions(&all), z3::SatResult::Unsat);
        let core: Vec<String> = solver
            .get_unsat_core()
            .iter()
            .map(|l| l.to_string())
            .collect();
        // `t2` may or may not be reported; the other two are needed.
        assert!(core.iter().any(|l| l == "t1") && core.iter().any(|l| l == "t3"));
    }

    /// The first read the byte replay finds.
    fn inconsistent_access(
        accesses: &[MemoryAccess],
        model: &z3::Model,
    ) -> Option<(usize, Option<usize>)> {
        inconsistent_accesses(accesses, model, 1).pop()
    }
    use z3::ast::BV;

    #[test]
    fn havoc_symbols_are_told_apart_from_inputs_and_canonical_symbols() {
        use super::Encoder;
        for name in ["hv0", "hv123", "mem8_h4", "mem128_h17"] {
            assert!(Encoder::is_havoc_symbol(name), "{name}");
        }
        for name in [
            "nd3", "v12", "mem8", "heaptop", "hv", "mem8_h", "hvx1", "mem_h2",
        ] {
            assert!(!Encoder::is_havoc_symbol(name), "{name}");
        }
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
            clobber: None,
            contents: SpanContents::Unknown,
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
        let unfixed = [MemoryAccess {
            address: BV::new_const("p", 64),
            bytes: 8,
            write: false,
            clobber: None,
            contents: SpanContents::Unknown,
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
            inconsistent_accesses(&two, &model, 8),
            vec![(1, Some(0)), (3, Some(2))]
        );
        assert_eq!(inconsistent_accesses(&two, &model, 1), vec![(1, Some(0))]);
        assert_eq!(inconsistent_access(&two, &model), Some((1, Some(0))));
    }

    /// A program with nothing but an empty `main`, for an encoder.
    pub(super) fn empty_program() -> crate::cfa::Program {
        crate::frontend::parse_source(
            "t.c",
            "int main(void) { return 0; }",
            &crate::frontend::FrontendOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn numerals_are_folded_as_z3_would_compute_them() {
        use z3::ast::Ast;
        let p = empty_program();
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
        assert_eq!(enc.offset(enc.c64(0x1000), 8).as_u64(), Some(0x1008));
        let x = BV::new_const("x", 64);
        assert_eq!(enc.offset(x.clone(), 0), x);
        assert_eq!(
            super::base_and_offset(&enc.offset(x.clone(), 8)),
            (Some(x), 8)
        );
    }

    #[test]
    fn a_query_limit_is_set_again_only_when_its_rounded_budget_changes() {
        use std::time::Duration;
        let s = z3::Solver::new();
        let limit = super::QueryLimit::default();
        limit.apply(&s, Duration::from_millis(950));
        let first = limit.units.get();
        assert_eq!(first, Some(super::rlimit_units(Duration::from_secs(1))));
        limit.apply(&s, Duration::from_millis(1000));
        assert_eq!(limit.units.get(), first);
        limit.apply(&s, Duration::from_millis(1001));
        assert_ne!(limit.units.get(), first);
    }

    #[test]
    fn sums_of_any_arity_split_into_base_and_offset() {
        use super::base_and_offset;
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
        let p = empty_program();
        let enc = super::Encoder::new(&p);
        let at = |n: u64| BV::from_u64(n, 64);
        let k32 = super::width_class(32);
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

    #[test]
    fn formatting_into_a_buffer_writes_printing_does_not() {
        for w in [
            "sprintf",
            "snprintf",
            "vsnprintf",
            "memcpy",
            "copy_from_user",
            "sscanf",
            "i2c_smbus_read_i2c_block_data",
            "pci_read_config_dword",
            "vfs_read",
        ] {
            assert!(may_write_through_pointers(w), "{w}");
        }
        for r in [
            "printf",
            "printk",
            "dev_err",
            "kfree",
            "mutex_lock",
            "kasprintf",
            "kvasprintf",
            "ioread32",
            "readl_relaxed",
            "__raw_readl",
            "down_read",
            "_raw_read_lock_irqsave",
            "read_seqbegin",
            "i2c_smbus_read_byte_data",
        ] {
            assert!(!may_write_through_pointers(r), "{r}");
        }
    }
}
