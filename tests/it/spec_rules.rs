//! The bundled rules on small C programs (`tests/programs/rules/RULE.c`):
//! for every error state `E` of a rule, function `bad_E` must drive the
//! automaton into `E` and function `safe_E` into no error state. The walk
//! below is a concrete interpreter of the function's CFA paths with the
//! automaton's `step` (so it tests matching, instantiation and typing of the
//! woven operations): results of body-less calls with a result are
//! enumerated over a few values (0, 1, -4, and a non-NULL pointer), `&x` is a
//! fixed non-NULL value, anything else unknown is taken both ways.

use std::collections::HashMap;
use std::path::Path;

use mpv::cfa::{EdgeOp, LocId, Program};
use mpv::frontend::{parse_source, FrontendOptions};
use mpv::ir::{BinaryOp, Expr, ExprKind, Type, UnaryOp, VarId};
use mpv::spec::automaton::{SpecAutomaton, StateIdx, StateKind};
use mpv::spec::bound::{BoundAutomaton, StepKind};
use mpv::spec::{library, relevance, PropertyId};

type Env = HashMap<VarId, i128>;

fn eval(p: &Program, env: &Env, e: &Expr) -> Option<i128> {
    let wrap = |v: i128| match p.types.get(e.ty) {
        Type::Int(k) => k.wrap(v),
        _ => v,
    };
    Some(match &e.kind {
        ExprKind::IntConst(v) => *v,
        ExprKind::Var(v) => *env.get(v)?,
        ExprKind::AddrOf(_) | ExprKind::StrLit(_) | ExprKind::Func(_) => 0x1000,
        ExprKind::Cast(a, _) => wrap(eval(p, env, a)?),
        ExprKind::Unary(op, a) => {
            let a = eval(p, env, a)?;
            match op {
                UnaryOp::Neg => wrap(-a),
                UnaryOp::BitNot => wrap(!a),
                UnaryOp::LogNot => (a == 0) as i128,
            }
        }
        ExprKind::Binary(op, a, b) => {
            use BinaryOp as B;
            let x = eval(p, env, a);
            if *op == B::LogAnd && x == Some(0) || *op == B::LogOr && x.is_some_and(|v| v != 0) {
                return Some((*op == B::LogOr) as i128);
            }
            let y = eval(p, env, b);
            if *op == B::LogAnd && y == Some(0) || *op == B::LogOr && y.is_some_and(|v| v != 0) {
                return Some((*op == B::LogOr) as i128);
            }
            let (x, y) = (x?, y?);
            match op {
                B::Add => wrap(x + y),
                B::Sub => wrap(x - y),
                B::Mul => wrap(x * y),
                B::Eq => (x == y) as i128,
                B::Ne => (x != y) as i128,
                B::Lt => (x < y) as i128,
                B::Le => (x <= y) as i128,
                B::Gt => (x > y) as i128,
                B::Ge => (x >= y) as i128,
                B::LogAnd => (x != 0 && y != 0) as i128,
                B::LogOr => (x != 0 || y != 0) as i128,
                B::BitAnd => x & y,
                B::BitOr => x | y,
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Error states reached by some path of function `f` (by name).
fn errors_reached(p: &Program, b: &BoundAutomaton, f: &str) -> Vec<String> {
    let fid = p.func_by_name(f).unwrap();
    let body = p.func(fid).body.as_ref().unwrap();
    let mut env = Env::new();
    for op in &b.init {
        if let EdgeOp::Assign { lhs, rhs } = op {
            if let ExprKind::Var(v) = lhs.kind {
                env.insert(v, eval(p, &env, rhs).unwrap());
            }
        }
    }
    let mut out = Vec::new();
    let mut work: Vec<(LocId, Env, StateIdx, u32)> =
        vec![(body.entry, env, b.automaton.initial, 0)];
    while let Some((loc, env, q, depth)) = work.pop() {
        if depth > 200 {
            continue;
        }
        let states = &b.automaton.states;
        let mut advance =
            |moves: Vec<mpv::spec::bound::Move>, env: &Env, next: LocId, work: &mut Vec<_>| {
                for m in moves {
                    if m.assumes.iter().any(|a| eval(p, env, a) == Some(0)) {
                        continue;
                    }
                    match &states[m.to as usize].kind {
                        StateKind::Error { .. } => {
                            out.push(states[m.to as usize].name.clone());
                            continue;
                        }
                        StateKind::Stop => continue,
                        StateKind::Normal => {}
                    }
                    let mut e2 = env.clone();
                    for (l, r) in &m.assigns {
                        if let ExprKind::Var(v) = l.kind {
                            match eval(p, env, r) {
                                Some(x) => e2.insert(v, x),
                                None => e2.remove(&v),
                            };
                        }
                    }
                    work.push((next, e2, m.to, depth + 1));
                }
            };
        if loc == body.exit {
            let e = p.edge(p.incoming(loc)[0]);
            let moves = b.step(p, q, e, StepKind::ProgramExit);
            let mut sink = Vec::new();
            advance(moves, &env, loc, &mut sink);
            continue;
        }
        for &eid in p.outgoing(loc) {
            let e = p.edge(eid);
            match &e.op {
                EdgeOp::Assume { cond, truth } => {
                    if eval(p, &env, cond).is_none_or(|v| (v != 0) == *truth) {
                        work.push((e.to, env.clone(), q, depth + 1));
                    }
                }
                EdgeOp::Assign { lhs, rhs } => {
                    let mut env = env.clone();
                    if let ExprKind::Var(v) = lhs.kind {
                        match eval(p, &env, rhs) {
                            Some(x) => env.insert(v, x),
                            None => env.remove(&v),
                        };
                    }
                    work.push((e.to, env, q, depth + 1));
                }
                EdgeOp::Call { lhs, .. } => {
                    let values: Vec<Option<i128>> = match lhs {
                        Some(l) if p.types.is_pointer(l.ty) => vec![Some(0), Some(0x2000)],
                        Some(_) => vec![Some(0), Some(1), Some(-4)],
                        None => vec![None],
                    };
                    for v in values {
                        let mut env = env.clone();
                        if let (
                            Some(v),
                            Some(Expr {
                                kind: ExprKind::Var(x),
                                ..
                            }),
                        ) = (v, lhs)
                        {
                            env.insert(*x, v);
                        }
                        let moves = b.step(p, q, e, StepKind::Edge);
                        advance(moves, &env, e.to, &mut work);
                    }
                }
                _ => work.push((e.to, env.clone(), q, depth + 1)),
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn rule_program(rule: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/programs/rules/{rule}.c"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Each bad_/safe_ function is explored on its own: none is called from main.
    let options = FrontendOptions {
        prune: false,
        ..FrontendOptions::default()
    };
    parse_source(&path.display().to_string(), &text, &options).unwrap_or_else(|e| panic!("{e}"))
}

fn check_rule(a: &SpecAutomaton) {
    let id = &a.properties[0].id;
    let mut p = rule_program(id);
    assert!(
        relevance::automaton_relevance(&p, a).contains(PropertyId(0)),
        "{id}: its test program makes it relevant"
    );
    let b = a.bind(&mut p);
    for s in &a.states {
        let StateKind::Error { .. } = s.kind else {
            continue;
        };
        let bad = format!("bad_{}", s.name);
        let safe = format!("safe_{}", s.name);
        assert!(p.func_by_name(&bad).is_some(), "{id}: no function {bad}");
        assert!(p.func_by_name(&safe).is_some(), "{id}: no function {safe}");
        let got = errors_reached(&p, &b, &bad);
        assert!(
            got.contains(&s.name),
            "{id}: {bad} reaches {got:?}, not {}",
            s.name
        );
        let got = errors_reached(&p, &b, &safe);
        assert!(got.is_empty(), "{id}: {safe} reaches {got:?}");
    }
}

#[test]
fn every_rule_has_violating_and_safe_programs_per_error() {
    let rules = library::bundled().unwrap();
    let mut failures = Vec::new();
    for a in &rules {
        if let Err(e) = std::panic::catch_unwind(|| check_rule(a)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(msg);
        }
    }
    assert!(
        failures.is_empty(),
        "{} rules fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
