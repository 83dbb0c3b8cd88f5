//! Types: declaration specifiers, declarators, struct/union layout (under the data model), enums.

use lang_c::ast::*;
use lang_c::span::Node;

use super::layout::{self, Member, Rules};
use super::{attrs, Lowerer, Symbol, Tag};
use crate::ir::{Composite, Expr, ExprKind, Field, IntKind, Type, TypeId};
use crate::Result;

/// The relevant parts of a list of declaration specifiers. The type
/// specifiers stay in the AST (no copy per declaration): [`Specs::types`].
#[derive(Default)]
pub(super) struct Specs<'a> {
    decl: &'a [Node<DeclarationSpecifier>],
    qualifiers: &'a [Node<SpecifierQualifier>],
    pub typedef: bool,
    pub is_static: bool,
    pub is_extern: bool,
}

impl<'a> Specs<'a> {
    pub fn from_decl(specs: &'a [Node<DeclarationSpecifier>]) -> Self {
        let mut s = Specs {
            decl: specs,
            ..Specs::default()
        };
        for sp in specs {
            if let DeclarationSpecifier::StorageClass(c) = &sp.node {
                match c.node {
                    StorageClassSpecifier::Typedef => s.typedef = true,
                    StorageClassSpecifier::Static => s.is_static = true,
                    StorageClassSpecifier::Extern => s.is_extern = true,
                    _ => {}
                }
            }
        }
        s
    }

    pub fn from_qualifiers(specs: &'a [Node<SpecifierQualifier>]) -> Self {
        Specs {
            qualifiers: specs,
            ..Specs::default()
        }
    }

    /// The attributes written after the type specifier `t`: for a struct
    /// or union defined there, the attributes of that type.
    pub fn attributes_after(&self, t: &Node<TypeSpecifier>) -> Vec<&'a Attribute> {
        let after_decl = self
            .decl
            .iter()
            .position(|sp| matches!(&sp.node, DeclarationSpecifier::TypeSpecifier(x) if std::ptr::eq(x, t)))
            .map(|i| attrs::decl_spec_attributes(&self.decl[i + 1..]));
        let after_qualifiers = self
            .qualifiers
            .iter()
            .position(
                |sp| matches!(&sp.node, SpecifierQualifier::TypeSpecifier(x) if std::ptr::eq(x, t)),
            )
            .map(|i| attrs::qualifier_attributes(&self.qualifiers[i + 1..]));
        after_decl.or(after_qualifiers).unwrap_or_default()
    }

    /// The type specifiers, in order.
    pub fn types(&self) -> impl Iterator<Item = &'a Node<TypeSpecifier>> + 'a {
        let decl = self.decl.iter().filter_map(|sp| match &sp.node {
            DeclarationSpecifier::TypeSpecifier(t) => Some(t),
            _ => None,
        });
        let qualifiers = self.qualifiers.iter().filter_map(|sp| match &sp.node {
            SpecifierQualifier::TypeSpecifier(t) => Some(t),
            _ => None,
        });
        decl.chain(qualifiers)
    }
}

impl<'a> Lowerer<'a> {
    pub(super) fn int_ty(&mut self) -> TypeId {
        self.p.types.int(IntKind::Int)
    }

    pub(super) fn ulong_ty(&mut self) -> TypeId {
        self.p.types.int(IntKind::ULong)
    }

