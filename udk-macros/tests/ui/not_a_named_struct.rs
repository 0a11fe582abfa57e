use udk::lagrangian;

#[lagrangian(coordinates(x), lagrangian = 0.5 * dot(x).powi(2))]
pub struct Tuple(f64);

#[lagrangian(coordinates(x), lagrangian = 0.5 * m * dot(x).powi(2))]
pub struct Generic<T> {
    pub m: f64,
    pub tag: T,
}

#[lagrangian(coordinates(x), lagrangian = 0.5 * dot(x).powi(2))]
pub enum NotAStruct {}

fn main() {}
