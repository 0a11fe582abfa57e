//! The generator behind `#[lagrangian(urdf = "..", floating_base = true)]`: a URDF robot on a
//! free-flying base ([`crate::derive::tree::free_flyer`]), in Pinocchio's layout.
//!
//! For a struct `Name`, an inherent impl with:
//! - `NQ` = 7 + n, `NV` = 6 + n, `NUM_JOINTS` = n;
//! - `COORDINATE_NAMES` (NQ: `base_x`, `base_y`, `base_z`, `base_qx`, `base_qy`, `base_qz`,
//!   `base_qw`, then the joints as the URDF names them), `VELOCITY_NAMES` (NV: `base_vx`,
//!   `base_vy`, `base_vz`, `base_wx`, `base_wy`, `base_wz`, then the joints);
//! - `acceleration(&q, &v, &tau, t)` (v̇, Pinocchio's `aba`), `mass_matrix(&q)` (`crba`),
//!   `inverse_dynamics(&q, &v, &a, t)` (`rnea`), each `Result<_, FreeFlyerError>` after
//!   `udk_runtime::free_flyer::check`;
//! - `integrate(&q, &v, dt)`, q ⊕ v dt on SE(3) × ℝⁿ (`udk_runtime::free_flyer::integrate`).

use super::held_points::held_points;
use super::{doc, matrix_type, model_name, vector_type};
use crate::derive::tree::free_flyer::{
    free_flyer, point_kinematics, FreeFlyerDynamics, PointKinematics,
};
use crate::emit::emit_rust;
use crate::error::{Error, Errors};
use crate::expr::{ExprId, Pool, Symbol};
use crate::spec::{ModelSpec, NamedExpression};
use crate::urdf::{read, unknown_link, Robot, DEFAULT_GRAVITY};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::path::{Path, PathBuf};

/// The generated items of a floating-base model, with what the macro reports beside them.
pub struct FreeFlyerCode {
    /// The inherent impl of the model's struct.
    pub tokens: TokenStream,
    /// The URDF file read, for the caller to track.
    pub file: PathBuf,
    /// The URDF reader's remarks (inertia tensors kept or repaired, ...).
    pub warnings: Vec<String>,
}

/// The floating-base model `spec` (its `urdf` with `floating_base`), the file read relative
/// to `base`.
///
/// # Errors
/// Those of [`read_free_flyer`], a tree that cannot be derived
/// ([`crate::derive::tree::TreeError`]), a model name that is not an identifier.
pub fn generate_free_flyer(spec: &ModelSpec, base: &Path) -> Result<FreeFlyerCode, Errors> {
    let name = model_name(spec)?;
    let FreeFlyerRobot {
        robot,
        points: named,
        contacts,
        file,
        // A model file's key: the macro's spec has no `joint_pd`.
        joint_pd: _,
    } = read_free_flyer(spec, base)?;
    if let Some(first) = contacts.first() {
        return Err(Errors(vec![Error::new(
            spec.urdf
                .as_ref()
                .map_or(proc_macro2::Span::call_site(), |s| s.span),
            format!(
                "contact `{}`: the macro takes no contacts on a floating base; name the feet \
                 as link points in `outputs` and run `ground_contacts(&robot, height, e, μ)` \
                 (a model file's `[[contacts]]` run in `udk::model::FreeFlyerModel`)",
                first.point.name
            ),
        )]));
    }
    let mut pool = Pool::new();
    let (dynamics, points) = derive_free_flyer(&mut pool, spec, &robot, &named)?;
    let held = held_points(&mut pool, &dynamics, &points, robot.joints.len());
    let names: Vec<String> = named.into_iter().map(|p| p.name).collect();
    Ok(FreeFlyerCode {
        tokens: emit(&name, &pool, &robot, &dynamics, (&names, &points), held),
        file,
        warnings: robot.warnings,
    })
}

