//! The `urdf = ".."` key: the file is read relative to `CARGO_MANIFEST_DIR` (like
//! `include_str!`), the spec expanded from it by [`udk_symbolic::urdf::expand`], and the
//! expansion made to depend on the file so that changing it rebuilds the model.

use proc_macro2::TokenStream;
use quote::quote;
use std::path::{Path, PathBuf};
use udk_symbolic::{Errors, ModelSpec};

/// Expands a URDF model's `spec` in place; returns the file's path, or `None` for a model
/// without `urdf`.
///
/// # Errors
/// Those of [`udk_symbolic::urdf::expand`], at the `urdf = ".."` literal or at the model's
/// own expressions.
pub fn expand(spec: &mut ModelSpec) -> Result<Option<PathBuf>, Errors> {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    udk_symbolic::urdf::expand(spec, Path::new(&manifest_dir))
}

/// `const _: &[u8] = include_bytes!("<absolute path>");`: cargo then rebuilds the crate when
/// the file changes. Not part of the expansion `udk expand` prints.
pub fn tracked(file: &Path) -> TokenStream {
    let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_owned());
    let path = absolute.to_string_lossy().into_owned();
    quote!(
        const _: &[u8] = ::core::include_bytes!(#path);
    )
}

/// The floating-base model `spec` of `item` (`floating_base = true`, see
/// [`udk_symbolic::codegen::free_flyer`]): the struct, its generated impl, the URDF reader's
/// warnings and the file tracked; or the struct with every error, those of the attribute
/// (`errors`) first.
pub fn free_flyer(item: &syn::ItemStruct, spec: &ModelSpec, mut errors: Errors) -> TokenStream {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let spec = ModelSpec {
        name: item.ident.to_string(),
        ..spec.clone()
    };
    let generated =
        udk_symbolic::codegen::free_flyer::generate_free_flyer(&spec, Path::new(&manifest_dir));
    match generated {
        Ok(code) if errors.is_empty() => {
            let tracked = tracked(&code.file);
            let span = spec
                .urdf
                .as_ref()
                .map_or_else(proc_macro2::Span::call_site, |s| s.span);
            let warnings = code
                .warnings
                .iter()
                .map(|message| crate::warning(item, "urdf_warning", span, message));
            let tokens = code.tokens;
            quote!(#item #tokens #(#warnings)* #tracked)
        }
        generated => {
            if let Err(more) = generated {
                errors.0.extend(more.0);
            }
            let errors = crate::to_syn(errors).map(|e| e.to_compile_error());
            quote!(#item #errors)
        }
    }
}
