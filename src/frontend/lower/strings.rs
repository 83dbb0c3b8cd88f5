//! String literals: objects whose bytes are known. The start function
//! writes the bytes of the literals the module may read: first those in
//! conditions, values, arguments of the module's functions and returns,
//! and those a variable is assigned or initialised with; then those stored
//! in an aggregate (driver names, debug and branch-profiling descriptors,
//! mostly read by kernel code only); up to [`MAX_LITERAL_BYTES`] in all.
//! Literals only passed straight to a function without a body (`printk`
//! formats) and those beyond the limit keep unconstrained bytes in the
//! analysis, and are listed as
//! [`Program::unmodelled_literals`](crate::cfa::Program): the exact path
//! check of an error path that reads them adds their bytes (an error path
//! needing other bytes there is no counterexample). `strlen` of a literal
//! is its length; of another string, a value the encoding does not model.

use lang_c::ast::*;
use lang_c::span::Node;

use super::init::string_bytes;
use super::Lowerer;
use crate::cfa::EdgeOp;
use crate::hash::HashSet;
use crate::ir::{Expr, ExprKind, FunctionKind, IntKind, SrcPos, Type};
use crate::Result;

/// The start function writes at most this many literal bytes; the bytes of
/// literals beyond stay unconstrained in the analysis (see the module
/// documentation).
pub const MAX_LITERAL_BYTES: usize = 2048;

impl<'a> Lowerer<'a> {
    /// A string literal object: `text` as written (escapes kept), `bytes`
    /// decoded, without the terminating NUL.
    pub(super) fn intern_literal(&mut self, text: String, bytes: Vec<u8>) -> Expr {
        let len = bytes.len() as u64 + 1;
        self.p.strings.push(text);
        self.literal_bytes.push(bytes);
        let ch = self.p.types.int(IntKind::Char);
        let ty = self.p.types.intern(Type::Array {
            elem: ch,
            len: Some(len),
        });
        Expr::new(ExprKind::StrLit(self.p.strings.len() as u32 - 1), ty)
    }

    /// `strlen(s)`: the length of a literal `s`; of other strings a value
    /// mpv does not model ([`ExprKind::Strlen`]).
    pub(super) fn strlen(&mut self, args: &'a [Node<Expression>]) -> Result<Option<Expr>> {
        let ulong = self.ulong_ty();
        if let [arg] = args {
            if let Some(parts) = literal(&arg.node) {
                let bytes = string_bytes(parts);
                let n = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                return Ok(Some(Expr::int(n as i128, ulong)));
            }
            let s = self.rvalue(arg)?;
            return Ok(Some(Expr::new(ExprKind::Strlen(Box::new(s)), ulong)));
        }
        for a in args {
            self.effect(a)?;
        }
        Ok(Some(Expr::new(
            ExprKind::Nondet(crate::ir::NondetReason::StrlenOfNonLiteral),
            ulong,
        )))
    }

    /// Writes the bytes of the literals the module may read, in the start
    /// function, up to [`MAX_LITERAL_BYTES`] in all.
    pub(super) fn initialise_literals(&mut self, pos: SrcPos) {
        let (first, stored) = self.literals_read();
        let read: Vec<u32> = first.into_iter().chain(stored).collect();
        let long = self.p.types.int(IntKind::Long);
        let ch = self.p.types.int(IntKind::Char);
        let mut budget = MAX_LITERAL_BYTES;
        let mut written = vec![false; self.literal_bytes.len()];
        for i in read {
            let bytes = self.literal_bytes[i as usize].clone();
            if bytes.len() + 1 > budget {
                continue;
            }
            budget -= bytes.len() + 1;
            written[i as usize] = true;
            let ty = self.p.types.intern(Type::Array {
                elem: ch,
                len: Some(bytes.len() as u64 + 1),
            });
            let lit = Expr::new(ExprKind::StrLit(i), ty);
            for (k, b) in bytes.iter().chain(std::iter::once(&0)).enumerate() {
                let lhs = Expr::new(
                    ExprKind::Index(Box::new(lit.clone()), Box::new(Expr::int(k as i128, long))),
                    ch,
                );
                let rhs = Expr::int(i128::from(*b), ch);
                self.emit(EdgeOp::Assign { lhs, rhs }, pos);
            }
        }
        self.p.unmodelled_literals = (0..written.len())
            .filter(|&i| !written[i])
            .map(|i| (i as u32, self.literal_bytes[i].clone()))
            .collect();
    }

    /// The literals the module may read (see the module documentation), in
    /// order of use, then the other literals stored in aggregates.
    fn literals_read(&self) -> (Vec<u32>, Vec<u32>) {
        let mut seen = HashSet::default();
        let mut out = Vec::new();
        let mut note = |e: &Expr| {
            e.walk(&mut |x| {
                if let ExprKind::StrLit(i) = x.kind {
                    if seen.insert(i) {
                        out.push(i);
                    }
                }
            })
        };
        let mut stored = Vec::new();
        for edge in &self.p.edges {
            match &edge.op {
                EdgeOp::Call { lhs, callee, args } => {
                    lhs.iter().for_each(&mut note);
                    let external = self.p.func(*callee).kind != FunctionKind::Defined;
                    for a in args {
                        if !(external && literal_argument(a)) {
                            note(a);
                        }
                    }
                }
                EdgeOp::CallUnknown { lhs, target, args } => {
                    lhs.iter().chain([target]).chain(args).for_each(&mut note);
                }
                EdgeOp::Assume { cond, .. } => note(cond),
                // A literal stored in an aggregate (driver names, debug and
                // branch-profiling descriptors) is mostly read by kernel
                // code only: it comes last.
                EdgeOp::Assign { lhs, rhs } => {
                    note(lhs);
                    if matches!(lhs.kind, ExprKind::Var(_)) {
                        note(rhs);
                    } else {
                        stored.push(rhs);
                    }
                }
                EdgeOp::Return { value } => value.iter().for_each(&mut note),
                EdgeOp::Havoc { lvalues, .. } => lvalues.iter().for_each(&mut note),
                EdgeOp::Skip => {}
            }
        }
        let mut rest = Vec::new();
        for e in stored {
            e.walk(&mut |x| {
                if let ExprKind::StrLit(i) = x.kind {
                    if seen.insert(i) {
                        rest.push(i);
                    }
                }
            })
        }
        (out, rest)
    }
}

/// Whether an argument is a literal (through casts, `&`, `[0]`).
fn literal_argument(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::StrLit(_) => true,
        ExprKind::Cast(a, _) | ExprKind::AddrOf(a) => literal_argument(a),
        ExprKind::Index(a, i) => matches!(i.kind, ExprKind::IntConst(0)) && literal_argument(a),
        _ => false,
    }
}

/// The parts of a string literal expression, through casts.
fn literal(e: &Expression) -> Option<&[String]> {
    match e {
        Expression::StringLiteral(s) => Some(&s.node),
        Expression::Cast(c) => literal(&c.node.expression.node),
        _ => None,
    }
}
