use z3::ast::{Bool, BV};

use super::*;

/// Registers 1 (`int i`), 2 (`unsigned int u`), 3 (`short s`), 4 (a
/// pointer `p`); register 9 is no program variable (a temporary).
fn vars(v: VarId, _width: u32) -> Option<CVar> {
    let (name, ty) = match v.0 {
        1 => ("i", CType::Int(IntKind::Int)),
        2 => ("u", CType::Int(IntKind::UInt)),
        3 => ("s", CType::Int(IntKind::Short)),
        4 => ("p", CType::Pointer),
        _ => return None,
    };
    Some(CVar {
        name: name.into(),
        ty,
        scope: VarScope::Function,
    })
}

fn reg(id: u32, w: u32) -> BV {
    crate::smt::Encoder::register_symbol(VarId(id), w)
}

fn c(f: &Bool) -> String {
    from_z3(f, &vars).to_c()
}

fn k(v: i64, w: u32) -> BV {
    BV::from_i64(v, w)
}

#[test]
fn comparisons_read_operands_with_the_signedness_of_the_operation() {
    let (i, u) = (reg(1, 32), reg(2, 32));
    assert_eq!(c(&i.bvsle(k(10, 32))), "i <= 10");
    assert_eq!(c(&u.bvult(k(10, 32))), "u < 10U");
    assert_eq!(
        c(&u.bvslt(k(10, 32))),
        "(int)u < 10",
        "signed order on an unsigned"
    );
    assert_eq!(c(&i.bvuge(k(-1, 32))), "(unsigned int)i >= 4294967295U");
    assert_eq!(c(&i.eq(k(-3, 32))), "i == -3");
    assert_eq!(c(&i.bvsgt(k(i32::MIN as i64, 32))), "i > (-2147483647 - 1)");
    let s = reg(3, 16);
    assert_eq!(c(&s.bvslt(k(-2, 16))), "s < -2");
    assert_eq!(c(&s.bvult(k(-2, 16))), "(unsigned short)s < 65534");
}

#[test]
fn negations_go_into_the_atoms() {
    let i = reg(1, 32);
    let f = Bool::and(&[&i.bvslt(k(0, 32)).not(), &i.eq(k(7, 32)).not()]);
    assert_eq!(c(&f), "i >= 0 && i != 7");
    let g = Bool::or(&[&i.bvslt(k(0, 32)), &i.bvsgt(k(5, 32))]).not();
    assert_eq!(c(&g), "i >= 0 && i <= 5");
    let imp = i.bvslt(k(0, 32)).implies(i.eq(k(-1, 32)));
    assert_eq!(c(&imp), "i >= 0 || i == -1");
}

#[test]
fn arithmetic_wraps_in_the_unsigned_type_of_its_width() {
    let (i, s) = (reg(1, 32), reg(3, 16));
    assert_eq!(
        c(&i.bvadd(k(1, 32)).bvsle(k(10, 32))),
        "(int)((unsigned int)i + 1U) <= 10"
    );
    assert_eq!(
        c(&s.bvmul(&s).eq(k(4, 16))),
        "(unsigned short)((unsigned int)(unsigned short)s * (unsigned int)(unsigned short)s) == 4",
        "a 16-bit product is formed in unsigned int: no overflow of int"
    );
    assert_eq!(
        c(&s.sign_ext(16).bvslt(&i)),
        "(int)s < i",
        "a sign extension is a conversion of the signed value"
    );
    assert_eq!(c(&i.extract(15, 0).eq(&s)), "(short)i == s");
}

#[test]
fn atoms_without_a_c_rendering_become_true() {
    let (i, t) = (reg(1, 32), reg(9, 32));
    // A temporary, a division, a pointer and a
    // non-register symbol: each atom is weakened, not dropped from a
    // conjunction in a way that would strengthen the formula.
    let conj = Bool::and(&[&i.bvslt(k(10, 32)), &t.eq(k(0, 32))]);
    assert_eq!(c(&conj), "i < 10");
    let disj = Bool::or(&[&i.bvslt(k(10, 32)), &t.eq(k(0, 32))]);
    assert_eq!(c(&disj), "1", "a disjunct that is 1 makes the whole 1");
    let neg = Bool::or(&[&i.bvslt(k(10, 32)), &t.eq(k(0, 32))]).not();
    assert_eq!(
        c(&neg),
        "i >= 10",
        "the negated atom is weakened, not negated"
    );

    assert_eq!(c(&i.bvsdiv(k(2, 32)).eq(k(1, 32))), "1");
    assert_eq!(c(&reg(4, 64).eq(k(0, 64))), "1", "pointers are no integers");
    let mem = BV::new_const("mem32", 32);
    assert_eq!(c(&mem.eq(&i)), "1");
    let odd = BV::new_const("v1", 24);
    assert_eq!(c(&odd.eq(k(0, 24))), "1", "no C type of 24 bits");
}

