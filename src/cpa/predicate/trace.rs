//! The paths a predicate state stands for, as a DAG: steps, merges of two
//! states of one block, and abstraction points. Re-executing the DAG on the
//! exact encoding gives the precise formula of an abstract error path (all
//! merged paths at once); a model of it picks one concrete path.

use std::rc::Rc;

use crate::hash::HashMap;
use z3::ast::{Bool, BV};

use crate::cfa::{EdgeOp, LocId, Program};
use crate::cpa::Step;
use crate::cpa::{Transition, WovenOp};
use crate::smt::step::{apply, merge, Post};
use crate::smt::{Encoder, SymState};

pub type Trace = Rc<TraceNode>;

#[derive(Debug)]
pub enum TraceNode {
    /// The program start.
    Start,
    Step {
        prev: Trace,
        step: Step,
    },
    /// An operation woven in by a specification automaton.
    Woven {
        prev: Trace,
        op: Rc<WovenOp>,
    },
    /// Two states of one block at one location, joined.
    Merge {
        a: Trace,
        b: Trace,
    },
    /// An abstraction was computed here (at `loc`, if known); a new block
    /// starts.
    Abstraction {
        prev: Trace,
        loc: Option<LocId>,
    },
}

/// Identity of a node of a trace DAG (valid while the DAG lives).
pub type Key = *const TraceNode;

/// The identity of a trace node.
pub fn key(t: &Trace) -> Key {
    Rc::as_ptr(t)
}

/// The transition of a step node of the DAG (`Step` or `Woven`).
pub fn transition<'a>(p: &'a Program, node: &'a TraceNode) -> Option<Transition<'a>> {
    match node {
        TraceNode::Step { step, .. } => step_transition(p, *step),
        TraceNode::Woven { op, .. } => Some(Transition::Woven(op)),
        _ => None,
    }
}

/// The transition of an ARG step (`None` for a woven one, whose operation
/// the step does not hold).
pub fn step_transition(p: &Program, step: Step) -> Option<Transition<'_>> {
    Some(match step {
        Step::Edge(id) => Transition::Edge {
            id,
            edge: p.edge(id),
        },
        Step::Enter(call) | Step::Return(call) => {
            let edge = p.edge(call);
            let EdgeOp::Call { callee, .. } = &edge.op else {
                return None;
            };
            if matches!(step, Step::Enter(_)) {
                Transition::Enter {
                    call,
                    edge,
                    callee: *callee,
                }
            } else {
                Transition::Return {
                    call,
                    edge,
                    callee: *callee,
                }
            }
        }
        Step::Woven => return None,
    })
}

/// The abstraction points on the way to `t`, oldest first (all paths merged
/// into a state share the block starts, so following any branch is right).
pub fn abstraction_points(t: &Trace) -> Vec<Trace> {
    let mut out = Vec::new();
    let mut cur = t.clone();
    loop {
        let next = match &*cur {
            TraceNode::Start => break,
            TraceNode::Step { prev, .. } | TraceNode::Woven { prev, .. } => prev.clone(),
            TraceNode::Merge { a, .. } => a.clone(),
            TraceNode::Abstraction { prev, .. } => {
                out.push(cur.clone());
                prev.clone()
            }
        };
        cur = next;
    }
    out.reverse();
    out
}

/// The exact encoding of the paths of a trace DAG.
pub struct Execution {
    /// Path condition per node (reaching the node).
    pub guards: HashMap<Key, Bool>,
    /// Value written by each step node.
    pub values: HashMap<Key, BV>,
    /// The symbolic state at the end.
    pub end: SymState,
    /// Path condition of the whole DAG.
    pub guard: Bool,
    /// With [`Conditions::Tracked`]: each step node with a condition, and
    /// the literal that switches that condition on.
    pub tracks: Vec<Tracked>,
}

/// A step condition of a [`Conditions::Tracked`] execution.
pub struct Tracked {
    /// The step node.
    pub key: Key,
    /// The program step (`None`: an operation woven in by an automaton).
    pub step: Option<Step>,
    /// The literal that switches the condition on.
    pub literal: Bool,
    /// The condition itself.
    pub condition: Bool,
    /// Whether every path of the DAG takes the step (no merge joins a path
    /// around it).
    pub on_every_path: bool,
}

