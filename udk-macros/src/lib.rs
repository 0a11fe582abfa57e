//! The `#[lagrangian]` and `#[hamiltonian]` attribute macros. Use them through the `udk` crate,
//! which documents the syntax and the generated API.
//!
//! This crate is a thin shim: it parses the attribute into a [`udk_symbolic::ModelSpec`], checks
//! the struct (its `f64` fields are the parameters), derives the equations
//! ([`udk_symbolic::derive()`]) and emits the code ([`udk_symbolic::codegen::generate_derived`]).
//! Every error found on the way is reported at its culprit's span, all at once.
//!
//! The whole expansion, `syn`'s parse of the attribute included, runs on a large stack
//! ([`udk_symbolic::limits::on_large_stack`]) after the attribute's tokens are checked
//! against [`udk_symbolic::limits`], so that a deeply nested or very long expression is a
//! compile error at its culprit, never a crash of the compiler.

mod attr;
mod expand_dir;
mod fields;
mod repeat;
mod urdf;

use attr::Kind;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::ItemStruct;
use udk_symbolic::{Errors, ModelSpec};

/// Derives the equations of motion of a Lagrangian model and generates its API.
///
/// ```text
/// #[lagrangian(
///     coordinates(q1, ..., qn),          // required
///     let NAME = EXPR,                   // definitions, in order: scalar, vec3 or mat3
///     lagrangian = L(q, dot(q), t),      // required, quadratic in the velocities
///     holonomic(f1, ...),                // f(q, t) = 0; a 3-vector is three constraints
///     nonholonomic(phi1, ...),           // φ(q, q̇, t) = 0; a 3-vector is three constraints
///     inputs(u1, ..., uk),               // run-time inputs, for forces, loads and nonideal
///     forces(Q1, ..., Qn),               // non-conservative generalized forces
///     loads(force(F, p), torque(T, R)),  // world-frame forces at points, torques on bodies
///     nonideal(C1, ..., Cn),             // non-ideal constraint force C
///     outputs(name = EXPR, ...),         // named scalars or 3-vectors, one function each
///     servo(holonomic(e1, ..), nonholonomic(phi1, ..)), // task constraints the inputs realize
///     contacts(ground(gap = phi, slip = s, restitution = e, friction = mu, rest_speed = v)),
/// )]
/// pub struct Model { pub parameter: f64, ... }
/// ```
///
/// Expressions take scalars, 3-vectors and 3×3 matrices: `+ - * /`, `vec3`, `mat3`, `diag`,
/// `eye`, the rotations `rot_x`, `rot_y`, `rot_z`, `rot_axis`, `quat_to_rot`, the methods
/// `.dot .cross .norm .norm_squared .normalize .transpose .x .y .z`, the scalar functions
/// `powi powf sqrt sin cos tan asin acos atan atan2 sinh cosh tanh exp ln abs`, `dot(EXPR)`
/// (the total time derivative of an expression of q and t), and `angular_velocity(R)`,
/// `body_angular_velocity(R)`, `kinetic_energy(m, I, p, R)`. A rolling disk:
///
/// ```text
/// #[lagrangian(
///     coordinates(x, y, yaw, lean, spin),
///     let frame = rot_z(yaw) * rot_x(lean),
///     let disk = frame * rot_y(spin),
///     let contact = vec3(x, y, 0.0),
///     let centre = contact + r * frame * vec3(0.0, 0.0, 1.0),
///     let slip = dot(centre) + angular_velocity(disk).cross(contact - centre),
///     lagrangian = kinetic_energy(m, m * r.powi(2) * diag(0.25, 0.5, 0.25), centre, disk)
///         - m * g * centre.z(),
///     nonholonomic(slip.x(), slip.y()),
/// )]
/// pub struct RollingDisk { pub m: f64, pub r: f64, pub g: f64 }
/// ```
///
/// The struct's `f64` fields are the parameters. The macro adds `DOF`, `NUM_CONSTRAINTS`,
/// `NUM_HOLONOMIC`, `NUM_INPUTS`, `COORDINATE_NAMES`, `INPUT_NAMES`, `EQUATIONS`,
/// `mass_matrix`, `generalized_forces`, `constraint_matrix`, `constraint_rhs`,
/// `nonideal_force`, `terms`, `acceleration`, `constraint_force`, `CONSTRAINT_NAMES`,
/// `constraint_multipliers` (λ of Qᶜ − C = Aᵀλ by row), `energy`, `position_residual`,
/// `velocity_residual` and one function per output, and implements
/// `udk::LagrangianSystem<n, m>` (with inputs, `udk::runtime::ControlledLagrangianSystem<n, m,
/// k>`, whose functions take `u` after `qd`). With `servo(..)` it also adds `NUM_SERVO`,
/// `servo_terms` and `servo_control` and implements `udk::runtime::servo::ServoSystem` (see
/// `udk::runtime::servo`). With `contacts(..)` (unilateral contacts: a gap φ(q, t) ≥ 0, an
/// optional slip coordinate s(q, t), coefficients of the parameters) it adds `CONTACT_NAMES`,
/// `contacts` and, without inputs, `contact_set`, the `udk::runtime::simulate::ContactSet` the
/// simulator runs. Every mistake is a compile error at its culprit.
/// See the `udk` crate and its README ("Writing a model") for the whole language, shapes and
/// runnable examples.
///
/// A robot from a URDF file (Robots from URDF in the `udk` README):
///
/// ```text
/// #[lagrangian(
///     urdf = "robots/ur5_robot.urdf",    // relative to CARGO_MANIFEST_DIR, like include_str!
///     gravity(0.0, 0.0, -9.81),          // m/s² in the root frame; this is the default
///     joint_damping = false,             // true: −d q̇ from each joint's <dynamics damping>
///     mimic = false,                     // true: <mimic> joints become holonomic constraints
///     inertia = "strict",                // "repair": project indefinite inertia tensors
///     holonomic(..), nonholonomic(..), nonideal(..), forces(..), loads(..), outputs(..), servo(..), let ..
/// )]
/// pub struct Ur5;                        // or a struct of f64 parameters
/// ```
///
/// The coordinates are the movable joints (revolute, continuous, prismatic), depth-first from
/// the root; the inputs are their efforts `tau_<joint>`; the forces are the efforts plus the
/// model's own `forces`; expressions may use `link_position("link")` (3-vector, m, world frame)
/// and `link_rotation("link")` (3×3). Every URDF error is a compile error at the path literal
/// naming the file, the element and its line; the expansion includes the file with
/// `include_bytes!`, so editing it rebuilds the model.
///
/// A coordinate whose acceleration no equation determines (L has no velocity term in it and
/// no constraint involves it) gets a compiler warning at L; `#[allow(deprecated)]` on the
/// struct silences it where that is meant.
#[proc_macro_attribute]
pub fn lagrangian(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand_on_large_stack(Kind::Lagrangian, attr.into(), item.into()).into()
}

