//! `udk::Model`'s batch evaluation and in-place q̈: the batch equals the loop of
//! `acceleration` bit for bit (many states, many parameter sets, on a rayon pool of 1 and 2
//! threads, one state per call of the compiled code and two), its errors name the first
//! failing state, the articulated-body path agrees with
//! the dense kernel on M, Q, and q̈ of an unconstrained tree allocates nothing per state
//! (counted per thread by a global allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use udk::model::UrdfOptions;
use udk::nalgebra::{DMatrix, DVector};
use udk::{Model, ModelError};

struct Counting;

thread_local! {
    /// Allocations made by this thread (the tests run on several).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn ur5() -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/ur5_robot.urdf");
    let mut model = Model::from_urdf(&path, &UrdfOptions::default()).unwrap();
    model.set_inputs(&[0.5, -1.0, 2.0, 0.1, 0.2, -0.3]).unwrap();
    model
}

/// `count` states of n entries each, as columns, spread over several radians.
fn states(n: usize, count: usize, shift: f64) -> DMatrix<f64> {
    DMatrix::from_fn(n, count, |i, j| {
        ((i * 7 + j * 3) as f64 * 0.61 + shift).sin() * 2.0
    })
}

fn same_bits(a: &DMatrix<f64>, b: &DMatrix<f64>) -> bool {
    a.shape() == b.shape()
        && a.iter()
            .zip(b.iter())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The batch of `model` at (`q`, `qd`, `t`) on a rayon pool of `threads` threads.
fn batch_on(
    threads: usize,
    model: &Model,
    q: &DMatrix<f64>,
    qd: &DMatrix<f64>,
    t: &[f64],
) -> DMatrix<f64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| model.acceleration_batch(q, qd, t)).unwrap()
}

#[test]
fn the_batch_equals_the_loop_bit_for_bit_on_one_and_two_threads() {
    let model = ur5();
    let (n, count) = (model.n(), 300);
    let (q, qd) = (states(n, count, 0.0), states(n, count, 1.3));
    let t: Vec<f64> = (0..count).map(|j| j as f64 * 0.01).collect();
    let mut expected = DMatrix::zeros(n, count);
    for (j, &tj) in t.iter().enumerate() {
        let (qj, qdj) = (q.column(j).into_owned(), qd.column(j).into_owned());
        expected.set_column(j, &model.acceleration(&qj, &qdj, tj).unwrap());
    }
    for threads in [1, 2] {
        let batch = batch_on(threads, &model, &q, &qd, &t);
        assert!(same_bits(&batch, &expected), "{threads} threads");
    }
}

