use udk::lagrangian;

#[lagrangian(urdf = "tests/ui/no_such_robot.urdf")]
pub struct Missing;

#[lagrangian(urdf = "tests/ui/urdf_bad_xml.urdf")]
pub struct BadXml;

#[lagrangian(urdf = "tests/ui/urdf_floating_joint.urdf", mimic = true)]
pub struct Floating;

fn main() {}
