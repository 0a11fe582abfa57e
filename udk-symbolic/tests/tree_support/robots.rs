//! Robot arms as bodies and trees, with their kinematics and inertias: the UR5 by its standard
//! DH parameters (examples/ur5_arm.rs, tests/fixtures/ur5_arm_parameters.py) and by its URDF
//! (example-robot-data's ur5_robot.urdf), and the Franka Emika Panda by its URDF
//! (example-robot-data's panda.urdf), fixed joints merged by hand.

use super::{mul, rpy_matrix, Body};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};

/// Mass, centre of mass and inertia about it.
type Inertia = (f64, [f64; 3], [[f64; 3]; 3]);

fn diagonal(d: [f64; 3]) -> [[f64; 3]; 3] {
    [[d[0], 0.0, 0.0], [0.0, d[1], 0.0], [0.0, 0.0, d[2]]]
}

/// The symmetric matrix of URDF's ixx, ixy, ixz, iyy, iyz, izz.
fn urdf_inertia([xx, xy, xz, yy, yz, zz]: [f64; 6]) -> [[f64; 3]; 3] {
    [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
}

fn revolute(
    parent: Option<usize>,
    rpy: [f64; 3],
    xyz: [f64; 3],
    axis: [f64; 3],
    inertia: Inertia,
) -> Body {
    Body {
        parent,
        rpy,
        xyz,
        revolute: true,
        axis,
        inertia: Some(inertia),
    }
}

/// Standard DH parameters of the UR5: d, a (m) and α (rad); masses (kg), centres of mass in
/// the DH link frames (m), diagonal inertias about them (kg m²).
const D: [f64; 6] = [0.089159, 0.0, 0.0, 0.10915, 0.09465, 0.0823];
const A: [f64; 6] = [0.0, -0.425, -0.39225, 0.0, 0.0, 0.0];
const ALPHA: [f64; 6] = [FRAC_PI_2, 0.0, 0.0, FRAC_PI_2, -FRAC_PI_2, 0.0];
const MASS: [f64; 6] = [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879];
const COM: [[f64; 3]; 6] = [
    [0.0, -0.02561, 0.00193],
    [0.2125, 0.0, 0.11336],
    [0.15, 0.0, 0.0265],
    [0.0, -0.0018, 0.01634],
    [0.0, 0.0018, 0.01634],
    [0.0, 0.0, -0.001159],
];
const INERTIA: [[f64; 3]; 6] = [
    [0.0102, 0.0102, 0.0067],
    [0.2269, 0.2269, 0.0151],
    [0.0494, 0.0494, 0.0041],
    [0.001112, 0.001112, 0.002194],
    [0.001112, 0.001112, 0.002194],
    [0.000171, 0.000171, 0.000338],
];

/// The UR5 of examples/ur5_arm.rs as a tree: body i's frame is DH frame i−1 turned by
/// Rz(qᵢ), so its joint origin is the constant part of the previous DH step,
/// Tz(d) Tx(a) Rx(α), and its centre of mass and inertia are the DH link frame's moved by
/// that step.
pub fn ur5_dh_bodies() -> Vec<Body> {
    (0..6)
        .map(|i| {
            let rx = rpy_matrix([ALPHA[i], 0.0, 0.0]);
            let c = COM[i];
            let com = [0, 1, 2]
                .map(|r| [A[i], 0.0, D[i]][r] + (0..3).map(|k| rx[r][k] * c[k]).sum::<f64>());
            let inertia = mul(&mul(&rx, &diagonal(INERTIA[i])), &transpose(&rx));
            let (rpy, xyz) = match i.checked_sub(1) {
                Some(p) => ([ALPHA[p], 0.0, 0.0], [A[p], 0.0, D[p]]),
                None => ([0.0; 3], [0.0; 3]),
            };
            revolute(
                i.checked_sub(1),
                rpy,
                xyz,
                [0.0, 0.0, 1.0],
                (MASS[i], com, inertia),
            )
        })
        .collect()
}

fn transpose(m: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| m[j][i]))
}

/// The UR5 of example-robot-data's `ur5_robot.urdf`: the joint origins and inertials as the
/// file gives them (the quarter turns as rpy 1.57079632679, not exactly π/2), the massless
/// `ee_link` dropped.
pub fn ur5_urdf_bodies() -> Vec<Body> {
    let quarter = 1.57079632679;
    let (ez, ey) = ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0]);
    let link = |mass, com_z, d: [f64; 2]| (mass, [0.0, 0.0, com_z], diagonal([d[0], d[0], d[1]]));
    vec![
        revolute(
            None,
            [0.0; 3],
            [0.0, 0.0, 0.089159],
            ez,
            link(3.7, 0.0, [0.010267495893, 0.00666]),
        ),
        revolute(
            Some(0),
            [0.0, quarter, 0.0],
            [0.0, 0.13585, 0.0],
            ey,
            link(8.393, 0.28, [0.22689067591, 0.0151074]),
        ),
        revolute(
            Some(1),
            [0.0; 3],
            [0.0, -0.1197, 0.425],
            ey,
            link(2.275, 0.25, [0.049443313556, 0.004095]),
        ),
        revolute(
            Some(2),
            [0.0, quarter, 0.0],
            [0.0, 0.0, 0.39225],
            ey,
            link(1.219, 0.0, [0.111172755531, 0.21942]),
        ),
        revolute(
            Some(3),
            [0.0; 3],
            [0.0, 0.093, 0.0],
            ez,
            link(1.219, 0.0, [0.111172755531, 0.21942]),
        ),
        revolute(
            Some(4),
            [0.0; 3],
            [0.0, 0.0, 0.09465],
            ey,
            link(0.1879, 0.0, [0.0171364731454, 0.033822]),
        ),
    ]
}