/// Which step conditions (assumptions, and the constraints of allocations
/// and calls) an execution enforces. Dropping a condition over-approximates
/// the paths; assignments are always executed.
#[derive(Clone, Copy)]
pub enum Conditions<'a> {
    /// Every condition: the exact paths.
    All,
    /// Every condition `c` of step `k` as `t_k => c`, with a fresh literal
    /// `t_k` (in [`Execution::tracks`]): assuming all literals gives the
    /// exact paths, and an unsat core names the conditions that matter.
    Tracked,
    /// Only the conditions of these step nodes.
    Only(&'a crate::hash::HashSet<Key>),
}

/// Re-executes the DAG ending in `end`, from the program start or, with
/// `from`, from that abstraction node with every value canonical (the
/// suffix of the paths after it). `conditions` says which step conditions
/// are enforced.
pub fn execute(
    enc: &Encoder,
    p: &Program,
    end: &Trace,
    from: Option<&Trace>,
    conditions: Conditions,
) -> Execution {
    let from = from.map(key);
    // Post-order of the sub-DAG, and how many consumers each node has there.
    let mut order: Vec<Trace> = Vec::new();
    let mut consumers: HashMap<Key, u32> = HashMap::default();
    let mut stack: Vec<(Trace, bool)> = vec![(end.clone(), false)];
    let mut visited: crate::hash::HashSet<Key> = crate::hash::HashSet::default();
    while let Some((t, expanded)) = stack.pop() {
        if expanded {
            order.push(t);
            continue;
        }
        if !visited.insert(key(&t)) {
            continue;
        }
        stack.push((t.clone(), true));
        if Some(key(&t)) == from {
            continue;
        }
        for pred in preds(&t) {
            *consumers.entry(key(pred)).or_default() += 1;
            stack.push((pred.clone(), false));
        }
    }
    let mut states: HashMap<Key, SymState> = HashMap::default();
    let mut guards: HashMap<Key, Bool> = HashMap::default();
    let mut values: HashMap<Key, BV> = HashMap::default();
    let mut tracks: Vec<Tracked> = Vec::new();
    // With tracked conditions: per node, the tracks every path to it takes
    // (sorted); a merge keeps those both sides share.
    let tracking = matches!(conditions, Conditions::Tracked);
    let mut on_all: HashMap<Key, Rc<Vec<usize>>> = HashMap::default();
    let mut take = |states: &mut HashMap<Key, SymState>, k: Key| -> SymState {
        let c = consumers.get_mut(&k).expect("consumer counted");
        *c -= 1;
        if *c == 0 {
            states.remove(&k).expect("state computed")
        } else {
            states[&k].clone()
        }
    };
    for t in &order {
        let k = key(t);
        let tracks_before = tracks.len();
        let (st, g) = if Some(k) == from {
            (enc.initial(), Bool::from_bool(true))
        } else {
            match &**t {
                TraceNode::Start => (enc.initial(), Bool::from_bool(true)),
                TraceNode::Abstraction { prev, .. } => {
                    (take(&mut states, key(prev)), guards[&key(prev)].clone())
                }
                TraceNode::Step { prev, .. } | TraceNode::Woven { prev, .. } => {
                    let mut st = take(&mut states, key(prev));
                    let mut g = guards[&key(prev)].clone();
                    if let Some(tr) = transition(p, t) {
                        let Post {
                            constraint: c,
                            value: v,
                        } = apply(enc, &mut st, &tr, p);
                        let c = match (c, conditions) {
                            (Some(c), Conditions::All) => Some(c),
                            (Some(c), Conditions::Tracked) => {
                                let step = match &**t {
                                    TraceNode::Step { step, .. } => Some(*step),
                                    _ => None,
                                };
                                let t = Bool::new_const(format!("__mpv_track{}", tracks.len()));
                                tracks.push(Tracked {
                                    key: k,
                                    step,
                                    literal: t.clone(),
                                    condition: c.clone(),
                                    on_every_path: false,
                                });
                                Some(t.implies(&c))
                            }
                            (Some(c), Conditions::Only(keep)) => keep.contains(&k).then_some(c),
                            (None, _) => None,
                        };
                        if let Some(c) = c {
                            g = Bool::and(&[&g, &c]);
                        }
                        if let Some(v) = v {
                            values.insert(k, v);
                        }
                    }
                    (st, g)
                }
                TraceNode::Merge { a, b } => {
                    let sa = take(&mut states, key(a));
                    let sb = take(&mut states, key(b));
                    let (ga, gb) = (guards[&key(a)].clone(), guards[&key(b)].clone());
                    (merge(&ga, &sa, &sb), Bool::or(&[&ga, &gb]))
                }
            }
        };
        if tracking {
            let own = (tracks.len() > tracks_before).then(|| tracks.len() - 1);
            let all = on_every_path_to(t, k, from, &on_all, own);
            on_all.insert(k, all);
        }
        states.insert(k, st);
        guards.insert(k, g);
    }
    let end_key = key(end);
    if let Some(all) = on_all.get(&end_key) {
        for &i in all.iter() {
            tracks[i].on_every_path = true;
        }
    }
    Execution {
        end: states.remove(&end_key).expect("end state computed"),
        guard: guards[&end_key].clone(),
        guards,
        values,
        tracks,
    }
}