/// Derives the constrained Hamilton equations of a model and generates its API.
///
/// ```text
/// #[hamiltonian(
///     coordinates(q1, ..., qn),          // required
///     momenta(p1, ..., pn),              // required
///     hamiltonian = H(q, p, t),          // required
///     constraints(phi1, ...),            // φ(q, p, t) = 0
///     holonomic(f1, ...),                // f(q, t) = 0, turned into φ through q̇ = H_p
/// )]
/// pub struct Model { pub parameter: f64, ... }
/// ```
///
/// The struct's `f64` fields are the parameters. The macro adds `DOF`, `NUM_CONSTRAINTS`,
/// `NUM_HOLONOMIC`, `EQUATIONS`, `hamiltonian`, `velocity`, `terms`, `state_derivative`,
/// `constraint_force`, `constraint_residual` and `position_residual`, and implements
/// `udk::HamiltonianSystem<n, m>` (Udwadia 2016, eqs 35–36).
#[proc_macro_attribute]
pub fn hamiltonian(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand_on_large_stack(Kind::Hamiltonian, attr.into(), item.into()).into()
}

/// [`expand`] on a large stack, its input and output dropped there too (`syn` trees drop
/// recursively).
fn expand_on_large_stack(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    udk_symbolic::limits::on_large_stack(|| expand(kind, attr, item))
}