    /// The type named by the type specifiers.
    pub(super) fn base_type(&mut self, specs: &Specs<'a>) -> Result<TypeId> {
        let (
            mut longs,
            mut short,
            mut unsigned,
            mut signed,
            mut char_,
            mut float,
            mut double,
            mut bool_,
        ) = (0, false, false, false, false, false, false, false);
        let mut named: Option<TypeId> = None;
        for t in specs.types() {
            match &t.node {
                TypeSpecifier::Void => named = Some(self.p.types.void()),
                TypeSpecifier::Char => char_ = true,
                TypeSpecifier::Short => short = true,
                // `int` is the default of the other specifiers.
                TypeSpecifier::Int => {}
                TypeSpecifier::Long => longs += 1,
                TypeSpecifier::Float => float = true,
                TypeSpecifier::Double => double = true,
                TypeSpecifier::Signed => signed = true,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::Bool => bool_ = true,
                TypeSpecifier::Complex => double = true,
                TypeSpecifier::Atomic(tn) => named = Some(self.type_name(&tn.node)?),
                TypeSpecifier::Struct(st) => {
                    let type_attrs = specs.attributes_after(t);
                    named = Some(self.struct_type(st, &type_attrs)?)
                }
                TypeSpecifier::Enum(et) => named = Some(self.enum_type(et)?),
                TypeSpecifier::TypedefName(id) => match self.lookup(&id.node.name) {
                    Some(Symbol::Typedef(t)) => named = Some(t),
                    _ => {
                        return Err(self.unsupported(
                            &id.span,
                            &format!("unknown type name `{}`", id.node.name),
                            "declare it first",
                        ))
                    }
                },
                TypeSpecifier::TypeOf(to) => {
                    named = Some(match &to.node {
                        TypeOf::Type(tn) => self.type_name(&tn.node)?,
                        TypeOf::Expression(e) if matches!(&e.node, Expression::Identifier(id) if matches!(self.lookup(&id.node.name), Some(Symbol::Typedef(_)))) =>
                        {
                            let Expression::Identifier(id) = &e.node else {
                                unreachable!()
                            };
                            let Some(Symbol::Typedef(t)) = self.lookup(&id.node.name) else {
                                unreachable!()
                            };
                            t
                        }
                        TypeOf::Expression(e) => {
                            self.dry += 1;
                            let r = self.rvalue_nodecay(e);
                            self.dry -= 1;
                            r?.ty
                        }
                    })
                }
                TypeSpecifier::TS18661Float(f) => {
                    named = Some(self.p.types.intern(Type::Float(f.width as u32)))
                }
            }
        }
        if let Some(t) = named {
            return Ok(t);
        }
        let kind = if float {
            return Ok(self.p.types.intern(Type::Float(32)));
        } else if double {
            return Ok(self
                .p
                .types
                .intern(Type::Float(if longs > 0 { 128 } else { 64 })));
        } else {
            IntKind::from_specifiers(crate::ir::types::IntSpecifiers {
                bool_,
                char_,
                short,
                longs,
                signed,
                unsigned,
            })
        };
        Ok(self.p.types.int(kind))
    }

