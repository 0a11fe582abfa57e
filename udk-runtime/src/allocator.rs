//! The nalgebra storage bound of the generic kernels (the bottom layer of the crate).

use nalgebra::allocator::Allocator;
use nalgebra::Dim;

/// The nalgebra storage the generic kernels need for n coordinates and m constraints;
/// implemented by `DefaultAllocator` for every pair of fixed or dynamic dimensions.
pub(crate) trait KernelAllocator<N: Dim, R: Dim>:
    Allocator<N, N> + Allocator<R, N> + Allocator<N, R> + Allocator<R, R> + Allocator<N> + Allocator<R>
{
}

impl<N: Dim, R: Dim, T> KernelAllocator<N, R> for T where
    T: Allocator<N, N>
        + Allocator<R, N>
        + Allocator<N, R>
        + Allocator<R, R>
        + Allocator<N>
        + Allocator<R>
{
}
