//! Refinement without interpolation: the predicates that rule out an
//! infeasible abstract error path (the exact path check that finds it
//! infeasible is [`super::path_check`]).
//!
//! Weakest-precondition style: for every abstraction point `i` on an
//! infeasible path, the suffix from `i` to the target is re-executed from
//! canonical symbols, i.e. from an arbitrary state at `i`. Its path
//! condition `S_i` is the precondition at `i` of reaching the target along
//! the suffix. The atoms of `S_i` that speak only about the state at `i`
//! (no value chosen later in the suffix) become predicates. When `S_i` is
//! a Boolean combination of such atoms, the Boolean abstraction at `i`
//! over them decides `S_i` exactly, so the same abstract path cannot be
//! found again; when it is not, refinement may find nothing new, and the
//! analysis reports UNKNOWN instead of looping.
//!
//! Focus: a path's suffix conditions are mostly branch conditions that have
//! nothing to do with its infeasibility, and each would become predicates
//! at every point before it. So an unsat core of the whole path over one
//! tracking literal per step condition is computed first, and the suffixes
//! are re-executed with only the core's conditions (the others dropped, an
//! over-approximation that is still infeasible). The same argument holds
//! for them; with the full conditions as the fallback (`all_predicates`)
//! when the focused predicates bring nothing new. A condition that every
//! path of the DAG meets and that the values before it make false on their
//! own (a lock's state set to a constant earlier on the path) is a core of
//! one by itself; it is found by simplification, without the solver, whose
//! check under the tracking literals costs as much as the path check.

use crate::hash::{HashMap, HashSet};
use z3::ast::{Ast, Bool, Dynamic};
use z3::{DeclKind, SatResult, Solver};

use crate::algorithm::unsat_core::{core_by_checks, minimal_core};
use crate::cfa::loops::tests_a_loop;
use crate::cfa::{LocId, Program};
use crate::cpa::predicate::trace::{
    abstraction_points, execute, Conditions, Key, Trace, TraceNode, Tracked,
};
use crate::cpa::Step;
use crate::smt::interrupt::simplified;
use crate::smt::work::{units_of_ms, Deadline};
use crate::smt::Encoder;
use crate::util::{thread_cpu_time, tracing};

/// The work one refinement may spend on the suffixes of a path (the one
/// nearest the target is always done).
const REFINEMENT_WORK: u64 = units_of_ms(5_000);

/// At most this many abstraction points (the last ones) are refined.
const MAX_REFINED_POINTS: usize = 400;

/// The candidate predicates of an infeasible abstract error path, each
/// with the abstraction point (location) where it is needed: those of the
/// step conditions its infeasibility needs ([`needed_conditions`]), or, if
/// that finds no core or no predicate, those of every condition.
pub fn candidates(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    deadline: Deadline,
) -> Vec<(Option<LocId>, Bool)> {
    let focused = needed_conditions(enc, p, target)
        .map(|core| predicates(enc, p, target, deadline, Conditions::Only(&core)))
        .filter(|preds| !preds.is_empty());
    focused.unwrap_or_else(|| predicates(enc, p, target, deadline, Conditions::All))
}

