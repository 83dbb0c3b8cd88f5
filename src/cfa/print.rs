//! C-like text of expressions and edge operations. The text is deterministic:
//! specification sets are keyed by it (`&dev->lock`), and reports and
//! counterexamples show it.

use crate::cfa::{EdgeOp, Program};
use crate::ir::{Expr, ExprKind, Type, UnaryOp};

/// The C text of an expression (source names of variables).
pub fn expr_to_string(p: &Program, e: &Expr) -> String {
    let mut s = String::new();
    write_expr(p, e, &mut s, 0);
    s
}

/// The edges whose operation's text is `text`, in the order of their ids
/// (tests name edges by their text).
#[cfg(test)]
pub fn edges_printed(p: &Program, text: &str) -> Vec<crate::cfa::EdgeId> {
    (0..p.edges.len())
        .map(|i| crate::cfa::EdgeId(i as u32))
        .filter(|&e| op_to_string(p, &p.edge(e).op) == text)
        .collect()
}

/// The C text of an edge operation.
pub fn op_to_string(p: &Program, op: &EdgeOp) -> String {
    let args = |a: &[Expr]| {
        a.iter()
            .map(|x| expr_to_string(p, x))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lhs = |l: &Option<Expr>| {
        l.as_ref()
            .map(|l| format!("{} = ", expr_to_string(p, l)))
            .unwrap_or_default()
    };
    match op {
        EdgeOp::Skip => String::new(),
        EdgeOp::Assume { cond, truth: true } => format!("[{}]", expr_to_string(p, cond)),
        EdgeOp::Assume { cond, truth: false } => format!("[!({})]", expr_to_string(p, cond)),
        EdgeOp::Assign { lhs, rhs } => {
            format!("{} = {};", expr_to_string(p, lhs), expr_to_string(p, rhs))
        }
        EdgeOp::Call {
            lhs: l,
            callee,
            args: a,
        } => format!("{}{}({});", lhs(l), p.func(*callee).name, args(a)),
        EdgeOp::CallUnknown {
            lhs: l,
            target,
            args: a,
        } => {
            format!(
                "{}(*{})({}); /* unknown target */",
                lhs(l),
                expr_to_string(p, target),
                args(a)
            )
        }
        EdgeOp::Return { value: Some(v) } => format!("return {};", expr_to_string(p, v)),
        EdgeOp::Return { value: None } => "return;".to_string(),
        EdgeOp::Havoc { lvalues, reason } => format!("havoc({}); /* {reason} */", args(lvalues)),
    }
}

/// Binding strength, higher binds tighter.
fn prec(e: &Expr) -> u8 {
    use crate::ir::BinaryOp as B;
    match &e.kind {
        ExprKind::Binary(op, ..) => match op {
            B::LogOr => 1,
            B::LogAnd => 2,
            B::BitOr => 3,
            B::BitXor => 4,
            B::BitAnd => 5,
            B::Eq | B::Ne => 6,
            B::Lt | B::Le | B::Gt | B::Ge => 7,
            B::Shl | B::Shr => 8,
            B::Add | B::Sub => 9,
            B::Mul | B::Div | B::Rem => 10,
        },
        ExprKind::Cond(..) => 0,
        ExprKind::Unary(..) | ExprKind::Cast(..) | ExprKind::Deref(_) | ExprKind::AddrOf(_) => 11,
        _ => 12,
    }
}

fn write_expr(p: &Program, e: &Expr, s: &mut String, outer: u8) {
    let mine = prec(e);
    let paren = mine < outer;
    if paren {
        s.push('(');
    }
    match &e.kind {
        ExprKind::IntConst(v) => {
            s.push_str(&v.to_string());
            if let Type::Int(k) = p.types.get(e.ty) {
                if !k.signed()
                    && *k != crate::ir::IntKind::Bool
                    && *k != crate::ir::IntKind::UChar
                    && *k != crate::ir::IntKind::UShort
                {
                    s.push('U');
                }
            }
        }
        ExprKind::FloatConst(bits) => s.push_str(&format!("{:?}", f64::from_bits(*bits))),
        ExprKind::StrLit(i) => {
            s.push('"');
            s.push_str(p.strings.get(*i as usize).map(String::as_str).unwrap_or(""));
            s.push('"');
        }
        ExprKind::Var(v) => s.push_str(&p.var(*v).source_name),
        ExprKind::Func(f) => s.push_str(&p.func(*f).name),
        ExprKind::Unary(op, a) => {
            s.push_str(match op {
                UnaryOp::Neg => "-",
                UnaryOp::BitNot => "~",
                UnaryOp::LogNot => "!",
            });
            write_expr(p, a, s, 11);
        }
        ExprKind::Binary(op, a, b) => {
            write_expr(p, a, s, mine);
            s.push(' ');
            s.push_str(op.symbol());
            s.push(' ');
            write_expr(p, b, s, mine + 1);
        }
        ExprKind::Cast(a, _) => {
            s.push('(');
            s.push_str(&type_to_string(p, e.ty));
            s.push(')');
            write_expr(p, a, s, 11);
        }
        ExprKind::Deref(a) => {
            s.push('*');
            write_expr(p, a, s, 11);
        }
        ExprKind::AddrOf(a) => {
            // `&a[0]` of a decayed array prints as the array.
            s.push('&');
            write_expr(p, a, s, 11);
        }
        ExprKind::Member(a, i) => {
            let name = field_name(p, a.ty, *i);
            if let ExprKind::Deref(ptr) = &a.kind {
                write_expr(p, ptr, s, 12);
                s.push_str("->");
            } else {
                write_expr(p, a, s, 12);
                s.push('.');
            }
            s.push_str(&name);
        }
        ExprKind::Index(a, i) => {
            write_expr(p, a, s, 12);
            s.push('[');
            write_expr(p, i, s, 0);
            s.push(']');
        }
        ExprKind::Cond(c, a, b) => {
            write_expr(p, c, s, 1);
            s.push_str(" ? ");
            write_expr(p, a, s, 1);
            s.push_str(" : ");
            write_expr(p, b, s, 0);
        }
        ExprKind::Strlen(a) => {
            s.push_str("strlen(");
            write_expr(p, a, s, 0);
            s.push(')');
        }
        ExprKind::Nondet(why) => {
            s.push_str("__nondet(/* ");
            s.push_str(why.text());
            s.push_str(" */)");
        }
    }
    if paren {
        s.push(')');
    }
}

fn field_name(p: &Program, ty: crate::ir::TypeId, i: u32) -> String {
    match p.types.get(ty) {
        Type::Composite(c) => p
            .types
            .composite(*c)
            .fields
            .get(i as usize)
            .and_then(|f| f.name.clone())
            .unwrap_or_else(|| format!("__anon{i}")),
        _ => format!("__field{i}"),
    }
}

/// A short C spelling of a type.
pub fn type_to_string(p: &Program, t: crate::ir::TypeId) -> String {
    use crate::ir::IntKind as K;
    match p.types.get(t) {
        Type::Void => "void".into(),
        Type::Int(k) => match k {
            K::Bool => "_Bool",
            K::Char => "char",
            K::SChar => "signed char",
            K::UChar => "unsigned char",
            K::Short => "short",
            K::UShort => "unsigned short",
            K::Int => "int",
            K::UInt => "unsigned int",
            K::Long => "long",
            K::ULong => "unsigned long",
            K::LongLong => "long long",
            K::ULongLong => "unsigned long long",
            K::Int128 => "__int128",
            K::UInt128 => "unsigned __int128",
        }
        .into(),
        Type::Float(32) => "float".into(),
        Type::Float(64) => "double".into(),
        Type::Float(_) => "long double".into(),
        Type::Pointer(to) => format!("{} *", type_to_string(p, *to)),
        Type::Array { elem, len } => format!(
            "{}[{}]",
            type_to_string(p, *elem),
            len.map(|l| l.to_string()).unwrap_or_default()
        ),
        Type::Composite(c) => {
            let comp = p.types.composite(*c);
            format!(
                "{} {}",
                if comp.is_union { "union" } else { "struct" },
                comp.name
            )
        }
        Type::Function { .. } => "fn".into(),
    }
}