/// A floating-base model's robot, read: what every front end (the macro, `udk::Model`'s
/// `FreeFlyerModel`, the command line) derives.
#[derive(Debug)]
pub struct FreeFlyerRobot {
    /// The URDF's tree, its gravity the model's (Pinocchio's (0, 0, −9.81) m/s² by default).
    pub robot: Robot,
    /// The link points of the model's `outputs`.
    pub points: Vec<LinkPoint>,
    /// The ground contacts of the model's `contacts`, in order ([`ground_contacts`]).
    pub contacts: Vec<GroundContactSpec>,
    /// The model file's `[joint_pd]` law per joint, (K_p, K_d, q*), n entries each
    /// ([`crate::JointPd::per_joint`]); `None` without one.
    pub joint_pd: Option<[Vec<f64>; 3]>,
    /// The URDF file read.
    pub file: PathBuf,
}

/// Reads the floating-base model `spec` (its `urdf` with `floating_base = true`), the URDF
/// file relative to `base`.
///
/// # Errors
/// At the `urdf` span: a spec with anything but the URDF, its `gravity` and `inertia`
/// options, `outputs` of link points and `initial` (`joint_damping`, `mimic`, coordinates,
/// forces, constraints, ... are not supported with a floating base), a file that cannot be
/// read, any error of [`read`] (among them a URDF that already has a floating joint, which
/// would be a second free base); at an output, those of [`link_points`].
pub fn read_free_flyer(spec: &ModelSpec, base: &Path) -> Result<FreeFlyerRobot, Errors> {
    let Some(source) = spec.urdf.as_ref().filter(|s| s.floating_base) else {
        return Err(Errors(vec![Error::new(
            proc_macro2::Span::call_site(),
            "a free-flyer model needs `urdf = \"..\"` with `floating_base = true`".to_owned(),
        )]));
    };
    let at_source = |message: String| Errors(vec![Error::new(source.span, message)]);
    let extras = [
        ("coordinates", !spec.coordinates.is_empty()),
        ("lagrangian", spec.lagrangian.is_some()),
        ("holonomic", !spec.holonomic.is_empty()),
        ("nonholonomic", !spec.nonholonomic.is_empty()),
        ("forces", !spec.forces.is_empty()),
        ("nonideal", !spec.nonideal.is_empty()),
        ("inputs", !spec.inputs.is_empty()),
        ("loads", !spec.loads.is_empty()),
        ("hamiltonian", spec.hamiltonian.is_some()),
        ("constraints", !spec.constraints.is_empty()),
        ("definitions", !spec.definitions.is_empty()),
        ("speeds", !spec.speeds.is_empty()),
        ("servo", !spec.servo.is_empty()),
        ("parameters", !spec.parameters.is_empty()),
        ("events", !spec.events.is_empty()),
        ("root", source.root.is_some()),
        ("joint_damping", source.joint_damping),
        ("mimic", source.mimic),
    ];
    let given: Vec<&str> = extras.iter().filter(|e| e.1).map(|e| e.0).collect();
    if !given.is_empty() {
        return Err(at_source(format!(
            "a floating-base model is the URDF alone (with `gravity` and `inertia`): `{}` \
             cannot be combined with `floating_base = true`",
            given.join("`, `")
        )));
    }
    let file = source.resolve(base);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| at_source(format!("{}: cannot read the URDF file: {e}", source.path)))?;
    let mut robot = read(&text, source).map_err(at_source)?;
    robot.tree.gravity = source.gravity.unwrap_or(DEFAULT_GRAVITY);
    let joint_pd = (spec.joint_pd.as_ref())
        .map(|pd| pd.per_joint(robot.joints.len()))
        .transpose()
        .map_err(at_source)?;
    let points = link_points(&spec.outputs, &robot)?;
    let contacts = ground_contacts(&spec.contacts, &robot, &points)?;
    Ok(FreeFlyerRobot {
        robot,
        points,
        contacts,
        joint_pd,
        file,
    })
}

/// A unilateral frictional contact of a floating-base model with the ground, a horizontal
/// plane: a model file's `[[contacts]]` entry whose gap is `link_position("link").z()` (the
/// ground z = 0) or `link_position("link").z() - h` (the ground z = h, m), with no `slip`
/// (the point slides in the ground plane, x and y, in a circular Coulomb cone) and numbers
/// for its coefficients. `udk_runtime::simulate::ground_contacts_at` runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroundContactSpec {
    /// The contact's point, named as the contact (its forces are `<name>.normal`,
    /// `<name>.tangent` along x and `<name>.lateral` along y).
    pub point: LinkPoint,
    /// The height h of the ground (m).
    pub height: f64,
    /// The coefficient of restitution e ≥ 0 (0: plastic touchdowns).
    pub restitution: f64,
    /// The Coulomb friction coefficient μ ≥ 0.
    pub friction: f64,
    /// A touchdown that would rebound slower than this (m/s) is plastic.
    pub rest_speed: f64,
}

