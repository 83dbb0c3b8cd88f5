//! The strongest postcondition of one analysis step over a [`SymState`], and
//! the join of two symbolic states (shared by bounded symbolic execution and
//! the predicate analysis).
//!
//! Semantics of calls:
//! - entering a defined function binds the arguments to the parameters and
//!   gives every local of the callee a fresh value (a new activation);
//! - a body-less function returns a fresh value; `Assume` functions constrain
//!   their argument; allocation functions return NULL or a fresh heap object;
//!   a body-less function that receives a pointer may write through it, so
//!   memory becomes arbitrary (the path is then inexact);
//!   `memcpy` and `memmove` of a small constant length copy the cells
//!   ([`Encoder::copy`]), in the analysis too.
//!   In an exact path check, a kernel function that writes only through its
//!   first argument, over a length its arguments give (`memcpy`, `memset`,
//!   `snprintf`, `strlcat`, `copy_from_user`, `sprintf` with a format
//!   printing no string, ...), leaves memory as it is and the written bytes
//!   are recorded as a clobber: the path stays exact unless it reads them
//!   afterwards (the byte replay of [`super::inconsistent_accesses`] checks
//!   that); one whose result is the length it wrote does so when the result
//!   is unused, or under LDV's assumptions, which take the length as any
//!   non-negative value;
//! - a call through a function pointer that matches none of the module's
//!   candidate functions calls a function outside the module: like a
//!   body-less call, and inexact (mpv assumes, as LDV's environment model
//!   does, that code outside the module does not call back into it);
//! - a call of a function that is already on the call stack (recursion cut)
//!   gives the globals it may assign fresh values and havocs memory if it may
//!   write any ([`crate::cfa::effects`]); when a property observes something
//!   in it (an error label, a modelled function) that is not an
//!   over-approximation: `sound` is cleared.

use z3::ast::{Array, Bool, BV};

use super::{
    is_allocator, may_write_through_pointers, Allocation, Encoder, LdvAssumption, SpanContents,
    SymState,
};
use crate::cfa::{EdgeOp, LocId, Program};
use crate::cpa::Transition;
use crate::ir::{Expr, ExprKind, FuncId, FunctionKind, HavocReason, Type};

/// What one step adds to a path.
#[derive(Default)]
pub struct Post {
    /// The path constraint the step adds.
    pub constraint: Option<Bool>,
    /// The value the step writes (for counterexamples).
    pub value: Option<BV>,
}

impl Post {
    /// A step that adds the constraint `c` and writes nothing.
    fn constrained(c: Bool) -> Post {
        Post {
            constraint: Some(c),
            value: None,
        }
    }

    /// A step that adds no constraint and writes `v`, if anything.
    fn writing(v: Option<BV>) -> Post {
        Post {
            constraint: None,
            value: v,
        }
    }
}

/// Applies one step to `st`; returns the path constraint it adds and the
/// value it writes.
pub fn apply(enc: &Encoder<'_>, st: &mut SymState, t: &Transition, p: &Program) -> Post {
    super::work::charge(super::work::ENCODED_STEP);
    match t {
        Transition::Edge { edge, .. } => edge_op(enc, st, &edge.op, edge.from, p),
        Transition::Enter { edge, callee, .. } => enter(enc, st, &edge.op, *callee, p),
        Transition::Return { edge, callee, .. } => return_to_caller(enc, st, &edge.op, *callee, p),
        Transition::Woven(w) => match &w.op {
            EdgeOp::Assume { cond, truth } => Post::constrained(assumption(enc, st, cond, *truth)),
            EdgeOp::Assign { lhs, rhs } => Post::writing(enc.assign(st, lhs, rhs)),
            _ => {
                st.exact = false;
                st.sound = false;
                Post::default()
            }
        },
    }
}

/// `cond` if `truth`, else its negation.
fn assumption(enc: &Encoder<'_>, st: &mut SymState, cond: &Expr, truth: bool) -> Bool {
    let c = enc.cond(st, cond);
    if truth {
        c
    } else {
        c.not()
    }
}