/// The step conditions of an infeasible abstract error path that its
/// infeasibility needs: an unsat core over one tracking literal per
/// condition ([`minimal_core`], or [`core_by_checks`] if that check is
/// undecided). `None` if neither finds one in time.
///
/// Refinement selection: a path is often infeasible for several reasons,
/// and the core the solver finds first may be a loop's own test (the
/// abstract path leaves a loop after too few or too many iterations).
/// Predicates for it rule out one iteration count at a time, so the next
/// path runs the loop once more, as many refinements as the loop runs.
/// A reason that leaves the loops' tests out is looked for first
/// ([`loop_free_core`]); the loop's count is refined only when the path
/// needs it.
fn needed_conditions(enc: &Encoder, p: &Program, target: &Trace) -> Option<HashSet<Key>> {
    let t0 = thread_cpu_time();
    let exec = execute(enc, p, target, None, Conditions::Tracked);
    let t_exec = thread_cpu_time() - t0;
    let literals: Vec<Bool> = exec.tracks.iter().map(|t| t.literal.clone()).collect();
    let (mut result, mut core) = match false_on_its_own(p, &exec.tracks) {
        Some(k) => (SatResult::Unsat, Some(vec![k])),
        None => {
            let solver = crate::smt::incremental_solver();
            solver.assert(&exec.guard);
            solver_core(&solver, p, &exec.tracks, &literals)
        }
    };
    if result == SatResult::Unknown {
        // The plain check found the path infeasible: checks with the
        // literals asserted may decide where assumptions did not.
        core = core_by_checks(&exec.guard, &literals, CORE_BY_CHECKS_LIMIT);
        if core.is_some() {
            result = SatResult::Unsat;
        }
    }
    let core = core.map(|ix| {
        ix.into_iter()
            .map(|i| exec.tracks[i].key)
            .collect::<HashSet<Key>>()
    });
    if tracing() {
        eprintln!(
            "unsat core: {} of {} conditions ({:?}, {:.2}s, execution {:.2}s)",
            core.as_ref().map_or(0, |c| c.len()),
            literals.len(),
            result,
            (thread_cpu_time() - t0).as_secs_f64(),
            t_exec.as_secs_f64()
        );
    }
    core
}

/// The first condition, not a loop's test, that every path of the DAG
/// meets and that the values before it make false on its own (a lock's
/// state the path set to a constant, say): a core of one literal, found
/// by simplification without a solver.
fn false_on_its_own(p: &Program, tracks: &[Tracked]) -> Option<usize> {
    (0..tracks.len()).find(|&i| {
        let t = &tracks[i];
        t.on_every_path && !tests_loop(p, t) && simplified(&t.condition).as_bool() == Some(false)
    })
}

/// Whether a tracked condition is a loop's test.
fn tests_loop(p: &Program, t: &Tracked) -> bool {
    matches!(t.step, Some(Step::Edge(e)) if tests_a_loop(p, p.edge(e).from))
}

/// An unsat core of the path in `solver` over the tracking `literals`:
/// one without loop tests first ([`loop_free_core`]), then any.
fn solver_core(
    solver: &Solver,
    p: &Program,
    tracks: &[Tracked],
    literals: &[Bool],
) -> (SatResult, Option<Vec<usize>>) {
    match loop_free_core(solver, p, tracks) {
        Some(core) => (SatResult::Unsat, Some(core)),
        // With tracking literals Z3 may take seconds where the plain check
        // took milliseconds; past the limit, refinement considers every
        // condition.
        None => minimal_core(
            solver,
            crate::smt::work_limit(NEEDED_CONDITIONS_LIMIT),
            literals,
        ),
    }
}

/// An unsat core (indices into `tracks`) without the conditions of loop
/// tests ([`tests_a_loop`]), if the path has such conditions and is
/// infeasible without them within [`LOOP_FREE_LIMIT`] work.
fn loop_free_core(solver: &Solver, p: &Program, tracks: &[Tracked]) -> Option<Vec<usize>> {
    let kept: Vec<usize> = (0..tracks.len())
        .filter(|&i| !tests_loop(p, &tracks[i]))
        .collect();
    if kept.len() == tracks.len() {
        return None;
    }
    let literals: Vec<Bool> = kept.iter().map(|&i| tracks[i].literal.clone()).collect();
    let params = crate::smt::work_limit(LOOP_FREE_LIMIT);
    let (result, core) = minimal_core(solver, params, &literals);
    if tracing() {
        eprintln!(
            "loop-free core: {:?} without {} loop tests",
            result,
            tracks.len() - kept.len()
        );
    }
    Some(core?.into_iter().map(|j| kept[j]).collect())
}

