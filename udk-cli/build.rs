//! Sets `UDK_EXPAND_DIR` for the compilation of this package, so that the `#[lagrangian]` and
//! `#[hamiltonian]` models of its tests write their expansions there; `tests/models.rs` checks
//! that `udk expand` prints the same bytes.

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    println!("cargo:rustc-env=UDK_EXPAND_DIR={out}/expand");
    println!("cargo:rerun-if-changed=build.rs");
}