/// An edge of a function (leaving location `from`); a call on it is one
/// that is not entered.
fn edge_op(enc: &Encoder<'_>, st: &mut SymState, op: &EdgeOp, from: LocId, p: &Program) -> Post {
    match op {
        EdgeOp::Skip => Post::default(),
        EdgeOp::Assume { cond, truth } => Post::constrained(assumption(enc, st, cond, *truth)),
        EdgeOp::Assign { lhs, rhs } => Post::writing(enc.assign(st, lhs, rhs)),
        EdgeOp::Call { lhs, callee, args } => call(enc, st, *callee, lhs.as_ref(), args, p),
        EdgeOp::CallUnknown { lhs, args, .. } => {
            if !enc.assume_ldv(LdvAssumption::UnknownTargetIsExternal) {
                st.exact = false;
            }
            external_call(
                enc,
                st,
                "",
                FunctionKind::External,
                false,
                lhs.as_ref(),
                args,
            )
        }
        EdgeOp::Return { value } => {
            let func = p.loc(from).func;
            let rv = p.func(func).body.as_ref().and_then(|b| b.ret_var);
            match (value, rv) {
                (Some(v), Some(r)) => {
                    let lhs = Expr::var(r, p.var(r).ty);
                    Post::writing(enc.assign(st, &lhs, v))
                }
                _ => Post::default(),
            }
        }
        EdgeOp::Havoc { lvalues, reason } => havoc(enc, st, lvalues, *reason, p),
    }
}

/// A call that is not entered: of a function without a body, or of a
/// defined one on the call stack (recursion cut).
fn call(
    enc: &Encoder<'_>,
    st: &mut SymState,
    callee: FuncId,
    lhs: Option<&Expr>,
    args: &[Expr],
    p: &Program,
) -> Post {
    let f = p.func(callee);
    let mut cons = None;
    match f.kind {
        FunctionKind::Assume => {
            if let Some(a) = args.first() {
                cons = Some(enc.cond(st, a));
            }
        }
        FunctionKind::Defined => {
            // recursion cut: the callee's effects, if known
            st.exact = false;
            match enc.recursion_effects(callee) {
                Some(effects) => enc.apply_call_effects(st, &effects),
                None => st.sound = false,
            }
        }
        _ => {}
    }
    let writes =
        may_write_through_pointers(&f.name) && !enc.modelled_functions.borrow().contains(&f.name);
    let post = external_call(enc, st, &f.name, f.kind, writes, lhs, args);
    Post {
        constraint: cons.or(post.constraint),
        value: post.value,
    }
}

/// A havoc statement: its lvalues get fresh values (inexact); inline
/// assembly under LDV's assumptions is skipped, its register outputs read
/// arbitrary values.
fn havoc(
    enc: &Encoder<'_>,
    st: &mut SymState,
    lvalues: &[Expr],
    reason: HavocReason,
    p: &Program,
) -> Post {
    if reason == HavocReason::InlineAssembly && enc.assume_ldv(LdvAssumption::InlineAsmSkipped) {
        // As LDV's verifiers: the statement is skipped; its register
        // outputs (uninitialised or not) read arbitrary values.
        for l in lvalues {
            if let ExprKind::Var(v) = l.kind {
                if !p.var(v).address_taken {
                    let val = enc.fresh(enc.width(l.ty));
                    enc.write(st, l, val);
                }
            }
        }
        return Post::default();
    }
    st.exact = false;
    for l in lvalues {
        let v = enc.fresh(enc.width(l.ty));
        enc.write(st, l, v);
    }
    Post::default()
}

/// Entering `callee` from the call `op`: arguments bound to the
/// parameters in a new activation.
fn enter(enc: &Encoder<'_>, st: &mut SymState, op: &EdgeOp, callee: FuncId, p: &Program) -> Post {
    let EdgeOp::Call { args, .. } = op else {
        return Post::default();
    };
    let f = p.func(callee);
    // Structs and unions passed by value live in memory: copied
    // like an assignment (before the callee's registers are reset).
    for (a, &prm) in args.iter().zip(&f.params) {
        if matches!(p.types.get(p.var(prm).ty), Type::Composite(_)) {
            enc.assign(st, &Expr::var(prm, p.var(prm).ty), a);
        }
    }
    let vals: Vec<_> = args
        .iter()
        .zip(&f.params)
        .filter(|(_, &prm)| !matches!(p.types.get(p.var(prm).ty), Type::Composite(_)))
        .map(|(a, &prm)| (Expr::var(prm, p.var(prm).ty), enc.eval(st, a)))
        .collect();
    // A new activation: locals, result and parameters start fresh.
    if let Some(b) = &f.body {
        for &l in b.locals.iter().chain(b.ret_var.iter()) {
            enc.forget_register(st, l);
        }
    }
    for &prm in &f.params {
        enc.forget_register(st, prm);
    }
    for (lhs, v) in vals {
        if matches!(p.types.get(lhs.ty), Type::Array { .. }) {
            // an array parameter is a pointer after adjustment; a
            // left-over array type is not modelled
            st.exact = false;
            st.sound = false;
            continue;
        }
        enc.write(st, &lhs, v);
    }
    Post::default()
}

