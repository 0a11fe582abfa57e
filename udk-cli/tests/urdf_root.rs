//! `udk eval` on a URDF root placed by the model's own coordinate: the UR5 on a cart
//! (tests/fixtures/cart_ur5.toml) against Pinocchio 4.1 with a prismatic root joint
//! (tests/fixtures/urdf_root.json, from tests/fixtures/make_urdf_root.py).

mod common;

use common::{csv, fixtures_dir, numbers};

#[test]
fn eval_of_a_ur5_on_a_cart_matches_pinocchio() {
    let fixture = common::fixture("urdf_root");
    for state in fixture["robots"]["cart"]["states"].as_array().unwrap() {
        let report = common::json_output(
            "eval",
            &fixtures_dir().join("cart_ur5.toml"),
            &[
                &format!("--q={}", csv(&numbers(&state["q"]))),
                &format!("--qd={}", csv(&numbers(&state["v"]))),
                &format!("--u={}", csv(&numbers(&state["tau"]))),
            ],
        );
        let got = numbers(&report["acceleration"]);
        let expected = numbers(&state["aba"]);
        let scale = expected.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        for (g, e) in got.iter().zip(&expected) {
            assert!((g - e).abs() <= 1e-10 * scale, "{got:?} vs {expected:?}");
        }
        assert_eq!(got.len(), 7);
    }
}
