//! `UDK_EXPAND_DIR`: when set at build time, each model's generated code is written, formatted
//! by [`udk_symbolic::codegen::format_expansion`] (the formatter `udk expand` uses too), to
//! `<dir>/<Struct>.rs`.

use proc_macro2::{Span, TokenStream};
use std::path::PathBuf;
use syn::ItemStruct;

/// Writes `item` (without its `#[allow(..)]` attributes) and its generated impls to
/// `$UDK_EXPAND_DIR/<Struct>.rs` when the variable is set; an error (at the attribute) when the
/// file cannot be written.
pub fn write(item: &ItemStruct, generated: &TokenStream) -> syn::Result<()> {
    let Some(dir) = std::env::var_os("UDK_EXPAND_DIR").filter(|d| !d.is_empty()) else {
        return Ok(());
    };
    let dir = PathBuf::from(dir);
    let path = dir.join(format!("{}.rs", item.ident));
    // Lint attributes (`#[allow(deprecated)]` silencing the undetermined-coordinate warning)
    // say nothing about the model: the file holds what `udk expand` prints for it.
    let mut item = item.clone();
    item.attrs.retain(|a| !a.path().is_ident("allow"));
    let source = udk_symbolic::codegen::format_expansion(&item, generated)?;
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, source))
        .map_err(|e| {
            syn::Error::new(
                Span::call_site(),
                format!("UDK_EXPAND_DIR: cannot write {}: {e}", path.display()),
            )
        })
}
