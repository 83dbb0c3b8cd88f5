//! Why the IR holds an arbitrary value: the reasons of
//! [`ExprKind::Nondet`](super::ExprKind::Nondet) (an expression whose value
//! is arbitrary) and of `cfa::EdgeOp::Havoc` (a statement whose targets get
//! arbitrary values). Each marks a spot where the front end, or the
//! instantiation of a specification automaton, models C imprecisely, and the
//! encoding (`smt`) decides by the kind how to treat it.
//!
//! A reason prints as its fixed text ([`NondetReason::text`],
//! [`HavocReason::text`]): the printed CFA shows it (`cfa::print`, whose
//! text keys specification sets), and so do counterexamples and reports.

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Serialize, Serializer};

/// Why an expression has an arbitrary value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NondetReason {
    /// An argument of the entry function: an arbitrary input (exact, not a
    /// havoc).
    EntryArgument,
    /// Floating-point arithmetic or comparison.
    FloatArithmetic,
    /// A conversion from a floating-point value to an integer.
    FloatConversion,
    /// `va_arg`.
    VaArg,
    /// A call inside a context that only needs its type (`typeof`, ...).
    CallInTypeOnlyContext,
    /// `sizeof` of a variable-length array.
    VlaSizeof,
    /// `strlen` of a string that is not a literal.
    StrlenOfNonLiteral,
    /// A specification's pattern variable without a binding.
    UnboundPatternVariable,
    /// A specification's set element the binding scan did not see.
    SetElementUnknownToBindingScan,
    /// A specification's operator on a non-scalar value.
    OperatorOnNonScalar,
}

impl NondetReason {
    /// The text reports and the printed CFA show.
    pub fn text(self) -> &'static str {
        match self {
            NondetReason::EntryArgument => "entry argument",
            NondetReason::FloatArithmetic => "floating-point arithmetic",
            NondetReason::FloatConversion => "conversion from floating point",
            NondetReason::VaArg => "va_arg",
            NondetReason::CallInTypeOnlyContext => "call in a type-only context",
            NondetReason::VlaSizeof => "sizeof of a variable-length array",
            NondetReason::StrlenOfNonLiteral => "strlen of a string that is not a literal",
            NondetReason::UnboundPatternVariable => "unbound pattern variable",
            NondetReason::SetElementUnknownToBindingScan => {
                "set element unknown to the binding scan"
            }
            NondetReason::OperatorOnNonScalar => "operator on a non-scalar value",
        }
    }
}

/// Why a statement gives its targets arbitrary values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HavocReason {
    /// An inline-assembly statement the front end does not model exactly.
    InlineAssembly,
    /// An initialiser with elided braces (not followed element by element).
    ElidedBraces,
    /// `__builtin_va_start`, `__builtin_va_end`, `__builtin_va_copy`.
    VaList,
}

impl HavocReason {
    /// The text reports and the printed CFA show.
    pub fn text(self) -> &'static str {
        match self {
            HavocReason::InlineAssembly => "inline assembly",
            HavocReason::ElidedBraces => "initialiser with elided braces",
            HavocReason::VaList => "va_list",
        }
    }
}

/// Display, serialisation and hashing go by the text, as for the string
/// each reason replaces: printed programs, JSON and hash-based iteration
/// orders stay as they were.
macro_rules! by_text {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.text())
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.text())
            }
        }

        impl Hash for $t {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.text().hash(state)
            }
        }
    };
}

by_text!(NondetReason);
by_text!(HavocReason);

#[cfg(test)]
mod tests {
    use super::{HavocReason, NondetReason};

    #[test]
    fn reasons_print_serialise_and_hash_as_their_text() {
        use std::hash::BuildHasher;
        let hasher = crate::hash::FixedState::default();
        let r = NondetReason::EntryArgument;
        assert_eq!(r.to_string(), "entry argument");
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string("entry argument").unwrap()
        );
        assert_eq!(hasher.hash_one(r), hasher.hash_one("entry argument"));
        let h = HavocReason::InlineAssembly;
        assert_eq!(format!("/* {h} */"), "/* inline assembly */");
        assert_eq!(hasher.hash_one(h), hasher.hash_one("inline assembly"));
    }
}
