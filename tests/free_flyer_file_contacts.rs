//! Ground contacts in a floating-base model file (`[[contacts]]` with
//! `gap = 'link_position("FL_FOOT").z()'`, tests/fixtures/solo12_landing.toml) run by
//! `udk::model::FreeFlyerModel`: Solo12 dropped from 0.3 m lands under a PD law on its joints
//! with the same events at the same times and the same final state as the macro's robot with
//! `ground_contacts` (tests/free_flyer_contacts.rs checks that run against Pinocchio's impulse
//! dynamics and the weight), its foot forces by name; the contacts' bad input refused.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::path::Path;
use udk::model::{FreeFlyerModel, ModelError};
use udk::nalgebra::SVector;
use udk::runtime::simulate::{
    ground_contacts, simulate_free_flyer_with_contacts, ContactSet, FreeFlyer, SimulationOptions,
};

mod fixture_support;
use fixture_support::assert_close;

mod solo12_support;
use solo12_support::{pd, Solo12, GAINS, POSTURE};

const FILE: &str = "tests/fixtures/solo12_landing.toml";

fn initial() -> (Vec<f64>, Vec<f64>) {
    let spec: udk::ModelSpec =
        toml::from_str(&std::fs::read_to_string(FILE).expect("the file")).expect("TOML");
    let initial = spec.initial.expect("[initial]");
    (initial.q0, initial.qd0)
}

fn options() -> SimulationOptions {
    SimulationOptions {
        rtol: 1e-10,
        atol: 1e-12,
        ..SimulationOptions::every(0.05)
    }
}

#[test]
fn solo12_lands_from_the_model_file_as_the_macro_does() {
    let model = FreeFlyerModel::from_file(Path::new(FILE)).expect("the model file");
    assert_eq!(model.contact_names(), ["FL", "FR", "HL", "HR"]);
    let (q0, v0) = initial();
    let efforts = |_: f64, q: &[f64], v: &[f64], tau: &mut [f64]| pd(q, v, tau);
    let motion = (model.simulate_with(&q0, &v0, &efforts, (0.0, 2.0), &options()))
        .expect("the landing runs");

    let macro_pd =
        |_: f64, q: &SVector<f64, 19>, v: &[f64], tau: &mut [f64]| pd(q.as_slice(), v, tau);
    let set = ContactSet::new(
        FreeFlyer::new(&Solo12, &macro_pd),
        ground_contacts(&Solo12, 0.0, 0.0, 1.5),
    )
    .expect("contacts");
    let forces = RefCell::new(Vec::new());
    let q0s = SVector::<f64, 19>::from_column_slice(&q0);
    let run = simulate_free_flyer_with_contacts(&set, (&q0s, &v0), (0.0, 2.0), &options(), |s| {
        let v = &s.v.as_slice()[..18];
        forces
            .borrow_mut()
            .push(set.forces(s.q.as_slice(), v, s.t).expect("forces"));
        ControlFlow::Continue(())
    })
    .expect("the landing runs");

    // The same events, in order, at the same times.
    let names: Vec<&str> = motion.events.iter().map(|e| e.name.as_str()).collect();
    let expected: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, expected);
    assert!(
        names.iter().filter(|n| n.ends_with("touchdown")).count() >= 4,
        "{names:?}"
    );
    for (e, r) in motion.events.iter().zip(&run.events) {
        assert!(
            (e.t - r.t).abs() < 1e-9,
            "{}: t = {} against {}",
            e.name,
            e.t,
            r.t
        );
        assert_close(
            e.v_after.as_slice(),
            &r.after.1.as_slice()[..18],
            1e-7,
            "v⁺",
        );
    }
    // The same samples and final state.
    assert_eq!(motion.t.len(), run.samples.len());
    let last = run.samples.last().expect("samples");
    let j = motion.t.len() - 1;
    let q: Vec<f64> = motion.q.column(j).iter().copied().collect();
    let v: Vec<f64> = motion.v.column(j).iter().copied().collect();
    assert_close(&q, last.q.as_slice(), 1e-8, "q(t_f)");
    assert_close(&v, &last.v.as_slice()[..18], 1e-8, "v(t_f)");
    assert!(
        last.q[2] > 0.1 && last.q[2] < 0.3,
        "standing at {} m",
        last.q[2]
    );
    // The forces by name at each sample: the macro run's, 0 for an open contact.
    let columns = &motion.outputs.columns;
    let width = columns.len();
    assert_eq!(width, 4 * 3 + 4 * 3);
    assert_eq!(columns[12..15], ["FL.normal", "FL.tangent", "FL.lateral"]);
    for (j, now) in forces.borrow().iter().enumerate() {
        for (c, column) in columns.iter().enumerate().skip(12) {
            let expected = now
                .iter()
                .find(|f| &f.name == column)
                .map_or(0.0, |f| f.value);
            let got = motion.outputs.values[j * width + c];
            assert!(
                (got - expected).abs() <= 1e-6 * (1.0 + expected.abs()),
                "{column}: {got} against {expected}"
            );
        }
    }
    // Standing, the normal forces carry the weight.
    let normal: f64 = ["FL", "FR", "HL", "HR"]
        .iter()
        .map(|p| {
            motion.outputs.values[j * width
                + columns
                    .iter()
                    .position(|c| *c == format!("{p}.normal"))
                    .expect("column")]
        })
        .sum();
    let weight = model.mass_matrix(&q).expect("M")[0] * 9.81;
    assert!(
        (normal - weight).abs() < 1e-6 * weight,
        "Σ λₙ = {normal} N, m g = {weight} N"
    );
}

