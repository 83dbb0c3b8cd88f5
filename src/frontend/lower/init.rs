//! Initialisers: scalar, aggregate (designated, nested), string literals, and
//! the implicit zero-initialisation of globals and partially initialised aggregates.

use lang_c::ast::*;
use lang_c::span::Node;

use super::Lowerer;
use crate::cfa::EdgeOp;
use crate::ir::{Expr, ExprKind, IntKind, Type};
use crate::Result;

/// Aggregates with more scalar leaves than this are not zero-filled
/// element by element (their unmentioned parts stay unconstrained).
pub const MAX_INIT_LEAVES: u64 = 256;

/// The bytes of a string literal (its parts concatenated, escapes
/// decoded, without the terminating NUL).
pub(super) fn string_bytes(parts: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        let text = p.trim_start_matches(['L', 'u', 'U', '8']);
        let text = text.strip_prefix('"').unwrap_or(text);
        let text = text.strip_suffix('"').unwrap_or(text);
        let mut chars = text.bytes().peekable();
        while let Some(c) = chars.next() {
            if c != b'\\' {
                out.push(c);
                continue;
            }
            let Some(e) = chars.next() else { break };
            let simple = match e {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'r' => Some(b'\r'),
                b'a' => Some(7),
                b'b' => Some(8),
                b'f' => Some(12),
                b'v' => Some(11),
                b'e' => Some(27),
                b'x' | b'0'..=b'7' => None,
                other => Some(other),
            };
            if let Some(b) = simple {
                out.push(b);
                continue;
            }
            let (radix, mut v, max) = if e == b'x' {
                (16, 0u32, 8)
            } else {
                (8, (e - b'0') as u32, 2)
            };
            let mut n = 0;
            while let Some(d) = chars.peek().and_then(|&d| (d as char).to_digit(radix)) {
                if n == max {
                    break;
                }
                v = v.wrapping_mul(radix).wrapping_add(d);
                chars.next();
                n += 1;
            }
            out.push(v as u8);
        }
    }
    out
}

impl<'a> Lowerer<'a> {
    /// The type of a variable declared with `ty` and initialised by
    /// `init`: an array of unknown length gets the length its initialiser
    /// gives (C11 6.7.9p22): a string literal's bytes and its NUL, or one
    /// past the last element a list initialises.
    pub(super) fn completed_type(
        &mut self,
        ty: crate::ir::TypeId,
        init: Option<&'a Node<Initializer>>,
    ) -> Result<crate::ir::TypeId> {
        let (Type::Array { elem, len: None }, Some(init)) = (self.p.types.get(ty).clone(), init)
        else {
            return Ok(ty);
        };
        let string = |e: &Node<Expression>| match &e.node {
            Expression::StringLiteral(s) => Some(string_bytes(&s.node).len() as u64 + 1),
            _ => None,
        };
        let n = match &init.node {
            Initializer::Expression(e) => match string(e) {
                Some(n) => n,
                None => return Ok(ty),
            },
            Initializer::List(items) => match items.as_slice() {
                [one]
                    if one.node.designation.is_empty()
                        && self.p.types.size_of(elem) == 1
                        && matches!(&one.node.initializer.node, Initializer::Expression(e) if string(e).is_some()) =>
                {
                    match &one.node.initializer.node {
                        Initializer::Expression(e) => string(e).unwrap_or(1),
                        Initializer::List(_) => 1,
                    }
                }
                _ => {
                    let (mut next, mut len) = (0u64, 0u64);
                    for item in items {
                        match item.node.designation.first().map(|d| &d.node) {
                            Some(Designator::Index(ix)) => {
                                next = self.const_eval(ix)?.unwrap_or(0).max(0) as u64;
                            }
                            Some(Designator::Range(r)) => {
                                next = self.const_eval(&r.node.to)?.unwrap_or(0).max(0) as u64;
                            }
                            _ => {}
                        }
                        next += 1;
                        len = len.max(next);
                    }
                    len
                }
            },
        };
        Ok(self.p.types.intern(Type::Array { elem, len: Some(n) }))
    }

    /// Initialises `target`; `zero` asks for zero-filling what the initialiser
    /// does not mention (static storage, and aggregates with an initialiser).
    pub(super) fn initialize(
        &mut self,
        target: &Expr,
        init: Option<&'a Node<Initializer>>,
        zero: bool,
    ) -> Result<()> {
        match init {
            None => {
                if zero {
                    self.zero_fill(target);
                }
                Ok(())
            }
            Some(i) => match &i.node {
                Initializer::Expression(e) => self.init_expr(target, e),
                Initializer::List(items) => self.init_list(target, items, true),
            },
        }
    }

