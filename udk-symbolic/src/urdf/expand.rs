//! Filling a [`ModelSpec`] from a [`Robot`]: names, the link frames as `let` definitions, L,
//! the joint efforts and the mimic constraints (see [`crate::urdf`]).

use super::links::{self, LinkNames};
use super::read::Robot;
use super::{UrdfSource, DEFAULT_GRAVITY};
use crate::error::Errors;
use crate::spec::{Expression, ModelSpec, Name, NamedExpression};
use crate::tree::{Transform, TreeBody, TreeJoint};
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
    for (key, span) in [
        ("coordinates", spec.coordinates.first().map(Name::span)),
        ("inputs", spec.inputs.first().map(Name::span)),
        ("lagrangian", spec.lagrangian.as_ref().map(Expression::span)),
        (
            "hamiltonian",
            spec.hamiltonian.as_ref().map(Expression::span),
        ),
    ] {
        if let Some(span) = span {
            errors.push(
                span,
                format!("`{key}` comes from the URDF file {file}; a URDF model cannot set it"),
            );
        }
    }
    let n = robot.joints.len();
    if n == 0 {
        errors.push(
            source.span,
            format!(
                "{file}: the robot has no revolute, continuous or prismatic joint, so on a fixed \
                 base nothing moves (a free-flying robot needs a floating base, which udk does \
                 not support yet)"
            ),
        );
    }
    if !spec.forces.is_empty() && spec.forces.len() != n {
        errors.push(
            spec.forces[0].span(),
            format!(
                "`forces` of a URDF model has one entry per joint coordinate, added to its \
                 effort: {n} (the file's movable joints), found {}",
                spec.forces.len()
            ),
        );
    }
    let mut used = HashSet::new();
    let coordinates: Vec<String> = (robot.joints.iter())
        .map(|j| identifier(&j.name, &mut used))
        .collect();
    let inputs: Vec<String> = (coordinates.iter())
        .map(|q| identifier(&format!("tau_{q}"), &mut used))
        .collect();
    let names = LinkNames::new(&robot, &mut used);
    links::rewrite(spec, &robot, &names, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    robot.tree.gravity = source.gravity.unwrap_or(DEFAULT_GRAVITY);
    let mut definitions = Vec::new();
    let mut kinetic = Vec::new();
    let mut potential = Vec::new();
    for (i, body) in robot.tree.bodies.iter().enumerate() {
        let q = &coordinates[i];
        let (rotation, position) = (&names.rotation[i], &names.position[i]);
        let parent = body
            .parent
            .map(|p| (&names.rotation[p], &names.position[p]));
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
        kinetic.push(format!(
            "kinetic_energy({}, {}, {com}, {rotation})",
            number(inertia.mass),
            inertia_matrix(&inertia.inertia)
        ));
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            let g = robot.tree.gravity[k];
            if g != 0.0 {
                let sign = if g < 0.0 { "-" } else { "+" };
                potential.push(format!(
                    "{sign} {} * {} * {com}.{axis}()",
                    number(inertia.mass),
                    number(g.abs())
                ));
            }
        }
    }
    let lagrangian = if kinetic.is_empty() {
        "0.0".to_owned()
    } else {
        format!("{} {}", kinetic.join(" + "), potential.join(" "))
    };
    let forces = (0..n)
        .map(|i| {
            let damping = robot.joints[i].damping;
            let tau = if source.joint_damping && damping != 0.0 {
                format!(
                    "{} - {} * dot({})",
                    inputs[i],
                    number(damping),
                    coordinates[i]
                )
            } else {
                inputs[i].clone()
            };
            let tau = parse(&tau);
            match spec.forces.get(i) {
                Some(own) => {
                    let (tau, own) = (&tau.0, &own.0);
                    Expression(syn::parse_quote!(#tau + (#own)))
                }
                None => tau,
            }
        })
        .collect();
    let mimics = (robot.joints.iter().enumerate())
        .filter(|_| source.mimic)
        .filter_map(|(j, joint)| {
            let (i, multiplier, offset) = joint.mimic?;
            Some(parse(&format!(
                "{} - {} * {} - {}",
                coordinates[j],
                number(multiplier),
                coordinates[i],
                number(offset)
            )))
        });
    spec.holonomic.extend(mimics.collect::<Vec<_>>());
    let own_definitions = std::mem::take(&mut spec.definitions);
    spec.definitions = (definitions.into_iter())
        .map(|(name, value)| NamedExpression {
            name: name.parse().expect("an identifier"),
            value: parse(&value),
        })
        .chain(own_definitions)
        .collect();
    spec.coordinates = coordinates
        .iter()
        .map(|q| q.parse().expect("an identifier"))
        .collect();
    spec.coordinate_names = robot.joints.iter().map(|j| j.name.clone()).collect();
    spec.warnings.extend(robot.warnings.iter().cloned());
    spec.inputs = inputs
        .iter()
        .map(|u| u.parse().expect("an identifier"))
        .collect();
    spec.lagrangian = Some(parse(&lagrangian));
    spec.forces = forces;
    spec.tree = Some(robot.tree);
    Ok(())
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