/// The work the search for a core without loop tests may do.
const LOOP_FREE_LIMIT: u64 = units_of_ms(500);

/// The work finding the conditions an infeasible path needs may do.
const NEEDED_CONDITIONS_LIMIT: u64 = units_of_ms(2_000);

/// The work finding them by checks with asserted literals may do, when the
/// check under assumptions was undecided.
const CORE_BY_CHECKS_LIMIT: u64 = units_of_ms(8_000);

/// The candidate predicates of an infeasible abstract error path with
/// every condition considered, not only those its infeasibility needs
/// (the fallback when the focused candidates bring nothing new).
pub fn all_predicates(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    deadline: Deadline,
) -> Vec<(Option<LocId>, Bool)> {
    predicates(enc, p, target, deadline, Conditions::All)
}

/// Atoms of the suffix preconditions at the abstraction points of the path
/// (with the step conditions `conditions` selects), each with its point's
/// location. Abstraction points are processed from the target backwards
/// until [`REFINEMENT_WORK`] or the deadline is used up.
///
/// The precondition of a point is its block's condition and the next
/// point's precondition carried back through the block (a weakest
/// precondition): `pre(Pₖ) = Gₖ ∧ pre(Pₖ₊₁)[canonical ↦ values at the end
/// of block k]`. Each block is executed once, so a path of n blocks costs
/// n block executions, not the n²/2 of executing every suffix.
fn predicates(
    enc: &Encoder,
    p: &Program,
    target: &Trace,
    deadline: Deadline,
    conditions: Conditions,
) -> Vec<(Option<LocId>, Bool)> {
    let budget = Deadline::in_units(REFINEMENT_WORK);
    let points = abstraction_points(target);
    let skip = points.len().saturating_sub(MAX_REFINED_POINTS);
    let mut out = Vec::new();
    // An atom recurs in the preconditions of many points: its predicates
    // are derived once.
    let mut derived: HashMap<Bool, Vec<Bool>> = HashMap::default();
    // The precondition of the point after the current one.
    let mut later: Option<Bool> = None;
    for (i, point) in points.iter().enumerate().skip(skip).rev() {
        if (budget.passed() || deadline.passed()) && !out.is_empty() {
            break;
        }
        let at = match &**point {
            TraceNode::Abstraction { loc, .. } => *loc,
            _ => None,
        };
        let t = thread_cpu_time();
        let block_end = points.get(i + 1).unwrap_or(target);
        let block = execute(enc, p, block_end, Some(point), conditions);
        let pre = match &later {
            None => block.guard,
            Some(next) => {
                let subst = enc.end_substitution(&block.end);
                let pairs: Vec<(&Dynamic, &Dynamic)> = subst.iter().map(|(a, b)| (a, b)).collect();
                Bool::and(&[&block.guard, &next.substitute(&pairs)])
            }
        };
        let t_exec = thread_cpu_time() - t;
        let pre = simplified(&pre);
        if tracing() {
            eprintln!(
                "refine point {at:?}: execution {:.3}s, simplify {:.3}s",
                t_exec.as_secs_f64(),
                (thread_cpu_time() - t - t_exec).as_secs_f64()
            );
        }
        let mut atoms = Vec::new();
        atoms_of(&pre, &mut atoms);
        later = Some(pre);
        let mut here: HashSet<Bool> = HashSet::default();
        for atom in atoms {
            let preds = derived.entry(atom).or_insert_with_key(start_predicates);
            for a in preds.iter() {
                if here.insert(a.clone()) {
                    out.push((at, a.clone()));
                }
            }
        }
    }
    out
}

/// The predicates an atom of a suffix precondition gives: itself if it
/// speaks of the start state only, else the start-state atoms of its
/// versions with later-chosen `ite`s resolved.
fn start_predicates(atom: &Bool) -> Vec<Bool> {
    if speaks_of_start_only(atom) {
        return vec![atom.clone()];
    }
    let mut out = Vec::new();
    for lifted in lift_ites(atom) {
        atoms_of(&lifted, &mut out);
    }
    out.retain(speaks_of_start_only);
    out
}

