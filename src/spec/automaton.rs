//! Compiled specification automata (paper 002, Sect. 3): control states,
//! per-property error states, transitions triggered by CFA edges matched with
//! patterns, assumes and assignments to weave, automaton-owned integer
//! variables and keyed sets. [`compile`] checks a parsed rule file:
//! names resolve, pattern variables are bound by every pattern of their
//! block, weaved assignments write only automaton-owned variables, and the
//! cases of each block cover `true` (see [`super::coverage`]).
//!
//! The LOOM-facing side ([`SpecAutomaton::bind`], `step`) is in
//! [`super::bound`].

use crate::hash::{HashMap, HashSet};

use super::coverage::covers_true;
use super::dsl::{self, ArgsPat, CType, CaseCond, Ex, KeyKind, LhsPat, PatKind, Pattern, Pos};
use super::PropertySet;
use crate::ir::{BinaryOp, IntKind, UnaryOp};
use crate::{Error, Result};

/// Index of a control state in [`SpecAutomaton::states`].
pub type StateIdx = u32;

/// One property of an automaton (an LDV rule).
#[derive(Clone, Debug)]
pub struct SpecProperty {
    pub id: String,
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateKind {
    Normal,
    /// Accepting: property `property` (index into `properties`) is violated.
    Error {
        property: usize,
        message: String,
    },
    /// The path ends here (CPAchecker's `STOP`; functions that do not return).
    Stop,
}

#[derive(Clone, Debug)]
pub struct State {
    pub name: String,
    pub kind: StateKind,
    /// Only the first block whose pattern matches is taken (`USEFIRST`).
    pub use_first: bool,
    /// Blocks leaving this state, in file order.
    pub blocks: Vec<usize>,
}

/// An automaton-owned integer variable.
#[derive(Clone, Debug)]
pub struct SpecVar {
    pub name: String,
    pub ty: IntKind,
    pub init: i128,
}

/// An automaton-owned set: one `int` element variable (0 or 1) per key the
/// program can produce, created when the automaton is bound to a program.
#[derive(Clone, Debug)]
pub struct SpecSet {
    pub name: String,
    pub key: KeyKind,
}

/// An expression over pattern variables and automaton variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SExpr {
    Int(i128),
    /// An automaton variable (index into `vars`).
    Var(usize),
    /// `set[$n]`: 1 if the key of `$n` is in the set.
    Elem(usize, u32),
    /// `empty(set)`.
    Empty(usize),
    /// `$n`: the matched program expression.
    Pat(u32),
    Unary(UnaryOp, Box<SExpr>),
    Binary(BinaryOp, Box<SExpr>, Box<SExpr>),
    Cast(CType, Box<SExpr>),
}

/// What a weaved assignment writes: only automaton-owned storage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SLValue {
    Var(usize),
    Elem(usize, u32),
}

/// Patterns sharing cases: `on p1, p2 { ... }`.
#[derive(Clone, Debug)]
pub struct Block {
    pub from: StateIdx,
    pub patterns: Vec<Pattern>,
    /// Transitions of this block (indices into `transitions`).
    pub transitions: Vec<usize>,
}

/// `q --(γ, s, r)--> q'`: γ is the block's patterns, `assigns` the
/// assignments s and `assumes` the assume operations r (a conjunction).
#[derive(Clone, Debug)]
pub struct Transition {
    pub block: usize,
    pub from: StateIdx,
    pub assumes: Vec<SExpr>,
    pub assigns: Vec<(SLValue, SExpr)>,
    pub to: StateIdx,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct SpecAutomaton {
    pub name: String,
    /// Where it was defined (file name).
    pub origin: String,
    pub properties: Vec<SpecProperty>,
    pub states: Vec<State>,
    pub initial: StateIdx,
    pub vars: Vec<SpecVar>,
    pub sets: Vec<SpecSet>,
    pub blocks: Vec<Block>,
    pub transitions: Vec<Transition>,
    /// What a pattern variable binds to a call's argument.
    pub arg_binding: ArgBinding,
}

/// What a pattern variable (`$1`) binds to a call's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgBinding {
    /// The value the callee receives: the argument converted to the
    /// parameter's type (mpv's rule language).
    Converted,
    /// The argument as the source writes it, without the conversion to the
    /// parameter's type that C implies (CPAchecker's `.spc` automata).
    AsWritten,
}

