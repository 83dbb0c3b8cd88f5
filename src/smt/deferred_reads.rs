//! Reads through store chains, decided lazily on an exact path check.
//!
//! Under LDV's assumptions kernel functions leave the module's memory
//! alone, so a read on a long error path sees every write before it: a
//! `select` over a store chain of thousands of writes through symbolic
//! pointers, where the solver must decide for each write whether the
//! addresses meet. On real modules such a path check can run for minutes,
//! while the same path with those reads as free values is decided at once.
//!
//! While deferral is on ([`DeferredReads::deferring`]), a read whose term
//! is still a `select` over stores stands for a fresh symbol, and the pair
//! (symbol, term) is kept. The path check (`algorithm::path_check`) then asks
//! for a model of the path with the symbols free, evaluates each kept term
//! under it ([`wrong_under`]), and restricts the reads the model got wrong
//! to the store the model has them read from ([`as_in_model`]), until no
//! read is wrong: that model satisfies every read's definition, so it is a
//! model of the full path. A path unsatisfiable with the reads free, or
//! with restrictions an unsat core does not name, is unsatisfiable with
//! the definitions too.
//!
//! Each wrong read also adds, unconditionally, the instance of its
//! definition the model violated ([`Resolution::lemma`]: "if the read
//! resolves at this store, it reads this value"). The lemmas hold in
//! every real execution, so they never rule a path out wrongly; they keep
//! a model from repeating a mistake after a restriction is lifted, and
//! once restrictions keep being lifted the check goes on with lemmas
//! alone ([`Restrictions::lemmas_only`]). There are finitely many (read,
//! store) pairs, so lemmas alone end with a model of the full path or
//! with unsat.

use std::cell::RefCell;

use z3::ast::{Ast, Bool, Dynamic, BV};

/// A read standing for a fresh symbol: the symbol and the read's term.
#[derive(Clone)]
pub struct DeferredRead {
    pub symbol: BV,
    pub term: BV,
}

impl DeferredRead {
    /// `symbol = term`.
    pub fn definition(&self) -> Bool {
        self.symbol.eq(&self.term)
    }
}

/// The deferred reads of one execution, while deferral is on.
#[derive(Default)]
pub struct DeferredReads {
    reads: RefCell<Option<Vec<DeferredRead>>>,
}

impl DeferredReads {
    /// Runs `f` (an execution) with reads over stores deferred; returns
    /// its result and the reads, in the order they were made.
    pub fn deferring<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<DeferredRead>) {
        let outer = self.reads.borrow_mut().replace(Vec::new());
        let r = f();
        let made = std::mem::replace(&mut *self.reads.borrow_mut(), outer).unwrap_or_default();
        (r, made)
    }

    /// `read`, or a symbol named by `name` standing for it if deferral is
    /// on and `read` is a `select` over stores.
    pub fn defer(&self, read: BV, name: impl FnOnce() -> String) -> BV {
        let mut reads = self.reads.borrow_mut();
        let Some(list) = reads.as_mut() else {
            return read;
        };
        if !selects_over_stores(&read) {
            return read;
        }
        let symbol = BV::new_const(name(), read.get_size());
        list.push(DeferredRead {
            symbol: symbol.clone(),
            term: read,
        });
        symbol
    }
}

/// Whether `t` is `select(store(...), a)`.
fn selects_over_stores(t: &BV) -> bool {
    let is = |t: &Dynamic, kind| t.is_app() && t.decl().kind() == kind;
    is(&Dynamic::from_ast(t), z3::DeclKind::SELECT)
        && t.nth_child(0).is_some_and(|m| is(&m, z3::DeclKind::STORE))
}

/// The reads, other than those `settled` says, whose symbol's value under
/// `model` differs from their term's (the model completed where it says
/// nothing).
pub fn wrong_under(
    reads: &[DeferredRead],
    settled: impl Fn(usize) -> bool,
    model: &z3::Model,
) -> Vec<usize> {
    reads
        .iter()
        .enumerate()
        .filter(|&(i, r)| !settled(i) && model.eval(&r.symbol, true) != model.eval(&r.term, true))
        .map(|(i, _)| i)
        .collect()
}