/// Returning from `callee` to the call `op`: its result to the call's
/// left-hand side.
fn return_to_caller(
    enc: &Encoder<'_>,
    st: &mut SymState,
    op: &EdgeOp,
    callee: FuncId,
    p: &Program,
) -> Post {
    let EdgeOp::Call { lhs: Some(l), .. } = op else {
        return Post::default();
    };
    let rv = p.func(callee).body.as_ref().and_then(|b| b.ret_var);
    match rv {
        Some(r) => {
            let rhs = Expr::var(r, p.var(r).ty);
            Post::writing(enc.assign(st, l, &rhs))
        }
        None => {
            let v = enc.fresh(enc.width(l.ty));
            enc.write(st, l, v);
            Post::default()
        }
    }
}

/// How a call of a kernel function that gets pointers ended up treating
/// memory ([`pointer_writes`]).
enum PointerWrites {
    /// The call is done: its post.
    Done(Post),
    /// The call goes on as any external call.
    Continue {
        /// Its result is a length, taken as any non-negative value.
        length_result: bool,
        /// It is a copy from user memory that succeeded with arbitrary
        /// bytes.
        copied_input: bool,
    },
}

/// A call of a function outside the module (or without a body): fresh
/// result, NULL-or-fresh-object for allocators, memory havoc when it gets a
/// pointer, unless it is not known to `writes` through pointers and LDV's
/// assumptions are in force.
fn external_call(
    enc: &Encoder<'_>,
    st: &mut SymState,
    name: &str,
    kind: FunctionKind,
    writes: bool,
    lhs: Option<&Expr>,
    args: &[Expr],
) -> Post {
    let p = enc.p;
    let allocator = is_allocator(name);
    let gets_pointer = args
        .iter()
        .any(|a| matches!(p.types.get(a.ty), Type::Pointer(_) | Type::Array { .. }));
    let no_side_effects = matches!(kind, FunctionKind::Assume | FunctionKind::Defined);
    let mut length_result = false;
    // A copy from user memory that succeeded with arbitrary bytes.
    let mut copied_input = false;
    if !no_side_effects && gets_pointer && !allocator {
        match pointer_writes(enc, st, name, writes, lhs, args) {
            PointerWrites::Done(post) => return post,
            PointerWrites::Continue {
                length_result: l,
                copied_input: c,
            } => (length_result, copied_input) = (l, c),
        }
    }
    // Zeroed contents are modelled as arbitrary: exact in a path check only
    // as bytes the path must not read before it writes them (a clobber).
    let zeroed = allocator && (name.contains("zalloc") || name.contains("calloc"));
    let zeroed_bytes = zeroed
        .then(|| enc.recording().then(|| zeroed_size(enc, st, name, args)))
        .flatten()
        .flatten();
    if zeroed && zeroed_bytes.is_none() {
        st.exact = false;
    }
    // arguments are evaluated (an imprecise argument taints the path)
    for a in args {
        let _ = enc.eval(st, a);
    }
    let Some(l) = lhs else {
        return Post::default();
    };
    if allocator {
        let Allocation {
            value: v,
            object: obj,
            in_heap: c,
        } = enc.allocate(st);
        if let Some(len) = zeroed_bytes {
            // Small objects of a constant size are zeroed byte by byte.
            let n = crate::smt::fold::value(&len);
            if !n.is_some_and(|n| enc.fill(st, &obj, n, SpanContents::Zero)) {
                enc.note_clobber(&v, len);
            }
        }
        enc.write(st, l, v.clone());
        Post {
            constraint: Some(c),
            value: Some(v),
        }
    } else {
        let v = enc.fresh(enc.width(l.ty));
        enc.write(st, l, v.clone());
        let zero = BV::from_u64(0, v.get_size());
        let constraint = if copied_input {
            // Nothing left uncopied.
            Some(v.eq(&zero))
        } else {
            length_result.then(|| v.bvsge(&zero))
        };
        Post {
            constraint,
            value: Some(v),
        }
    }
}

