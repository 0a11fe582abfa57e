//! Generated fixed-size code does not allocate: every generated function of a Lagrangian model
//! with a positive definite M, one with a singular M, a Hamiltonian model, and one with
//! redundant constraints, called under a counting global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use udk::nalgebra::{Vector2, Vector3, Vector4};
use udk::{hamiltonian, lagrangian};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// How many allocations `f` makes.
fn allocations<T>(f: impl FnOnce() -> T) -> usize {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    std::hint::black_box(f());
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

/// Spherical pendulum, z down: positive definite M.
#[lagrangian(
    coordinates(x, y, z),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) + m * g * z,
    holonomic(x.powi(2) + y.powi(2) + z.powi(2) - l.powi(2)),
    forces(-c * dot(x), -c * dot(y), -c * dot(z)),
)]
struct Pendulum {
    m: f64,
    g: f64,
    l: f64,
    c: f64,
}

/// The wheel on an incline in (θ, y): singular M, handled through M + AᵀA.
#[lagrangian(
    coordinates(theta, y),
    lagrangian = 0.5 * (m * r.powi(2) + ic) * dot(theta).powi(2) + m * g * y,
    holonomic(y - r * theta * alpha.sin()),
)]
struct Wheel {
    m: f64,
    r: f64,
    ic: f64,
    g: f64,
    alpha: f64,
}

#[hamiltonian(
    coordinates(x, y, z),
    momenta(px, py, pz),
    hamiltonian = (px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m) - m * g * z,
    constraints(x * px + y * py + z * pz),
)]
struct HamiltonianPendulum {
    m: f64,
    g: f64,
}

/// Three functionally dependent constraints: the rank-deficient path of the runtime.
#[allow(dead_code)]
#[path = "../examples/two_particles_incline.rs"]
mod two_particles_incline;

#[test]
fn generated_functions_do_not_allocate() {
    // The counter sees allocations.
    assert_eq!(allocations(|| vec![1.0f64]), 1);

    let pendulum = Pendulum {
        m: 1.0,
        g: 9.81,
        l: 2.0,
        c: 0.1,
    };
    let (q, qd) = (Vector3::new(1.2, 0.0, 1.6), Vector3::new(0.0, 0.7, 0.0));
    assert_eq!(allocations(|| pendulum.mass_matrix(&q, 0.0)), 0);
    assert_eq!(allocations(|| pendulum.generalized_forces(&q, &qd, 0.0)), 0);
    assert_eq!(allocations(|| pendulum.constraint_matrix(&q, &qd, 0.0)), 0);
    assert_eq!(allocations(|| pendulum.constraint_rhs(&q, &qd, 0.0)), 0);
    assert_eq!(allocations(|| pendulum.nonideal_force(&q, &qd, 0.0)), 0);
    assert_eq!(allocations(|| pendulum.terms(&q, &qd, 0.0)), 0);
    assert_eq!(
        allocations(|| pendulum.acceleration(&q, &qd, 0.0).unwrap()),
        0
    );
    assert_eq!(
        allocations(|| pendulum.constraint_force(&q, &qd, 0.0).unwrap()),
        0
    );
    assert_eq!(
        allocations(|| pendulum.constraint_multipliers(&q, &qd, 0.0).unwrap()),
        0
    );
    assert_eq!(allocations(|| pendulum.energy(&q, &qd, 0.0)), 0);
    assert_eq!(allocations(|| pendulum.position_residual(&q, 0.0)), 0);
    assert_eq!(allocations(|| pendulum.velocity_residual(&q, &qd, 0.0)), 0);

    let wheel = Wheel {
        m: 2.0,
        r: 0.3,
        ic: 0.09,
        g: 9.81,
        alpha: 0.4,
    };
    let (q, qd) = (
        Vector2::new(1.0, 0.3 * 0.4f64.sin()),
        Vector2::new(0.5, 0.0),
    );
    assert_eq!(allocations(|| wheel.acceleration(&q, &qd, 0.0).unwrap()), 0);
    assert_eq!(
        allocations(|| wheel.constraint_force(&q, &qd, 0.0).unwrap()),
        0
    );
    assert_eq!(
        allocations(|| wheel.constraint_multipliers(&q, &qd, 0.0).unwrap()),
        0
    );

    let hamiltonian = HamiltonianPendulum { m: 1.0, g: 9.81 };
    let (q, p) = (Vector3::new(1.2, 0.0, 1.6), Vector3::new(0.0, 0.7, 0.0));
    assert_eq!(allocations(|| hamiltonian.hamiltonian(&q, &p, 0.0)), 0);
    assert_eq!(allocations(|| hamiltonian.velocity(&q, &p, 0.0)), 0);
    assert_eq!(
        allocations(|| hamiltonian.state_derivative(&q, &p, 0.0).unwrap()),
        0
    );
    assert_eq!(
        allocations(|| hamiltonian.constraint_force(&q, &p, 0.0).unwrap()),
        0
    );
    assert_eq!(
        allocations(|| hamiltonian.constraint_residual(&q, &p, 0.0)),
        0
    );

    let particles = two_particles_incline::TwoParticlesOnIncline {
        m1: 1.0,
        m2: 3.0,
        g: 9.81,
        alpha: 0.3,
        l: 2.0,
    };
    let (sin, cos) = 0.7f64.sin_cos();
    let q = Vector4::new(1.0 + 2.0 * cos, 0.5 + 2.0 * sin, 1.0, 0.5);
    let p = Vector4::new(-0.8 * sin, 0.8 * cos, 0.9 * sin, -0.9 * cos);
    assert_eq!(
        allocations(|| particles.state_derivative(&q, &p, 0.0).unwrap()),
        0
    );
}
