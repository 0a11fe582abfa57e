//! `udk::Model`, a model compiled at run time: on every example model file the JIT and the
//! tape give the same terms, q̈ (or ṗ) and outputs bit for bit; known values of small models;
//! parameters by name; the typed errors; `Send + Sync`; the Jacobians derived on first use.

use std::path::{Path, PathBuf};
use udk::model::Backend;
use udk::nalgebra::{dvector, DVector};
use udk::{Model, ModelError, ModelSpec};

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/models")
}

fn pendulum() -> ModelSpec {
    toml::from_str(
        r#"
        name = "Pendulum"
        coordinates = ["theta"]
        parameters = [{ name = "m", value = 1.0 }, { name = "l", value = 2.0 }, { name = "g" }]
        lagrangian = "0.5 * m * l.powi(2) * dot(theta).powi(2) + m * g * l * theta.cos()"
        outputs = [{ name = "height", value = "-l * theta.cos()" }]
        "#,
    )
    .unwrap()
}

#[test]
fn a_model_is_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<Model>();
}

#[test]
fn the_pendulum_swings_as_g_over_l_sin_theta_and_parameters_are_set_by_name() {
    let mut model = Model::from_spec(pendulum(), Path::new(".")).unwrap();
    let (q, qd) = (dvector![0.7], dvector![0.4]);
    assert!(matches!(
        model.acceleration(&q, &qd, 0.0),
        Err(ModelError::MissingParameter { ref name, .. }) if name == "g"
    ));
    model.set_parameter("g", 9.81).unwrap();
    assert_eq!(model.parameter("l").unwrap(), Some(2.0));
    let qdd = model.acceleration(&q, &qd, 0.0).unwrap();
    assert!((qdd[0] + 9.81 / 2.0 * 0.7f64.sin()).abs() < 1e-15);
    model.set_parameter("l", 0.5).unwrap();
    let qdd = model.acceleration(&q, &qd, 0.0).unwrap();
    assert!((qdd[0] + 9.81 / 0.5 * 0.7f64.sin()).abs() < 1e-14);
    assert_eq!(model.output_columns(), ["height"]);
    assert_eq!(model.outputs(&q, &qd, 0.0).unwrap()[0], -0.5 * 0.7f64.cos());
    // No constraint: no constraint force.
    assert_eq!(model.constraint_force(&q, &qd, 0.0).unwrap(), dvector![0.0]);
}