#[test]
fn boolean_equivalences_and_choices_are_expanded() {
    let (i, u) = (reg(1, 32), reg(2, 32));
    let (a, b) = (i.bvslt(k(0, 32)), u.eq(k(7, 32)));
    assert_eq!(c(&a.iff(&b)), "(i < 0 && u == 7U) || (i >= 0 && u != 7U)");
    assert_eq!(c(&a.ite(&b, &Bool::from_bool(false))), "i < 0 && u == 7U");
    assert_eq!(c(&Bool::from_bool(false)), "0");
    // C's value of a condition, compared with 0: the choice is lifted.
    let value = i.bvsle(k(10, 32)).ite(&k(1, 32), &k(0, 32));
    assert_eq!(c(&value.eq(k(0, 32)).not()), "i <= 10");
}

#[test]
fn equalities_decide_the_other_comparisons_of_their_conjunction() {
    let i = reg(1, 32);
    let cube = Bool::and(&[
        &i.bvslt(k(10, 32)),
        &i.bvadd(k(1, 32)).bvslt(k(10, 32)),
        &i.eq(k(3, 32)),
        &i.eq(k(4, 32)).not(),
    ]);
    assert_eq!(c(&cube), "i == 3", "true under i == 3: dropped");
    let contradiction = Bool::and(&[&i.bvsge(k(10, 32)), &i.eq(k(3, 32))]);
    assert_eq!(c(&contradiction), "0");
    let u = reg(2, 32);
    let other = Bool::and(&[&u.bvult(k(5, 32)), &i.eq(k(3, 32))]);
    assert_eq!(c(&other), "u < 5U && i == 3", "other variables stay");
}

#[test]
fn weakening_keeps_what_is_in_scope_and_simplifies() {
    let i = reg(1, 32);
    let u = reg(2, 32);
    let f = Bool::or(&[
        &Bool::and(&[&i.bvslt(k(3, 32)), &u.eq(k(1, 32))]),
        &i.eq(k(9, 32)),
    ]);
    let e = from_z3(&f, &vars);
    assert_eq!(e.atoms(), 3);
    let no_u = e.weaken(&|v: &CVar| v.name != "u");
    assert_eq!(no_u.to_c(), "i < 3 || i == 9");
    let none = e.weaken(&|v: &CVar| v.name != "i");
    assert_eq!(none, CExpr::True, "a disjunct without `i` becomes 1");
}

#[test]
fn literals_print_in_c_syntax() {
    assert_eq!(literal(u64::MAX, 64, true), "-1LL");
    assert_eq!(literal(1 << 63, 64, true), "(-9223372036854775807LL - 1)");
    assert_eq!(literal(u64::MAX, 64, false), "18446744073709551615ULL");
    assert_eq!(literal(0xff, 8, true), "-1");
    assert_eq!(literal(0xff, 8, false), "255");
    assert_eq!(literal(0x80, 8, true), "-128");
}

#[test]
fn a_formula_that_expands_exponentially_is_cut_short_soundly() {
    let i = reg(1, 32);
    // Each level mentions the one below twice: 2^40 atoms expanded.
    let mut b = i.eq(k(0, 32));
    for n in 0..40 {
        b = i.bvslt(k(n, 32)).ite(&b, &b.not());
    }
    let e = from_z3(&b, &vars);
    assert!(e.atoms() <= MAX_STEPS, "{} atoms", e.atoms());
    assert_ne!(e, CExpr::False, "a satisfiable formula does not become 0");
}

#[test]
fn a_pointer_known_non_null_is_compared_with_0() {
    let p = vars(VarId(4), 64).unwrap();
    let zero = CTerm::Const { bits: 0, width: 64 };
    let e = CExpr::cmp(CmpOp::NE, false, CTerm::Var(p), zero);
    assert_eq!(e.to_c(), "p != 0");
}