/// The struct, unchanged, followed by the generated impls or by every error found.
fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Err(error) = udk_symbolic::limits::check_tokens(&attr) {
        let error = syn::Error::new(error.span, error.message).to_compile_error();
        return quote!(#item #error);
    }
    let item: ItemStruct = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            let message = format!(
                "#[{}] applies to a struct with named `f64` fields (the parameters): {error}",
                kind.name()
            );
            let error = syn::Error::new(error.span(), message).to_compile_error();
            return quote!(#item #error);
        }
    };
    let mut spec = ModelSpec::default();
    let mut errors = Errors::default();
    // A malformed attribute or key the model cannot do without, or a struct whose fields are
    // not named, leaves the spec incomplete; deriving it would only add noise. After any other
    // mistake the derivation runs, so that every error is reported at once.
    let mut derivable = attr::parse(kind, attr, &mut spec, &mut errors);
    if spec.urdf.as_ref().is_some_and(|s| s.floating_base) {
        return urdf::free_flyer(&item, &spec, errors);
    }
    // A URDF model's coordinates come from its file, so it is expanded before the fields are
    // checked against them; a URDF error leaves nothing to derive.
    let urdf_file = match urdf::expand(&mut spec) {
        Ok(file) => file,
        Err(urdf_errors) => {
            errors.0.extend(urdf_errors.0);
            derivable = false;
            None
        }
    };
    let parameters_known = fields::check(&item, &mut spec, &mut errors);
    let generated = if derivable && parameters_known {
        let generated = udk_symbolic::derive(&spec).and_then(|derivation| {
            let generated = udk_symbolic::codegen::generate_derived(&spec, &derivation)?;
            Ok((generated, warnings(&item, &spec, &derivation)))
        });
        match generated {
            Ok(generated) => Some(generated),
            Err(derivation_errors) => {
                errors.0.extend(derivation_errors.0);
                None
            }
        }
    } else {
        None
    };
    match generated {
        // The warnings are not part of the expansion `udk expand` prints.
        Some((generated, warnings)) if errors.is_empty() => {
            let written = expand_dir::write(&item, &generated)
                .err()
                .map(|e| e.to_compile_error());
            let tracked = urdf_file.map(|file| urdf::tracked(&file));
            quote! {
                #item
                #generated
                #warnings
                #written
                #tracked
                // Makes cargo rebuild the model when UDK_EXPAND_DIR changes, so the file appears.
                const _: ::core::option::Option<&str> = ::core::option_env!("UDK_EXPAND_DIR");
            }
        }
        _ => {
            let errors = to_syn(errors).map(|e| e.to_compile_error());
            let item = item.into_token_stream();
            quote!(#item #errors)
        }
    }
}

/// A compiler warning at L for each coordinate whose acceleration the model never determines
/// ([`udk_symbolic::Derivation::undetermined_coordinates`]) and for each warning of the front
/// end ([`udk_symbolic::Derivation::warnings`], such as a URDF inertia tensor kept or
/// repaired): the use of a `#[deprecated]` item, the one warning a stable proc macro can
/// raise. A model that means it (Udwadia & Phohomsiri's massless particle) silences it with
/// `#[allow(deprecated)]` on the struct.
fn warnings(
    item: &ItemStruct,
    spec: &ModelSpec,
    derivation: &udk_symbolic::Derivation,
) -> TokenStream {
    let span = spec
        .lagrangian
        .as_ref()
        .map_or_else(proc_macro2::Span::call_site, |l| l.span());
    let urdf_span = spec.urdf.as_ref().map_or(span, |source| source.span);
    let undetermined = (derivation.undetermined_messages().into_iter())
        .map(|message| ("undetermined_acceleration", span, message));
    let front_end =
        (derivation.warnings.iter()).map(|message| ("urdf_warning", urdf_span, message.clone()));
    undetermined
        .chain(front_end)
        .map(|(name, span, message)| warning(item, name, span, &message))
        .collect()
}