/// The restrictions ([`as_in_model`]) of one check's deferred reads: per
/// read, the literal its restriction is asserted under, while it has one.
/// The check assumes the literals ([`Restrictions::assumed`]).
pub struct Restrictions {
    literals: Vec<Option<Bool>>,
    rounds: usize,
    /// Whether wrong reads only add lemmas, no restrictions.
    lemmas_only: bool,
}

impl Restrictions {
    pub fn new(reads: usize) -> Self {
        Restrictions {
            literals: vec![None; reads],
            rounds: 0,
            lemmas_only: false,
        }
    }

    /// From now on, lifts every restriction and has wrong reads add only
    /// their lemmas; returns whether it was restricting until now.
    pub fn lemmas_only(&mut self) -> bool {
        let was = !self.lemmas_only;
        self.lemmas_only = true;
        self.literals.iter_mut().for_each(|l| *l = None);
        was
    }

    /// How many rounds of wrong reads there were.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The literals of the restrictions in force.
    pub fn assumed(&self) -> Vec<Bool> {
        self.literals.iter().flatten().cloned().collect()
    }

    /// How many reads are restricted.
    pub fn count(&self) -> usize {
        self.literals.iter().flatten().count()
    }

    /// The unrestricted reads `model` got wrong ([`wrong_under`]).
    pub fn wrong_under(&self, reads: &[DeferredRead], model: &z3::Model) -> Vec<usize> {
        wrong_under(reads, |i| self.literals[i].is_some(), model)
    }

    /// Asserts on `solver` the lemma of each read in `wrong` (sorted), and
    /// restricts those reads to `model`'s stores, each under a fresh
    /// literal; past [`SELECTIVE_ROUNDS`] rounds, every unrestricted read.
    /// With [`Restrictions::lemmas_only`], only the lemmas.
    pub fn restrict(
        &mut self,
        solver: &z3::Solver,
        reads: &[DeferredRead],
        wrong: &[usize],
        model: &z3::Model,
    ) {
        self.rounds += 1;
        let all = self.rounds > SELECTIVE_ROUNDS;
        for (i, read) in reads.iter().enumerate() {
            let is_wrong = wrong.binary_search(&i).is_ok();
            if !is_wrong && (self.lemmas_only || !all || self.literals[i].is_some()) {
                continue;
            }
            let resolution = as_in_model(read, model);
            if is_wrong {
                solver.assert(resolution.lemma());
            }
            if self.lemmas_only || self.literals[i].is_some() {
                continue;
            }
            let lit = Bool::new_const(format!("restrict_rd{i}_{}", self.rounds));
            for c in resolution.all() {
                solver.assert(lit.implies(c));
            }
            self.literals[i] = Some(lit);
        }
    }

    /// Lifts the restrictions whose literals are in `core`: those reads
    /// are unrestricted again. Returns whether there were any.
    pub fn lift(&mut self, core: &[Bool]) -> bool {
        let mut any = false;
        for lit in &mut self.literals {
            if lit.as_ref().is_some_and(|l| core.contains(l)) {
                *lit = None;
                any = true;
            }
        }
        any
    }
}

/// How many rounds of a check restrict only the reads its model got
/// wrong; later rounds restrict all the others too.
const SELECTIVE_ROUNDS: usize = 16;

/// How `model` resolves a read's store chain: the read's address differs
/// from those of the writes above the one the model has it read from and
/// equals that one's (`conditions`), and the symbol is that write's value,
/// or the value below every write (`value`).
pub struct Resolution {
    pub conditions: Vec<Bool>,
    pub value: Bool,
}

impl Resolution {
    /// Every constraint: restricts the models looked for, so a path
    /// unsatisfiable with them may be satisfiable without.
    pub fn all(&self) -> impl Iterator<Item = &Bool> {
        self.conditions.iter().chain(std::iter::once(&self.value))
    }

    /// `conditions → value`: an instance of the read's definition, true in
    /// every execution of the path.
    pub fn lemma(&self) -> Bool {
        let refs: Vec<&Bool> = self.conditions.iter().collect();
        Bool::and(&refs).implies(&self.value)
    }
}