#[test]
fn cubes_merge_into_equivalent_shorter_disjunctions() {
    let (i, u) = (reg(1, 32), reg(2, 32));
    let (a, b) = (i.bvslt(k(2, 32)), u.bvult(k(7, 32)));
    let simplified = |f: &Bool| from_z3(f, &vars).simplified().to_c();
    // a && b || a && !b || !a && b: a || b.
    let f = Bool::or(&[
        &Bool::and(&[&a, &b]),
        &Bool::and(&[&a, &b.not()]),
        &Bool::and(&[&a.not(), &b]),
    ]);
    assert_eq!(simplified(&f), "i < 2 || u < 7U");
    // a || a && b: a.
    assert_eq!(simplified(&Bool::or(&[&a, &Bool::and(&[&a, &b])])), "i < 2");
    // Nothing to merge: as it was.
    let g = Bool::or(&[&Bool::and(&[&a, &b]), &Bool::and(&[&a.not(), &b.not()])]);
    assert_eq!(simplified(&g), "(i < 2 && u < 7U) || (i >= 2 && u >= 7U)");
}

#[test]
fn a_constant_goes_to_the_right_of_its_comparison() {
    let i = reg(1, 32);
    assert_eq!(c(&k(10, 32).bvsgt(&i)), "i < 10");
    assert_eq!(c(&k(10, 32).bvsle(&i)), "i >= 10");
    assert_eq!(c(&k(3, 32).eq(&i)), "i == 3");
}

#[test]
fn bit_ranges_are_shifted_and_masked_and_read_with_a_sign_only_at_c_widths() {
    let (i, u) = (reg(1, 32), reg(2, 32));
    // `u < 8` as the solver writes it: the bits above the third are 0.
    assert_eq!(c(&u.extract(31, 3).eq(k(0, 29))), "(u >> 3) == 0");
    assert_eq!(c(&u.extract(2, 0).bvule(k(5, 3))), "(u & 7U) <= 5");
    assert_eq!(
        c(&i.extract(15, 8).bvult(k(3, 8))),
        "(((unsigned int)i >> 8) & 255U) < 3"
    );
    assert_eq!(
        c(&i.extract(15, 8).bvslt(k(3, 8))),
        "(signed char)(((unsigned int)i >> 8) & 255U) < 3",
        "a byte read with its sign"
    );
    assert_eq!(
        c(&u.extract(4, 2).bvslt(k(1, 3))),
        "1",
        "no C type of 3 bits"
    );
    assert_eq!(
        c(&u.extract(2, 0).zero_ext(29).eq(&u)),
        "(unsigned int)(u & 7U) == u"
    );
    assert_eq!(c(&u.extract(2, 0).sign_ext(29).eq(&u)), "1");
}

#[test]
fn the_comparisons_of_one_term_with_constants_become_its_bounds() {
    let (i, u) = (reg(1, 32), reg(2, 32));
    let all = |fs: &[&Bool]| c(&Bool::and(fs));
    assert_eq!(all(&[&u.bvult(k(5, 32)), &u.bvule(k(-2, 32))]), "u <= 4U");
    assert_eq!(all(&[&i.bvsge(k(3, 32)), &i.bvsle(k(3, 32))]), "i == 3");
    assert_eq!(all(&[&i.bvsgt(k(5, 32)), &i.bvslt(k(3, 32))]), "0");
    assert_eq!(
        all(&[
            &i.bvsge(k(0, 32)),
            &i.eq(k(0, 32)).not(),
            &i.bvsle(k(2, 32))
        ]),
        "i >= 1 && i <= 2"
    );
    // Signed and unsigned bounds of one variable are bounds of two terms.
    assert_eq!(
        all(&[&i.bvslt(k(4, 32)), &i.bvult(k(9, 32))]),
        "i < 4 && (unsigned int)i < 9U"
    );
    assert_eq!(c(&i.bvslt(k(10, 32))), "i < 10", "one comparison stays");
}

#[test]
fn the_bounds_of_a_conjunction_decide_the_comparisons_of_its_disjunctions() {
    let (i, u) = (reg(1, 32), reg(2, 32));
    let below_5 = u.bvult(k(5, 32));
    // `u < 5U` contradicts `u > 4294967294U` and implies `u <= 7U`.
    let f = Bool::and(&[
        &below_5,
        &Bool::or(&[&u.bvugt(k(-2, 32)), &u.bvult(k(4, 32)), &i.eq(k(1, 32))]),
        &Bool::or(&[&u.bvule(k(7, 32)), &i.eq(k(2, 32))]),
    ]);
    assert_eq!(c(&f), "u < 5U && (u < 4U || i == 1)");
    let none_left = Bool::and(&[&below_5, &Bool::or(&[&u.bvugt(k(9, 32)), &u.eq(k(6, 32))])]);
    assert_eq!(c(&none_left), "0");
}