/// The ground contacts of a floating-base model's `contacts` on `robot`, whose `outputs` are
/// the link points `outputs` (a contact's name must differ from theirs and from the other
/// contacts').
///
/// # Errors
/// At the contact: a gap of another form than [`GroundContactSpec`] says, an unknown link, a
/// `slip`, a coefficient that is not a number (a floating-base model has no parameters) or is
/// negative or not finite, a name given twice.
pub fn ground_contacts(
    contacts: &[crate::spec::ContactSpec],
    robot: &Robot,
    outputs: &[LinkPoint],
) -> Result<Vec<GroundContactSpec>, Errors> {
    let mut errors = Vec::new();
    let mut found = Vec::with_capacity(contacts.len());
    for (k, contact) in contacts.iter().enumerate() {
        let span = contact.gap.span();
        let at =
            |message: String| Error::new(span, format!("contact `{}`: {message}", contact.name));
        let named_before = outputs
            .iter()
            .map(|p| &p.name)
            .chain(contacts[..k].iter().map(|c| &c.name));
        if named_before.into_iter().any(|n| *n == contact.name) {
            errors.push(at(
                "the name is given twice (among `outputs` and `contacts`)".into(),
            ));
        }
        if contact.slip.is_some() {
            errors.push(at(
                "a ground contact of a floating base slides in the ground plane (x and y, a \
                 circular Coulomb cone): leave out `slip`"
                    .into(),
            ));
        }
        let coefficient = |what: &str, value: &crate::spec::Coefficient| match value {
            crate::spec::Coefficient::Number(x) if x.is_finite() && *x >= 0.0 => Ok(*x),
            crate::spec::Coefficient::Number(x) => Err(at(format!(
                "`{what}` = {x} must be finite and not negative"
            ))),
            crate::spec::Coefficient::Expression(_) => Err(at(format!(
                "`{what}` must be a number: a floating-base model has no parameters"
            ))),
        };
        let coefficients = [
            coefficient("restitution", &contact.restitution),
            coefficient("friction", &contact.friction),
            coefficient("rest_speed", &contact.rest_speed),
        ];
        let Some((link, height)) = ground_gap(&contact.gap.0) else {
            errors.push(at(
                "on a floating base the gap is a link point's height above the ground, \
                 `link_position(\"link\").z()` or `link_position(\"link\").z() - h` with h a \
                 number (m)"
                    .into(),
            ));
            continue;
        };
        let point = match link_point(&contact.name, &link, robot) {
            Some(Ok(point)) => Some(point),
            Some(Err(e)) => {
                errors.push(e);
                None
            }
            None => {
                errors.push(at(
                    "the gap's point is `link_position(\"link\")`, a link frame's origin".into(),
                ));
                None
            }
        };
        match (point, coefficients) {
            (Some(point), [Ok(restitution), Ok(friction), Ok(rest_speed)]) => {
                found.push(GroundContactSpec {
                    point,
                    height,
                    restitution,
                    friction,
                    rest_speed,
                })
            }
            (_, coefficients) => errors.extend(coefficients.into_iter().filter_map(Result::err)),
        }
    }
    match errors.is_empty() {
        true => Ok(found),
        false => Err(Errors(errors)),
    }
}