/// One compiler warning `message` at `span`, as the use of a `#[deprecated]` item named
/// `name`, under the struct's own `#[allow]` attributes (see [`warnings`]).
fn warning(item: &ItemStruct, name: &str, span: proc_macro2::Span, message: &str) -> TokenStream {
    let allows = (item.attrs.iter()).filter(|a| a.path().is_ident("allow"));
    let name = quote::format_ident!("{name}");
    let warning = quote::quote_spanned!(span=> #name);
    quote! {
        #(#allows)*
        const _: () = {
            #[deprecated(note = #message)]
            #[allow(non_camel_case_types)]
            struct #name;
            let _ = #warning;
        };
    }
}

/// All collected errors as one `syn::Error`, or `None` when there is none.
fn to_syn(errors: Errors) -> Option<syn::Error> {
    errors
        .0
        .into_iter()
        .map(|e| syn::Error::new(e.span, e.message))
        .reduce(|mut all, e| {
            all.combine(e);
            all
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_of(kind: Kind, attr: TokenStream, item: TokenStream) -> Vec<String> {
        let item: ItemStruct = syn::parse2(item).unwrap();
        let mut spec = ModelSpec::default();
        let mut errors = Errors::default();
        attr::parse(kind, attr, &mut spec, &mut errors);
        fields::check(&item, &mut spec, &mut errors);
        errors.0.into_iter().map(|e| e.message).collect()
    }

    #[test]
    fn parses_every_key_of_a_lagrangian_model() {
        let item: ItemStruct = syn::parse_quote!(
            struct P {
                m: f64,
                g: f64,
                l: f64,
                n: usize,
            }
        );
        let mut spec = ModelSpec::default();
        let mut errors = Errors::default();
        attr::parse(
            Kind::Lagrangian,
            quote!(
                coordinates(x, y),
                lagrangian = 0.5 * m * dot(x).powi(2) - m * g * y,
                holonomic(x * x + y * y - l * l),
                nonholonomic(dot(x)),
                forces(-dot(x), 0.0),
                nonideal(0.0, 1.0),
            ),
            &mut spec,
            &mut errors,
        );
        fields::check(&item, &mut spec, &mut errors);
        assert!(errors.is_empty(), "{errors}");
        assert_eq!(spec.name, "P");
        let names = |v: &[udk_symbolic::Name]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert_eq!(names(&spec.coordinates), ["x", "y"]);
        let parameters: Vec<_> = spec.parameters.iter().map(|p| p.name.to_string()).collect();
        assert_eq!(parameters, ["m", "g", "l"]);
        assert!(spec.lagrangian.is_some() && spec.hamiltonian.is_none());
        assert_eq!(spec.holonomic.len(), 1);
        assert_eq!(spec.nonholonomic.len(), 1);
        assert_eq!(spec.forces.len(), 2);
        assert_eq!(spec.nonideal.len(), 2);
    }

    #[test]
    fn collects_every_attribute_error() {
        let errors = errors_of(
            Kind::Lagrangian,
            quote!(
                coordinates = x,
                lagrangian(x),
                momenta(p),
                forces(1.0),
                forces(2.0)
            ),
            quote!(
                struct P {
                    m: f64,
                }
            ),
        );
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors[0].contains("expected `coordinates(..)`"));
        assert!(errors[1].contains("expected `lagrangian = <expression>`"));
        assert!(errors[2].contains("unknown key `momenta`"));
        assert!(errors[3].contains("`forces` is given twice"));
    }

    #[test]
    fn rejects_a_coordinate_that_is_a_field_and_a_used_field_that_is_not_f64() {
        let errors = errors_of(
            Kind::Hamiltonian,
            quote!(coordinates(x), momenta(p), hamiltonian = p * p / m + n * x),
            quote!(
                struct P {
                    x: f64,
                    m: f64,
                    n: u32,
                    unused: String,
                }
            ),
        );
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("`x` is both a coordinate and a field"));
        assert!(errors[1].contains("field `n` has type `u32`"));
    }

    #[test]
    fn reports_every_error_as_one_compile_error_each() {
        let out = expand(
            Kind::Lagrangian,
            quote!(
                coordinates(x, x),
                lagrangian = 0.5 * m * dot(x).powi(2) + k * x
            ),
            quote!(
                struct P {
                    m: f64,
                    x: f64,
                }
            ),
        )
        .to_string();
        // The struct is kept (no cascade of "cannot find type" errors), then one
        // compile_error! per problem: `x` twice a coordinate, `x` also a field, unknown `k`.
        assert!(out.starts_with("struct P"), "{out}");
        assert_eq!(out.matches("compile_error").count(), 3, "{out}");
        assert!(out.contains("already a coordinate"), "{out}");
        assert!(out.contains("both a coordinate and a field"), "{out}");
        assert!(out.contains("unknown identifier `k`"), "{out}");
    }

    /// The expansion of a one-coordinate model with L = ½ m ẋ² − V, on the large stack.
    fn expand_potential(potential: &str) -> String {
        let attr: TokenStream =
            format!("coordinates(x), lagrangian = 0.5 * m * dot(x).powi(2) - ({potential})")
                .parse()
                .unwrap();
        let item = quote!(
            pub struct P {
                pub m: f64,
            }
        );
        expand_on_large_stack(Kind::Lagrangian, attr, item).to_string()
    }

    #[test]
    fn deep_parentheses_and_long_sums_expand() {
        for depth in [1000, 2000] {
            let nested = format!("{}x{}", "(".repeat(depth), ")".repeat(depth));
            let out = expand_potential(&nested);
            assert!(!out.contains("compile_error"), "{depth}: {}", &out[..500]);
            assert!(out.contains("fn generalized_forces"), "{depth}");
        }
        let terms: Vec<String> = (1..=5000).map(|k| format!("(x + {k}).sin()")).collect();
        let out = expand_potential(&terms.join(" + "));
        assert!(!out.contains("compile_error"), "{}", &out[..500]);
        // Q = −Σ cos(x + k): the last term is there.
        assert!(out.contains("5000"), "the 5000th term is emitted");
    }

    #[test]
    fn nesting_beyond_the_limit_is_one_compile_error() {
        let nested = format!("{}x{}", "(".repeat(5000), ")".repeat(5000));
        let out = expand_potential(&nested);
        assert_eq!(out.matches("compile_error").count(), 1, "{}", &out[..500]);
        assert!(out.contains("nested too deeply"), "{}", &out[..500]);
        let chained = format!("x{}", ".sin()".repeat(5000));
        let out = expand_potential(&chained);
        assert_eq!(out.matches("compile_error").count(), 1, "{}", &out[..500]);
        assert!(out.contains("nested too deeply"), "{}", &out[..500]);
    }

    #[test]
    fn undefined_constants_are_compile_errors() {
        let out = expand_potential("(0.0 / 0.0) * x + (0.0).ln() * x + x.powi(2) / 0");
        assert_eq!(out.matches("compile_error").count(), 3, "{out}");
        assert_eq!(out.matches("division by zero").count(), 2, "{out}");
        assert!(out.contains("infinite"), "{out}");
    }

    #[test]
    fn an_undetermined_coordinate_is_a_warning_unless_allowed() {
        let attr = quote!(
            coordinates(theta, x),
            lagrangian = 0.5 * m * dot(theta).powi(2) - m * theta.cos(),
        );
        let item = quote!(
            pub struct P {
                pub m: f64,
            }
        );
        let out = expand(Kind::Lagrangian, attr.clone(), item).to_string();
        assert_eq!(out.matches("deprecated").count(), 1, "{out}");
        assert!(out.contains("coordinate `x` is never determined"), "{out}");
        assert!(!out.contains("coordinate `theta`"), "{out}");
        let allowed = quote!(
            #[allow(deprecated)]
            pub struct P {
                pub m: f64,
            }
        );
        let out = expand(Kind::Lagrangian, attr, allowed).to_string();
        assert!(out.contains("# [allow (deprecated)] const _"), "{out}");
        // x constrained to θ: determined through A.
        let out = expand(
            Kind::Lagrangian,
            quote!(
                coordinates(theta, x),
                lagrangian = 0.5 * m * dot(theta).powi(2) - m * theta.cos(),
                holonomic(x - theta),
            ),
            quote!(
                pub struct P {
                    pub m: f64,
                }
            ),
        )
        .to_string();
        assert!(!out.contains("deprecated"), "{out}");
    }

    #[test]
    fn writes_the_expansion_to_udk_expand_dir_as_udk_expand_prints_it() {
        let dir = std::env::temp_dir().join(format!("udk-expand-dir-{}", std::process::id()));
        std::env::set_var("UDK_EXPAND_DIR", &dir);
        let out = expand(
            Kind::Hamiltonian,
            quote!(
                coordinates(x),
                momenta(p),
                hamiltonian = p.powi(2) / (2.0 * m) + 0.5 * k * x.powi(2),
            ),
            quote!(
                pub struct Oscillator {
                    pub m: f64,
                    pub k: f64,
                }
            ),
        );
        std::env::remove_var("UDK_EXPAND_DIR");
        assert!(!out.to_string().contains("compile_error"), "{out}");
        let written = std::fs::read_to_string(dir.join("Oscillator.rs")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let spec = ModelSpec {
            name: "Oscillator".into(),
            coordinates: vec!["x".parse().unwrap()],
            momenta: vec!["p".parse().unwrap()],
            parameters: ["m", "k"]
                .iter()
                .map(|name| udk_symbolic::Parameter {
                    name: name.parse().unwrap(),
                    value: None,
                })
                .collect(),
            hamiltonian: Some(
                "p.powi(2) / (2.0 * m) + 0.5 * k * x.powi(2)"
                    .parse()
                    .unwrap(),
            ),
            ..ModelSpec::default()
        };
        assert_eq!(written, udk_symbolic::codegen::expand(&spec).unwrap());
        assert!(written.contains("pub fn state_derivative("), "{written}");
    }
}
