//! The modes an error path is re-checked in: under LDV's assumptions
//! ([`LdvAssumption`], [`Encoder::under_ldv_assumptions`]), where the
//! encoding over-approximates and LDV's models and verifiers assume more,
//! and with user input ([`Encoder::with_user_input`]).

use super::{Encoder, SymState};
use z3::ast::BV;

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
    /// `strlen` of a string outside the string literals is any value: the
    /// bytes there are not modelled, and `strlen` is a kernel function
    /// without a model.
    StrlenResultArbitrary,
}

impl LdvAssumption {
    /// How a report lists `n` assumptions of this kind.
    fn describe(self, n: u32) -> String {
        match self {
            LdvAssumption::ExternalKeepsMemory => format!("{n} call(s) of kernel functions without a model (taking pointers) do not change the module's memory, as LDV's models assume"),
            LdvAssumption::UnknownTargetIsExternal => format!("{n} call(s) through function pointers that match no function of the module call kernel functions without a model, as LDV's verifiers assume"),
            LdvAssumption::InlineAsmSkipped => format!("{n} inline assembly statement(s) leave memory unchanged and give arbitrary register outputs, as LDV's verifiers take them"),
            LdvAssumption::StrlenResultArbitrary => format!("{n} result(s) of strlen of strings outside the string literals are arbitrary values, as LDV's verifiers take strlen, a kernel function without a model"),
            LdvAssumption::LengthResultArbitrary => format!("{n} length(s) returned by formatting or string-copying kernel functions (snprintf, strlcpy, ...) are arbitrary non-negative values, as LDV's verifiers take them"),
        }
    }
}

impl Encoder<'_> {
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

    /// The value of `strlen(s)` (`w` bits) for a string `s` that is not a
    /// literal: a havoc value, a length the encoding does not model. Under
    /// LDV's assumptions it is any value where `s` lies outside the string
    /// literals ([`LdvAssumption::StrlenResultArbitrary`]); inside them,
    /// whose lengths are known, it stays a havoc value.
    pub(super) fn strlen(&self, st: &mut SymState, s: &BV, w: u32) -> BV {
        if !self.ldv_assumptions_in_force() {
            return self.havoc(st, w);
        }
        let literals = self.regions.literals();
        let in_literal = super::fold::value(s).map(|at| literals.contains(&at));
        if in_literal == Some(true) {
            return self.havoc(st, w);
        }
        self.assume_ldv(LdvAssumption::StrlenResultArbitrary);
        if in_literal == Some(false) {
            return self.fresh(w);
        }
        let literal = self.address_in(s, literals);
        literal.ite(&self.havoc(st, w), &self.fresh(w))
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
}
