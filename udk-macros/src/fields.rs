//! Checks of the struct the attribute sits on: its `f64` fields are the model's parameters.
//!
//! These checks need the struct, so they live here; every check of the model itself (names,
//! expressions, counts) is in `udk_symbolic::derive`, where the CLI gets it too.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Fields, ItemStruct, Type};
use udk_symbolic::{Errors, Expression, ModelSpec, Name, Parameter};

/// Fills `spec.name` and `spec.parameters` from `item` (none for a unit struct), pushing an
/// error for a tuple struct, for generics, for a coordinate or momentum that is also a field, and for each
/// use in an expression of a field that is not `f64`. Returns whether the parameters are known
/// (the struct has named fields).
pub fn check(item: &ItemStruct, spec: &mut ModelSpec, errors: &mut Errors) -> bool {
    spec.name = item.ident.to_string();
    if !item.generics.params.is_empty() {
        errors.push(
            item.generics.span(),
            "a model struct cannot be generic: its parameters are its `f64` fields",
        );
    }
    if matches!(item.fields, Fields::Unit) {
        // A unit struct has no parameters: a URDF robot, or a model whose numbers are all
        // literals.
        spec.parameters = Vec::new();
        return true;
    }
    let Fields::Named(fields) = &item.fields else {
        errors.push(
            item.ident.span(),
            "a model must be a struct with named fields: its `f64` fields are the parameters",
        );
        return false;
    };
    let variables: Vec<&Name> = spec.coordinates.iter().chain(&spec.momenta).collect();
    let mut parameters = Vec::new();
    for field in &fields.named {
        let Some(ident) = &field.ident else { continue };
        if let Some(variable) = variables.iter().find(|v| v.0 == *ident) {
            let role = if spec.coordinates.contains(variable) {
                "coordinate"
            } else {
                "momentum"
            };
            errors.push(
                variable.span(),
                format!(
                    "`{ident}` is both a {role} and a field of `{}`; rename one of them",
                    item.ident
                ),
            );
            continue;
        }
        if !is_f64(&field.ty) {
            let uses = uses_of(ident, expressions(spec));
            for span in &uses {
                errors.push(
                    *span,
                    format!(
                        "field `{ident}` has type `{}`, but a field used in an expression must be `f64`",
                        field.ty.to_token_stream().to_string().replace(' ', "")
                    ),
                );
            }
            if uses.is_empty() {
                continue;
            }
        }
        parameters.push(Parameter {
            name: Name(ident.clone()),
            value: None,
        });
    }
    spec.parameters = parameters;
    true
}

/// Whether `ty` is written `f64` (or a path ending in `f64`, such as `core::primitive::f64`).
fn is_f64(ty: &Type) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "f64" && s.arguments.is_none()),
        Type::Group(group) => is_f64(&group.elem),
        Type::Paren(paren) => is_f64(&paren.elem),
        _ => false,
    }
}

/// Every expression of the spec.
fn expressions(spec: &ModelSpec) -> impl Iterator<Item = &Expression> {
    spec.lagrangian
        .iter()
        .chain(&spec.hamiltonian)
        .chain(&spec.holonomic)
        .chain(&spec.nonholonomic)
        .chain(&spec.constraints)
        .chain(&spec.forces)
        .chain(&spec.nonideal)
}

/// The spans where `ident` is used as a variable in `expressions`: not as a method name
/// (`x.ident()`) nor as a function name (`ident(x)`).
fn uses_of<'a>(
    ident: &syn::Ident,
    expressions: impl Iterator<Item = &'a Expression>,
) -> Vec<proc_macro2::Span> {
    fn walk(ident: &syn::Ident, tokens: TokenStream, spans: &mut Vec<proc_macro2::Span>) {
        let mut after_dot = false;
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match &token {
                TokenTree::Ident(i) if i == ident && !after_dot => {
                    let called = matches!(
                        tokens.peek(),
                        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis
                    );
                    if !called {
                        spans.push(i.span());
                    }
                }
                TokenTree::Group(group) => walk(ident, group.stream(), spans),
                _ => {}
            }
            after_dot = matches!(&token, TokenTree::Punct(p) if p.as_char() == '.');
        }
    }
    let mut spans = Vec::new();
    for expression in expressions {
        walk(ident, expression.0.to_token_stream(), &mut spans);
    }
    spans
}