/// Compilation options.
#[derive(Clone, Copy, Debug)]
pub struct CompileOptions {
    /// Reject blocks whose cases are not shown to cover `true` (mpv's own
    /// rules); the `.spc` import keeps CPAchecker's semantics instead.
    pub require_coverage: bool,
    pub arg_binding: ArgBinding,
}

impl SpecAutomaton {
    /// The messages of the error states of `property` a path ending in a
    /// call of `callee` (or in the program's exit, `None`) can reach: all
    /// of them when the pattern of that last step does not narrow them down.
    pub fn error_messages(&self, property: usize, callee: Option<&str>) -> Vec<&str> {
        use crate::spec::dsl::PatKind;
        let errors: Vec<usize> = (0..self.states.len())
            .filter(|&i| matches!(&self.states[i].kind, StateKind::Error { property: p, .. } if *p == property))
            .collect();
        let matches = |k: &PatKind| match (k, callee) {
            (PatKind::Call { func, .. }, Some(c)) => func == c,
            (PatKind::ProgramExit, c) => c.is_none_or(|c| c == "ldv_check_final_state"),
            (PatKind::Entry(f) | PatKind::Return(f), Some(c)) => f == c,
            _ => false,
        };
        let narrowed: Vec<usize> = errors
            .iter()
            .copied()
            .filter(|&e| {
                self.transitions.iter().any(|t| {
                    t.to as usize == e
                        && self.blocks[t.block]
                            .patterns
                            .iter()
                            .any(|p| matches(&p.kind))
                })
            })
            .collect();
        let chosen = if narrowed.is_empty() {
            errors
        } else {
            narrowed
        };
        chosen
            .into_iter()
            .filter_map(|i| match &self.states[i].kind {
                StateKind::Error { message, .. } => Some(message.as_str()),
                _ => None,
            })
            .collect()
    }

    /// P(q): the properties whose error states are reachable from `q`
    /// (for an error state, its own property).
    pub fn state_properties(&self) -> Vec<PropertySet> {
        let n = self.states.len();
        let mut sets = vec![PropertySet::new(); n];
        for (i, s) in self.states.iter().enumerate() {
            if let StateKind::Error { property, .. } = s.kind {
                sets[i].insert(super::PropertyId(property as u32));
            }
        }
        // Backward fixpoint over the transition graph (tiny graphs).
        let mut changed = true;
        while changed {
            changed = false;
            for t in &self.transitions {
                let (f, to) = (t.from as usize, t.to as usize);
                if !sets[to].difference(&sets[f]).is_empty() {
                    let add: Vec<_> = sets[to].iter().collect();
                    for p in add {
                        sets[f].insert(p);
                    }
                    changed = true;
                }
            }
        }
        sets
    }

    /// P(τ) = P(target of τ), per transition.
    pub fn transition_properties(&self) -> Vec<PropertySet> {
        let ps = self.state_properties();
        self.transitions
            .iter()
            .map(|t| ps[t.to as usize].clone())
            .collect()
    }

    /// The function names the automaton's patterns mention (calls, entries,
    /// returns), sorted.
    pub fn api_functions(&self) -> Vec<String> {
        self.pattern_names(|k| match k {
            PatKind::Call { func, .. } | PatKind::Entry(func) | PatKind::Return(func) => Some(func),
            _ => None,
        })
    }

    /// The labels its `label L` patterns observe, sorted.
    pub fn observed_labels(&self) -> Vec<String> {
        self.pattern_names(|k| match k {
            PatKind::Label(l) => Some(l),
            _ => None,
        })
    }