    fn init_expr(&mut self, target: &Expr, e: &'a Node<Expression>) -> Result<()> {
        let pos = self.pos(&e.span);
        if let (Type::Array { elem, len }, Expression::StringLiteral(s)) =
            (self.p.types.get(target.ty).clone(), &e.node)
        {
            let bytes = string_bytes(&s.node);
            let n = len.unwrap_or(bytes.len() as u64 + 1).min(MAX_INIT_LEAVES);
            let long = self.p.types.int(IntKind::Long);
            for k in 0..n {
                let v = bytes.get(k as usize).copied().unwrap_or(0) as i128;
                let lv = Expr::new(
                    ExprKind::Index(
                        Box::new(target.clone()),
                        Box::new(Expr::int(k as i128, long)),
                    ),
                    elem,
                );
                let rhs = Expr::int(v, elem);
                self.emit(EdgeOp::Assign { lhs: lv, rhs }, pos);
            }
            return Ok(());
        }
        if let Expression::Call(c) = &e.node {
            if self.p.types.is_scalar(target.ty) {
                self.call(c, Some(target.clone()), true, pos)?;
                return Ok(());
            }
        }
        let v = self.rvalue(e)?;
        let v = self.convert(v, target.ty);
        self.emit(
            EdgeOp::Assign {
                lhs: target.clone(),
                rhs: v,
            },
            pos,
        );
        Ok(())
    }

    /// `{ ... }` initialiser lists.
    pub(super) fn init_list(
        &mut self,
        target: &Expr,
        items: &'a [Node<InitializerListItem>],
        zero: bool,
    ) -> Result<()> {
        if zero {
            self.zero_fill(target);
        }
        let ty = self.p.types.get(target.ty).clone();
        let pos = items.first().map(|i| self.pos(&i.span)).unwrap_or_default();
        let long = self.p.types.int(IntKind::Long);
        let mut next: u64 = 0;
        for item in items {
            // The designated (or next) sub-object.
            let sub = match self.designated(target, item, long, &mut next)? {
                Some(s) => s,
                None => match self.positional(target, &ty, long, &mut next) {
                    Some(s) => s,
                    None => continue,
                },
            };
            // Brace elision (a scalar for an aggregate sub-object) is not followed
            // element by element: the whole target becomes unconstrained.
            let elided = matches!(&item.node.initializer.node, Initializer::Expression(e)
                if !matches!(e.node, Expression::StringLiteral(_))
                    && matches!(self.p.types.get(sub.ty), Type::Array { .. } | Type::Composite(_))
                    && !self.expr_has_type(e, sub.ty));
            if elided {
                self.emit(
                    EdgeOp::Havoc {
                        lvalues: vec![target.clone()],
                        reason: crate::ir::HavocReason::ElidedBraces,
                    },
                    pos,
                );
                return Ok(());
            }
            self.initialize(&sub, Some(&item.node.initializer), false)?;
        }
        Ok(())
    }

    /// The sub-object of `target` an item's designators (`.m`, `[i]`,
    /// `[from ... to]`) name, `None` for an item without designators; the
    /// first designator sets `next`, the position a following item without
    /// designators initialises. A range initialises the elements after its
    /// first here (the first is the sub-object returned).
    fn designated(
        &mut self,
        target: &Expr,
        item: &'a Node<InitializerListItem>,
        long: crate::ir::TypeId,
        next: &mut u64,
    ) -> Result<Option<Expr>> {
        let mut sub = None;
        let mut cur_ty = target.ty;
        let mut base = target.clone();
        for (k, d) in item.node.designation.iter().enumerate() {
            let e = match (&d.node, self.p.types.get(cur_ty).clone()) {
                (Designator::Member(id), Type::Composite(c)) => {
                    let comp = self.p.types.composite(c);
                    let Some(i) = comp
                        .fields
                        .iter()
                        .position(|f| f.name.as_deref() == Some(&id.node.name))
                    else {
                        return Err(self.unsupported(
                            &d.span,
                            &format!("unknown member `{}` in initialiser", id.node.name),
                            "check the input",
                        ));
                    };
                    let fty = comp.fields[i].ty;
                    if k == 0 {
                        *next = i as u64 + 1;
                    }
                    Expr::new(ExprKind::Member(Box::new(base.clone()), i as u32), fty)
                }
                (Designator::Index(ix), Type::Array { elem, .. }) => {
                    let n = self.const_eval(ix)?.unwrap_or(0);
                    if k == 0 {
                        *next = n as u64 + 1;
                    }
                    Expr::new(
                        ExprKind::Index(Box::new(base.clone()), Box::new(Expr::int(n, long))),
                        elem,
                    )
                }
                (Designator::Range(r), Type::Array { elem, .. }) => {
                    // `[from ... to] = v`: every element of the range gets `v`.
                    let n = self.const_eval(&r.node.from)?.unwrap_or(0);
                    let to = self.const_eval(&r.node.to)?.unwrap_or(n);
                    if k == 0 {
                        *next = to as u64 + 1;
                    }
                    for m in n + 1..=to.min(n + MAX_INIT_LEAVES as i128) {
                        let e = Expr::new(
                            ExprKind::Index(Box::new(base.clone()), Box::new(Expr::int(m, long))),
                            elem,
                        );
                        self.initialize(&e, Some(&item.node.initializer), false)?;
                    }
                    Expr::new(
                        ExprKind::Index(Box::new(base.clone()), Box::new(Expr::int(n, long))),
                        elem,
                    )
                }
                _ => {
                    return Err(self.unsupported(
                        &d.span,
                        "designator of the wrong kind",
                        "check the input",
                    ))
                }
            };
            cur_ty = e.ty;
            base = e.clone();
            sub = Some(e);
        }
        Ok(sub)
    }

