//! `link_position("link")` and `link_rotation("link")` in a URDF model's own expressions:
//! each call is replaced by the link frame's world origin (3-vector, m) or rotation (3×3), in
//! terms of the `let` definitions of its body, at the span of the link's name.

use super::expand::{identifier, mat3, vec3};
use super::read::Robot;
use crate::error::Errors;
use crate::spec::{Expression, ModelSpec};
use proc_macro2::{Span, TokenStream, TokenTree};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// The names of each body's definitions: world rotation, frame origin, centre of mass.
pub struct LinkNames {
    /// `<link>_rotation`, per body.
    pub rotation: Vec<String>,
    /// `<link>_position`, per body.
    pub position: Vec<String>,
    /// `<link>_com`, per body (defined only for a body with mass off its origin).
    pub com: Vec<String>,
    /// The root link's world rotation and origin, when the model places it (`root`).
    pub root: Option<(String, String)>,
}

impl LinkNames {
    /// The names for `robot`'s bodies, distinct from those in `used`, which they join; `root`
    /// names the root link's rotation and origin when the model places it.
    pub fn new(robot: &Robot, root: Option<(String, String)>, used: &mut HashSet<String>) -> Self {
        let mut names = |suffix: &str| -> Vec<String> {
            (robot.tree.bodies.iter())
                .map(|b| identifier(&format!("{}_{suffix}", b.name), used))
                .collect()
        };
        LinkNames {
            rotation: names("rotation"),
            position: names("position"),
            com: names("com"),
            root,
        }
    }
}

/// Replaces every `link_position("..")` and `link_rotation("..")` in the model's own
/// expressions, pushing an error for an unknown link (with the nearest name) or a call that
/// does not take one string literal.
pub fn rewrite(spec: &mut ModelSpec, robot: &Robot, names: &LinkNames, errors: &mut Errors) {
    let mut rewriter = Rewriter {
        robot,
        names,
        errors,
    };
    let expressions = (spec.holonomic.iter_mut())
        .chain(&mut spec.nonholonomic)
        .chain(&mut spec.forces)
        .chain(&mut spec.nonideal)
        .chain(&mut spec.loads)
        .chain(&mut spec.servo)
        .chain(spec.definitions.iter_mut().map(|d| &mut d.value))
        .chain(spec.outputs.iter_mut().map(|o| &mut o.value))
        .chain(&mut spec.lagrangian);
    for Expression(expr) in expressions {
        rewriter.visit_expr_mut(expr);
    }
}

struct Rewriter<'a> {
    robot: &'a Robot,
    names: &'a LinkNames,
    errors: &'a mut Errors,
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Call(call) = expr {
            let function = match &*call.func {
                syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                _ => None,
            };
            if let Some(f @ ("link_position" | "link_rotation")) = function.as_deref() {
                if let Some(replacement) = self.replace(f, call) {
                    *expr = replacement;
                }
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }
}

impl Rewriter<'_> {
    /// The value of the call `f(args)`, or `None` after an error.
    fn replace(&mut self, f: &str, call: &syn::ExprCall) -> Option<syn::Expr> {
        let literal = match call.args.iter().collect::<Vec<_>>().as_slice() {
            [syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })] => s.clone(),
            _ => {
                self.errors.push(
                    call.span(),
                    format!("`{f}` takes one link name, as a string literal: `{f}(\"link\")`"),
                );
                return None;
            }
        };
        let name = literal.value();
        let Some(link) = self.robot.links.iter().find(|l| l.name == name) else {
            self.errors
                .push(literal.span(), unknown_link(self.robot, &name));
            return None;
        };
        let offset = link.offset;
        let text = match (link.body, f) {
            (Some(b), "link_position") if offset.translation == [0.0; 3] => {
                self.names.position[b].clone()
            }
            (Some(b), "link_position") => format!(
                "({} + {} * {})",
                self.names.position[b],
                self.names.rotation[b],
                vec3(offset.translation)
            ),
            (Some(b), _) if offset.rotation == crate::tree::Transform::IDENTITY.rotation => {
                self.names.rotation[b].clone()
            }
            (Some(b), _) => format!("({} * {})", self.names.rotation[b], mat3(&offset.rotation)),
            (None, f) => match (&self.names.root, f) {
                (None, "link_position") => vec3(offset.translation),
                (None, _) => mat3(&offset.rotation),
                (Some((_, p)), "link_position") if offset.translation == [0.0; 3] => p.clone(),
                (Some((r, p)), "link_position") => {
                    format!("({p} + {r} * {})", vec3(offset.translation))
                }
                (Some((r, _)), _) => format!("({r} * {})", mat3(&offset.rotation)),
            },
        };
        let tokens: TokenStream = text.parse().expect("the expansion writes valid tokens");
        syn::parse2(respan(tokens, literal.span())).ok()
    }
}

/// The message for a link `name` that `robot` does not have, with the nearest name.
pub(crate) fn unknown_link(robot: &Robot, name: &str) -> String {
    let nearest = (robot.links.iter())
        .map(|l| (strsim::levenshtein(name, &l.name), &l.name))
        .min()
        .filter(|(d, _)| *d <= name.len().max(3) / 3);
    let hint = nearest.map_or(String::new(), |(_, n)| format!("; did you mean `{n}`?"));
    format!("unknown link `{name}`: the URDF file has no such link{hint}")
}

/// `tokens` with every span set to `span`, so that an error in them points at the link name.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(g) = &token {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                token = TokenTree::Group(group);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}