/// `name`'s contact `FL` with `keys` instead of the file's.
fn refused(keys: &str) -> String {
    let text = format!(
        "name = \"Solo12\"\n\
         urdf = {{ path = \"../../robots/example-robot-data/solo_description/robots/solo12.urdf\", floating_base = true }}\n\
         outputs = [{{ name = \"HR\", value = 'link_position(\"HR_FOOT\")' }}]\n\
         [[contacts]]\nname = \"FL\"\n{keys}\n"
    );
    let spec: udk::ModelSpec = toml::from_str(&text).expect("TOML");
    match FreeFlyerModel::from_spec(&spec, Path::new("tests/fixtures")) {
        Err(ModelError::Derivation { messages, .. }) => messages,
        Err(e) => panic!("{keys}: {e}"),
        Ok(_) => panic!("{keys}: accepted"),
    }
}

#[test]
fn bad_contacts_are_refused_with_the_reason() {
    for (keys, reason) in [
        (
            "gap = 'link_position(\"FL_FOOT\").x()'",
            "height above the ground",
        ),
        (
            "gap = 'link_position(\"FL_FOOT\").z() * 2.0'",
            "height above the ground",
        ),
        (
            "gap = 'link_rotation(\"FL_FOOT\").z()'",
            "a link frame's origin",
        ),
        ("gap = 'link_position(\"FL_FOT\").z()'", "FL_FOOT"),
        (
            "gap = 'link_position(\"FL_FOOT\").z()'\nslip = 'link_position(\"FL_FOOT\").x()'",
            "leave out `slip`",
        ),
        (
            "gap = 'link_position(\"FL_FOOT\").z()'\nfriction = \"mu\"",
            "no parameters",
        ),
        (
            "gap = 'link_position(\"FL_FOOT\").z()'\nrestitution = -0.5",
            "not negative",
        ),
    ] {
        let message = refused(keys);
        assert!(message.contains(reason), "{keys}: {message}");
    }
    let twice = refused("gap = 'link_position(\"FL_FOOT\").z()'\n[[contacts]]\nname = \"HR\"\ngap = 'link_position(\"HR_FOOT\").z() - 0.1'");
    assert!(twice.contains("`HR`: the name is given twice"), "{twice}");
}

#[test]
fn a_raised_ground_is_met_earlier() {
    // A foot 0.05 m above the ground z = h: the gap z − h.
    let text = "name = \"Solo12\"\n\
        urdf = { path = \"../../robots/example-robot-data/solo_description/robots/solo12.urdf\", floating_base = true }\n\
        [[contacts]]\nname = \"FL\"\ngap = 'link_position(\"FL_FOOT\").z() - (-0.25)'\n";
    let spec: udk::ModelSpec = toml::from_str(text).expect("TOML");
    let model = FreeFlyerModel::from_spec(&spec, Path::new("tests/fixtures")).expect("model");
    let mut q0 = vec![0.0; 19];
    (q0[2], q0[6]) = (0.0, 1.0);
    q0[7..].copy_from_slice(&POSTURE);
    let foot = model.points(&q0, &[0.0; 18]).expect("points")[2];
    // Falling freely from rest, the foot meets the ground z = −0.25 at t = √(2 (z − h)/g).
    let fall = (2.0 * (foot + 0.25) / 9.81).sqrt();
    let motion = (model.simulate(&q0, &[0.0; 18], &[0.0; 12], (0.0, fall + 0.01), &options()))
        .expect("a run");
    let first = &motion.events[0];
    assert_eq!(first.name, "FL touchdown");
    assert!((first.t - fall).abs() < 1e-9, "{} against {fall}", first.t);
}

