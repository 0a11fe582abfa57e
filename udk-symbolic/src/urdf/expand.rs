//! Filling a [`ModelSpec`] from a [`Robot`]: names, the link frames as `let` definitions, L,
//! the joint efforts and the mimic constraints (see [`crate::urdf`]).

use super::links::{self, LinkNames};
use super::read::Robot;
use super::{UrdfSource, DEFAULT_GRAVITY};
use crate::error::Errors;
use crate::spec::{Expression, ModelSpec, Name, NamedExpression};
use crate::tree::{SpatialInertia, Transform, TreeBody, TreeJoint};
use quote::ToTokens;
use std::collections::HashSet;

/// Fills `spec` from `robot` with the options of `source`, keeping the model's own keys (see
/// [`crate::urdf`]) and setting `spec.tree`.
///
/// # Errors
/// See [`super::expand`]; every error of the model's own keys is collected.
pub fn expand_robot(
    spec: &mut ModelSpec,
    mut robot: Robot,
    source: &UrdfSource,
) -> Result<(), Errors> {
    let mut errors = Errors::default();
    let file = &source.path;
    if let Some(span) = spec.hamiltonian.as_ref().map(Expression::span) {
        errors.push(
            span,
            format!("a URDF model ({file}) is Lagrangian: `hamiltonian` cannot be set"),
        );
    }
    let root_expressions = (source.root.iter()).flat_map(|r| r.position.iter().chain(&r.rotation));
    for expression in root_expressions {
        let mut names = HashSet::new();
        identifiers(expression.0.to_token_stream(), &mut names);
        if let Some(f) = ["link_position", "link_rotation"]
            .iter()
            .find(|f| names.contains(**f))
        {
            errors.push(
                expression.span(),
                format!("the root pose places the links of {file}, so it cannot use `{f}`"),
            );
        }
    }
    // The model's own coordinates come first, then the joints'.
    let own = spec.coordinates.len();
    let n = robot.joints.len();
    if n == 0 && own == 0 {
        errors.push(
            source.span,
            format!(
                "{file}: the robot has no revolute, continuous or prismatic joint, so on a fixed \
                 base nothing moves (a free-flying robot needs `floating_base = true`; a root \
                 that the model moves needs its own `coordinates` and `root`)"
            ),
        );
    }
    if !spec.forces.is_empty() && spec.forces.len() != own + n && spec.forces.len() != own {
        errors.push(
            spec.forces[0].span(),
            format!(
                "`forces` of a URDF model has one entry per coordinate: the model's own {own}, \
                 then (optionally) the file's {n} movable joints, each added to the joint's \
                 effort; found {}",
                spec.forces.len()
            ),
        );
    }
    let mut used: HashSet<String> = (spec.coordinates.iter().chain(&spec.inputs))
        .map(Name::as_string)
        .collect();
    let joint_coordinates: Vec<String> = (robot.joints.iter())
        .map(|j| identifier(&j.name, &mut used))
        .collect();
    let inputs: Vec<String> = (joint_coordinates.iter())
        .map(|q| identifier(&format!("tau_{q}"), &mut used))
        .collect();
    let root = (source.root.as_ref()).map(|_| {
        (
            identifier("urdf_root_rotation", &mut used),
            identifier("urdf_root_position", &mut used),
        )
    });
    let names = LinkNames::new(&robot, root.clone(), &mut used);
    links::rewrite(spec, &robot, &names, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    robot.tree.gravity = source.gravity.unwrap_or(DEFAULT_GRAVITY);
    let mut definitions = Vec::new();
    let mut energies = Energies::new(robot.tree.gravity);
    // The root pose as the model writes it (with its spans), then the generated frames.
    let mut root_definitions = Vec::new();
    if let (Some(pose), Some((rotation, position))) = (&source.root, &root) {
        let defined = |name: &String, e: &Option<Expression>, default: &str| NamedExpression {
            name: name.parse().expect("an identifier"),
            value: e.clone().unwrap_or_else(|| parse(default)),
        };
        root_definitions.push(defined(rotation, &pose.rotation, "eye()"));
        root_definitions.push(defined(position, &pose.position, "vec3(0.0, 0.0, 0.0)"));
        if let Some(inertia) = &robot.base_inertia {
            let com = format!("({position} + {rotation} * {})", vec3(inertia.com));
            energies.body(inertia, &com, rotation);
        }
    }
    for (i, body) in robot.tree.bodies.iter().enumerate() {
        let q = &joint_coordinates[i];
        let (rotation, position) = (&names.rotation[i], &names.position[i]);
        let parent = match body.parent {
            Some(p) => Some((&names.rotation[p], &names.position[p])),
            None => root.as_ref().map(|(r, p)| (r, p)),
        };
        let (r, p) = frame(body, q, parent);
        definitions.push((rotation.clone(), r));
        definitions.push((position.clone(), p));
        let Some(inertia) = body.inertia else {
            continue;
        };
        let com = if inertia.com == [0.0; 3] {
            position.clone()
        } else {
            let com = names.com[i].clone();
            definitions.push((
                com.clone(),
                format!("{position} + {rotation} * {}", vec3(inertia.com)),
            ));
            com
        };
        energies.body(&inertia, &com, rotation);
    }
    let lagrangian = match spec.lagrangian.take() {
        Some(own) => format!("{} + ({own})", energies.lagrangian()),
        None => energies.lagrangian(),
    };
    let joint_forces = (0..n).map(|i| {
        let damping = robot.joints[i].damping;
        let tau = if source.joint_damping && damping != 0.0 {
            format!(
                "{} - {} * dot({})",
                inputs[i],
                number(damping),
                joint_coordinates[i]
            )
        } else {
            inputs[i].clone()
        };
        let tau = parse(&tau);
        match spec.forces.get(own + i) {
            Some(given) => {
                let (tau, given) = (&tau.0, &given.0);
                Expression(syn::parse_quote!(#tau + (#given)))
            }
            None => tau,
        }
    });
    let own_forces = (0..own).map(|i| match spec.forces.get(i) {
        Some(given) => given.clone(),
        None => parse("0.0"),
    });
    let forces = own_forces.chain(joint_forces).collect();
    let mimics = (robot.joints.iter().enumerate())
        .filter(|_| source.mimic)
        .filter_map(|(j, joint)| {
            let (i, multiplier, offset) = joint.mimic?;
            Some(parse(&format!(
                "{} - {} * {} - {}",
                joint_coordinates[j],
                number(multiplier),
                joint_coordinates[i],
                number(offset)
            )))
        });
    spec.holonomic.extend(mimics.collect::<Vec<_>>());
    let generated: Vec<NamedExpression> = (root_definitions.into_iter())
        .chain(
            definitions
                .into_iter()
                .map(|(name, value)| NamedExpression {
                    name: name.parse().expect("an identifier"),
                    value: parse(&value),
                }),
        )
        .collect();
    let own_definitions = std::mem::take(&mut spec.definitions);
    spec.definitions = match &root {
        // The root pose may use the model's own definitions, which may use the links': those
        // that use none go first.
        Some(_) => {
            let (before, after) = split_definitions(own_definitions, &generated);
            before.into_iter().chain(generated).chain(after).collect()
        }
        None => generated.into_iter().chain(own_definitions).collect(),
    };
    let own_names: Vec<String> = spec.coordinates.iter().map(Name::as_string).collect();
    spec.coordinates
        .extend((joint_coordinates.iter()).map(|q| q.parse::<Name>().expect("an identifier")));
    spec.coordinate_names = (own_names.into_iter())
        .chain(robot.joints.iter().map(|j| j.name.clone()))
        .collect();
    spec.warnings.extend(robot.warnings.iter().cloned());
    spec.inputs
        .extend((inputs.iter()).map(|u| u.parse::<Name>().expect("an identifier")));
    spec.lagrangian = Some(parse(&lagrangian));
    spec.forces = forces;
    // The tree's recursions take the root fixed and its joints as the only coordinates.
    if own == 0 && root.is_none() {
        spec.tree_frames = (names.rotation.into_iter()).zip(names.position).collect();
        spec.tree = Some(robot.tree);
    }
    Ok(())
}

/// The kinetic and potential energies of the bodies, as the terms of L.
struct Energies {
    gravity: [f64; 3],
    kinetic: Vec<String>,
    potential: Vec<String>,
}

impl Energies {
    fn new(gravity: [f64; 3]) -> Self {
        Energies {
            gravity,
            kinetic: Vec::new(),
            potential: Vec::new(),
        }
    }

    /// A body of `inertia` whose centre of mass is at `com` (world frame) and whose frame
    /// turns by `rotation`.
    fn body(&mut self, inertia: &SpatialInertia, com: &str, rotation: &str) {
        self.kinetic.push(format!(
            "kinetic_energy({}, {}, {com}, {rotation})",
            number(inertia.mass),
            inertia_matrix(&inertia.inertia)
        ));
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            let g = self.gravity[k];
            if g != 0.0 {
                let sign = if g < 0.0 { "-" } else { "+" };
                self.potential.push(format!(
                    "{sign} {} * {} * {com}.{axis}()",
                    number(inertia.mass),
                    number(g.abs())
                ));
            }
        }
    }

    /// L = Σ T + Σ m g·c.
    fn lagrangian(&self) -> String {
        if self.kinetic.is_empty() {
            "0.0".to_owned()
        } else {
            format!("{} {}", self.kinetic.join(" + "), self.potential.join(" "))
        }
    }
}

/// The model's own definitions `own` in their order, split into those that use none of the
/// `generated` link frames (directly or through another definition), and the others.
fn split_definitions(
    own: Vec<NamedExpression>,
    generated: &[NamedExpression],
) -> (Vec<NamedExpression>, Vec<NamedExpression>) {
    let mut later: HashSet<String> = generated.iter().map(|d| d.name.as_string()).collect();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for definition in own {
        let mut names = HashSet::new();
        identifiers(definition.value.0.to_token_stream(), &mut names);
        if names.iter().any(|n| later.contains(n)) {
            later.insert(definition.name.as_string());
            after.push(definition);
        } else {
            before.push(definition);
        }
    }
    (before, after)
}

/// Every identifier of `tokens`, into `out`.
fn identifiers(tokens: proc_macro2::TokenStream, out: &mut HashSet<String>) {
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => identifiers(g.stream(), out),
            _ => {}
        }
    }
}