/// Versions of `atom` with its `ite` terms resolved either way (up to
/// [`MAX_LIFTED`] of them): an atom over a value chosen later in the suffix
/// (`p == ite(alloc_fails, 0, heaptop)`) gives atoms over the start state
/// (`p == 0`, `p == heaptop`).
fn lift_ites(atom: &Bool) -> Vec<Bool> {
    let mut out = vec![atom.clone()];
    for _ in 0..MAX_LIFTED {
        let mut next = Vec::new();
        let mut changed = false;
        for a in &out {
            match first_ite(&Dynamic::from_ast(a)) {
                Some(ite) => {
                    changed = true;
                    let ch = ite.children();
                    for branch in &ch[1..] {
                        next.push(simplified(&a.substitute(&[(&ite, branch)])));
                    }
                }
                None => next.push(a.clone()),
            }
        }
        out = next;
        if !changed {
            break;
        }
    }
    out
}

/// At most this many `ite` terms of one atom are resolved.
const MAX_LIFTED: usize = 3;

/// An innermost non-Boolean `ite` term of `t` (none inside it), whose
/// condition speaks of a value chosen later: resolving it first keeps the
/// comparisons around it.
fn first_ite(t: &Dynamic) -> Option<Dynamic> {
    let mut stack = vec![t.clone()];
    let mut seen: HashSet<Dynamic> = HashSet::default();
    let mut found = None;
    while let Some(x) = stack.pop() {
        if !x.is_app() || !seen.insert(x.clone()) {
            continue;
        }
        if x.decl().kind() == DeclKind::ITE && x.as_bool().is_none() {
            let later = crate::cpa::predicate::abstraction::symbols_of(&x.children()[0])
                .iter()
                .any(|s| !Encoder::is_canonical_symbol(s));
            if later {
                found = Some(x.clone());
            }
        }
        stack.extend(x.children());
    }
    found
}

/// Whether every constant in `t` is a canonical symbol (and there is one).
fn speaks_of_start_only(t: &Bool) -> bool {
    let symbols = crate::cpa::predicate::abstraction::symbols_of(&Dynamic::from_ast(t));
    !symbols.is_empty() && symbols.iter().all(|s| Encoder::is_canonical_symbol(s))
}