/// The `link_position(..)` call and the ground's height h of a gap
/// `link_position(..).z()` (h = 0) or `link_position(..).z() - h` (h a number literal, or
/// its negation).
fn ground_gap(gap: &syn::Expr) -> Option<(syn::Expr, f64)> {
    let height = |e: &syn::Expr| -> Option<f64> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(f),
                ..
            }) => f.base10_parse().ok(),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse().ok(),
            _ => None,
        }
    };
    match gap {
        syn::Expr::Paren(inner) => ground_gap(&inner.expr),
        syn::Expr::MethodCall(call) if call.method == "z" && call.args.is_empty() => {
            Some(((*call.receiver).clone(), 0.0))
        }
        syn::Expr::Binary(binary) if matches!(binary.op, syn::BinOp::Sub(_)) => {
            let (link, zero) = ground_gap(&binary.left)?;
            let h = match &*binary.right {
                syn::Expr::Unary(syn::ExprUnary {
                    op: syn::UnOp::Neg(_),
                    expr,
                    ..
                }) => -height(expr)?,
                syn::Expr::Paren(inner) => match &*inner.expr {
                    syn::Expr::Unary(syn::ExprUnary {
                        op: syn::UnOp::Neg(_),
                        expr,
                        ..
                    }) => -height(expr)?,
                    e => height(e)?,
                },
                e => height(e)?,
            };
            (zero == 0.0).then_some((link, h))
        }
        _ => None,
    }
}

/// The free-flyer dynamics of `robot` ([`free_flyer`]) and the kinematics of its link points
/// `points` ([`point_kinematics`]), built in `pool`.
///
/// # Errors
/// At `spec.urdf`'s span: a tree that cannot be derived ([`crate::derive::tree::TreeError`],
/// a subtree with no mass).
pub fn derive_free_flyer(
    pool: &mut Pool,
    spec: &ModelSpec,
    robot: &Robot,
    points: &[LinkPoint],
) -> Result<(FreeFlyerDynamics, Vec<PointKinematics>), Errors> {
    let at_source = |e: crate::derive::tree::TreeError| {
        let (span, path) = match &spec.urdf {
            Some(source) => (source.span, source.path.as_str()),
            None => (proc_macro2::Span::call_site(), ""),
        };
        Errors(vec![Error::new(span, format!("{path}: {e}"))])
    };
    let dynamics = free_flyer(pool, &robot.tree, robot.base_inertia.as_ref()).map_err(at_source)?;
    let places: Vec<_> = points.iter().map(|p| (p.body, p.offset)).collect();
    let points = point_kinematics(pool, &robot.tree, &places).map_err(at_source)?;
    Ok((dynamics, points))
}

/// A point of a link named by an output `name = link_position("link")` of a floating-base
/// model: the body it is fixed to (`None` for the base) and its position in the body frame.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkPoint {
    /// The output's name.
    pub name: String,
    /// The body, `None` for the root link and the links fixed to it.
    pub body: Option<usize>,
    /// The link frame's origin in the body frame, m.
    pub offset: [f64; 3],
}

/// The link points of a floating-base model's `outputs` on `robot`: each output must be
/// `link_position("link")` of a link of the file (its frame's origin).
///
/// # Errors
/// At the output: a value that is not one `link_position` call with a string literal, or an
/// unknown link (with the nearest name).
pub fn link_points(outputs: &[NamedExpression], robot: &Robot) -> Result<Vec<LinkPoint>, Errors> {
    let mut errors = Vec::new();
    let mut points = Vec::with_capacity(outputs.len());
    for output in outputs {
        let name = output.name.as_string();
        match link_point(&name, &output.value.0, robot) {
            Some(Ok(point)) => points.push(point),
            Some(Err(e)) => errors.push(e),
            None => errors.push(Error::new(
                output.value.span(),
                format!(
                    "an output of a floating-base model is a link point, \
                     `{name} = link_position(\"link\")`"
                ),
            )),
        }
    }
    match errors.is_empty() {
        true => Ok(points),
        false => Err(Errors(errors)),
    }
}

/// The link point `name` of `value` on `robot`: `None` unless `value` is one
/// `link_position("link")` call with a string literal; an error for an unknown link (with the
/// nearest name).
fn link_point(name: &str, value: &syn::Expr, robot: &Robot) -> Option<Result<LinkPoint, Error>> {
    let syn::Expr::Call(call) = value else {
        return None;
    };
    let is_link_position =
        matches!(&*call.func, syn::Expr::Path(p) if p.path.is_ident("link_position"));
    let literal = match (is_link_position, call.args.first(), call.args.len()) {
        (
            true,
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })),
            1,
        ) => s,
        _ => return None,
    };
    let link_name = literal.value();
    Some(match robot.links.iter().find(|l| l.name == link_name) {
        Some(link) => Ok(LinkPoint {
            name: name.to_owned(),
            body: link.body,
            offset: link.offset.translation,
        }),
        None => Err(Error::new(literal.span(), unknown_link(robot, &link_name))),
    })
}