/// What a body-less function `name` that gets pointers (and is no
/// allocator) does to memory: a small copy ([`Encoder::copy`]), a kernel
/// writer's span (a clobber on a path check, the span overwritten in the
/// analysis), or else all memory havocked unless LDV's assumptions keep it.
fn pointer_writes(
    enc: &Encoder<'_>,
    st: &mut SymState,
    name: &str,
    writes: bool,
    lhs: Option<&Expr>,
    args: &[Expr],
) -> PointerWrites {
    let mut length_result = false;
    let mut copied_input = false;
    let writer = Writer::of(name);
    if let Some(span) = writer.as_ref().and_then(|w| copied_span(enc, st, w, args)) {
        if enc.copy(st, &span.dst, &span.src, span.len) {
            for a in args {
                let _ = enc.eval(st, a);
            }
            let Some(l) = lhs else {
                return PointerWrites::Done(Post::default());
            };
            // The result is `dst`.
            let v = if enc.width(l.ty) == span.dst.get_size() {
                span.dst
            } else {
                enc.fresh(enc.width(l.ty))
            };
            enc.write(st, l, v.clone());
            return PointerWrites::Done(Post::writing(Some(v)));
        }
    }
    let clobber = match &writer {
        Some(w) if writes => clobbered_span(enc, st, w, args, lhs.is_some()),
        _ => None,
    };
    let clobber = clobber
        .filter(|c| !c.returns_dst || lhs.is_none_or(|l| enc.width(l.ty) == c.dst.get_size()));
    if let Some(c) = clobber {
        length_result = c.arbitrary_length;
        let n = crate::smt::fold::value(&c.len);
        if enc.recording() {
            copied_input = enc.user_input_in_force()
                && crate::smt::copies_from_user(name)
                && n.is_some_and(|n| enc.fill(st, &c.dst, n, SpanContents::Input));
            if !copied_input {
                enc.note_clobber(&c.dst, c.len);
            }
        } else {
            // Outside a path check, only the span changes; `memset(p, 0,
            // n)` zeroes it.
            let zeroes = writer.as_ref().is_some_and(|w| w.sets)
                && args.get(1).is_some_and(|v| {
                    let v = enc.eval(st, v);
                    crate::smt::fold::value(&v) == Some(0)
                });
            if !n.is_some_and(|n| enc.overwrite_span(st, &c.dst, n, zeroes)) {
                enc.havoc_shared_memory(st);
            }
        }
        if let (Some(l), true) = (lhs, c.returns_dst) {
            for a in args {
                let _ = enc.eval(st, a);
            }
            enc.write(st, l, c.dst.clone());
            return PointerWrites::Done(Post::writing(Some(c.dst)));
        }
    } else if writes || !enc.assume_ldv(LdvAssumption::ExternalKeepsMemory) {
        enc.havoc_shared_memory(st);
    }
    PointerWrites::Continue {
        length_result,
        copied_input,
    }
}

/// The size in bytes (as wide as an address) of the object a zeroing allocator returns:
/// `kzalloc(size, ...)`, `vzalloc(size)`, `devm_kzalloc(dev, size, ...)`;
/// `None` for another one (`kcalloc`, `calloc`: their product may wrap).
fn zeroed_size(enc: &Encoder<'_>, st: &mut SymState, name: &str, args: &[Expr]) -> Option<BV> {
    let k = match name {
        "kzalloc" | "vzalloc" => 0,
        "devm_kzalloc" => 1,
        _ => return None,
    };
    byte_count(enc, st, args.get(k)?)
}

/// The value of a byte-count argument as wide as an address
/// (zero-extended).
fn byte_count(enc: &Encoder<'_>, st: &mut SymState, a: &Expr) -> Option<BV> {
    let v = enc.eval(st, a);
    let (w, aw) = (v.get_size(), enc.address_bits());
    match w.cmp(&aw) {
        std::cmp::Ordering::Less => Some(v.zero_ext(aw - w)),
        std::cmp::Ordering::Equal => Some(v),
        std::cmp::Ordering::Greater => None,
    }
}