#[test]
fn bad_calls_are_typed_errors() {
    let mut model = Model::from_spec(pendulum(), Path::new(".")).unwrap();
    model.set_parameter("g", 9.81).unwrap();
    let message = model.set_parameter("mass", 1.0).unwrap_err().to_string();
    assert_eq!(
        message,
        "`mass` is not a parameter of `Pendulum` (parameters: m, l, g)"
    );
    assert!(matches!(
        model.acceleration(&dvector![0.1, 0.2], &dvector![0.0], 0.0),
        Err(ModelError::Length {
            what: "q",
            expected: 1,
            given: 2,
            ..
        })
    ));
    assert!(matches!(
        model.set_inputs(&[1.0]),
        Err(ModelError::Length {
            what: "u",
            expected: 0,
            given: 1,
            ..
        })
    ));
    assert!(matches!(
        model.momentum_rate(&dvector![0.1], &dvector![0.0], 0.0),
        Err(ModelError::WrongKind {
            wanted: "Hamiltonian",
            ..
        })
    ));
    let mut spec = pendulum();
    spec.lagrangian = Some("0.5 * m * dot(theta).powi(2) + k * theta".parse().unwrap());
    let message = Model::from_spec(spec, Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(message.starts_with("model `Pendulum`: "), "{message}");
    assert!(message.contains('k'), "{message}");
    let missing = Model::from_file(&models().join("no_such_model.toml")).unwrap_err();
    assert!(matches!(missing, ModelError::Read { .. }), "{missing}");
}

/// `acceleration_with_inputs_in` takes u at each call, on a model shared as it is: q̈ is that
/// of `set_inputs` then `acceleration`, bit for bit, on the articulated path (the UR5's URDF)
/// and on a model file; M q̈ = Q (B u included) at those inputs; u of another length is a
/// typed error.
#[test]
fn inputs_passed_per_call_give_the_acceleration_of_the_inputs_set() {
    let ur5 = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/ur5_robot.urdf");
    for model in [
        Model::from_file(&models().join("cart_double_pendulum.toml")).unwrap(),
        Model::from_urdf(&ur5, &udk::model::UrdfOptions::default()).unwrap(),
    ] {
        let (n, k) = (model.n(), model.inputs().len());
        assert!(k > 0 && model.m() == 0);
        let q = DVector::from_fn(n, |i, _| (0.7 * i as f64 + 0.3).sin());
        let qd = DVector::from_fn(n, |i, _| (0.4 * i as f64).cos());
        let (mut workspace, mut set) = (model.workspace().unwrap(), model.clone());
        let mut qdd = DVector::zeros(n);
        let mut first = None;
        for s in 1..4 {
            let u: Vec<f64> = (0..k)
                .map(|i| s as f64 * (1.3 * i as f64 + 0.2).cos())
                .collect();
            model
                .acceleration_with_inputs_in(
                    &mut workspace,
                    q.as_slice(),
                    qd.as_slice(),
                    &u,
                    0.0,
                    qdd.as_mut_slice(),
                )
                .unwrap();
            set.set_inputs(&u).unwrap();
            assert_eq!(qdd, set.acceleration(&q, &qd, 0.0).unwrap());
            let terms = set.terms(&q, &qd, 0.0).unwrap();
            let residual = &terms.mass_matrix * &qdd - &terms.generalized_force;
            let scale = terms.generalized_force.amax().max(1.0);
            assert!(residual.amax() < 1e-10 * scale, "{residual}");
            // The inputs reach q̈.
            assert_ne!(Some(&qdd), first.as_ref());
            first.get_or_insert_with(|| qdd.clone());
        }
        let error = model
            .acceleration_with_inputs_in(
                &mut workspace,
                q.as_slice(),
                qd.as_slice(),
                &vec![0.0; k + 1],
                0.0,
                qdd.as_mut_slice(),
            )
            .unwrap_err();
        assert!(
            matches!(error, ModelError::Length { what: "u", expected, given, .. }
                if expected == k && given == k + 1),
            "{error}"
        );
    }
}

/// The JIT and the tape on one model at a few states: terms, q̈ or ṗ, outputs, bit for bit.
fn assert_backends_agree(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let spec: ModelSpec = toml::from_str(&text).unwrap();
    let base = path.parent().unwrap();
    let jit = Model::from_spec_with(spec.clone(), base, Backend::Jit).unwrap();
    let tape = Model::from_spec_with(spec, base, Backend::Tape).unwrap();
    let n = jit.n();
    for k in 0..3 {
        let state = |shift: f64| DVector::from_fn(n, |i, _| ((i as f64 + shift) * 0.37).sin());
        let (q, v, t) = (state(k as f64), state(k as f64 + 0.5), 0.1 * k as f64);
        let same = |a: &DVector<f64>, b: &DVector<f64>| {
            a.iter()
                .zip(b.iter())
                .all(|(x, y)| x.to_bits() == y.to_bits())
        };
        let name = path.display();
        assert!(same(
            &jit.outputs(&q, &v, t).unwrap(),
            &tape.outputs(&q, &v, t).unwrap()
        ));
        let (a, b) = if text.contains("hamiltonian =") {
            let (x, y) = (
                jit.hamiltonian_terms(&q, &v, t),
                tape.hamiltonian_terms(&q, &v, t),
            );
            assert_eq!(x.unwrap(), y.unwrap(), "{name}");
            (jit.momentum_rate(&q, &v, t), tape.momentum_rate(&q, &v, t))
        } else {
            assert_eq!(
                jit.terms(&q, &v, t).unwrap(),
                tape.terms(&q, &v, t).unwrap(),
                "{name}"
            );
            (jit.acceleration(&q, &v, t), tape.acceleration(&q, &v, t))
        };
        match (a, b) {
            (Ok(a), Ok(b)) => assert!(same(&a, &b), "{name}: {a} {b}"),
            (a, b) => assert_eq!(a.err(), b.err(), "{name}"),
        }
    }
}

#[test]
fn the_jit_equals_the_tape_on_every_example_model() {
    let mut count = 0;
    for entry in std::fs::read_dir(models()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            assert_backends_agree(&path);
            count += 1;
        }
    }
    assert!(count > 20);
}

#[test]
fn a_hamiltonian_model_from_its_file_stays_on_its_sphere() {
    let model = Model::from_file(&models().join("spherical_pendulum_hamiltonian.toml")).unwrap();
    // On the sphere with p tangent to it: ṗ keeps qᵀp = 0, d(qᵀp)/dt = q̇ᵀp + qᵀṗ = 0.
    let (q, p) = (dvector![1.2, 0.0, 1.6], dvector![0.0, 1.5, 0.0]);
    let pd = model.momentum_rate(&q, &p, 0.0).unwrap();
    let h = model.hamiltonian_terms(&q, &p, 0.0).unwrap();
    let rate = h.h_p.dot(&p) + q.dot(&pd);
    assert!(rate.abs() < 1e-13, "{rate:e}");
    assert_eq!(h.h_p, &p / 1.5);
}

