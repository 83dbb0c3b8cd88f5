//! Encoding of C operations into Z3 bit-vector terms (exact machine
//! arithmetic of the program's data model, LP64 or ILP32: wrap-around,
//! signed/unsigned division, shifts, casts by extension/truncation).
//! Addresses are as wide as the model's pointers (64 or 32 bits), and the
//! regions objects lie in are the model's (`state.rs`).
//!
//! Memory model: scalar variables whose address is never taken live in
//! registers (a map from variable to term); every other variable (address
//! taken, aggregate, array) gets a fixed concrete address, functions and
//! string literals too, in disjoint regions. Memory is one array per access
//! width (8/16/32/64/128 bits) from addresses to values, in each of two
//! spaces ([`Space`]): *private* memory holds the variables whose address
//! the program never takes (aggregates and arrays used only by name,
//! member and index), which no pointer can reach; *shared* memory holds
//! everything else. An access uses the space of its lvalue's root, so a
//! call outside the module, which can only write what pointers reach,
//! havocs shared memory alone, and reads through pointers never look past
//! writes to private variables. A counterexample whose model puts a
//! pointer's access on a private variable's bytes is kept apart from them
//! by the byte replay (below). A read
//! looks through the latest writes to the same base address at other
//! constant offsets before it becomes a `select`
//! ([`memory::read_over_writes`]: an equivalent term with fewer case splits
//! for the solver).
//!
//! Imprecise or unsound spots (each either makes the path *inexact*, so a
//! feasible path through it is not reported FALSE, or *havocked*, so it is
//! reported FALSE only if its feasibility does not depend on the havoc
//! symbols, or makes the search *incomplete*, so no TRUE is reported):
//! - bit-fields are read and written as bits of their storage unit (exact);
//! - floating point, `Expr::Nondet`, reads from an unknown address, `strlen`
//!   of a string that is not a literal: havoc symbols (the real value is
//!   one of theirs), path havocked; under LDV's assumptions such a `strlen`
//!   outside the literals is a fresh value ([`LdvAssumption::StrlenResultArbitrary`]);
//! - `Havoc` statements, unknown function-pointer calls, recursion cut,
//!   large aggregate copies: fresh values, path inexact (and, where memory
//!   could change, incomplete);
//! - objects have fixed concrete, 8-byte aligned addresses below the
//!   kernel's error-pointer page, one layout among all possible ones.
//!   Memory accesses and pointer equality do not depend on which; the
//!   integer value of an object's address does, so it is not the concrete
//!   address but a view that covers every layout ([`layout`]: a havoc
//!   symbol, so no verdict rests on one layout); ordering two pointers
//!   orders their integer values (views); pointer differences across objects and out-of-bounds
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
//!   write through it, so all shared memory becomes havoc arrays (path
//!   havocked; private memory keeps its contents);
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
//!   `memset(p, 0, n)`; any other span makes shared memory havoc arrays, as
//!   for any other writing function (an exact path check records the span
//!   as a clobber, above);
//! - `memcpy` and `memmove` (also as `__builtin_memcpy`) of a constant
//!   length up to [`MAX_FILL`] bytes copy every width's cells that fit in
//!   the span ([`Encoder::copy`]), in the analysis and in a path check:
//!   exact under the type-based separation above; the byte replay moves
//!   each byte's owner along, so a counterexample never rests on a view of
//!   the copy the source did not have;
//! - string literals beyond the bytes the start function writes
//!   ([`crate::cfa::Program::unmodelled_literals`]) read arbitrary bytes in
//!   the analysis; an exact path check whose model reads a byte of one
//!   adds its bytes to the initial memory and searches again, and a path
//!   that reads one wider than bytewise is not reported FALSE;
//! - a new activation of a function gets fresh values for its register
//!   locals; address-taken locals live at one fixed address per variable,
//!   so an uninitialised one reads what a previous activation left there
//!   (reading it is undefined behaviour in C);
//! - division by zero and signed overflow follow Z3's total bit-vector
//!   semantics (wrap-around), as compiled code behaves in practice.
//!
//! Files: `state.rs` (the [`SymState`], widths, memory spaces, address
//! regions), `encoder.rs` (the [`Encoder`], its construction and term helpers),
//! `expr.rs` (expressions, reads, writes, assignments), `memory.rs` (reads
//! over writes, loads and stores, spans, the heap), `symbols.rs`
//! (canonical, fresh and havoc symbols, [`HavocScan`]), `accesses.rs`
//! (recorded accesses and their byte replay), `modes.rs` (LDV's
//! assumptions, user input), `kernel.rs` (kernel functions by name),
//! `solver.rs` (solvers and query limits), `step.rs` (one analysis step and
//! the join of two states), `layout.rs`, `interrupt.rs`, `fixed_writes.rs`,
//! `deferred_reads.rs`.

mod accesses;
pub mod deferred_reads;
mod encoder;
mod expr;
pub mod fixed_writes;
pub mod fold;
pub mod interrupt;
mod kernel;
pub mod layout;
mod memory;
mod modes;
mod solver;
mod state;
pub mod step;
mod symbols;
pub mod work;

pub use accesses::{
    disjoint, inconsistent_accesses, InconsistentRead, LiteralRead, MemoryAccess, SpanContents,
};
pub use encoder::Encoder;
pub use kernel::{copies_from_user, is_allocator, may_write_through_pointers};
pub use memory::{Allocation, MAX_FILL};
pub use modes::LdvAssumption;
pub use solver::{incremental_solver, solver_until, work_limit, QueryLimit};
pub use state::{Space, SymState};
pub use symbols::HavocScan;

#[cfg(test)]
pub(crate) mod tests {
    /// A program with nothing but an empty `main`, for an encoder.
    pub(crate) fn empty_program() -> crate::cfa::Program {
        empty_program_under(crate::ir::DataModel::Lp64)
    }

    /// [`empty_program`] under the data model `model`.
    pub(crate) fn empty_program_under(model: crate::ir::DataModel) -> crate::cfa::Program {
        crate::frontend::parse_source(
            "t.c",
            "int main(void) { return 0; }",
            &crate::frontend::FrontendOptions {
                data_model: model,
                ..Default::default()
            },
        )
        .unwrap()
    }
}