/// The base entries of `COORDINATE_NAMES`: position (m), then the quaternion, scalar last.
pub const BASE_COORDINATE_NAMES: [&str; 7] = [
    "base_x", "base_y", "base_z", "base_qx", "base_qy", "base_qz", "base_qw",
];
/// The base entries of `VELOCITY_NAMES`: linear (m/s), then angular (rad/s) velocity, in the
/// base frame.
pub const BASE_VELOCITY_NAMES: [&str; 6] = [
    "base_vx", "base_vy", "base_vz", "base_wx", "base_wy", "base_wz",
];

/// The inherent impl of `name`.
fn emit(
    name: &proc_macro2::Ident,
    pool: &Pool,
    robot: &Robot,
    dynamics: &FreeFlyerDynamics,
    (point_names, points): (&[String], &[PointKinematics]),
    contact_terms: TokenStream,
) -> TokenStream {
    let n = robot.joints.len();
    let (nq, nv) = (7 + n, 6 + n);
    let joints: Vec<&str> = robot.joints.iter().map(|j| j.name.as_str()).collect();
    let coordinate_names = BASE_COORDINATE_NAMES.iter().chain(&joints);
    let velocity_names = BASE_VELOCITY_NAMES.iter().chain(&joints);
    let (vec_q, vec_v, vec_n, mat_v) = (
        vector_type(nq),
        vector_type(nv),
        vector_type(n),
        matrix_type(nv, nv),
    );
    let literal = Literal::usize_unsuffixed;
    let (nq_l, nv_l, n_l) = (literal(nq), literal(nv), literal(n));
    let runtime = quote!(::udk::__private::udk_runtime::free_flyer);
    let vector = |ids: &[ExprId]| {
        let block = emit_rust(pool, ids, &access);
        let statements = block.statements;
        let values = block.outputs;
        quote!({ #statements #vec_v::from([#(#values),*]) })
    };
    let acceleration = vector(&dynamics.acceleration);
    let inverse = vector(&dynamics.inverse_dynamics);
    let mass = {
        let block = emit_rust(pool, &dynamics.mass_matrix.entries, &access);
        let statements = block.statements;
        let values = block.outputs;
        // SMatrix::from_row_slice takes the row-major entries.
        quote!({ #statements #mat_v::from_row_slice(&[#(#values),*]) })
    };
    let point_ids: Vec<ExprId> = (points.iter())
        .flat_map(|p| p.position.iter().chain(&p.jacobian.entries).chain(&p.bias))
        .copied()
        .collect();
    let point_block = emit_rust(pool, &point_ids, &access);
    let point_statements = point_block.statements;
    let point_values = point_block.outputs;
    let size = 6 + 3 * nv;
    let motions = (0..points.len()).map(|k| {
        let values = &point_values[k * size..(k + 1) * size];
        let (position, rest) = values.split_at(3);
        let (jacobian, bias) = rest.split_at(3 * nv);
        quote!(#runtime::PointMotion {
            position: ::udk::__private::nalgebra::Vector3::new(#(#position),*),
            jacobian: ::udk::__private::nalgebra::SMatrix::<f64, 3, #nv_l>::from_row_slice(
                &[#(#jacobian),*],
            ),
            bias: ::udk::__private::nalgebra::Vector3::new(#(#bias),*),
        })
    });
    let num_points = literal(points.len());
    let doc_points = doc(&format!(
        "The link points of the model's `outputs` ({}) at (q, v): each one's position in the \
         world frame (m), its Jacobian J (3 × {nv}) with ṗ = J v, and J̇ v (m/s²), with \
         p̈ = J v̇ + J̇ v.\n\n# Errors\nA `FreeFlyerError` for a zero quaternion or a non-finite \
         entry.",
        if point_names.is_empty() {
            "none".to_owned()
        } else {
            point_names.join(", ")
        }
    ));
    let doc_acceleration = doc(&format!(
        "v̇ = M⁻¹(τ − h), {nv} entries, by the articulated-body algorithm with a free-flying \
         base (Pinocchio's `aba` with `JointModelFreeFlyer`): the base's spatial acceleration \
         in the base frame (m/s², rad/s²), then the joint accelerations.\n\n\
         Arguments: `q` ({nq}: base position in the world frame, m; base quaternion \
         qx, qy, qz, qw, normalized before use; joints), `v` ({nv}: base linear and angular \
         velocity in the base frame; joint rates), `tau` ({n} joint efforts, N·m or N), `t` \
         (unused).\n\n# Errors\nA `FreeFlyerError` for a zero quaternion or a non-finite entry, \
         or `NotDetermined` where M is singular (a massless base carrying too few bodies)."
    ));
    let doc_mass = doc(&format!(
        "M(q), {nv} × {nv}, symmetric positive definite, by the composite-rigid-body \
         algorithm (Pinocchio's `crba`, mirrored): the base block is the whole robot's \
         spatial inertia about the base origin in the base frame, rows (linear, angular).\n\n\
         # Errors\nA `FreeFlyerError` for a zero quaternion or a non-finite entry."
    ));
    let doc_inverse = doc(&format!(
        "M(q) a + h(q, v), {nv} entries, by recursive Newton–Euler (Pinocchio's `rnea`): the \
         wrench the base needs (force, N, then moment about the base origin, N·m, in the base \
         frame; zero along a free motion), then the joint efforts, for the acceleration `a` \
         ({nv} entries, laid out as v).\n\n\
         # Errors\nA `FreeFlyerError` for a zero quaternion or a non-finite entry."
    ));
    let doc_integrate = doc(&format!(
        "q ⊕ v dt, {nq} entries: the configuration reached from `q` moving with the constant \
         velocity `v` for `dt` seconds, the base on SE(3) (Pinocchio's `integrate`; see \
         `udk_runtime::free_flyer::integrate`). Its quaternion has unit norm.\n\n\
         # Errors\nA `FreeFlyerError` for a zero quaternion or a non-finite entry."
    ));
    let output_columns: Vec<String> = (BASE_COORDINATE_NAMES.iter().map(|s| s.to_string()))
        .chain(joints.iter().map(|j| j.to_string()))
        .chain(BASE_VELOCITY_NAMES.iter().map(|s| s.to_string()))
        .chain(joints.iter().map(|j| format!("{j}_dot")))
        .collect();
    let gravity = robot.tree.gravity;
    quote! {
        impl #runtime::FreeFlyerSystem<#nq_l> for #name {
            fn gravity(&self) -> [f64; 3] {
                [#(#gravity),*]
            }

            fn state_columns(&self) -> ::std::vec::Vec<::std::string::String> {
                [#(#output_columns),*].map(::std::string::String::from).to_vec()
            }

            fn point_names(&self) -> ::std::vec::Vec<::std::string::String> {
                Self::POINT_NAMES.map(::std::string::String::from).to_vec()
            }

            fn acceleration_into(
                &self,
                q: &#vec_q,
                v: &[f64],
                tau: &[f64],
                t: f64,
                out: &mut [f64],
            ) -> ::core::result::Result<(), #runtime::FreeFlyerError> {
                #runtime::check_length("v", v, #nv_l)?;
                #runtime::check_length("tau", tau, #n_l)?;
                #runtime::check_length("out", out, #nv_l)?;
                let (v, tau) = (#vec_v::from_column_slice(v), #vec_n::from_column_slice(tau));
                out.copy_from_slice(Self::acceleration(self, q, &v, &tau, t)?.as_slice());
                Ok(())
            }

            fn mass_matrix_into(
                &self,
                q: &#vec_q,
                out: &mut [f64],
            ) -> ::core::result::Result<(), #runtime::FreeFlyerError> {
                #runtime::check_length("out", out, #nv_l * #nv_l)?;
                // M is symmetric: its column-major entries are its row-major ones.
                out.copy_from_slice(Self::mass_matrix(self, q)?.as_slice());
                Ok(())
            }

            fn points_into(
                &self,
                q: &#vec_q,
                v: &[f64],
                out: &mut [f64],
            ) -> ::core::result::Result<(), #runtime::FreeFlyerError> {
                #runtime::check_length("v", v, #nv_l)?;
                #runtime::check_length("out", out, #num_points * (6 + 3 * #nv_l))?;
                let v = #vec_v::from_column_slice(v);
                let motions = Self::points(self, q, &v)?;
                for (chunk, motion) in out.chunks_mut(6 + 3 * #nv_l).zip(&motions) {
                    motion.write_into(chunk)?;
                }
                Ok(())
            }
        }

        #[allow(unused_variables, clippy::approx_constant, clippy::excessive_precision)]
        impl #name {
            /// Entries of q: 7 for the base pose (position, quaternion), one per joint.
            pub const NQ: usize = #nq_l;
            /// Entries of v: 6 for the base twist (linear, angular), one per joint.
            pub const NV: usize = #nv_l;
            /// Movable joints of the URDF: n.
            pub const NUM_JOINTS: usize = #n_l;
            /// The entries of q: the base pose, then the joints as the URDF names them.
            pub const COORDINATE_NAMES: [&'static str; #nq_l] = [#(#coordinate_names),*];
            /// The entries of v: the base twist, then the joints' rates.
            pub const VELOCITY_NAMES: [&'static str; #nv_l] = [#(#velocity_names),*];
            /// The names of the link points (the `outputs`), in the order of `points`.
            pub const POINT_NAMES: [&'static str; #num_points] = [#(#point_names),*];

            #doc_acceleration
            pub fn acceleration(
                &self,
                q: &#vec_q,
                v: &#vec_v,
                tau: &#vec_n,
                t: f64,
            ) -> ::core::result::Result<#vec_v, #runtime::FreeFlyerError> {
                #runtime::check(q.as_slice(), &[("v", v.as_slice()), ("tau", tau.as_slice())])?;
                #runtime::determined(#acceleration)
            }

            #doc_mass
            pub fn mass_matrix(
                &self,
                q: &#vec_q,
            ) -> ::core::result::Result<#mat_v, #runtime::FreeFlyerError> {
                #runtime::check(q.as_slice(), &[])?;
                Ok(#mass)
            }

            #doc_inverse
            pub fn inverse_dynamics(
                &self,
                q: &#vec_q,
                v: &#vec_v,
                a: &#vec_v,
                t: f64,
            ) -> ::core::result::Result<#vec_v, #runtime::FreeFlyerError> {
                #runtime::check(q.as_slice(), &[("v", v.as_slice()), ("a", a.as_slice())])?;
                Ok(#inverse)
            }

            #doc_points
            pub fn points(
                &self,
                q: &#vec_q,
                v: &#vec_v,
            ) -> ::core::result::Result<[#runtime::PointMotion<#nv_l>; #num_points], #runtime::FreeFlyerError> {
                #runtime::check(q.as_slice(), &[("v", v.as_slice())])?;
                #point_statements
                Ok([#(#motions),*])
            }

            #contact_terms

            #doc_integrate
            pub fn integrate(
                q: &#vec_q,
                v: &#vec_v,
                dt: f64,
            ) -> ::core::result::Result<#vec_q, #runtime::FreeFlyerError> {
                let mut out = #vec_q::zeros();
                #runtime::integrate(q.as_slice(), v.as_slice(), dt, out.as_mut_slice())?;
                Ok(out)
            }
        }
    }
}

/// How the generated code reads each symbol of the free-flyer layout.
pub(super) fn access(symbol: Symbol) -> TokenStream {
    let index = |name: TokenStream, i: usize| {
        let i = Literal::usize_unsuffixed(i);
        quote!(#name[#i])
    };
    match symbol {
        Symbol::Coordinate(i) => index(quote!(q), i),
        Symbol::Velocity(i) => index(quote!(v), i),
        Symbol::Acceleration(i) => index(quote!(a), i),
        Symbol::Input(i) => index(quote!(tau), i),
        Symbol::Time => quote!(t),
        other => unreachable!("the free-flyer derivation has no {other:?}"),
    }
}