    /// The names `name` picks from the patterns, sorted and without repeats.
    fn pattern_names(&self, name: impl Fn(&PatKind) -> Option<&String>) -> Vec<String> {
        let mut v: Vec<String> = self
            .blocks
            .iter()
            .flat_map(|b| b.patterns.iter())
            .filter_map(|p| name(&p.kind).cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

fn err(file: &str, pos: Pos, message: impl Into<String>) -> Error {
    Error::Spec {
        file: file.to_string(),
        line: pos.line,
        column: pos.column,
        message: message.into(),
    }
}

/// Pattern variables a pattern binds.
fn bound_vars(p: &Pattern) -> HashSet<u32> {
    let mut s = HashSet::default();
    if let PatKind::Call { lhs, args, .. } = &p.kind {
        if let LhsPat::Bind(n) = lhs {
            s.insert(*n);
        }
        if let ArgsPat::List(v) = args {
            s.extend(v.iter().flatten().copied());
        }
    }
    s
}

struct Names<'a> {
    file: &'a str,
    vars: HashMap<&'a str, usize>,
    sets: HashMap<&'a str, usize>,
}

impl Names<'_> {
    fn expr(&self, e: &Ex, bound: &HashSet<u32>) -> Result<SExpr> {
        Ok(match e {
            Ex::Int(v, _) => SExpr::Int(*v),
            Ex::Pat(n, p) => {
                if !bound.contains(n) {
                    return Err(err(self.file, *p, format!("`${n}` is not bound by every pattern of this block")));
                }
                SExpr::Pat(*n)
            }
            Ex::Name(s, p) => match self.vars.get(s.as_str()) {
                Some(&i) => SExpr::Var(i),
                None if self.sets.contains_key(s.as_str()) => {
                    return Err(err(self.file, *p, format!("`{s}` is a set: use `{s}[$n]` or `empty({s})`")))
                }
                None => return Err(err(self.file, *p, format!("unknown automaton variable `{s}` (program variables are reached through pattern variables `$n`)"))),
            },
            Ex::Elem(s, n, p) => {
                let Some(&i) = self.sets.get(s.as_str()) else {
                    return Err(err(self.file, *p, format!("unknown set `{s}`")));
                };
                if !bound.contains(n) {
                    return Err(err(self.file, *p, format!("`${n}` is not bound by every pattern of this block")));
                }
                SExpr::Elem(i, *n)
            }
            Ex::Empty(s, p) => match self.sets.get(s.as_str()) {
                Some(&i) => SExpr::Empty(i),
                None => return Err(err(self.file, *p, format!("unknown set `{s}`"))),
            },
            Ex::Unary(op, a, _) => SExpr::Unary(*op, Box::new(self.expr(a, bound)?)),
            Ex::Binary(op, a, b, _) => SExpr::Binary(
                *op,
                Box::new(self.expr(a, bound)?),
                Box::new(self.expr(b, bound)?),
            ),
            Ex::Cast(t, a, _) => SExpr::Cast(t.clone(), Box::new(self.expr(a, bound)?)),
        })
    }

    fn lvalue(&self, e: &Ex, bound: &HashSet<u32>) -> Result<SLValue> {
        match self.expr(e, bound)? {
            SExpr::Var(i) => Ok(SLValue::Var(i)),
            SExpr::Elem(s, n) => Ok(SLValue::Elem(s, n)),
            _ => Err(err(
                self.file,
                e.pos(),
                "a weaved assignment may only write automaton variables (`x = ..`, `s[$n] = ..`), never program state",
            )),
        }
    }
}

/// Checks and compiles a parsed rule file; `file` names it in errors.
pub fn compile(file: &str, f: &dsl::File, opts: CompileOptions) -> Result<SpecAutomaton> {
    let top = Pos { line: 1, column: 1 };
    let properties = compile_properties(file, f, top)?;
    let names = declare_names(file, f)?;
    let States {
        mut states,
        index,
        stop,
    } = compile_states(file, f, &properties)?;
    check_error_states(file, f, &properties, &states)?;
    let initial = initial_state(file, f, &index, &states, top)?;
    let cx = BlockCx {
        file,
        names: &names,
        index: &index,
        stop,
        require_coverage: opts.require_coverage,
    };
    let mut blocks = Vec::new();
    let mut transitions = Vec::new();
    for (si, s) in f.states.iter().enumerate() {
        for b in &s.blocks {
            let bi = blocks.len();
            blocks.push(cx.block(si as StateIdx, bi, b, &mut transitions)?);
            states[si].blocks.push(bi);
        }
    }
    Ok(SpecAutomaton {
        name: f
            .automaton
            .as_ref()
            .map(|a| a.0.clone())
            .unwrap_or_else(|| properties[0].id.clone()),
        origin: file.to_string(),
        properties,
        states,
        initial,
        vars: f
            .vars
            .iter()
            .map(|v| SpecVar {
                name: v.name.clone(),
                ty: v.ty,
                init: v.ty.wrap(v.init),
            })
            .collect(),
        sets: f
            .sets
            .iter()
            .map(|s| SpecSet {
                name: s.name.clone(),
                key: s.key,
            })
            .collect(),
        blocks,
        transitions,
        arg_binding: opts.arg_binding,
    })
}

/// The properties the `rule` declarations give: at least one, each id a
/// word declared once.
fn compile_properties(file: &str, f: &dsl::File, top: Pos) -> Result<Vec<SpecProperty>> {
    if f.rules.is_empty() {
        return Err(err(
            file,
            top,
            "no `rule \"ID\" \"description\";`: an automaton needs at least one property",
        ));
    }
    let mut properties = Vec::new();
    for r in &f.rules {
        if properties.iter().any(|p: &SpecProperty| p.id == r.id) {
            return Err(err(file, r.pos, format!("rule `{}` declared twice", r.id)));
        }
        if r.id.is_empty() || r.id.chars().any(|c| c.is_whitespace()) {
            return Err(err(file, r.pos, "a rule id is a non-empty word"));
        }
        properties.push(SpecProperty {
            id: r.id.clone(),
            description: r.description.clone(),
        });
    }
    Ok(properties)
}

/// The automaton's variables and sets by name, each name declared once.
fn declare_names<'a>(file: &'a str, f: &'a dsl::File) -> Result<Names<'a>> {
    let mut names = Names {
        file,
        vars: HashMap::default(),
        sets: HashMap::default(),
    };
    for (i, v) in f.vars.iter().enumerate() {
        if names.vars.insert(&v.name, i).is_some() {
            return Err(err(
                file,
                v.pos,
                format!("variable `{}` declared twice", v.name),
            ));
        }
    }
    for (i, s) in f.sets.iter().enumerate() {
        if names.sets.insert(&s.name, i).is_some() || names.vars.contains_key(s.name.as_str()) {
            return Err(err(
                file,
                s.pos,
                format!("name `{}` declared twice", s.name),
            ));
        }
    }
    Ok(names)
}

/// The control states (without their blocks yet), their index by name and
/// the stop sink.
struct States {
    states: Vec<State>,
    index: HashMap<String, StateIdx>,
    stop: StateIdx,
}

/// States: declared states, then error states, then the stop sink.
fn compile_states(file: &str, f: &dsl::File, properties: &[SpecProperty]) -> Result<States> {
    let mut states: Vec<State> = Vec::new();
    let mut index: HashMap<String, StateIdx> = HashMap::default();
    for s in &f.states {
        if index
            .insert(s.name.clone(), states.len() as StateIdx)
            .is_some()
        {
            return Err(err(
                file,
                s.pos,
                format!("state `{}` declared twice", s.name),
            ));
        }
        states.push(State {
            name: s.name.clone(),
            kind: StateKind::Normal,
            use_first: s.use_first,
            blocks: Vec::new(),
        });
    }
    for e in &f.errors {
        if index.contains_key(&e.state) {
            return Err(err(
                file,
                e.pos,
                format!(
                    "`{}` is already a state: error states have no transitions",
                    e.state
                ),
            ));
        }
        let property = match &e.rule {
            Some(r) => properties
                .iter()
                .position(|p| &p.id == r)
                .ok_or_else(|| err(file, e.pos, format!("unknown rule `{r}`")))?,
            None if properties.len() == 1 => 0,
            None => {
                return Err(err(
                    file,
                    e.pos,
                    "several rules: name the rule of this error state with `of \"ID\"`",
                ))
            }
        };
        index.insert(e.state.clone(), states.len() as StateIdx);
        states.push(State {
            name: e.state.clone(),
            kind: StateKind::Error {
                property,
                message: e.message.clone(),
            },
            use_first: false,
            blocks: Vec::new(),
        });
    }
    let stop = states.len() as StateIdx;
    states.push(State {
        name: "stop".into(),
        kind: StateKind::Stop,
        use_first: false,
        blocks: Vec::new(),
    });
    Ok(States {
        states,
        index,
        stop,
    })
}

/// Every property has an error state.
fn check_error_states(
    file: &str,
    f: &dsl::File,
    properties: &[SpecProperty],
    states: &[State],
) -> Result<()> {
    for (pi, p) in properties.iter().enumerate() {
        if !states
            .iter()
            .any(|s| matches!(s.kind, StateKind::Error { property, .. } if property == pi))
        {
            return Err(err(
                file,
                f.rules[pi].pos,
                format!("rule `{}` has no error state", p.id),
            ));
        }
    }
    Ok(())
}

/// The declared initial state, which must be a normal state.
fn initial_state(
    file: &str,
    f: &dsl::File,
    index: &HashMap<String, StateIdx>,
    states: &[State],
    top: Pos,
) -> Result<StateIdx> {
    Ok(match &f.initial {
        Some((n, p)) => match index.get(n) {
            Some(&i) if matches!(states[i as usize].kind, StateKind::Normal) => i,
            Some(_) => {
                return Err(err(
                    file,
                    *p,
                    "the initial state must not be an error state",
                ))
            }
            None => return Err(err(file, *p, format!("unknown state `{n}`"))),
        },
        None => return Err(err(file, top, "no `initial STATE;` declaration")),
    })
}

/// What compiling a block's cases into transitions needs.
struct BlockCx<'a> {
    file: &'a str,
    names: &'a Names<'a>,
    index: &'a HashMap<String, StateIdx>,
    stop: StateIdx,
    require_coverage: bool,
}

