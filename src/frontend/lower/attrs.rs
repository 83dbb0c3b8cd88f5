//! GNU attributes and function specifiers the lowering honours:
//! `noreturn` / `_Noreturn` (a call ends the path), `cleanup(f)` on a local
//! variable (a call `f(&var)` when its scope is left), and the layout
//! attributes `packed` and `aligned(N)` ([`super::layout`]).

use lang_c::ast::*;
use lang_c::span::Node;

/// An attribute's name without GCC's optional surrounding `__`.
fn bare(name: &str) -> &str {
    name.strip_prefix("__")
        .and_then(|n| n.strip_suffix("__"))
        .unwrap_or(name)
}

/// The attributes among a list of extensions.
fn attributes<'a>(exts: &'a [Node<Extension>]) -> impl Iterator<Item = &'a Attribute> + 'a {
    exts.iter().filter_map(|e| match &e.node {
        Extension::Attribute(a) => Some(a),
        _ => None,
    })
}

/// The attributes written on a declarator, its nested declarators and
/// pointer qualifiers included.
pub(super) fn declarator_attributes(d: &Declarator) -> Vec<&Attribute> {
    let mut out: Vec<&Attribute> = attributes(&d.extensions).collect();
    for dd in &d.derived {
        if let DerivedDeclarator::Pointer(qs) = &dd.node {
            for q in qs {
                if let PointerQualifier::Extension(e) = &q.node {
                    out.extend(attributes(e));
                }
            }
        }
    }
    if let DeclaratorKind::Declarator(inner) = &d.kind.node {
        out.extend(declarator_attributes(&inner.node));
    }
    out
}

/// The attributes among declaration specifiers.
pub(super) fn decl_spec_attributes(specs: &[Node<DeclarationSpecifier>]) -> Vec<&Attribute> {
    specs
        .iter()
        .flat_map(|s| match &s.node {
            DeclarationSpecifier::Extension(e) => attributes(e).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The attributes among the specifiers of a struct field or type name.
pub(super) fn qualifier_attributes(specs: &[Node<SpecifierQualifier>]) -> Vec<&Attribute> {
    specs
        .iter()
        .flat_map(|s| match &s.node {
            SpecifierQualifier::Extension(e) => attributes(e).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Whether one of `attrs` is named `name` (with or without `__`).
pub(super) fn has(attrs: &[&Attribute], name: &str) -> bool {
    attrs.iter().any(|a| bare(&a.name.node) == name)
}

/// The argument expressions of the attribute `name`, if present.
pub(super) fn arguments<'a>(attrs: &[&'a Attribute], name: &str) -> Option<&'a [Node<Expression>]> {
    attrs
        .iter()
        .rev()
        .find(|a| bare(&a.name.node) == name)
        .map(|a| a.arguments.as_slice())
}

/// Whether a declaration (its specifiers and declarator) says the function
/// never returns: `_Noreturn` or `__attribute__((noreturn))`.
pub(super) fn is_noreturn(specs: &[Node<DeclarationSpecifier>], d: &Declarator) -> bool {
    let specifier = specs.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::Function(f) if f.node == FunctionSpecifier::Noreturn)
    });
    specifier
        || has(&decl_spec_attributes(specs), "noreturn")
        || has(&declarator_attributes(d), "noreturn")
}

/// Whether a function definition is GNU `extern inline` (gnu_inline): an
/// inline body another definition of the same name may replace.
pub(super) fn is_gnu_extern_inline(specs: &[Node<DeclarationSpecifier>]) -> bool {
    let extern_ = specs.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Extern)
    });
    let inline = specs.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::Function(f) if f.node == FunctionSpecifier::Inline)
    });
    extern_ && (inline || has(&decl_spec_attributes(specs), "gnu_inline"))
}