/// The most bytes (with the final NUL) `sprintf` writes for format `fmt`,
/// if it prints no string and takes no width from an argument: every
/// numeric or character conversion prints at most 24 characters (a 64-bit
/// octal number with its prefix and sign) or its width or precision.
fn format_bound(fmt: &str) -> Option<u64> {
    let b = fmt.as_bytes();
    let mut bound = 1u64;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            bound += 1;
            i += 1;
            continue;
        }
        i += 1;
        while i < b.len() && b"-+ #0".contains(&b[i]) {
            i += 1;
        }
        let number = |i: &mut usize| {
            let mut n = 0u64;
            while *i < b.len() && b[*i].is_ascii_digit() {
                n = n.saturating_mul(10).saturating_add(u64::from(b[*i] - b'0'));
                *i += 1;
            }
            n
        };
        let width = number(&mut i);
        let precision = if b.get(i) == Some(&b'.') {
            i += 1;
            number(&mut i)
        } else {
            0
        };
        while i < b.len() && b"hlLqjzt".contains(&b[i]) {
            i += 1;
        }
        match b.get(i)? {
            b'%' => bound += 1,
            // The kernel's `%p` extensions (`%pI6`, `%pS`, `%pV`, ...) print
            // names, addresses and nested formats: unbounded.
            b'p' if b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric) => return None,
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' | b'p' => {
                bound += width.max(precision.saturating_add(2)).max(24)
            }
            // Strings, widths from arguments, anything else: unbounded.
            _ => return None,
        }
        i += 1;
    }
    (bound <= 4096).then_some(bound)
}

/// What a kernel function that writes only through its first argument
/// writes, by its name (any `_` prefix and `builtin_` aside:
/// `__builtin_memcpy` is `memcpy`).
struct Writer {
    /// The argument that gives the byte count (`None`: a `sprintf`
    /// format, [`format_bound`]).
    len_arg: Option<usize>,
    /// Whether the function returns its first argument.
    returns_dst: bool,
    /// Whether its result is the length it wrote.
    length_result: bool,
    /// Whether it copies its second argument's bytes (`memcpy`, `memmove`).
    copies: bool,
    /// Whether it sets every byte to its second argument (`memset`).
    sets: bool,
}

impl Writer {
    fn of(name: &str) -> Option<Writer> {
        let base = name.trim_start_matches('_');
        let base = base.strip_prefix("builtin_").unwrap_or(base);
        let (len_arg, returns_dst, length_result) = match base {
            "memcpy" | "memmove" | "memset" | "strncpy" => (Some(2), true, false),
            // The result is what the user access left undone: arbitrary.
            "copy_from_user" | "copy_to_user" | "copy_in_user" => (Some(2), false, false),
            // `strlcat` appends within the `size` bytes from `dst`.
            "strlcpy" | "strlcat" => (Some(2), false, true),
            "snprintf" | "vsnprintf" | "scnprintf" | "vscnprintf" => (Some(1), false, true),
            "sprintf" | "vsprintf" => (None, false, true),
            _ => return None,
        };
        Some(Writer {
            len_arg,
            returns_dst,
            length_result,
            copies: matches!(base, "memcpy" | "memmove"),
            sets: base == "memset",
        })
    }
}

/// The bytes a copy ([`Writer::copies`]) copies.
struct CopiedSpan {
    dst: BV,
    src: BV,
    /// The length in bytes.
    len: u64,
}

/// The destination, source and constant length of a copy ([`Writer::copies`])
/// of at most [`super::MAX_FILL`] bytes, which [`Encoder::copy`] models
/// exactly.
fn copied_span(
    enc: &Encoder<'_>,
    st: &mut SymState,
    w: &Writer,
    args: &[Expr],
) -> Option<CopiedSpan> {
    if !w.copies || args.len() != 3 {
        return None;
    }
    let pointer = |a: &Expr| matches!(enc.p.types.get(a.ty), Type::Pointer(_));
    if !pointer(&args[0]) || !pointer(&args[1]) {
        return None;
    }
    let len = byte_count(enc, st, args.get(w.len_arg?)?)?;
    let n = crate::smt::fold::value(&len)?;
    if n > super::MAX_FILL {
        return None;
    }
    let dst = enc.eval(st, &args[0]);
    let src = enc.eval(st, &args[1]);
    let aw = enc.address_bits();
    (dst.get_size() == aw && src.get_size() == aw).then_some(CopiedSpan { dst, src, len: n })
}

/// The bytes a kernel function writes.
struct Clobber {
    dst: BV,
    /// As wide as an address.
    len: BV,
    /// Whether the function returns `dst` (else its result is arbitrary).
    returns_dst: bool,
    /// Whether its result is a length, used, taken as any non-negative
    /// value under LDV's assumptions.
    arbitrary_length: bool,
}