/// The resolution of `read`'s store chain in `model` ([`Resolution`]).
pub fn as_in_model(read: &DeferredRead, model: &z3::Model) -> Resolution {
    let (Some(mut m), Some(a)) = (
        read.term.nth_child(0).and_then(|m| m.as_array()),
        read.term.nth_child(1).and_then(|a| a.as_bv()),
    ) else {
        return Resolution {
            conditions: Vec::new(),
            value: read.definition(),
        };
    };
    let at_read = model.eval(&a, true);
    let (base, offset) = super::memory::base_and_offset(&a);
    let mut conditions = Vec::new();
    while let Some((inner, at, value)) = super::memory::store_parts(&m) {
        if model.eval(&at, true) == at_read {
            conditions.push(at.eq(&a));
            let value = Dynamic::from_ast(&read.symbol).eq(&value);
            return Resolution { conditions, value };
        }
        // Addresses of one base at different offsets never meet.
        let (b, o) = super::memory::base_and_offset(&at);
        if b != base || o == offset {
            conditions.push(at.eq(&a).not());
        }
        m = inner;
    }
    let value = Dynamic::from_ast(&read.symbol).eq(m.select(&a));
    Resolution { conditions, value }
}

/// A substitution replacing every symbol by its term over no deferred
/// symbol (terms mention the symbols of earlier reads): applied to the
/// path's conditions, it gives the path without deferral.
pub fn resolving(reads: &[DeferredRead]) -> Vec<(Dynamic, Dynamic)> {
    let mut pairs: Vec<(Dynamic, Dynamic)> = Vec::with_capacity(reads.len());
    for r in reads {
        let refs: Vec<(&Dynamic, &Dynamic)> = pairs.iter().map(|(a, b)| (a, b)).collect();
        let term = Dynamic::from_ast(&r.term).substitute(&refs);
        pairs.push((Dynamic::from_ast(&r.symbol), term));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Array;
    use z3::{SatResult, Solver, Sort};

    fn memory() -> Array {
        Array::new_const("m", &Sort::bitvector(64), &Sort::bitvector(8))
    }

    #[test]
    fn only_reads_over_stores_are_deferred() {
        let d = DeferredReads::default();
        let m = memory();
        let a = BV::new_const("a", 64);
        let stored = m.store(&BV::from_u64(8, 64), &BV::from_u64(1, 8));
        let ((plain, over), reads) = d.deferring(|| {
            let plain = d.defer(m.select(&a).as_bv().unwrap(), || "rd0".into());
            let over = d.defer(stored.select(&a).as_bv().unwrap(), || "rd1".into());
            (plain, over)
        });
        assert_eq!(reads.len(), 1);
        assert_eq!(over, reads[0].symbol);
        assert_ne!(plain, reads[0].symbol);
        // Outside `deferring` nothing is deferred.
        let after = d.defer(stored.select(&a).as_bv().unwrap(), || "rd2".into());
        assert!(!after.to_string().contains("rd2"));
    }

    /// `m[p] := 5; m[q] := 7; x = m[p]` with the read deferred: p, q, x
    /// and the deferred read.
    fn read_after_two_writes() -> (BV, BV, BV, Vec<DeferredRead>) {
        let d = DeferredReads::default();
        let (p, q) = (BV::new_const("p", 64), BV::new_const("q", 64));
        let m = memory()
            .store(&p, &BV::from_u64(5, 8))
            .store(&q, &BV::from_u64(7, 8));
        let (x, reads) = d.deferring(|| d.defer(m.select(&p).as_bv().unwrap(), || "rd0".into()));
        (p, q, x, reads)
    }

    #[test]
    fn definitions_asserted_for_wrong_reads_give_a_model_of_the_full_path() {
        // x == 7 is satisfiable only with p = q.
        let (p, q, x, reads) = read_after_two_writes();
        let solver = Solver::new();
        solver.assert(x.eq(BV::from_u64(7, 8)));
        solver.assert(p.eq(&q).not());
        let mut defined = vec![false; reads.len()];
        let mut rounds = 0;
        let verdict = loop {
            let r = solver.check();
            if r != SatResult::Sat {
                break r;
            }
            let model = solver.get_model().unwrap();
            let wrong = wrong_under(&reads, |i| defined[i], &model);
            if wrong.is_empty() {
                break r;
            }
            for i in wrong {
                solver.assert(reads[i].definition());
                defined[i] = true;
            }
            rounds += 1;
        };
        assert_eq!(verdict, SatResult::Unsat);
        assert_eq!(rounds, 1);
    }

    #[test]
    fn a_restriction_to_the_models_store_makes_the_symbol_the_stored_value() {
        // In a model where p != q.
        let (p, q, x, reads) = read_after_two_writes();
        let solver = Solver::new();
        solver.assert(p.eq(&q).not());
        assert_eq!(solver.check(), SatResult::Sat);
        let model = solver.get_model().unwrap();
        let restriction = as_in_model(&reads[0], &model);
        // q != p, p == p, rd0 == 5.
        assert_eq!(restriction.all().count(), 3);
        for c in restriction.all() {
            solver.assert(c);
        }
        solver.push();
        solver.assert(x.eq(BV::from_u64(7, 8)));
        assert_eq!(solver.check(), SatResult::Unsat);
        solver.pop(1);
        solver.assert(x.eq(BV::from_u64(5, 8)));
        assert_eq!(solver.check(), SatResult::Sat);
    }

    /// Checks `solver` adding, for each model with wrong reads, only the
    /// lemmas those reads violated.
    fn check_with_lemmas(solver: &Solver, reads: &[DeferredRead]) -> (SatResult, usize) {
        let mut lemmas = 0;
        loop {
            let r = solver.check();
            if r != SatResult::Sat {
                return (r, lemmas);
            }
            let model = solver.get_model().unwrap();
            let wrong = wrong_under(reads, |_| false, &model);
            if wrong.is_empty() {
                return (r, lemmas);
            }
            for i in wrong {
                solver.assert(as_in_model(&reads[i], &model).lemma());
                lemmas += 1;
            }
        }
    }

    #[test]
    fn lemmas_alone_rule_out_exactly_the_infeasible_reads() {
        // x == 7 needs p = q.
        let (p, q, x, reads) = read_after_two_writes();
        let solver = Solver::new();
        solver.assert(x.eq(BV::from_u64(7, 8)));
        let (r, _) = check_with_lemmas(&solver, &reads);
        assert_eq!(r, SatResult::Sat);
        let model = solver.get_model().unwrap();
        assert_eq!(model.eval(&p, true), model.eval(&q, true));
        // With p != q it is unsatisfiable, after at least one lemma (the
        // reads free, x == 7 has models).
        solver.assert(p.eq(&q).not());
        let (r, lemmas) = check_with_lemmas(&solver, &reads);
        assert_eq!(r, SatResult::Unsat);
        assert!(lemmas >= 1);
    }

    #[test]
    fn a_lemma_holds_whichever_store_the_read_resolves_at() {
        // The lemma of a model where the read resolves at q's write does
        // not rule out models where it resolves at p's.
        let (p, q, x, reads) = read_after_two_writes();
        let solver = Solver::new();
        solver.assert(p.eq(&q));
        assert_eq!(solver.check(), SatResult::Sat);
        let lemma = as_in_model(&reads[0], &solver.get_model().unwrap()).lemma();
        let other = Solver::new();
        other.assert(&lemma);
        other.assert(p.eq(&q).not());
        other.assert(x.eq(BV::from_u64(5, 8)));
        assert_eq!(other.check(), SatResult::Sat);
    }

    #[test]
    fn resolving_replaces_symbols_inside_later_terms() {
        let d = DeferredReads::default();
        let a = BV::new_const("a", 64);
        let m = memory().store(&a, &BV::from_u64(3, 8));
        let (second, reads) = d.deferring(|| {
            let first = d.defer(m.select(&a).as_bv().unwrap(), || "rd0".into());
            let m2 = m.store(&BV::from_u64(0, 64), &first);
            d.defer(m2.select(&a).as_bv().unwrap(), || "rd1".into())
        });
        // `select(store(m, a, 3), a)` simplifies to 3 only if Z3 does; the
        // resolved term of the second read mentions no deferred symbol.
        let pairs = resolving(&reads);
        let refs: Vec<(&Dynamic, &Dynamic)> = pairs.iter().map(|(a, b)| (a, b)).collect();
        let resolved = Dynamic::from_ast(&second).substitute(&refs).to_string();
        assert!(!resolved.contains("rd0") && !resolved.contains("rd1"));
        assert!(resolved.contains("store"));
    }
}