/// Past `udk_jit::PAIRS_AFTER` states the batches of the UR5 take the code for pairs of states
/// (`Model::batch_lanes`): still the loop's q̈ bit for bit, with an odd count (the last state
/// alone), per-state times, and on one and two threads; a failing state is named whether it is
/// the first or the second of its pair.
#[test]
fn the_batch_in_pairs_of_states_equals_the_loop_bit_for_bit() {
    let model = ur5();
    let (n, count) = (model.n(), udk_jit::PAIRS_AFTER + 1);
    let (q, qd) = (states(n, count, 0.3), states(n, count, 2.1));
    let t: Vec<f64> = (0..count).map(|j| j as f64 * 1e-3).collect();
    let mut workspace = model.workspace().unwrap();
    let mut expected = DMatrix::zeros(n, count);
    for (j, &tj) in t.iter().enumerate() {
        let (qj, qdj) = (q.column(j), qd.column(j));
        let (qj, qdj) = (qj.as_slice(), qdj.as_slice());
        let out = &mut expected.as_mut_slice()[j * n..(j + 1) * n];
        (model.acceleration_in(&mut workspace, qj, qdj, tj, out)).unwrap();
    }
    assert_eq!(model.batch_lanes().unwrap(), 1);
    for threads in [1, 2] {
        let batch = batch_on(threads, &model, &q, &qd, &t);
        assert_eq!(model.batch_lanes().unwrap(), 2);
        assert!(same_bits(&batch, &expected), "{threads} threads");
    }
    for (first, second) in [(7, 9), (10, 12)] {
        let mut bad = qd.clone();
        bad[(2, second)] = f64::NAN;
        bad[(4, first)] = f64::INFINITY;
        match model.acceleration_batch(&q, &bad, &t).unwrap_err() {
            ModelError::Batch { index, .. } => assert_eq!(index, first),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn the_batch_over_parameter_sets_equals_setting_each_set() {
    let spec: udk::ModelSpec = toml::from_str(
        r#"
        name = "Pendulum"
        coordinates = ["theta"]
        parameters = [{ name = "m", value = 1.0 }, { name = "l" }, { name = "g", value = 9.81 }]
        lagrangian = "0.5 * m * l.powi(2) * dot(theta).powi(2) + m * g * l * theta.cos()"
        "#,
    )
    .unwrap();
    let model = Model::from_spec(spec, Path::new(".")).unwrap();
    let count = 50;
    let parameters = DMatrix::from_fn(3, count, |i, j| [1.0, 0.5, 9.81][i] + j as f64 * 0.1);
    let (q, qd) = (states(1, count, 0.2), states(1, count, 0.9));
    let t = vec![0.0; count];
    let batch = model
        .acceleration_batch_parameters(&q, &qd, &t, &parameters)
        .unwrap();
    for j in 0..count {
        let mut one = model.clone();
        for (i, name) in ["m", "l", "g"].iter().enumerate() {
            one.set_parameter(name, parameters[(i, j)]).unwrap();
        }
        let qdd = one
            .acceleration(&q.column(j).into_owned(), &qd.column(j).into_owned(), 0.0)
            .unwrap();
        assert_eq!(qdd[0].to_bits(), batch[(0, j)].to_bits());
        let (l, g) = (parameters[(1, j)], parameters[(2, j)]);
        assert!((qdd[0] + g / l * q[(0, j)].sin()).abs() < 1e-12);
    }
    // Without the parameter sets, `l` has no value.
    assert!(matches!(
        model.acceleration_batch(&q, &qd, &t),
        Err(ModelError::MissingParameter { ref name, .. }) if name == "l"
    ));
}

#[test]
fn bad_batches_are_typed_errors_naming_the_first_failing_state() {
    let model = ur5();
    let (q, qd) = (states(6, 10, 0.0), states(6, 10, 1.0));
    let wrong = model.acceleration_batch(&q, &qd, &[0.0; 9]);
    assert!(matches!(
        wrong,
        Err(ModelError::Shape {
            what: "q",
            expected: (6, 9),
            given: (6, 10),
            ..
        })
    ));
    let mut bad = qd.clone();
    bad[(2, 7)] = f64::NAN;
    bad[(0, 4)] = f64::INFINITY;
    let failed = model.acceleration_batch(&q, &bad, &[0.0; 10]).unwrap_err();
    match failed {
        ModelError::Batch { index, source } => {
            assert_eq!(index, 4);
            assert!(matches!(
                *source,
                ModelError::Runtime(udk::runtime::Error::NonFinite { .. })
            ));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_articulated_path_agrees_with_the_dense_kernel() {
    let model = ur5();
    let (q, qd) = (states(6, 5, 0.4), states(6, 5, 2.0));
    for j in 0..5 {
        let (qj, qdj) = (q.column(j).into_owned(), qd.column(j).into_owned());
        let terms = model.terms(&qj, &qdj, 0.0).unwrap();
        let dense = udk::runtime::acceleration_dyn(terms.view(), &udk::runtime::Options::default())
            .unwrap();
        let factored = model.acceleration(&qj, &qdj, 0.0).unwrap();
        // M q̈ = Q for both, to rounding.
        let scale = dense.amax().max(1.0);
        assert!(
            (&factored - &dense).amax() < 1e-11 * scale,
            "{factored} {dense}"
        );
        let residual = &terms.mass_matrix * &factored - &terms.generalized_force;
        assert!(residual.amax() < 1e-10 * terms.generalized_force.amax().max(1.0));
    }
}

#[test]
fn the_acceleration_of_an_unconstrained_tree_in_place_allocates_nothing() {
    let model = ur5();
    let mut workspace = model.workspace().unwrap();
    let (q, qd) = (states(6, 20, 0.1), states(6, 20, 0.7));
    let mut qdd = DVector::zeros(6);
    // The first call compiles nothing more (the workspace did): warm anyway.
    model
        .acceleration_in(
            &mut workspace,
            &q.as_slice()[..6],
            &qd.as_slice()[..6],
            0.0,
            qdd.as_mut_slice(),
        )
        .unwrap();
    let before = allocations();
    for j in 0..20 {
        let (qj, qdj) = (
            &q.as_slice()[6 * j..6 * j + 6],
            &qd.as_slice()[6 * j..6 * j + 6],
        );
        model
            .acceleration_in(&mut workspace, qj, qdj, 0.0, qdd.as_mut_slice())
            .unwrap();
    }
    assert_eq!(allocations() - before, 0);
    // The counter counts: `acceleration` makes its workspace and answer.
    let before = allocations();
    let expected = model
        .acceleration(&q.column(19).into_owned(), &qd.column(19).into_owned(), 0.0)
        .unwrap();
    assert!(allocations() - before > 0);
    assert_eq!(qdd, expected);
}
