//! `udk eval` on a URDF root placed by the model's own coordinate: the UR5 on a cart
//! (tests/fixtures/cart_ur5.toml) against Pinocchio 4.1 with a prismatic root joint
//! (tests/fixtures/urdf_root.json, from tests/fixtures/make_urdf_root.py).

mod common;

use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn numbers(value: &serde_json::Value) -> Vec<f64> {
    (value.as_array().expect("an array").iter())
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

fn csv(values: &[f64]) -> String {
    (values.iter().map(|x| format!("{x:e}")))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn eval_of_a_ur5_on_a_cart_matches_pinocchio() {
    let text = std::fs::read_to_string(fixtures().join("urdf_root.json")).unwrap();
    let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
    for state in fixture["robots"]["cart"]["states"].as_array().unwrap() {
        let report = common::json_output(
            "eval",
            &fixtures().join("cart_ur5.toml"),
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
