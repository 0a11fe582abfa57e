//! The attribute's repeated blocks, `for i in 0..6 { let leg[i] = .., holonomic(..), .. }`,
//! parsed into a [`Repeat`] that `udk_symbolic::repeat` expands before the derivation.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};
use udk_symbolic::repeat::{IndexedExpression, Repeat};
use udk_symbolic::{Expression, Name};

/// The keys a block takes, as the user writes them.
const KEYS: &str = "`let NAME[i] = ..`, `coordinates(..)`, `momenta(..)`, `inputs(..)`, \
                    `holonomic(..)`, `nonholonomic(..)`, `constraints(..)`, `loads(..)`, \
                    `outputs(NAME[i] = ..)`";

/// One entry of a block.
enum Entry {
    Definition(Box<IndexedExpression>),
    List(Ident, TokenStream),
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![let]) {
            input.parse::<Token![let]>()?;
            return indexed_expression(input).map(|d| Entry::Definition(Box::new(d)));
        }
        let key: Ident = input.parse()?;
        let content;
        syn::parenthesized!(content in input);
        Ok(Entry::List(key, content.parse()?))
    }
}

/// `NAME`, `NAME[i]`, `NAME[i][j]`, ... as an expression.
fn indexed_name(input: ParseStream) -> syn::Result<Expr> {
    let name: Ident = input.parse()?;
    let mut expr: Expr = syn::parse_quote!(#name);
    while input.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        let index: Expr = content.parse()?;
        expr = syn::parse_quote!(#expr[#index]);
    }
    Ok(expr)
}

/// `NAME[i] = EXPR`.
fn indexed_expression(input: ParseStream) -> syn::Result<IndexedExpression> {
    let name = indexed_name(input)?;
    input.parse::<Token![=]>()?;
    Ok(IndexedExpression {
        name: Expression(name),
        value: Expression(input.parse()?),
    })
}

/// Parses `for i in RANGE { entries }` (the `for` not yet read).
pub fn parse(input: ParseStream) -> syn::Result<Repeat> {
    input.parse::<Token![for]>()?;
    let index: Ident = input.parse()?;
    input.parse::<Token![in]>()?;
    let range = Expr::parse_without_eager_brace(input)?;
    let content;
    syn::braced!(content in input);
    let entries = Punctuated::<Entry, Token![,]>::parse_terminated(&content)?;
    let mut block = Repeat {
        index: Name(index),
        range: Expression(range),
        coordinates: Vec::new(),
        momenta: Vec::new(),
        inputs: Vec::new(),
        definitions: Vec::new(),
        holonomic: Vec::new(),
        nonholonomic: Vec::new(),
        constraints: Vec::new(),
        loads: Vec::new(),
        outputs: Vec::new(),
        definitions_at: None,
    };
    for entry in entries {
        let (key, tokens) = match entry {
            Entry::Definition(definition) => {
                block.definitions.push(*definition);
                continue;
            }
            Entry::List(key, tokens) => (key, tokens),
        };
        let expressions = || -> syn::Result<Vec<Expression>> {
            let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
            let list = syn::parse::Parser::parse2(parser, tokens.clone())?;
            Ok(list.into_iter().map(Expression).collect())
        };
        let list = match key.to_string().as_str() {
            "coordinates" => &mut block.coordinates,
            "momenta" => &mut block.momenta,
            "inputs" => &mut block.inputs,
            "holonomic" => &mut block.holonomic,
            "nonholonomic" => &mut block.nonholonomic,
            "constraints" => &mut block.constraints,
            "loads" => &mut block.loads,
            "outputs" => {
                let parser = |input: ParseStream| {
                    Punctuated::<IndexedExpression, Token![,]>::parse_terminated_with(
                        input,
                        indexed_expression,
                    )
                };
                let outputs = syn::parse::Parser::parse2(parser, tokens)?;
                block.outputs.extend(outputs);
                continue;
            }
            _ => {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` cannot be repeated; a `for` block takes {KEYS}"),
                ))
            }
        };
        list.extend(expressions()?);
    }
    Ok(block)
}
