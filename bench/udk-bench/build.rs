//! Generates the pendulum chain models exactly as `#[lagrangian]` would: for each size n and
//! form, the struct with its parameter fields and the impl blocks of
//! `udk_symbolic::generate`, written to `$OUT_DIR/models.rs` and `include!`d by `src/models.rs`.
//! Sizes: n = 2 and 5; with the `large` feature also n = 10 and 20.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal, pendulum_chain_tree};
use udk_symbolic::ModelSpec;

fn sizes() -> Vec<usize> {
    let mut sizes = vec![2, 5];
    if env::var_os("CARGO_FEATURE_LARGE").is_some() {
        sizes.extend([10, 20]);
    }
    sizes
}

/// The expression reading parameter `name` (m1…mn, l1…ln or g) from a `crate::Chain`.
fn chain_field(name: &str) -> String {
    let index = |digits: &str| digits.parse::<usize>().expect("a parameter index") - 1;
    match name {
        "g" => "chain.g".to_owned(),
        _ if name.starts_with('m') => format!("chain.masses[{}]", index(&name[1..])),
        _ if name.starts_with('l') => format!("chain.lengths[{}]", index(&name[1..])),
        _ => panic!("unexpected chain parameter `{name}`"),
    }
}

/// The struct, its generated impl blocks and its `FromChain` impl.
fn model_code(spec: &ModelSpec, links: usize, form: &str) -> String {
    let name = &spec.name;
    let fields: Vec<String> = spec.parameters.iter().map(|p| p.name.as_string()).collect();
    let mut code = format!(
        "/// The {links}-link pendulum chain, {form} form (`udk_symbolic::models`).\n\
         #[derive(Clone, Copy, Debug)]\npub struct {name} {{\n"
    );
    for field in &fields {
        writeln!(
            code,
            "    /// Parameter `{field}` (kg, m or m/s²).\n    pub {field}: f64,"
        )
        .unwrap();
    }
    code.push_str("}\n");
    let generated =
        udk_symbolic::generate(spec).unwrap_or_else(|e| panic!("{name} does not generate: {e:?}"));
    writeln!(code, "{generated}").unwrap();
    let init: Vec<String> = fields
        .iter()
        .map(|f| format!("{f}: {}", chain_field(f)))
        .collect();
    writeln!(
        code,
        "impl crate::FromChain for {name} {{\n    fn from_chain(chain: &crate::Chain) -> Self {{\n        {name} {{ {} }}\n    }}\n}}",
        init.join(", ")
    )
    .unwrap();
    code
}

/// The tree chains (`pendulum_chain_tree`, no parameters): n = 2 and 5, with the `large`
/// feature also 10, 20, 30, 40 and 60; and `tree_chain(n)`, the model of n links.
fn tree_chains() -> String {
    let mut sizes = vec![2, 5];
    if env::var_os("CARGO_FEATURE_LARGE").is_some() {
        sizes.extend([10, 20, 30, 40, 60]);
    }
    let mut code = String::new();
    let mut arms = String::new();
    for links in sizes {
        let spec = pendulum_chain_tree(links);
        let name = &spec.name;
        let generated = udk_symbolic::generate(&spec)
            .unwrap_or_else(|e| panic!("{name} does not generate: {e:?}"));
        writeln!(
            code,
            "/// The {links}-link chain as a tree (`udk_symbolic::models::pendulum_chain_tree`).\n\
             #[derive(Clone, Copy, Debug)]\npub struct {name};\n{generated}"
        )
        .unwrap();
        writeln!(
            arms,
            "        {links} => Some(::std::boxed::Box::new(crate::tree_chain::Tree::<{name}, {links}>({name}))),"
        )
        .unwrap();
    }
    writeln!(
        code,
        "/// The generated tree chain of `links` links, `None` when that size was not generated.\n\
         pub fn tree_chain(links: usize) -> Option<::std::boxed::Box<dyn crate::tree_chain::TreeChain>> {{\n\
         \x20   match links {{\n{arms}        _ => None,\n    }}\n}}"
    )
    .unwrap();
    code
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let mut code = String::new();
    let mut arms = String::new();
    for links in sizes() {
        for (spec, form, constraints) in [
            (pendulum_chain_cartesian(links), "Cartesian", links),
            (pendulum_chain_minimal(links), "Minimal", 0),
        ] {
            code += &model_code(&spec, links, &form.to_lowercase());
            let dof = spec.coordinates.len();
            writeln!(
                arms,
                "        ({links}, crate::Form::{form}) => Some(::std::boxed::Box::new(\
                 crate::Generated::<{name}, {dof}, {constraints}>::new(chain, crate::Form::{form}))),",
                name = spec.name,
            )
            .unwrap();
        }
    }
    writeln!(
        code,
        "/// The generated model of `chain` in `form`, `None` when its size was not generated.\n\
         pub fn generated(chain: &crate::Chain, form: crate::Form) -> Option<::std::boxed::Box<dyn crate::BenchModel>> {{\n\
         \x20   match (chain.links(), form) {{\n{arms}        _ => None,\n    }}\n}}"
    )
    .unwrap();
    code += &tree_chains();
    let out = Path::new(&env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("models.rs");
    fs::write(out, code).expect("OUT_DIR is writable");
}
