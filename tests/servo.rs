//! Control by servo constraints (`udk::runtime::servo`): the review paper's section 8.3 and
//! 8.2, a UR5 drawing a circle against computed torque, and an underactuated cart-pole.

#[path = "servo/flexible_joint.rs"]
mod flexible_joint;

#[path = "servo/ur5_circle.rs"]
mod ur5_circle;

#[path = "servo/cartpole.rs"]
mod cartpole;

#[path = "servo/swarm.rs"]
mod swarm;

#[path = "servo/model.rs"]
mod model;
