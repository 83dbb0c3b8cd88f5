//! The symbols of the encoding and how their names tell them apart:
//! canonical symbols (a register's or memory's value where a symbolic state
//! started: `v<var>`, `mem<w>` and `pmem<w>` (shared and private memory),
//! `heaptop`, `layout`), fresh values (`nd<n>`) and havoc symbols (`hv<n>`,
//! `mem<w>_h<n>`, `pmem<w>_h<n>`: values the encoding does not model), and
//! [`HavocScan`], which finds the terms that mention havoc symbols.

use super::state::{Space, HEAP_TOP, SPACES};
use super::{layout, Encoder, SymState};
use crate::hash::HashMap;
use crate::ir::VarId;
use z3::ast::BV;

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

impl Encoder<'_> {
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
        for (c, t) in self.canonical_memory().iter().zip(&st.mem) {
            if c != t {
                subst.push((Dynamic::from_ast(c), Dynamic::from_ast(t)));
            }
        }
        if let Some(t) = &st.heap_top {
            let c = SymState::heap_top_symbol(self.regions.bits);
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
            || memory_array_width(name).is_some_and(all_digits)
    }

    /// The number of the next fresh symbol.
    pub(super) fn next_fresh(&self) -> u64 {
        let n = self.fresh.get();
        self.fresh.set(n + 1);
        n
    }

    /// A fresh value (`nd<n>`): arbitrary, as an input is, not a havoc
    /// symbol.
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
            || memory_array_width(name)
                .and_then(|r| r.split_once("_h"))
                .is_some_and(|(w, n)| all_digits(w) && all_digits(n))
    }

    /// Every memory cell of both spaces gets an arbitrary value (a
    /// recursive call cut that may write memory): fresh havoc arrays.
    pub fn havoc_memory(&self, st: &mut SymState) {
        self.havoc_spaces(st, &SPACES);
    }

    /// Every cell of shared memory gets an arbitrary value (a call of a
    /// function outside the module that may write through the pointers it
    /// receives): fresh havoc arrays. Private memory keeps its contents:
    /// no pointer reaches it ([`Space`]).
    pub fn havoc_shared_memory(&self, st: &mut SymState) {
        self.havoc_spaces(st, &[Space::Shared]);
    }

    /// Fresh havoc arrays (`mem<w>_h<n>`, `pmem<w>_h<n>`, one `n` for the
    /// call) for every width of `spaces`.
    fn havoc_spaces(&self, st: &mut SymState, spaces: &[Space]) {
        let n = self.next_fresh();
        st.havocked = true;
        for &s in spaces {
            for (m, w) in s.arrays() {
                st.mem[m] = self.memory_array(format!("{}_h{n}", s.array_name(w)), w);
            }
        }
    }
}

/// What follows the prefix of a memory array's name (`mem` or `pmem`).
fn memory_array_width(name: &str) -> Option<&str> {
    name.strip_prefix("mem")
        .or_else(|| name.strip_prefix("pmem"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn havoc_symbols_are_told_apart_from_inputs_and_canonical_symbols() {
        use super::super::Encoder;
        for name in ["hv0", "hv123", "mem8_h4", "mem128_h17", "pmem64_h2"] {
            assert!(Encoder::is_havoc_symbol(name), "{name}");
        }
        for name in [
            "nd3", "v12", "mem8", "pmem8", "heaptop", "hv", "mem8_h", "hvx1", "mem_h2",
        ] {
            assert!(!Encoder::is_havoc_symbol(name), "{name}");
        }
    }
}
