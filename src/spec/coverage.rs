//! The paper's second soundness rule for weaving: the assumes of the cases
//! that one program edge can trigger must cover `true`, so the automaton
//! observes the program without restricting it. Decided propositionally:
//! each comparison (normalised: `a != b` is `!(a == b)`, `a <= b` is
//! `!(a > b)`, `b < a` is `a > b`, a plain value `e` is `!(e == 0)`) is an
//! atom, and the disjunction of the cases must hold under every assignment
//! of the atoms. A `true` answer is a proof; `false` means "not shown".

use crate::hash::HashMap;

use super::automaton::SExpr;
use crate::ir::{BinaryOp, UnaryOp};

/// At most this many distinct atoms are enumerated (2^12 assignments).
const MAX_ATOMS: usize = 12;

#[derive(Clone, Debug)]
enum Prop {
    Atom(usize),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    Const(bool),
}

/// Whether `c1 || c2 || ...` is propositionally valid.
pub fn covers_true(conds: &[SExpr]) -> bool {
    let mut atoms: HashMap<SExpr, usize> = HashMap::default();
    let props: Vec<Prop> = conds.iter().map(|c| to_prop(c, &mut atoms)).collect();
    if atoms.len() > MAX_ATOMS {
        return false;
    }
    (0u32..(1u32 << atoms.len())).all(|m| props.iter().any(|p| eval(p, m)))
}

fn eval(p: &Prop, m: u32) -> bool {
    match p {
        Prop::Atom(i) => m & (1 << i) != 0,
        Prop::Not(a) => !eval(a, m),
        Prop::And(a, b) => eval(a, m) && eval(b, m),
        Prop::Or(a, b) => eval(a, m) || eval(b, m),
        Prop::Const(b) => *b,
    }
}

fn atom(e: SExpr, atoms: &mut HashMap<SExpr, usize>) -> Prop {
    let n = atoms.len();
    Prop::Atom(*atoms.entry(e).or_insert(n))
}

fn cmp(op: BinaryOp, a: &SExpr, b: &SExpr) -> SExpr {
    // Operands in a fixed order for the symmetric `==`.
    let (a, b) = if op == BinaryOp::Eq && format!("{a:?}") > format!("{b:?}") {
        (b, a)
    } else {
        (a, b)
    };
    SExpr::Binary(op, Box::new(a.clone()), Box::new(b.clone()))
}

fn to_prop(e: &SExpr, atoms: &mut HashMap<SExpr, usize>) -> Prop {
    use BinaryOp as B;
    match e {
        SExpr::Int(v) => Prop::Const(*v != 0),
        SExpr::Unary(UnaryOp::LogNot, a) => Prop::Not(Box::new(to_prop(a, atoms))),
        SExpr::Binary(B::LogAnd, a, b) => {
            Prop::And(Box::new(to_prop(a, atoms)), Box::new(to_prop(b, atoms)))
        }
        SExpr::Binary(B::LogOr, a, b) => {
            Prop::Or(Box::new(to_prop(a, atoms)), Box::new(to_prop(b, atoms)))
        }
        SExpr::Binary(B::Eq, a, b) => atom(cmp(B::Eq, a, b), atoms),
        SExpr::Binary(B::Ne, a, b) => Prop::Not(Box::new(atom(cmp(B::Eq, a, b), atoms))),
        SExpr::Binary(B::Gt, a, b) => atom(cmp(B::Gt, a, b), atoms),
        SExpr::Binary(B::Lt, a, b) => atom(cmp(B::Gt, b, a), atoms),
        SExpr::Binary(B::Le, a, b) => Prop::Not(Box::new(atom(cmp(B::Gt, a, b), atoms))),
        SExpr::Binary(B::Ge, a, b) => Prop::Not(Box::new(atom(cmp(B::Gt, b, a), atoms))),
        other => Prop::Not(Box::new(atom(cmp(B::Eq, other, &SExpr::Int(0)), atoms))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(n: u32) -> SExpr {
        SExpr::Pat(n)
    }
    fn bin(op: BinaryOp, a: SExpr, b: SExpr) -> SExpr {
        SExpr::Binary(op, Box::new(a), Box::new(b))
    }
    fn not(a: SExpr) -> SExpr {
        SExpr::Unary(UnaryOp::LogNot, Box::new(a))
    }

    #[test]
    fn complementary_cases_cover_true() {
        assert!(covers_true(&[pat(1), not(pat(1))]));
        assert!(covers_true(&[
            bin(BinaryOp::Eq, pat(1), SExpr::Int(0)),
            bin(BinaryOp::Ne, SExpr::Int(0), pat(1))
        ]));
        assert!(covers_true(&[
            bin(BinaryOp::Gt, pat(1), SExpr::Var(0)),
            bin(BinaryOp::Le, pat(1), SExpr::Var(0))
        ]));
        assert!(covers_true(&[
            bin(BinaryOp::Lt, SExpr::Var(0), pat(1)),
            bin(BinaryOp::Ge, SExpr::Var(0), pat(1))
        ]));
        // `$1 && $2`, `!$1`, `!$2`
        assert!(covers_true(&[
            bin(BinaryOp::LogAnd, pat(1), pat(2)),
            not(pat(1)),
            not(pat(2))
        ]));
    }

    #[test]
    fn gaps_are_not_covered() {
        assert!(!covers_true(&[pat(1)]));
        assert!(!covers_true(&[
            bin(BinaryOp::Eq, pat(1), SExpr::Int(0)),
            bin(BinaryOp::Eq, pat(1), SExpr::Int(1))
        ]));
        assert!(!covers_true(&[]));
    }
}