/// The theory atoms of a Boolean formula (below and/or/not/ite/...).
pub fn atoms_of(t: &Bool, out: &mut Vec<Bool>) {
    let mut seen: HashSet<Bool> = HashSet::default();
    let mut stack = vec![t.clone()];
    while let Some(x) = stack.pop() {
        if !seen.insert(x.clone()) || !x.is_app() {
            continue;
        }
        let kind = x.decl().kind();
        let bool_children =
            || -> Vec<Bool> { x.children().iter().filter_map(|c| c.as_bool()).collect() };
        match kind {
            DeclKind::TRUE | DeclKind::FALSE => {}
            DeclKind::AND
            | DeclKind::OR
            | DeclKind::NOT
            | DeclKind::IMPLIES
            | DeclKind::XOR
            | DeclKind::IFF => stack.extend(bool_children()),
            DeclKind::ITE => stack.extend(bool_children()),
            DeclKind::EQ | DeclKind::DISTINCT
                if x.children().first().is_some_and(|c| c.as_bool().is_some()) =>
            {
                stack.extend(bool_children())
            }
            DeclKind::UNINTERPRETED if x.num_children() == 0 => {}
            _ => out.push(x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::print::edges_printed;
    use z3::ast::BV;

    #[test]
    fn atoms_below_the_boolean_structure() {
        let x = BV::new_const("v1", 32);
        let y = BV::new_const("v2", 32);
        let a = x.bvult(&y);
        let b = x.eq(BV::from_u64(3, 32));
        let f = Bool::or(&[&a.not(), &Bool::and(&[&b, &a])]);
        let mut out = Vec::new();
        atoms_of(&f, &mut out);
        assert_eq!(out.len(), 2);
        assert!(out.contains(&a) && out.contains(&b));
    }

    #[test]
    fn only_start_symbols_make_predicates() {
        let x = BV::new_const("v1", 32);
        let nd = BV::new_const("nd7", 32);
        assert!(speaks_of_start_only(&x.eq(BV::from_u64(1, 32))));
        assert!(!speaks_of_start_only(&x.eq(&nd)));
        assert!(!speaks_of_start_only(&Bool::from_bool(true)));
    }

    const BRANCHES: &str = "int g; int x;
        int main(void) {
          g = 1;
          if (x) { if (g != 1) { x = 5; } } else { x = 3; }
          if (g != 1) { return 1; }
          return 0;
        }";

    fn step(prev: &Trace, e: crate::cfa::EdgeId) -> Trace {
        std::rc::Rc::new(TraceNode::Step {
            prev: prev.clone(),
            step: Step::Edge(e),
        })
    }

    /// `g = 1`, then the two branches of `if (x)` joined by a merge, with
    /// `inner` (one of the two tests of `g != 1`) after `[x]`, then the
    /// `outer` test of `g != 1`: the tracks of the execution that are
    /// false on their own, those every path takes, and the core
    /// [`false_on_its_own`] finds.
    fn tracked_branches(inner: bool, outer: bool) -> (Vec<usize>, Vec<usize>, Option<usize>) {
        let p =
            crate::frontend::parse_source("t.c", BRANCHES, &Default::default()).expect("parses");
        let [set] = edges_printed(&p, "g = 1;")[..] else {
            panic!("one `g = 1`")
        };
        let [t_in, t_out] = edges_printed(&p, "[g != 1]")[..] else {
            panic!("two tests")
        };
        let [f_in, f_out] = edges_printed(&p, "[!(g != 1)]")[..] else {
            panic!("two tests")
        };
        let [x_set] = edges_printed(&p, "[x]")[..] else {
            panic!("one `[x]`")
        };
        let [x_unset] = edges_printed(&p, "[!(x)]")[..] else {
            panic!("one `[!(x)]`")
        };
        let [three] = edges_printed(&p, "x = 3;")[..] else {
            panic!("one `x = 3`")
        };
        let start = step(&std::rc::Rc::new(TraceNode::Start), set);
        let a = step(&step(&start, x_set), if inner { t_in } else { f_in });
        let b = step(&step(&start, x_unset), three);
        let joined = std::rc::Rc::new(TraceNode::Merge { a, b });
        let end = step(&joined, if outer { t_out } else { f_out });
        let enc = Encoder::new(&p);
        let exec = execute(&enc, &p, &end, None, Conditions::Tracked);
        let false_alone = (0..exec.tracks.len())
            .filter(|&i| simplified(&exec.tracks[i].condition).as_bool() == Some(false))
            .collect();
        let every = (0..exec.tracks.len())
            .filter(|&i| exec.tracks[i].on_every_path)
            .collect();
        let core = false_on_its_own(&p, &exec.tracks);
        (false_alone, every, core)
    }

    #[test]
    fn a_condition_false_on_every_path_is_a_core_of_its_own() {
        let (false_alone, every, core) = tracked_branches(false, true);
        assert_eq!(false_alone.len(), 1);
        assert!(every.contains(&false_alone[0]));
        assert_eq!(core, Some(false_alone[0]));
    }

    #[test]
    fn a_condition_false_on_one_side_of_a_merge_is_not() {
        let (false_alone, every, core) = tracked_branches(true, false);
        assert_eq!(false_alone.len(), 1);
        assert!(!every.contains(&false_alone[0]));
        assert_eq!(core, None);
    }
}