/// Two inertias in one frame combined about their common centre of mass.
fn combined((m1, c1, i1): Inertia, (m2, c2, i2): Inertia) -> Inertia {
    let m = m1 + m2;
    let c = [0, 1, 2].map(|k| (m1 * c1[k] + m2 * c2[k]) / m);
    let shifted = |mass: f64, ck: [f64; 3], inertia: [[f64; 3]; 3]| {
        let d = [0, 1, 2].map(|k| ck[k] - c[k]);
        let squared = d.iter().map(|x| x * x).sum::<f64>();
        [0, 1, 2].map(|i| {
            [0, 1, 2]
                .map(|j| inertia[i][j] + mass * (if i == j { squared } else { 0.0 } - d[i] * d[j]))
        })
    };
    let (a, b) = (shifted(m1, c1, i1), shifted(m2, c2, i2));
    (
        m,
        c,
        [0, 1, 2].map(|i| [0, 1, 2].map(|j| a[i][j] + b[i][j])),
    )
}

/// The Panda of example-robot-data's `panda.urdf`: seven revolute joints, the hand (behind
/// the fixed joints `panda_joint8`, 0.107 m along z, and `panda_hand_joint`, −π/4 about z)
/// merged into link 7; with `fingers`, the two prismatic finger joints (independent, as
/// Pinocchio loads them) after the seven.
pub fn panda_bodies(fingers: bool) -> Vec<Body> {
    let ez = [0.0, 0.0, 1.0];
    let link = |mass, com, inertia| (mass, com, urdf_inertia(inertia));
    let hand_turn = rpy_matrix([0.0, 0.0, -FRAC_PI_4]);
    let hand_com = [0, 1, 2].map(|r| {
        [0.0, 0.0, 0.107][r]
            + (0..3)
                .map(|k| hand_turn[r][k] * [-0.01, 0.0, 0.03][k])
                .sum::<f64>()
    });
    let hand_inertia = mul(
        &mul(&hand_turn, &diagonal([0.001, 0.0025, 0.0017])),
        &transpose(&hand_turn),
    );
    let link7 = combined(
        link(
            0.735522,
            [1.0517e-02, -4.252e-03, 6.1597e-02],
            [
                0.012516, -0.000428, -0.001196, 0.010027, -0.000741, 0.004815,
            ],
        ),
        (0.73, hand_com, hand_inertia),
    );
    let (minus, plus) = ([-FRAC_PI_2, 0.0, 0.0], [FRAC_PI_2, 0.0, 0.0]);
    let mut bodies = vec![
        revolute(
            None,
            [0.0; 3],
            [0.0, 0.0, 0.333],
            ez,
            link(
                4.970684,
                [0.003875, 0.002081, -0.04762],
                [0.70337, -0.000139, 0.006772, 0.70661, 0.019169, 0.009117],
            ),
        ),
        revolute(
            Some(0),
            minus,
            [0.0; 3],
            ez,
            link(
                0.646926,
                [-0.003141, -0.02872, 0.003495],
                [0.007962, -0.003925, 0.010254, 0.02811, 0.000704, 0.025995],
            ),
        ),
        revolute(
            Some(1),
            plus,
            [0.0, -0.316, 0.0],
            ez,
            link(
                3.228604,
                [2.7518e-02, 3.9252e-02, -6.6502e-02],
                [0.037242, -0.004761, -0.011396, 0.036155, -0.012805, 0.01083],
            ),
        ),
        revolute(
            Some(2),
            plus,
            [0.0825, 0.0, 0.0],
            ez,
            link(
                3.587895,
                [-5.317e-02, 1.04419e-01, 2.7454e-02],
                [0.025853, 0.007796, -0.001332, 0.019552, 0.008641, 0.028323],
            ),
        ),
        revolute(
            Some(3),
            minus,
            [-0.0825, 0.384, 0.0],
            ez,
            link(
                1.225946,
                [-1.1953e-02, 4.1065e-02, -3.8437e-02],
                [0.035549, -0.002117, -0.004037, 0.029474, 0.000229, 0.008627],
            ),
        ),
        revolute(
            Some(4),
            plus,
            [0.0; 3],
            ez,
            link(
                1.666555,
                [6.0149e-02, -1.4117e-02, -1.0517e-02],
                [0.001964, 0.000109, -0.001158, 0.004354, 0.000341, 0.005433],
            ),
        ),
        revolute(Some(5), plus, [0.088, 0.0, 0.0], ez, link7),
    ];
    if fingers {
        let finger = |axis| Body {
            parent: Some(6),
            rpy: [0.0, 0.0, -FRAC_PI_4],
            xyz: [0.0, 0.0, 0.107 + 0.0584],
            revolute: false,
            axis,
            inertia: Some((0.015, [0.0; 3], diagonal([2.375e-06, 2.375e-06, 7.5e-07]))),
        };
        bodies.push(finger([0.0, 1.0, 0.0]));
        bodies.push(finger([0.0, -1.0, 0.0]));
    }
    bodies
}