    /// Applies a declarator to a base type: the declared name and its type.
    pub(super) fn declarator(
        &mut self,
        base: TypeId,
        d: &'a Declarator,
    ) -> Result<(Option<String>, TypeId)> {
        let mut ty = base;
        for _ in d.derived.iter().filter(|x| {
            matches!(
                x.node,
                DerivedDeclarator::Pointer(_) | DerivedDeclarator::Block(_)
            )
        }) {
            ty = self.p.types.pointer(ty);
        }
        for dd in d.derived.iter().rev() {
            match &dd.node {
                DerivedDeclarator::Pointer(_) | DerivedDeclarator::Block(_) => {}
                DerivedDeclarator::Array(a) => {
                    let len = match &a.node.size {
                        ArraySize::Unknown | ArraySize::VariableUnknown => None,
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            self.const_eval(e)?.map(|n| n.max(0) as u64)
                        }
                    };
                    ty = self.p.types.intern(Type::Array { elem: ty, len });
                }
                DerivedDeclarator::Function(fd) => {
                    let mut params = Vec::new();
                    for p in &fd.node.parameters {
                        let specs = Specs::from_decl(&p.node.specifiers);
                        let pb = self.base_type(&specs)?;
                        let pt = match &p.node.declarator {
                            Some(pd) => self.declarator(pb, &pd.node)?.1,
                            None => pb,
                        };
                        params.push(self.adjust_param(pt));
                    }
                    // `f(void)` has no parameters.
                    if params.len() == 1 && matches!(self.p.types.get(params[0]), Type::Void) {
                        params.clear();
                    }
                    let variadic = matches!(fd.node.ellipsis, Ellipsis::Some);
                    ty = self.p.types.intern(Type::Function {
                        ret: ty,
                        params,
                        variadic,
                    });
                }
                DerivedDeclarator::KRFunction(ids) => {
                    let int = self.int_ty();
                    let params = vec![int; ids.len()];
                    ty = self.p.types.intern(Type::Function {
                        ret: ty,
                        params,
                        variadic: ids.is_empty(),
                    });
                }
            }
        }
        match &d.kind.node {
            DeclaratorKind::Abstract => Ok((None, ty)),
            DeclaratorKind::Identifier(id) => Ok((Some(id.node.name.clone()), ty)),
            DeclaratorKind::Declarator(inner) => self.declarator(ty, &inner.node),
        }
    }

    /// Parameters of array or function type are pointers.
    fn adjust_param(&mut self, t: TypeId) -> TypeId {
        match self.p.types.get(t).clone() {
            Type::Array { elem, .. } => self.p.types.pointer(elem),
            Type::Function { .. } => self.p.types.pointer(t),
            _ => t,
        }
    }

    /// Names of the parameters of the function declared by `d` (`None` for unnamed ones).
    pub(super) fn parameter_decls(&self, d: &Declarator) -> Vec<Option<String>> {
        // The function declarator closest to the name.
        if let DeclaratorKind::Declarator(inner) = &d.kind.node {
            if inner.node.derived.iter().any(|x| {
                matches!(
                    x.node,
                    DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
                )
            }) {
                return self.parameter_decls(&inner.node);
            }
        }
        for dd in &d.derived {
            match &dd.node {
                DerivedDeclarator::Function(fd) => {
                    let names: Vec<Option<String>> = fd
                        .node
                        .parameters
                        .iter()
                        .map(|p| {
                            p.node
                                .declarator
                                .as_ref()
                                .and_then(|pd| declarator_name(&pd.node))
                        })
                        .collect();
                    let void_only = fd.node.parameters.len() == 1
                        && names[0].is_none()
                        && fd.node.parameters[0].node.specifiers.iter().any(|s| {
                            matches!(&s.node, DeclarationSpecifier::TypeSpecifier(t) if matches!(t.node, TypeSpecifier::Void))
                        });
                    return if void_only { Vec::new() } else { names };
                }
                DerivedDeclarator::KRFunction(ids) => {
                    return ids.iter().map(|i| Some(i.node.name.clone())).collect()
                }
                _ => {}
            }
        }
        Vec::new()
    }

    pub(super) fn type_name(&mut self, tn: &'a TypeName) -> Result<TypeId> {
        let specs = Specs::from_qualifiers(&tn.specifiers);
        let base = self.base_type(&specs)?;
        match &tn.declarator {
            Some(d) => Ok(self.declarator(base, &d.node)?.1),
            None => Ok(base),
        }
    }

    fn find_tag(&self, name: &str) -> Option<Tag> {
        self.tags.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// The width of a bit-field of type `ty`, checked as compilers check it:
    /// from 0 to the type's bits, 0 only for an unnamed field.
    fn bit_width(
        &mut self,
        w: &'a Node<Expression>,
        ty: TypeId,
        named: bool,
    ) -> Result<Option<i128>> {
        let Some(n) = self.const_eval(w)? else {
            return Ok(None);
        };
        let bits = match self.p.types.get(ty) {
            Type::Int(k) => k.bits() as i128,
            _ => return Ok(Some(n.max(0))),
        };
        if n < 0 || n > bits || (n == 0 && named) {
            return Err(self.unsupported(
                &w.span,
                &format!("bit-field width {n}"),
                &format!(
                    "a bit-field's width lies between 0 and the {bits} bits of its type, \
                     and only an unnamed bit-field has width 0"
                ),
            ));
        }
        Ok(Some(n))
    }
    fn struct_type(
        &mut self,
        st: &'a Node<StructType>,
        type_attrs: &[&'a Attribute],
    ) -> Result<TypeId> {
        let is_union = matches!(st.node.kind.node, StructKind::Union);
        let tag = st.node.identifier.as_ref().map(|i| i.node.name.clone());
        let existing = tag.as_ref().and_then(|t| match self.find_tag(t) {
            Some(Tag::Composite(c)) => Some(c),
            _ => None,
        });
        let Some(decls) = &st.node.declarations else {
            // A reference, or a forward declaration.
            let c = match existing {
                Some(c) => c,
                None => self.new_composite(tag.as_deref(), is_union),
            };
            return Ok(self.p.types.intern(Type::Composite(c)));
        };
        // A definition: complete a forward declaration of the current scope, or a new type.
        let in_scope = tag
            .as_ref()
            .and_then(|t| match self.tags.last().and_then(|s| s.get(t)) {
                Some(Tag::Composite(c)) if !self.p.types.composite(*c).complete => Some(*c),
                _ => None,
            });
        let c = match in_scope {
            Some(c) => c,
            None => self.new_composite(tag.as_deref(), is_union),
        };
        let mut fields = Vec::new();
        for d in decls {
            let StructDeclaration::Field(f) = &d.node else {
                continue;
            };
            let specs = Specs::from_qualifiers(&f.node.specifiers);
            let base = self.base_type(&specs)?;
            let shared = attrs::qualifier_attributes(&f.node.specifiers);
            if f.node.declarators.is_empty() {
                let m = self.layout_member(base, None, &shared, None)?;
                fields.push((None, base, None, m));
            }
            for sd in &f.node.declarators {
                let (name, ty) = match &sd.node.declarator {
                    Some(dd) => self.declarator(base, &dd.node)?,
                    None => (None, base),
                };
                let width = match &sd.node.bit_width {
                    Some(w) => self.bit_width(w, ty, name.is_some())?.map(|n| n as u32),
                    None => None,
                };
                let m = self.layout_member(ty, width, &shared, sd.node.declarator.as_ref())?;
                fields.push((name, ty, width, m));
            }
        }
        let head = self.head_attributes.get(&st.span.start).copied();
        let head = head.unwrap_or_default();
        let aligned = self.aligned_attribute(type_attrs)?;
        let rules = Rules {
            packed: head.packed || attrs::has(type_attrs, "packed"),
            aligned: aligned.max(head.aligned),
            pack: self.pack.at(st.span.start),
        };
        let members: Vec<Member> = fields.iter().map(|f| f.3).collect();
        let laid = layout::layout(&members, is_union, rules);
        let out = fields
            .into_iter()
            .zip(laid.members)
            .map(|((name, ty, width, _), at)| Field {
                name,
                ty,
                offset: at.offset,
                bit_width: width,
                bit_offset: at.bit_offset,
            })
            .collect();
        let (size, align) = (laid.size, laid.align);
        let comp = self.p.types.composite_mut(c);
        comp.fields = out;
        comp.complete = true;
        comp.size = size;
        comp.align = align;
        Ok(self.p.types.intern(Type::Composite(c)))
    }

    /// A struct member for the layout: its type's size and alignment and
    /// its own `packed` / `aligned(N)` attributes (in the field's
    /// specifiers, `shared`, or on its declarator).
    fn layout_member(
        &mut self,
        ty: TypeId,
        bit_width: Option<u32>,
        shared: &[&'a Attribute],
        declarator: Option<&'a Node<Declarator>>,
    ) -> Result<Member> {
        let mut all = shared.to_vec();
        if let Some(d) = declarator {
            all.extend(attrs::declarator_attributes(&d.node));
        }
        Ok(Member {
            size: self.p.types.size_of(ty),
            align: self.p.types.align_of(ty),
            bit_width,
            packed: attrs::has(&all, "packed"),
            aligned: self.aligned_attribute(&all)?,
        })
    }

    /// The alignment `aligned(N)` asks for (`aligned` alone: 16, the
    /// largest alignment on x86-64).
    fn aligned_attribute(&mut self, all: &[&'a Attribute]) -> Result<Option<u64>> {
        Ok(match attrs::arguments(all, "aligned") {
            None => None,
            Some([]) => Some(16),
            Some([n, ..]) => self.const_eval(n)?.filter(|&n| n > 0).map(|n| n as u64),
        })
    }

    /// A new, still incomplete struct or union, declared under `tag` in the current scope.
    fn new_composite(&mut self, tag: Option<&str>, is_union: bool) -> crate::ir::CompositeId {
        let name = tag.map(str::to_string).unwrap_or_else(|| self.anon_name());
        let c = self.p.types.add_composite(Composite {
            name,
            is_union,
            fields: vec![],
            complete: false,
            size: 0,
            align: 1,
        });
        if let Some(t) = tag {
            self.tags
                .last_mut()
                .expect("tag scope")
                .insert(t.to_string(), Tag::Composite(c));
        }
        c
    }

    fn anon_name(&mut self) -> String {
        self.anon += 1;
        format!("__anon{}", self.anon)
    }

    fn enum_type(&mut self, et: &'a Node<EnumType>) -> Result<TypeId> {
        if let Some(id) = &et.node.identifier {
            self.tags
                .last_mut()
                .expect("tag scope")
                .insert(id.node.name.clone(), Tag::Enum);
        }
        let int = self.int_ty();
        let mut next: i128 = 0;
        for e in &et.node.enumerators {
            if let Some(v) = &e.node.expression {
                next = self.const_eval(v)?.unwrap_or(next);
            }
            self.bind(&e.node.identifier.node.name, Symbol::Const(next, int));
            next += 1;
        }
        Ok(int)
    }

    /// Evaluates an integer constant expression (`None` if it is not constant).
    pub(super) fn const_eval(&mut self, e: &'a Node<Expression>) -> Result<Option<i128>> {
        self.dry += 1;
        let r = self.rvalue(e);
        self.dry -= 1;
        Ok(fold(&self.p.types, &r?))
    }
}

fn declarator_name(d: &Declarator) -> Option<String> {
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// Folds an integer constant expression.
pub(crate) fn fold(types: &crate::ir::TypeTable, e: &Expr) -> Option<i128> {
    use crate::ir::{BinaryOp as B, UnaryOp as U};
    Some(match &e.kind {
        ExprKind::IntConst(v) => *v,
        ExprKind::Cast(a, _) => {
            let v = fold(types, a)?;
            match types.get(e.ty) {
                Type::Int(k) => k.wrap(v),
                Type::Pointer(_) => v,
                _ => return None,
            }
        }
        ExprKind::Unary(op, a) => {
            let v = fold(types, a)?;
            match op {
                U::Neg => v.checked_neg()?,
                U::BitNot => !v,
                U::LogNot => (v == 0) as i128,
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (fold(types, a)?, fold(types, b)?);
            let r = match op {
                B::Add => x.checked_add(y)?,
                B::Sub => x.checked_sub(y)?,
                B::Mul => x.checked_mul(y)?,
                B::Div => x.checked_div(y)?,
                B::Rem => x.checked_rem(y)?,
                B::Shl => x.checked_shl(u32::try_from(y).ok()?)?,
                B::Shr => x.checked_shr(u32::try_from(y).ok()?)?,
                B::BitAnd => x & y,
                B::BitOr => x | y,
                B::BitXor => x ^ y,
                B::Eq => (x == y) as i128,
                B::Ne => (x != y) as i128,
                B::Lt => (x < y) as i128,
                B::Le => (x <= y) as i128,
                B::Gt => (x > y) as i128,
                B::Ge => (x >= y) as i128,
                B::LogAnd => (x != 0 && y != 0) as i128,
                B::LogOr => (x != 0 || y != 0) as i128,
            };
            match types.get(e.ty) {
                Type::Int(k) => k.wrap(r),
                _ => r,
            }
        }
        ExprKind::Cond(c, a, b) => {
            if fold(types, c)? != 0 {
                fold(types, a)?
            } else {
                fold(types, b)?
            }
        }
        _ => return None,
    })
}