#[test]
fn the_acceleration_jacobian_of_a_constrained_model_matches_central_differences() {
    let model = Model::from_file(&models().join("spherical_pendulum_lagrangian.toml")).unwrap();
    let (q, qd) = (dvector![1.2, 0.0, -1.6], dvector![0.0, 1.1, 0.0]);
    let jacobian = model.acceleration_jacobian(&q, &qd, 0.0).unwrap();
    assert_eq!(
        jacobian.acceleration,
        model.acceleration(&q, &qd, 0.0).unwrap()
    );
    let h = 1e-6;
    for j in 0..model.n() {
        let step = DVector::from_fn(model.n(), |i, _| if i == j { h } else { 0.0 });
        let qdd = |q: &DVector<f64>, qd: &DVector<f64>| model.acceleration(q, qd, 0.0).unwrap();
        let wrt_q = (qdd(&(&q + &step), &qd) - qdd(&(&q - &step), &qd)) / (2.0 * h);
        let wrt_qd = (qdd(&q, &(&qd + &step)) - qdd(&q, &(&qd - &step))) / (2.0 * h);
        assert!((jacobian.wrt_q.column(j) - wrt_q).amax() < 1e-6, "∂q̈/∂q{j}");
        assert!(
            (jacobian.wrt_qd.column(j) - wrt_qd).amax() < 1e-6,
            "∂q̈/∂q̇{j}"
        );
    }
}

#[test]
fn the_jacobians_derived_on_first_use_are_those_derived_with_the_rest_bit_for_bit() {
    for file in ["urdf_double_pendulum.toml", "four_bar.toml"] {
        let path = models().join(file);
        let mut spec: ModelSpec = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let base = path.parent().unwrap();
        // `from_spec` derives without the Jacobians; `compile` takes a derivation with them.
        let on_first_use = Model::from_spec(spec.clone(), base).unwrap();
        let derived = udk_symbolic::limits::on_large_stack(|| {
            udk_symbolic::urdf::expand(&mut spec, base).unwrap();
            udk_symbolic::derive(&spec).unwrap()
        });
        let values = spec.parameters.iter().map(|p| p.value).collect();
        let with_the_rest = Model::compile(&derived, values, Backend::Jit).unwrap();
        let n = with_the_rest.n();
        let q = DVector::from_fn(n, |i, _| (0.7 * i as f64 + 0.3).sin());
        let qd = DVector::from_fn(n, |i, _| (0.5 * i as f64 + 0.1).cos());
        assert_eq!(
            on_first_use.acceleration_jacobian(&q, &qd, 0.2).unwrap(),
            with_the_rest.acceleration_jacobian(&q, &qd, 0.2).unwrap(),
            "{file}"
        );
    }
}