/// The tracks every path to node `t` (key `k`) takes, given those of its
/// predecessors; `own` is the track `t` made, if any.
fn on_every_path_to(
    t: &Trace,
    k: Key,
    from: Option<Key>,
    on_all: &HashMap<Key, Rc<Vec<usize>>>,
    own: Option<usize>,
) -> Rc<Vec<usize>> {
    if Some(k) == from {
        return Rc::default();
    }
    match &**t {
        TraceNode::Start => Rc::default(),
        TraceNode::Abstraction { prev, .. } => on_all[&key(prev)].clone(),
        TraceNode::Step { prev, .. } | TraceNode::Woven { prev, .. } => {
            let before = &on_all[&key(prev)];
            match own {
                Some(own) => {
                    let mut v = (**before).clone();
                    v.push(own);
                    Rc::new(v)
                }
                None => before.clone(),
            }
        }
        TraceNode::Merge { a, b } => {
            let (x, y) = (&on_all[&key(a)], &on_all[&key(b)]);
            Rc::new(
                x.iter()
                    .filter(|i| y.binary_search(i).is_ok())
                    .copied()
                    .collect(),
            )
        }
    }
}

fn preds(t: &TraceNode) -> Vec<&Trace> {
    match t {
        TraceNode::Start => vec![],
        TraceNode::Step { prev, .. }
        | TraceNode::Woven { prev, .. }
        | TraceNode::Abstraction { prev, .. } => vec![prev],
        TraceNode::Merge { a, b } => vec![a, b],
    }
}

/// The concrete path through the DAG that `model` satisfies (steps with
/// their trace nodes, oldest first), with the branch it takes at each
/// merge as a literal over the merge's guard: a model that falsifies one
/// of them picks another path.
pub fn pick_path(
    end: &Trace,
    exec: &Execution,
    model: &z3::Model,
) -> (Vec<(Trace, Step)>, Vec<Bool>) {
    let mut out = Vec::new();
    let mut choices = Vec::new();
    let mut cur = end.clone();
    loop {
        let next = match &*cur {
            TraceNode::Start => break,
            TraceNode::Abstraction { prev, .. } => prev.clone(),
            TraceNode::Step { prev, step } => {
                out.push((cur.clone(), *step));
                prev.clone()
            }
            TraceNode::Woven { prev, .. } => {
                out.push((cur.clone(), Step::Woven));
                prev.clone()
            }
            TraceNode::Merge { a, b } => {
                let ga = &exec.guards[&key(a)];
                let take_a = model
                    .eval(ga, true)
                    .and_then(|x| x.as_bool())
                    .unwrap_or(true);
                choices.push(if take_a { ga.clone() } else { ga.not() });
                if take_a {
                    a.clone()
                } else {
                    b.clone()
                }
            }
        };
        cur = next;
    }
    out.reverse();
    (out, choices)
}