/// The world rotation and origin of `body`'s frame, as expressions: the parent's frame (or
/// the world's), then the joint origin, then the joint motion by `q`.
fn frame(body: &TreeBody, q: &str, parent: Option<(&String, &String)>) -> (String, String) {
    let origin_rotation = matrix(&body.origin.rotation);
    let translation = body.origin.translation;
    let mut local = (translation != [0.0; 3]).then(|| vec3(translation));
    let mut rotation: Vec<String> = parent.map(|(r, _)| r.clone()).into_iter().collect();
    rotation.extend(origin_rotation.clone());
    match body.joint {
        TreeJoint::Revolute { axis, .. } => rotation.push(axis_rotation(axis, q)),
        TreeJoint::Prismatic { axis, .. } => {
            let turned = match &origin_rotation {
                Some(r) => format!("{r} * {}", vec3(axis)),
                None => vec3(axis),
            };
            let slide = format!("{q} * {turned}");
            local = Some(match local {
                Some(t) => format!("{t} + {slide}"),
                None => slide,
            });
        }
    }
    let rotation = if rotation.is_empty() {
        "eye()".to_owned()
    } else {
        rotation.join(" * ")
    };
    let position = match (parent, local) {
        (Some((r, p)), Some(local)) => format!("{p} + {r} * ({local})"),
        (Some((_, p)), None) => p.clone(),
        (None, Some(local)) => local,
        (None, None) => "vec3(0.0, 0.0, 0.0)".to_owned(),
    };
    (rotation, position)
}