/// A model file as deep and as long as `udk_symbolic::limits` allows: a kinetic energy in
/// 4000 pairs of parentheses and a potential of 30,000 terms (`syn` trees are as deep as a
/// sum is long), read, compiled, cloned, written out and dropped on a test's own 2 MiB
/// thread. Each of these once overflowed it in a debug build.
#[test]
fn a_model_file_of_deep_nesting_and_long_sums_is_handled_on_any_thread() {
    let n = 4000;
    let kinetic = format!("{}0.5 * dot(x).powi(2){}", "(".repeat(n), ")".repeat(n));
    let potential = vec!["x.powi(2) / 60000.0"; 30_000].join(" + ");
    let text = format!(
        "name = \"Deep\"\ncoordinates = [\"x\"]\nlagrangian = \"{kinetic} - ({potential})\"\n"
    );
    let path = std::env::temp_dir().join(format!("udk-deep-{}.toml", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let model = Model::from_file(&path);
    std::fs::remove_file(&path).unwrap();
    // V = x²/2, so q̈ = −x.
    let qdd = model
        .unwrap()
        .acceleration(&dvector![0.3], &dvector![0.0], 0.0)
        .unwrap();
    assert!((qdd[0] + 0.3).abs() < 1e-12, "{qdd}");
    let spec: ModelSpec = toml::from_str(&text).unwrap();
    let json = serde_json::to_string(&spec.clone()).unwrap();
    let again: ModelSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(
        again
            .lagrangian
            .unwrap()
            .to_string()
            .matches("powi")
            .count(),
        30_001
    );
}

/// The four-bar of `examples/models/four_bar.urdf` closed on its tree (as
/// `examples/urdf_four_bar.rs`), with a non-ideal force C: its q̈ takes the articulated-body
/// path with constraints, whose program writes q̈₀, the pivots, C, W, A and b into one buffer.
fn four_bar_loop() -> ModelSpec {
    toml::from_str(
        r#"
        name = "FourBarLoop"
        urdf = { path = "four_bar.urdf" }
        definitions = [{ name = "gap", value = 'link_position("coupler") + link_rotation("coupler") * vec3(0.35, 0.0, 0.0) - link_position("rocker") - link_rotation("rocker") * vec3(0.3, 0.0, 0.0)' }]
        holonomic = ["gap.x()", "gap.z()"]
        nonideal = ["-0.1 * dot(crank_joint)", "0.02 * dot(coupler_joint)", "0.05 * dot(rocker_joint)"]
        "#,
    )
    .unwrap()
}

#[test]
fn the_articulated_path_with_constraints_and_c_agrees_with_the_dense_kernel() {
    let mut open = four_bar_loop();
    open.holonomic.clear();
    for spec in [four_bar_loop(), open] {
        assert_articulated_path_agrees(spec);
    }
}

/// q̈ and Qᶜ of `spec` (the four-bar, closed or open) on the articulated path, by the JIT and
/// the tape, against the dense kernel on its terms; the typed errors of `acceleration_in`.
fn assert_articulated_path_agrees(spec: ModelSpec) {
    let base = models();
    let m = spec.holonomic.len();
    let mut expanded = spec.clone();
    let derivation = udk_symbolic::limits::on_large_stack(|| {
        udk_symbolic::urdf::expand(&mut expanded, &base).unwrap();
        udk_symbolic::derive(&expanded).unwrap()
    });
    let udk_symbolic::Equations::Lagrangian(e) = &derivation.equations else {
        unreachable!("a Lagrangian model")
    };
    assert!(e.articulated.is_some() && !e.nonideal_force.is_empty());
    for backend in [Backend::Jit, Backend::Tape] {
        let model = Model::from_spec_with(spec.clone(), &base, backend).unwrap();
        assert_eq!((model.n(), model.m()), (3, m));
        let mut workspace = model.workspace().unwrap();
        for k in 0..4 {
            let q = DVector::from_fn(3, |i, _| (0.9 * i as f64 + 0.4 * k as f64).sin() - 1.5);
            let qd = DVector::from_fn(3, |i, _| (0.6 * i as f64 + 0.3 * k as f64).cos());
            let terms = model.terms(&q, &qd, 0.0).unwrap();
            let (dense_qdd, dense_force) = udk::runtime::acceleration_and_constraint_force_dyn(
                terms.view(),
                &udk::runtime::Options::default(),
            )
            .unwrap();
            let qdd = model.acceleration(&q, &qd, 0.0).unwrap();
            let force = model.constraint_force(&q, &qd, 0.0).unwrap();
            let close =
                |x: &DVector<f64>, y: &DVector<f64>| (x - y).amax() <= 1e-9 * y.amax().max(1.0);
            assert!(
                close(&qdd, &dense_qdd),
                "{backend:?} {k}: {qdd} {dense_qdd}"
            );
            assert!(close(&force, &dense_force), "{force} {dense_force}");
            // A q̈ = b, and C in the force: Qᶜ = M q̈ − Q.
            let residual = &terms.constraint_matrix * &qdd - &terms.constraint_rhs;
            assert!(residual.amax() < 1e-9, "{residual}");
            let balance = &terms.mass_matrix * &qdd - &terms.generalized_force;
            assert!(close(&balance, &force), "{balance} {force}");
            let mut in_place = DVector::zeros(3);
            model
                .acceleration_in(
                    &mut workspace,
                    q.as_slice(),
                    qd.as_slice(),
                    0.0,
                    in_place.as_mut_slice(),
                )
                .unwrap();
            assert_eq!(in_place, qdd);
        }
        // The checks of `acceleration_in`: lengths (q, q̇, q̈), then non-finite input.
        let (q, qd) = (
            DVector::from_element(3, -1.0),
            DVector::from_element(3, 0.5),
        );
        let mut qdd = [0.0; 3];
        // The length of q, q̇ and q̈ in each call, one of them short.
        for (what, [lq, lqd, lqdd]) in [("q", [2, 3, 3]), ("qd", [3, 2, 3]), ("qdd", [3, 3, 2])] {
            let error = model
                .acceleration_in(
                    &mut workspace,
                    &q.as_slice()[..lq],
                    &qd.as_slice()[..lqd],
                    0.0,
                    &mut qdd[..lqdd],
                )
                .unwrap_err();
            assert!(
                matches!(error, ModelError::Length { what: w, expected: 3, given: 2, .. } if w == what),
                "{error}"
            );
        }
        let nan = DVector::from_element(3, f64::NAN);
        for (q, qd) in [(&nan, &qd), (&q, &nan)] {
            let error = model.acceleration(q, qd, 0.0).unwrap_err();
            assert!(
                matches!(
                    error,
                    ModelError::Runtime(udk::runtime::Error::NonFinite { .. })
                ),
                "{error}"
            );
        }
    }
}
