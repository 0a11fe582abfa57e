//! The formatted source of a model's expansion: what `UDK_EXPAND_DIR` holds and `udk expand`
//! prints. One function formats both, so the two agree byte for byte by construction.

use super::generate;
use crate::error::{Error, Errors};
use crate::spec::ModelSpec;
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// `item` (the model's struct) followed by `generated` (its impls from [`generate`]), as one
/// Rust source file formatted by prettyplease.
///
/// # Errors
/// When the tokens do not parse as a Rust file (a generator defect, not a user error).
pub fn format_expansion(item: &syn::ItemStruct, generated: &TokenStream) -> syn::Result<String> {
    let file: syn::File = syn::parse2(quote!(#item #generated))?;
    Ok(prettyplease::unparse(&file))
}

/// The struct a model file stands for: `pub struct <name> { pub <parameter>: f64, … }`, with
/// the parameters in order (`pub struct <name>;` without parameters, as for a URDF robot), as a user would write it under `#[lagrangian]` or `#[hamiltonian]`.
///
/// # Errors
/// When `spec.name` or a parameter name is not a Rust identifier.
pub fn model_struct(spec: &ModelSpec) -> Result<syn::ItemStruct, Errors> {
    let name = syn::parse_str::<syn::Ident>(&spec.name).map_err(|_| {
        Errors(vec![Error::new(
            Span::call_site(),
            format!("the model name `{}` is not a Rust identifier", spec.name),
        )])
    })?;
    if spec.parameters.is_empty() {
        return Ok(syn::parse_quote!(pub struct #name;));
    }
    let fields = spec.parameters.iter().map(|p| &p.name.0);
    Ok(syn::parse_quote!(pub struct #name { #(pub #fields: f64,)* }))
}

/// The expansion of the model `spec` with its struct from [`model_struct`], formatted by
/// [`format_expansion`]: exactly the file `UDK_EXPAND_DIR` receives for that struct.
///
/// # Errors
/// Every error of [`generate`], each at its culprit's span.
pub fn expand(spec: &ModelSpec) -> Result<String, Errors> {
    let item = model_struct(spec)?;
    let generated = generate(spec)?;
    format_expansion(&item, &generated)
        .map_err(|e| Errors(vec![Error::new(e.span(), format!("generated code: {e}"))]))
}
