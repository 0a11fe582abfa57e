//! The code of a model with unilateral contacts (`contacts(..)`): `CONTACT_NAMES`, `contacts`
//! (the `udk_runtime::simulate::Contact`s, geometry and coefficients from the derivation's
//! [`ContactEquations`]) and, for a model without inputs, `contact_set`, the
//! `ContactSet` over the model that the simulator runs.

use super::{allowances, doc, local, vector_type, Code, Output};
use crate::derivation::{ContactEquations, LagrangianEquations};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// The contact items of the struct `name` (nothing for a model without contacts).
pub(super) fn generate(name: &Ident, code: &Code, eq: &LagrangianEquations) -> TokenStream {
    if eq.contacts.is_empty() {
        return TokenStream::new();
    }
    let runtime = quote!(::udk::__private::udk_runtime);
    let simulate = quote!(#runtime::simulate);
    let n_count = code.derivation.coordinates.len();
    let (n, m) = (&code.n, Literal::usize_unsuffixed(eq.constraint_rhs.len()));
    let count = Literal::usize_unsuffixed(eq.contacts.len());
    let names: Vec<&str> = eq.contacts.iter().map(|c| c.name.as_str()).collect();
    let coefficients: Vec<(Ident, Output)> = (eq.contacts.iter().enumerate())
        .flat_map(|(i, c)| {
            let [e, mu, rest] = c.coefficients();
            [("restitution", e), ("friction", mu), ("rest_speed", rest)]
                .map(|(what, id)| (local(&format!("{what}_{i}")), Output::Scalar(id)))
        })
        .collect();
    let (statements, values) = code.emit(&coefficients);
    let contacts = (eq.contacts.iter().enumerate()).map(|(i, contact)| {
        let [e, mu, rest] = [0, 1, 2].map(|k| &values[3 * i + k]);
        let geometry = geometry(code, contact, n_count);
        let name = &contact.name;
        quote! {
            #simulate::Contact::new(#name, #e, #mu, move |q: &[f64], qd: &[f64], t: f64| { #geometry })
                .resting_below(#rest)
        }
    });
    let listing = names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let doc_names = doc(&format!(
        "The names of the {} unilateral contacts, in order ({listing}): their forces are `<name>.normal` and `<name>.tangent`.",
        eq.contacts.len()
    ));
    let doc_contacts = doc(&format!(
        "The unilateral contacts ({listing}) with their coefficients at this struct's parameters: each gap φ(q, t), \
         its row ∂φ/∂q, its rate ∂φ/∂t (a moving surface) and the b of φ̈ = (∂φ/∂q) q̈ − b, the same for the slip coordinate, the restitution, the \
         friction coefficient and the rest speed, for a `udk::runtime::simulate::ContactSet`. Slices `q`, `qd` of \
         the geometry have n = {n_count} entries."
    ));
    let contact_set = (code.k == 0).then(|| {
        let doc_set = doc(
            "The model with its unilateral contacts, all open: a `udk::runtime::simulate::ContactSet` over the model \
             (through `StaticSystem`), to simulate with `simulate_dynamic_lagrangian_with_events` and the set's own \
             `events()`; `settle` closes the contacts a start touches.\n\n\
             # Errors\n`InvalidOption` when a restitution, friction coefficient or rest speed is negative or not finite.",
        );
        quote! {
            #doc_set
            pub fn contact_set(&self)
                -> ::core::result::Result<#simulate::ContactSet<'_, #simulate::StaticSystem<'_, Self, #n, #m>>, #runtime::Error> {
                #simulate::ContactSet::new(#simulate::StaticSystem::new(self), Self::contacts(self))
            }
        }
    });
    let allow = allowances();
    quote! {
        #allow
        impl #name {
            #doc_names
            pub const CONTACT_NAMES: [&'static str; #count] = [#(#names),*];

            #doc_contacts
            pub fn contacts(&self) -> ::std::vec::Vec<#simulate::Contact<'_>> {
                #statements
                ::std::vec![#(#contacts),*]
            }

            #contact_set
        }
    }
}

/// The body of a contact's geometry closure over slices `q`, `qd` (n entries) and `t`.
fn geometry(code: &Code, contact: &ContactEquations, n_count: usize) -> TokenStream {
    let vec_n = vector_type(n_count);
    let outputs = [
        (local("gap"), Output::Scalar(contact.gap)),
        (local("normal"), Output::Vector(&contact.normal)),
        (local("normal_rate"), Output::Scalar(contact.normal_rate)),
        (local("normal_rhs"), Output::Scalar(contact.normal_rhs)),
        (local("tangent"), Output::Vector(&contact.tangent)),
        (local("tangent_rate"), Output::Scalar(contact.tangent_rate)),
        (local("tangent_rhs"), Output::Scalar(contact.tangent_rhs)),
    ];
    let (statements, values) = code.emit(&outputs);
    let [gap, normal, normal_rate, normal_rhs, tangent, tangent_rate, tangent_rhs] =
        [0, 1, 2, 3, 4, 5, 6].map(|k| values[k].clone());
    let simulate = quote!(::udk::__private::udk_runtime::simulate);
    let dynamic = quote!(::udk::__private::nalgebra::DVector::<f64>::from_column_slice);
    quote! {
        let (q, qd) = (&#vec_n::from_column_slice(q), &#vec_n::from_column_slice(qd));
        #statements
        #simulate::ContactGeometry {
            gap: #gap,
            normal: #simulate::ContactRow {
                gradient: #dynamic(#normal.as_slice()),
                rate: #normal_rate,
                rhs: #normal_rhs,
            },
            tangent: #simulate::ContactRow {
                gradient: #dynamic(#tangent.as_slice()),
                rate: #tangent_rate,
                rhs: #tangent_rhs,
            },
            lateral: None,
        }
    }
}