/// The bytes a kernel [`Writer`] writes: at most as many bytes from its
/// first argument as an argument (or a `sprintf` format, [`format_bound`])
/// says. Functions whose result
/// is the length of what they wrote (`snprintf`, `strlcpy`, ...) qualify
/// when the result is not used (`result_used` false), or under LDV's
/// assumptions, which take it as any non-negative value
/// ([`LdvAssumption::LengthResultArbitrary`]).
fn clobbered_span(
    enc: &Encoder<'_>,
    st: &mut SymState,
    w: &Writer,
    args: &[Expr],
    result_used: bool,
) -> Option<Clobber> {
    let Writer {
        len_arg,
        returns_dst,
        length_result,
        ..
    } = *w;
    if length_result && result_used && !enc.ldv_assumptions_in_force() {
        return None;
    }
    if args.len() < 2 || !matches!(enc.p.types.get(args[0].ty), Type::Pointer(_)) {
        return None;
    }
    let len = match len_arg {
        Some(k) => byte_count(enc, st, args.get(k)?)?,
        None => enc.caddr(format_bound(string_literal(enc.p, &args[1])?)?),
    };
    let dst = enc.eval(st, &args[0]);
    let arbitrary_length =
        length_result && result_used && enc.assume_ldv(LdvAssumption::LengthResultArbitrary);
    Some(Clobber {
        dst,
        len,
        returns_dst,
        arbitrary_length,
    })
}

/// The text of a string literal argument (`"..."`, `&"..."[0]`, casts).
fn string_literal<'a>(p: &'a Program, e: &Expr) -> Option<&'a str> {
    match &e.kind {
        ExprKind::StrLit(i) => p.strings.get(*i as usize).map(String::as_str),
        ExprKind::Cast(a, _) | ExprKind::AddrOf(a) => string_literal(p, a),
        ExprKind::Index(a, i) if matches!(i.kind, ExprKind::IntConst(0)) => string_literal(p, a),
        _ => None,
    }
}

/// The join of two symbolic states reached under the path conditions `ga`
/// and `gb`: values become `ite(ga, a, b)`.
pub fn merge(ga: &Bool, a: &SymState, b: &SymState) -> SymState {
    let mut regs = a.regs.clone();
    for (v, tb) in &b.regs {
        match regs.get(v) {
            Some(ta) if ta == tb => {}
            Some(ta) if ta.get_size() == tb.get_size() => {
                let t = ga.ite(ta, tb);
                regs.insert(*v, t);
            }
            Some(_) => {}
            None => {
                let ta = Encoder::register_symbol(*v, tb.get_size());
                regs.insert(*v, ga.ite(&ta, tb));
            }
        }
    }
    for (v, ta) in &a.regs {
        if !b.regs.contains_key(v) {
            let tb = Encoder::register_symbol(*v, ta.get_size());
            regs.insert(*v, ga.ite(ta, &tb));
        }
    }
    let mem = a
        .mem
        .iter()
        .zip(&b.mem)
        .map(|(x, y)| {
            if x == y {
                x.clone()
            } else {
                ga.ite::<Array>(x, y)
            }
        })
        .collect();
    let heap_top = match (&a.heap_top, &b.heap_top) {
        (None, None) => None,
        (x, y) => {
            // One of them is a term, of the address width.
            let bits = x.as_ref().or(y.as_ref()).map_or(64, |t| t.get_size());
            let top = || SymState::heap_top_symbol(bits);
            let (x, y) = (x.clone().unwrap_or_else(top), y.clone().unwrap_or_else(top));
            Some(if x == y { x } else { ga.ite(&x, &y) })
        }
    };
    SymState {
        regs,
        mem,
        exact: a.exact && b.exact,
        sound: a.sound && b.sound,
        havocked: a.havocked || b.havocked,
        heap_top,
    }
}

#[cfg(test)]
mod tests {
    use super::format_bound;

    #[test]
    fn sprintf_formats_without_strings_have_a_bound() {
        // "dev" + one conversion of at most 24 characters + NUL.
        assert_eq!(format_bound("dev%d"), Some(3 + 24 + 1));
        assert_eq!(format_bound("%%"), Some(2));
        assert_eq!(format_bound("%08lx-%.30u"), Some(24 + 1 + 32 + 1));
        assert_eq!(format_bound("%64d"), Some(64 + 1));
        assert_eq!(format_bound("%p."), Some(24 + 1 + 1));
        for unbounded in [
            "%s", "name %s", "%*d", "%.*d", "%f", "%n", "%", "%pI6", "%pS",
        ] {
            assert_eq!(format_bound(unbounded), None, "{unbounded}");
        }
        assert_eq!(format_bound(&"x".repeat(5000)), None);
    }
}
