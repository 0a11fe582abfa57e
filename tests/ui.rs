//! Compile-time errors of `#[lagrangian]` and `#[hamiltonian]`: each case in `tests/ui/` must fail
//! to compile with the message of its `.stderr`, pointing at the culprit.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test --test ui`, then review them.

#[test]
fn compile_errors_point_at_the_culprit() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