    /// The sub-object at position `next` of `target` (of type `ty`), for an
    /// item without designators, advancing `next`; `None` past the last
    /// member or element (a scalar takes one value).
    fn positional(
        &self,
        target: &Expr,
        ty: &Type,
        long: crate::ir::TypeId,
        next: &mut u64,
    ) -> Option<Expr> {
        let k = *next;
        *next += 1;
        match ty {
            Type::Composite(c) => {
                let comp = self.p.types.composite(*c);
                // Unions initialise their first member.
                let f = comp.fields.get(k as usize)?;
                Some(Expr::new(
                    ExprKind::Member(Box::new(target.clone()), k as u32),
                    f.ty,
                ))
            }
            Type::Array { elem, len } => {
                if len.is_some_and(|l| k >= l) {
                    return None;
                }
                Some(Expr::new(
                    ExprKind::Index(
                        Box::new(target.clone()),
                        Box::new(Expr::int(k as i128, long)),
                    ),
                    *elem,
                ))
            }
            _ => {
                // `int x = { 1 };`
                if k > 0 {
                    return None;
                }
                Some(target.clone())
            }
        }
    }

    fn expr_has_type(&mut self, e: &'a Node<Expression>, ty: crate::ir::TypeId) -> bool {
        self.dry += 1;
        let r = self.rvalue_nodecay(e);
        self.dry -= 1;
        r.map(|x| x.ty == ty).unwrap_or(false)
    }

    /// Assigns zero to every scalar leaf of `target` (if there are not too many).
    pub(super) fn zero_fill(&mut self, target: &Expr) {
        if self.leaves(target.ty) > MAX_INIT_LEAVES {
            return;
        }
        let pos = match target.kind {
            ExprKind::Var(v) => self.p.var(v).pos,
            _ => self.cur.map(|l| self.p.loc(l).pos).unwrap_or_default(),
        };
        self.zero_rec(target.clone(), pos);
    }

    fn leaves(&self, ty: crate::ir::TypeId) -> u64 {
        match self.p.types.get(ty) {
            Type::Array { elem, len } => len.unwrap_or(0).saturating_mul(self.leaves(*elem)),
            Type::Composite(c) => {
                let comp = self.p.types.composite(*c);
                if comp.is_union {
                    comp.fields.first().map(|f| self.leaves(f.ty)).unwrap_or(0)
                } else {
                    comp.fields
                        .iter()
                        .map(|f| self.leaves(f.ty))
                        .fold(0u64, |a, b| a.saturating_add(b))
                }
            }
            Type::Int(_) | Type::Pointer(_) | Type::Float(_) => 1,
            _ => 0,
        }
    }

    fn zero_rec(&mut self, e: Expr, pos: crate::ir::SrcPos) {
        match self.p.types.get(e.ty).clone() {
            Type::Array { elem, len } => {
                let long = self.p.types.int(IntKind::Long);
                for k in 0..len.unwrap_or(0) {
                    let sub = Expr::new(
                        ExprKind::Index(Box::new(e.clone()), Box::new(Expr::int(k as i128, long))),
                        elem,
                    );
                    self.zero_rec(sub, pos);
                }
            }
            Type::Composite(c) => {
                let comp = self.p.types.composite(c).clone();
                let n = if comp.is_union {
                    comp.fields.len().min(1)
                } else {
                    comp.fields.len()
                };
                for (i, f) in comp.fields.iter().take(n).enumerate() {
                    let sub = Expr::new(ExprKind::Member(Box::new(e.clone()), i as u32), f.ty);
                    self.zero_rec(sub, pos);
                }
            }
            Type::Int(_) | Type::Pointer(_) => {
                let rhs = Expr::int(0, e.ty);
                self.emit(EdgeOp::Assign { lhs: e, rhs }, pos);
            }
            Type::Float(_) => {
                let rhs = Expr::new(ExprKind::FloatConst(0f64.to_bits()), e.ty);
                self.emit(EdgeOp::Assign { lhs: e, rhs }, pos);
            }
            _ => {}
        }
    }
}