/// The landing file with `[joint_pd]` holding the posture under the gains of `pd`, and
/// `extra` lines after it.
fn with_joint_pd(extra: &str) -> Result<FreeFlyerModel, ModelError> {
    let text = format!(
        "{}\n[joint_pd]\nstiffness = {}\ndamping = {}\nposture = {POSTURE:?}\n{extra}",
        std::fs::read_to_string(FILE).expect("the file"),
        GAINS.0,
        GAINS.1,
    );
    let spec: udk::ModelSpec = toml::from_str(&text).expect("TOML");
    FreeFlyerModel::from_spec(&spec, Path::new("tests/fixtures"))
}

#[test]
fn a_joint_pd_table_drives_the_joints_as_the_same_law_given_in_rust() {
    let model = with_joint_pd("").expect("the model");
    assert!(model.has_joint_pd());
    let (q0, v0) = initial();
    // Held efforts add to the law: here none.
    let from_file =
        (model.simulate(&q0, &v0, &[0.0; 12], (0.0, 0.3), &options())).expect("the landing runs");
    let plain = FreeFlyerModel::from_file(Path::new(FILE)).expect("the model file");
    assert!(!plain.has_joint_pd());
    let efforts = |_: f64, q: &[f64], v: &[f64], tau: &mut [f64]| pd(q, v, tau);
    let in_rust = (plain.simulate_with(&q0, &v0, &efforts, (0.0, 0.3), &options()))
        .expect("the landing runs");
    assert_eq!(from_file.t, in_rust.t);
    assert_eq!(from_file.q, in_rust.q);
    assert_eq!(from_file.v, in_rust.v);
    let events = |m: &udk::model::Motion| -> Vec<(String, f64)> {
        m.events.iter().map(|e| (e.name.clone(), e.t)).collect()
    };
    assert_eq!(events(&from_file), events(&in_rust));
    let touchdowns = from_file
        .events
        .iter()
        .filter(|e| e.name.ends_with("touchdown"));
    assert_eq!(touchdowns.count(), 4, "{:?}", events(&from_file));
    // Without the law the legs fold: at 0.2 s the front left hip is far from where the law
    // holds it.
    let folding =
        (plain.simulate(&q0, &v0, &[0.0; 12], (0.0, 0.2), &options())).expect("the fall runs");
    let (j, k) = (folding.t.len() - 1, 4);
    assert_eq!((folding.t[j], from_file.t[k]), (0.2, 0.2));
    assert!(
        (folding.q[(8, j)] - from_file.q[(8, k)]).abs() > 0.1,
        "{} against {}",
        folding.q[(8, j)],
        from_file.q[(8, k)]
    );
}

#[test]
fn a_bad_joint_pd_table_is_refused_with_the_reason() {
    let refused = |text: &str| -> String {
        let spec: udk::ModelSpec = toml::from_str(text).expect("TOML");
        match FreeFlyerModel::from_spec(&spec, Path::new("tests/fixtures")) {
            Err(ModelError::Derivation { messages, .. }) => messages,
            Err(e) => panic!("{text}: {e}"),
            Ok(_) => panic!("{text}: accepted"),
        }
    };
    let solo = "name = \"Solo12\"\n\
        urdf = { path = \"../../robots/example-robot-data/solo_description/robots/solo12.urdf\", floating_base = true }\n\
        [joint_pd]\n";
    let posture = format!("posture = {POSTURE:?}");
    for (keys, reason) in [
        (
            "stiffness = 20.0\ndamping = 0.5\nposture = [0.0, 0.1]".to_owned(),
            "`joint_pd.posture` has 2 entries; it needs one per joint (12)",
        ),
        (
            format!("stiffness = -20.0\ndamping = 0.5\n{posture}"),
            "`joint_pd.stiffness` must be finite and non-negative",
        ),
        (
            format!("stiffness = [20.0, 20.0]\ndamping = 0.5\n{posture}"),
            "`joint_pd.stiffness` has 2 entries",
        ),
    ] {
        let message = refused(&format!("{solo}{keys}\n"));
        assert!(message.contains(reason), "{keys}: {message}");
    }
    // A model that is not on a floating base has no joint efforts to add it to.
    let pendulum = "name = \"Pendulum\"\ncoordinates = [\"theta\"]\n\
        lagrangian = \"0.5 * dot(theta).powi(2) + 9.81 * theta.cos()\"\n\
        [joint_pd]\nstiffness = 1.0\ndamping = 0.1\nposture = [0.0]\n";
    let spec: udk::ModelSpec = toml::from_str(pendulum).expect("TOML");
    let Err(error) = udk::Model::from_spec(spec, Path::new(".")) else {
        panic!("a pendulum with [joint_pd] accepted");
    };
    assert!(
        error
            .to_string()
            .contains("`joint_pd` is a PD law on the joints of a robot on a floating base"),
        "{error}"
    );
}