/// `rot_x(q)`, `rot_y(-q)`, ... for a coordinate axis, else `rot_axis(vec3(..), q)`.
fn axis_rotation(axis: [f64; 3], q: &str) -> String {
    for (k, name) in ["x", "y", "z"].iter().enumerate() {
        let mut unit = [0.0; 3];
        unit[k] = 1.0;
        if axis == unit {
            return format!("rot_{name}({q})");
        }
        if axis == unit.map(|x: f64| -x) {
            return format!("rot_{name}(-{q})");
        }
    }
    format!("rot_axis({}, {q})", vec3(axis))
}

/// `mat3(..)` of a constant rotation, `None` for the identity.
fn matrix(r: &[[f64; 3]; 3]) -> Option<String> {
    (*r != Transform::IDENTITY.rotation).then(|| mat3(r))
}

/// `diag(..)` of a diagonal inertia tensor, else `mat3(..)`.
fn inertia_matrix(i: &[[f64; 3]; 3]) -> String {
    if i[0][1] == 0.0 && i[0][2] == 0.0 && i[1][2] == 0.0 && i[1][0] == 0.0 {
        format!(
            "diag({}, {}, {})",
            number(i[0][0]),
            number(i[1][1]),
            number(i[2][2])
        )
    } else {
        mat3(i)
    }
}

pub(super) fn mat3(r: &[[f64; 3]; 3]) -> String {
    let entries: Vec<String> = r.iter().flatten().map(|&x| number(x)).collect();
    format!("mat3({})", entries.join(", "))
}

pub(super) fn vec3(v: [f64; 3]) -> String {
    format!("vec3({}, {}, {})", number(v[0]), number(v[1]), number(v[2]))
}

/// `x` as a literal that reads back to the same f64 (shortest round trip), negative ones in
/// parentheses.
fn number(x: f64) -> String {
    let x = if x == 0.0 { 0.0 } else { x };
    if x < 0.0 {
        format!("(-{:?})", -x)
    } else {
        format!("{x:?}")
    }
}

/// Parses an expression the expansion wrote.
pub(super) fn parse(text: &str) -> Expression {
    text.parse()
        .unwrap_or_else(|e| panic!("the URDF expansion wrote `{text}`, not an expression: {e}"))
}

/// A Rust identifier made from `name` (every other character becomes `_`, a keyword or a
/// leading digit gets a `_`), distinct from those in `used`, which it joins.
pub(super) fn identifier(name: &str, used: &mut HashSet<String>) -> String {
    let mut base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, '_');
    }
    if syn::parse_str::<syn::Ident>(&base).is_err() || base == "t" || base == "PI" {
        base.push('_');
    }
    let mut candidate = base.clone();
    let mut k = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{base}_{k}");
        k += 1;
    }
    candidate
}