/// The conditions of a block's cases so far, for `else` and the coverage
/// check.
#[derive(Default)]
struct Cases {
    conds: Vec<SExpr>,
    has_total: bool,
}

impl BlockCx<'_> {
    /// Compiles block `bi` leaving state `si`: one transition per case,
    /// appended to `transitions`; its cases must cover `true` when required.
    fn block(
        &self,
        si: StateIdx,
        bi: usize,
        b: &dsl::OnBlock,
        transitions: &mut Vec<Transition>,
    ) -> Result<Block> {
        let mut bound = bound_vars(&b.patterns[0]);
        for p in &b.patterns[1..] {
            let o = bound_vars(p);
            bound.retain(|n| o.contains(n));
        }
        let mut cases = Cases::default();
        let mut ts = Vec::new();
        let n_cases = b.cases.len();
        for (ci, c) in b.cases.iter().enumerate() {
            let last = ci + 1 == n_cases;
            let assumes = self.assumes(c, last, &bound, &mut cases)?;
            let mut assigns = Vec::new();
            for (l, r) in &c.assigns {
                assigns.push((self.names.lvalue(l, &bound)?, self.names.expr(r, &bound)?));
            }
            let to = match &c.target {
                dsl::Target::Stop => self.stop,
                dsl::Target::State(n) => *self
                    .index
                    .get(n)
                    .ok_or_else(|| err(self.file, c.target_pos, format!("unknown state `{n}`")))?,
            };
            ts.push(transitions.len());
            transitions.push(Transition {
                block: bi,
                from: si,
                assumes,
                assigns,
                to,
                pos: c.pos,
            });
        }
        if self.require_coverage && !cases.has_total && !covers_true(&cases.conds) {
            return Err(err(self.file, b.pos, "the cases of this block are not shown to cover `true` (weaving must not restrict the program): add an `else` case"));
        }
        Ok(Block {
            from: si,
            patterns: b.patterns.clone(),
            transitions: ts,
        })
    }

    /// The assumes of case `c` (`last` if it is its block's last case):
    /// none for `always`, its condition, or for `else` the negation of the
    /// conditions before it.
    fn assumes(
        &self,
        c: &dsl::Case,
        last: bool,
        bound: &HashSet<u32>,
        cases: &mut Cases,
    ) -> Result<Vec<SExpr>> {
        Ok(match &c.cond {
            CaseCond::Always => {
                cases.has_total = true;
                Vec::new()
            }
            CaseCond::Assume(e) => {
                let x = self.names.expr(e, bound)?;
                cases.conds.push(x.clone());
                vec![x]
            }
            CaseCond::Else => {
                if !last {
                    return Err(err(
                        self.file,
                        c.pos,
                        "`else` must be the last case of its block",
                    ));
                }
                cases.has_total = true;
                let any = cases
                    .conds
                    .iter()
                    .cloned()
                    .reduce(|a, b| SExpr::Binary(BinaryOp::LogOr, Box::new(a), Box::new(b)));
                match any {
                    Some(a) => vec![SExpr::Unary(UnaryOp::LogNot, Box::new(a))],
                    None => Vec::new(),
                }
            }
        })
    }
}

