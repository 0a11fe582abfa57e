//! Non-conservative generalized forces enter Q, non-ideal constraint forces enter C, and the
//! Jacobi integral of a time-independent model is its energy.

mod core_support;

use core_support::{assert_close, derived, lagrangian, Point, Rng};

#[test]
fn damping_and_nonideal_friction() {
    let d = derived(
        r#"
        name = "DampedBead"
        coordinates = ["x", "y"]
        parameters = [{ name = "m" }, { name = "k" }, { name = "c" }, { name = "mu" }]
        lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - 0.5 * k * (x.powi(2) + y.powi(2))"
        forces = ["-c * dot(x)", "-c * dot(y) + t"]
        nonideal = ["-mu * dot(x)", "0"]
        holonomic = ["y - x.powi(2)"]
        "#,
    );
    let eq = lagrangian(&d);
    let mut rng = Rng(11);
    for _ in 0..10 {
        let p = Point::random(&mut rng, 2, 4);
        let [m, k, c, mu] = p.k[..] else {
            unreachable!()
        };
        let (x, y, vx, vy) = (p.q[0], p.q[1], p.v[0], p.v[1]);
        let q = [-k * x - c * vx, -k * y - c * vy + p.t];
        assert_close(&p.eval_vec(&d.pool, &eq.generalized_force), &q, "Q");
        assert_close(
            &p.eval_vec(&d.pool, &eq.nonideal_force),
            &[-mu * vx, 0.0],
            "C",
        );
        // ÿ − 2xẍ − 2ẋ² = 0: A = [−2x, 1], b = 2ẋ².
        let a = p.eval_vec(&d.pool, &eq.constraint_matrix.entries);
        assert_close(&a, &[-2.0 * x, 1.0], "A");
        assert_close(
            &p.eval_vec(&d.pool, &eq.constraint_rhs),
            &[2.0 * vx * vx],
            "b",
        );
        let energy = 0.5 * m * (vx * vx + vy * vy) + 0.5 * k * (x * x + y * y);
        assert_close(&[p.eval(&d.pool, eq.energy)], &[energy], "h");
        assert_close(&p.eval_vec(&d.pool, &eq.holonomic), &[y - x * x], "f");
    }
}