/// Parses and compiles rule-language text.
pub fn from_text(file: &str, text: &str) -> Result<SpecAutomaton> {
    let f = dsl::parser::parse(file, text)?;
    compile(
        file,
        &f,
        CompileOptions {
            require_coverage: true,
            arg_binding: ArgBinding::Converted,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str =
        "rule \"r\" \"d\";\nvar n: int = 0;\nset s by text;\ninitial I;\nerror E \"bad\";\n";

    fn compile_err(body: &str) -> String {
        from_text("t.spec", &format!("{HEAD}{body}"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn compiles_and_computes_relevance_maps() {
        let a = from_text(
            "t.spec",
            &format!("{HEAD}state I {{ on f($1) {{ assume s[$1] -> E; else do s[$1] = 1 -> L; }} }}\nstate L {{ on g() -> I; }}"),
        )
        .unwrap();
        assert_eq!(a.states.len(), 4, "I, L, E, stop");
        assert_eq!(a.transitions.len(), 3);
        let ps = a.state_properties();
        assert!(ps.iter().take(3).all(|p| p.len() == 1));
        assert!(ps[3].is_empty(), "stop reaches nothing");
        assert_eq!(a.api_functions(), vec!["f", "g"]);
    }

    #[test]
    fn the_last_call_of_a_path_picks_its_error_message() {
        let a = from_text(
            "t.spec",
            "rule \"r\" \"d\";\ninitial I;\nerror A \"twice\";\nerror B \"at exit\";\nstate I { on f() -> L; }\nstate L { on f() -> A; on exit -> B; }",
        )
        .unwrap();
        assert_eq!(a.error_messages(0, Some("f")), ["twice"]);
        assert_eq!(a.error_messages(0, None), ["at exit"]);
        assert_eq!(a.error_messages(0, Some("g")), ["twice", "at exit"]);
    }

    #[test]
    fn soundness_rules_are_checked() {
        let e = compile_err("state I { on f($1) assume $1 == 0 -> E; }");
        assert!(
            e.starts_with("t.spec:6:11:") && e.contains("cover `true`"),
            "{e}"
        );
        let e = compile_err("state I { on f($1) do $1 = 0 -> I; }");
        assert!(e.contains("only write automaton variables"), "{e}");
        // Complementary assumes need no `else`.
        assert!(from_text(
            "t.spec",
            &format!("{HEAD}state I {{ on $1 = f() {{ assume $1 -> E; assume !$1 -> I; }} }}")
        )
        .is_ok());
    }

    #[test]
    fn names_are_resolved() {
        assert!(compile_err("state I { on f($1) -> J; }").contains("unknown state `J`"));
        assert!(compile_err("state I { on f($1) do m = 1 -> I; }")
            .contains("unknown automaton variable"));
        assert!(
            compile_err("state I { on f($1), g() { assume $1 -> E; else -> I; } }")
                .contains("not bound by every pattern")
        );
        assert!(
            compile_err("state I { on f() { else -> I; assume n -> E; } }").contains("last case")
        );
    }
}
