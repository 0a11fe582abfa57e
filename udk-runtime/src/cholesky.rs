//! Square-root-free Cholesky factorization S = L D Lᵀ (L unit triangular, D diagonal) of
//! symmetric positive definite matrices, with a relative pivot threshold; in place and
//! allocation-free for fixed sizes.
//!
//! The elimination runs from the last row to the first, so L is unit *upper* triangular
//! (S = U D Uᵀ). For the joint-space mass matrix of a kinematic tree whose coordinates are
//! numbered parents first (as the URDF and tree front ends number them), Mᵢⱼ = 0 unless one
//! joint is an ancestor of the other, and this order produces no fill-in: L has the sparsity
//! of the tree, Lᵢⱼ ≠ 0 only for i an ancestor of j (Featherstone 2008, §6.5, the LTDL
//! factorization, here with the transposed factor). The factorization skips the zeros, and
//! so do the solves with many right-hand sides (see below): a tree of n joints at depth at
//! most d costs O(n d²) to factor and O(n d) per right-hand side instead of n³/6 and n²,
//! without being told the tree. A single vector takes the dense loops, which vectorize. A
//! dense S costs what it did.
//!
//! A pivot dₖ (the diagonal of the Schur complement) is accepted when dₖ > τ·Sₖₖ, i.e. when
//! row k is not (numerically) a combination of the rows after it: dₖ/Sₖₖ = sin²θₖ, θₖ being
//! the angle between row k and the span of those rows in the metric of S. The ratio is
//! invariant under diagonal scaling, so the test does not depend on units. Avoiding the
//! square roots of L Lᵀ shortens the dependency chain of small factorizations.
//!
//! The solves take any number of right-hand sides at once. From `ROW_WISE_COLUMNS` of them
//! on they work row by row across them, so that each zero of L is tested once per block, not
//! once per column; a square block is transposed in place for this, any other block into a
//! copy. The passes are left-looking: the nonzeros that update one target row are gathered
//! once, then applied in tiles of eight columns accumulated in registers (four SSE2
//! vectors), so that a target tile is loaded and stored once per row, not once per nonzero,
//! in the same order of operations as a right-looking pass (TIAGo Pro, n = 33, 99
//! right-hand sides: see bench/README.md). Each row carries the span of columns outside
//! which it is zero, and updates run over the spans only: the columns of one subtree of a
//! block-diagonal S (a fixed base with several subtrees) never meet another's rows. (An AVX2
//! copy of the row loops chosen at run time was measured slower on the 31-joint Romeo: it
//! cannot be inlined, so the row width is no longer a constant there.)
//!
//! The blocks ∂/∂q, ∂/∂q̇ and ∂/∂u of the unconstrained derivative (2n + k right-hand sides)
//! take another route: S⁻¹ is formed once, by the recurrence of Takahashi, Fagan & Chin,
//! which keeps a tree's zeros (S⁻¹ is block-diagonal with S), and each column becomes S⁻¹
//! times it, over the nonzeros of the column and the rows of S⁻¹'s block only. Column-major
//! throughout, this needs no transposition, and where the right-hand sides are as sparse as
//! S (a tree's ∂τ/∂q and ∂τ/∂q̇, the inputs' identity) it costs fewer operations than two
//! triangular passes over them (G1 with hands, n = 43, 129 right-hand sides: 14.6 µs
//! against 16.5 µs, `bench/README.md`). Where S⁻¹'s diagonal blocks are on average shorter
//! than half a tile (A1's legs of three joints), the tiles stay mostly empty while each
//! column is still scanned in full, and the row-wise solve is faster.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector, U1};

/// From this many right-hand sides on, the solves work row-wise on the transposed block.
const ROW_WISE_COLUMNS: usize = 8;

/// Values per group of a row update: two f64, one 128-bit (SSE2) vector.
const LANES: usize = 2;

/// Columns of a row update held in registers at once: four SSE2 vectors.
const TILE: usize = 8;

/// Nonzeros of L gathered per batch of a row update (a row of a tree's L has one per
/// descendant joint; longer rows take several batches).
const BATCH: usize = 32;

/// Factor S = L D Lᵀ, L unit upper triangular.
pub(crate) struct Cholesky<D: Dim>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// Strict upper triangle holds L (unit diagonal implied), the diagonal holds D; the
    /// strict lower triangle still holds the input and is never read.
    l: OMatrix<f64, D, D>,
    /// 1/dₖ.
    inverse_pivots: OVector<f64, D>,
}

impl<D: Dim> Cholesky<D>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// Factors the upper triangle of the symmetric `s`; `None` if some pivot ratio dₖ/Sₖₖ is
    /// ≤ `tolerance` (S singular, indefinite, or nearly so). See [`Cholesky::factor`].
    #[inline]
    pub(crate) fn new(s: OMatrix<f64, D, D>, tolerance: f64) -> Option<Self> {
        let mut factor = Self::unfactored(s);
        factor.factor(tolerance).then_some(factor)
    }

    /// `s`, to be factored in place by [`Cholesky::factor`]: a kernel that keeps the factor
    /// in one place this way never moves its n × n storage (a measurable cost at n = 18).
    #[inline(always)]
    pub(crate) fn unfactored(s: OMatrix<f64, D, D>) -> Self {
        let (d, _) = s.shape_generic();
        Self {
            l: s,
            inverse_pivots: OVector::zeros_generic(d, U1),
        }
    }

    /// Factors the matrix given to [`Cholesky::unfactored`] in place (its upper triangle);
    /// `false`, leaving the storage partly factored and unusable, if some pivot ratio
    /// dₖ/Sₖₖ is ≤ `tolerance` (S singular, indefinite, or nearly so).
    ///
    /// Right-looking (outer-product) order from the last pivot: after each pivot the leading
    /// upper triangle is updated column by column (contiguous, independent updates that keep
    /// the dependency chain short), skipping the columns whose multiplier is zero.
    #[inline(always)]
    pub(crate) fn factor(&mut self, tolerance: f64) -> bool {
        let s = &mut self.l;
        let n = s.nrows();
        let (d, _) = s.shape_generic();
        let original = OVector::<f64, D>::from_fn_generic(d, U1, |k, _| s[(k, k)]);
        let inverse_pivots = &mut self.inverse_pivots;
        // Column-major: entry (i, j) at i + j·n; column k above the diagonal is contiguous.
        let x = s.as_mut_slice();
        for k in (0..n).rev() {
            let pivot = x[k + k * n];
            if !accepts_pivot(pivot, original[k], tolerance) {
                return false;
            }
            let inverse = 1.0 / pivot;
            inverse_pivots[k] = inverse;
            let (leading, trailing) = x.split_at_mut(k * n);
            let column = &mut trailing[..k];
            for (j, target) in leading.chunks_exact_mut(n).enumerate() {
                let ljk = column[j] * inverse;
                if ljk != 0.0 {
                    for (t, sik) in target[..=j].iter_mut().zip(&column[..=j]) {
                        *t -= sik * ljk;
                    }
                }
            }
            for value in column {
                *value *= inverse;
            }
        }
        true
    }

    /// Turns the factor of s·S into that of S (s > 0 a power of two): L is the same and the
    /// pivots are divided by s, exactly unless one leaves the normal range.
    pub(crate) fn unscale_pivots(&mut self, s: f64) {
        for (k, inverse) in self.inverse_pivots.iter_mut().enumerate() {
            *inverse *= s;
            self.l[(k, k)] /= s;
        }
    }

    /// The reciprocal pivots 1/dₖ.
    pub(crate) fn inverse_pivots(&self) -> &OVector<f64, D> {
        &self.inverse_pivots
    }

    /// The pivots dₖ.
    pub(crate) fn pivots(&self) -> OVector<f64, D> {
        self.inverse_pivots.map(|v| 1.0 / v)
    }

    /// The nonzero entries (j, Lⱼₖ) of column k above the diagonal.
    #[inline(always)]
    fn column(&self, k: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let n = self.l.nrows();
        self.l.as_slice()[k * n..k * n + k]
            .iter()
            .enumerate()
            .filter(|(_, ljk)| **ljk != 0.0)
            .map(|(j, &ljk)| (j, ljk))
    }

    /// Applies `solve` to `b` (n × c): column by column for a few columns, else to its n
    /// rows made contiguous (the block transposed, in place when square), so that each zero
    /// of L is tested once for all columns and the row operations run over contiguous memory.
    #[inline]
    fn on_rows<C: Dim>(&self, b: &mut OMatrix<f64, D, C>, solve: Solve)
    where
        DefaultAllocator: Allocator<D, C> + Allocator<C, D>,
    {
        let (n, width) = b.shape();
        if width < ROW_WISE_COLUMNS || n == 0 {
            for column in b.as_mut_slice().chunks_exact_mut(n.max(1)) {
                self.solve_vector(column, solve);
            }
        } else {
            let mut rows = RowMajor::new(b);
            self.solve_rows(&mut rows.rows(), solve);
            rows.finish();
        }
    }

    /// `solve` applied to one vector `x` (n entries) by the dense loops, which vectorize:
    /// L⁻¹ by a contiguous update per column of L, L⁻ᵀ by a dot product with column k of L.
    fn solve_vector(&self, x: &mut [f64], solve: Solve) {
        let n = self.l.nrows();
        let l = self.l.as_slice();
        if let Solve::Factor | Solve::Scaled(_) = solve {
            for k in (1..n).rev() {
                let (head, tail) = x.split_at_mut(k);
                let xk = tail[0];
                for (xj, ljk) in head.iter_mut().zip(&l[k * n..k * n + k]) {
                    *xj -= ljk * xk;
                }
            }
        }
        if let Solve::Scaled(scale) = solve {
            for (value, d) in x.iter_mut().zip(self.inverse_pivots.iter()) {
                *value *= scale * d;
            }
        }
        if let Solve::FactorTranspose | Solve::Scaled(_) = solve {
            for k in 1..n {
                let (head, tail) = x.split_at_mut(k);
                let dot: f64 = head
                    .iter()
                    .zip(&l[k * n..k * n + k])
                    .map(|(x, l)| x * l)
                    .sum();
                tail[0] -= dot;
            }
        }
    }

    /// `solve` applied to `rows`, one target row at a time (left-looking): L⁻¹ by backward
    /// substitution (row j −= Lⱼₖ · row k for k > j, k descending), L⁻ᵀ by forward
    /// substitution (row k −= Lⱼₖ · row j for j < k, j ascending). The nonzeros of row j
    /// (or column k) of L are gathered once into a batch and applied in tiles of [`TILE`]
    /// columns held in registers ([`update_row`]), so that each tile of the
    /// target row is loaded and stored once per batch instead of once per nonzero. Every
    /// entry receives its updates in the order of a right-looking pass over the columns of
    /// L, so the result is bit for bit that of applying the nonzeros one by one.
    ///
    /// Each row carries its [`Span`], the columns outside which it is zero:
    /// read off the row at the start, then the hull of the spans of the rows that update it.
    /// A row update runs over the hull only, which skips exact zeros and nothing else (a
    /// zero may become −0 in a skipped column; the values compare equal). A tree whose root
    /// has several subtrees (two legs and a torso on a fixed base) has a block-diagonal S,
    /// and the columns of ∂/∂q of one subtree never meet the rows of another; numbered
    /// parents first, a subtree's columns are contiguous, and L⁻¹ e_j (the inputs' block,
    /// the identity) stays within the subtree of j.
    #[inline(always)]
    fn solve_rows(&self, rows: &mut Rows<'_>, solve: Solve) {
        let n = self.l.nrows();
        let l = self.l.as_slice();
        let mut batch = [(0usize, 0.0f64); BATCH];
        let width = rows.width;
        let mut spans = self.inverse_pivots.map(|_| Span::EMPTY);
        for (row, span) in spans.iter_mut().enumerate() {
            *span = Span::of(&rows.values[row * width..(row + 1) * width]);
        }
        if let Solve::Factor | Solve::Scaled(_) = solve {
            for j in (0..n).rev() {
                let mut count = 0;
                let mut hull = spans[j];
                for k in (j + 1..n).rev() {
                    let ljk = l[j + k * n];
                    if ljk != 0.0 {
                        batch[count] = (k, ljk);
                        count += 1;
                        hull.join(spans[k]);
                        if count == BATCH {
                            update_row(rows, hull, j, &batch, None);
                            count = 0;
                        }
                    }
                }
                if count > 0 {
                    update_row(rows, hull, j, &batch[..count], None);
                }
                spans[j] = hull;
            }
        }
        if let Solve::FactorTranspose | Solve::Scaled(_) = solve {
            for k in 0..n {
                // D⁻¹ on row k as its tiles are loaded (it is final after the L⁻¹ pass): the
                // same products in the same order as a separate pass, without the pass.
                let mut pivot = match solve {
                    Solve::Scaled(scale) => Some(scale * self.inverse_pivots[k]),
                    _ => None,
                };
                let mut count = 0;
                let mut hull = spans[k];
                for (j, &ljk) in l[k * n..k * n + k].iter().enumerate() {
                    if ljk != 0.0 {
                        batch[count] = (j, ljk);
                        count += 1;
                        hull.join(spans[j]);
                        if count == BATCH {
                            update_row(rows, hull, k, &batch, pivot.take());
                            count = 0;
                        }
                    }
                }
                if count > 0 || pivot.is_some() {
                    update_row(rows, hull, k, &batch[..count], pivot);
                }
                spans[k] = hull;
            }
        }
    }

    /// Overwrites `b` (n × c) with L⁻¹ b.
    #[inline]
    pub(crate) fn solve_factor_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C> + Allocator<C, D>,
    {
        self.on_rows(b, Solve::Factor);
    }

    /// Overwrites `x` (c × n) with x L⁻ᵀ = (L⁻¹ xᵀ)ᵀ: the columns of x (c contiguous values
    /// each) are the rows of the block xᵀ, so from `ROW_WISE_COLUMNS` rows on x is solved
    /// row-wise in its own storage, with no transposition (the constraint matrix A gives
    /// (L⁻¹Aᵀ)ᵀ this way); fewer rows are solved column by column on a transposed copy.
    #[inline]
    pub(crate) fn solve_factor_rows_mut<C: Dim>(&self, x: &mut OMatrix<f64, C, D>)
    where
        DefaultAllocator: Allocator<C, D> + Allocator<D, C>,
    {
        let (width, n) = x.shape();
        if width < ROW_WISE_COLUMNS || n == 0 {
            let mut block = x.transpose();
            self.on_rows(&mut block, Solve::Factor);
            x.tr_copy_from(&block);
        } else {
            let mut rows = Rows {
                values: x.as_mut_slice(),
                width,
            };
            self.solve_rows(&mut rows, Solve::Factor);
        }
    }

    /// Overwrites `b` (n × c) with L⁻ᵀ b.
    #[inline]
    pub(crate) fn solve_factor_transpose_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C> + Allocator<C, D>,
    {
        self.on_rows(b, Solve::FactorTranspose);
    }

    /// Overwrites the rows of `b` with D⁻¹ b.
    #[inline]
    pub(crate) fn scale_inverse_pivots_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C>,
    {
        for mut column in b.column_iter_mut() {
            column.component_mul_assign(&self.inverse_pivots);
        }
    }

    /// Overwrites `b` (n × c) with `scale` · S⁻¹ b = `scale` · L⁻ᵀ D⁻¹ L⁻¹ b.
    #[inline]
    pub(crate) fn solve_scaled_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>, scale: f64)
    where
        DefaultAllocator: Allocator<D, C> + Allocator<C, D>,
    {
        self.on_rows(b, Solve::Scaled(scale));
    }

    /// Overwrites each of the blocks `a` (n × c₁), `b` (n × c₂), `c` (n × c₃) with
    /// `scale` · S⁻¹ of itself. From `ROW_WISE_COLUMNS` columns in all on, and where the
    /// diagonal blocks of S⁻¹ are on average at least half a [`TILE`] of rows
    /// ([`fills_tiles`]), S⁻¹ is formed once ([`Cholesky::inverse`]) and each column becomes
    /// `scale` · S⁻¹ times it ([`Inverse::multiply_mut`]). Smaller blocks (A1's legs of three
    /// joints, whose Jacobian took 1.2× as long by that route; bench/README.md) take the
    /// row-wise solve, and fewer columns are solved one by one.
    pub(crate) fn solve_scaled_blocks_mut<C1: Dim, C2: Dim, C3: Dim>(
        &self,
        a: &mut OMatrix<f64, D, C1>,
        b: &mut OMatrix<f64, D, C2>,
        c: &mut OMatrix<f64, D, C3>,
        scale: f64,
    ) where
        DefaultAllocator: Allocator<D, C1>
            + Allocator<C1, D>
            + Allocator<D, C2>
            + Allocator<C2, D>
            + Allocator<D, C3>
            + Allocator<C3, D>,
    {
        let first = self.first_rows();
        if a.ncols() + b.ncols() + c.ncols() < ROW_WISE_COLUMNS || !fills_tiles(first.as_slice()) {
            self.solve_scaled_mut(a, scale);
            self.solve_scaled_mut(b, scale);
            self.solve_scaled_mut(c, scale);
        } else {
            self.multiply_blocks_mut(&first, a, b, c, scale);
        }
    }

    /// [`Cholesky::solve_scaled_blocks_mut`] through S⁻¹, whatever the sizes; `first` as
    /// [`Cholesky::first_rows`] returns it.
    fn multiply_blocks_mut<C1: Dim, C2: Dim, C3: Dim>(
        &self,
        first: &OVector<usize, D>,
        a: &mut OMatrix<f64, D, C1>,
        b: &mut OMatrix<f64, D, C2>,
        c: &mut OMatrix<f64, D, C3>,
        scale: f64,
    ) where
        DefaultAllocator: Allocator<D, C1> + Allocator<D, C2> + Allocator<D, C3>,
    {
        let inverse = self.inverse(first);
        let mut entries = self.inverse_pivots.map(|_| (0, 0.0));
        inverse.multiply_mut(a.as_mut_slice(), &mut entries, scale);
        inverse.multiply_mut(b.as_mut_slice(), &mut entries, scale);
        inverse.multiply_mut(c.as_mut_slice(), &mut entries, scale);
    }

    /// S⁻¹ = L⁻ᵀ D⁻¹ L⁻¹, exactly symmetric, by the recurrence of Takahashi, Fagan & Chin
    /// (1973): Z = D⁻¹ L⁻¹ + (I − Lᵀ) Z, whose left side is triangular, so that column by
    /// column (here L upper: column i from the columns k < i with Lₖᵢ ≠ 0)
    /// Zⱼᵢ = −Σₖ Lₖᵢ Zⱼₖ for j < i, Zᵢᵢ = 1/dᵢ − Σₖ Lₖᵢ Zₖᵢ, and Zᵢⱼ = Zⱼᵢ. Each column
    /// update runs from the first row of the columns it reads, so the zeros between the
    /// subtrees of a block-diagonal S (a fixed base with several subtrees) are never touched:
    /// a tree of n joints at depth at most d costs O(n d w), w its widest subtree of the
    /// root, and a dense S n³/6 multiply-adds.
    ///
    /// `first` holds the first nonzero row of each column ([`Cholesky::first_rows`]).
    pub(crate) fn inverse(&self, first: &OVector<usize, D>) -> Inverse<D> {
        let (d, _) = self.l.shape_generic();
        let n = self.l.nrows();
        let mut z = OMatrix::<f64, D, D>::zeros_generic(d, d);
        let mut entries = self.inverse_pivots.map(|_| (0, 0.0));
        // Column-major, the columns of Z are the rows of `update_row`: column i −= Lₖᵢ ·
        // column k over the rows start..i.
        let mut columns = Rows {
            values: z.as_mut_slice(),
            width: n,
        };
        for i in 0..n {
            let start = first[i];
            let mut count = 0;
            for (k, lki) in self.column(i) {
                entries[count] = (k, lki);
                count += 1;
            }
            let rows = Span { start, end: i };
            update_row(&mut columns, rows, i, &entries.as_slice()[..count], None);
            let (done, rest) = columns.values.split_at_mut(i * n);
            let target = &mut rest[..n];
            let mut diagonal = self.inverse_pivots[i];
            for &(k, lki) in &entries.as_slice()[..count] {
                diagonal -= lki * target[k];
            }
            target[i] = diagonal;
            for j in start..i {
                done[i + j * n] = target[j];
            }
        }
        let spans = self.inverse_pivots.map(|_| Span::EMPTY);
        let mut inverse = Inverse { z, spans };
        let columns = inverse.z.as_slice().chunks_exact(n.max(1));
        for (span, column) in inverse.spans.iter_mut().zip(columns) {
            *span = Span::of(column);
        }
        inverse
    }

    /// The first row of the nonzeros of each column i of S⁻¹ above the diagonal (i where
    /// there are none), n entries: the least of those of the columns k < i with Lₖᵢ ≠ 0, and
    /// i. For a tree numbered parents first, the first joint of i's subtree of the root.
    pub(crate) fn first_rows(&self) -> OVector<usize, D> {
        let mut first = self.inverse_pivots.map(|_| 0);
        for i in 0..first.len() {
            first[i] = self.column(i).fold(i, |start, (k, _)| start.min(first[k]));
        }
        first
    }

    /// Overwrites the vector `b` with L⁻¹ b.
    #[inline]
    pub(crate) fn solve_factor_vector_mut(&self, b: &mut OVector<f64, D>) {
        self.solve_vector(b.as_mut_slice(), Solve::Factor);
    }

    /// Overwrites the vector `b` with L⁻ᵀ b.
    #[inline]
    pub(crate) fn solve_factor_transpose_vector_mut(&self, b: &mut OVector<f64, D>) {
        self.solve_vector(b.as_mut_slice(), Solve::FactorTranspose);
    }

    /// Returns S⁻¹ b = L⁻ᵀ D⁻¹ L⁻¹ b.
    #[inline]
    pub(crate) fn solve(&self, b: &OVector<f64, D>) -> OVector<f64, D> {
        let mut x = b.clone();
        self.solve_vector(x.as_mut_slice(), Solve::Scaled(1.0));
        x
    }

    /// Returns L y.
    #[inline]
    pub(crate) fn mul_factor(&self, y: &OVector<f64, D>) -> OVector<f64, D> {
        let mut x = y.clone();
        let n = self.l.nrows();
        let out = x.as_mut_slice();
        for k in 0..n {
            for (j, ljk) in self.column(k) {
                out[j] += ljk * y[k];
            }
        }
        x
    }
}

/// Whether the diagonal blocks of S⁻¹ are on average at least half a [`TILE`] of rows, from
/// the first nonzero row of each column (`first`, [`Cholesky::first_rows`]): the columns of
/// its lower triangle reach (`TILE`/2 + 1)/2 rows or more on average (Σᵢ (i + 1 − firstᵢ) is
/// s (s + 1)/2 per diagonal block of s rows). Smaller blocks leave the tiles of
/// [`Inverse::multiply_mut`] mostly empty while it still scans every entry of each column.
fn fills_tiles(first: &[usize]) -> bool {
    let reach: usize = first.iter().enumerate().map(|(i, f)| i + 1 - f).sum();
    2 * reach >= first.len() * (TILE / 2 + 1)
}

/// The factorization's test of a pivot dₖ against the diagonal entry Sₖₖ it came from:
/// Sₖₖ > 0 and dₖ > `tolerance`·Sₖₖ (false for a NaN). The generated fast path
/// ([`crate::fast_path::holds`]) applies it to the pivots it computed itself.
#[inline(always)]
pub(crate) fn accepts_pivot(pivot: f64, diagonal: f64, tolerance: f64) -> bool {
    diagonal > 0.0 && pivot > tolerance * diagonal
}

/// Which solve with S = L D Lᵀ the kernels apply.
#[derive(Clone, Copy)]
enum Solve {
    /// x ← L⁻¹ x.
    Factor,
    /// x ← L⁻ᵀ x.
    FactorTranspose,
    /// x ← scale · S⁻¹ x = scale · L⁻ᵀ D⁻¹ L⁻¹ x.
    Scaled(f64),
}

/// Right-hand sides stored row by row, `width` contiguous values per row: the storage of the
/// transpose (c × n, column-major) of an n × c block.
struct Rows<'a> {
    values: &'a mut [f64],
    width: usize,
}

/// An n × c block of right-hand sides with its rows made contiguous for the row-wise solves:
/// a square block is transposed in place (its entries swapped), any other into a transposed
/// copy. [`RowMajor::finish`] puts the block back in its column-major order.
struct RowMajor<'a, D: Dim, C: Dim>
where
    DefaultAllocator: Allocator<D, C> + Allocator<C, D>,
{
    block: &'a mut OMatrix<f64, D, C>,
    copy: Option<OMatrix<f64, C, D>>,
}

impl<'a, D: Dim, C: Dim> RowMajor<'a, D, C>
where
    DefaultAllocator: Allocator<D, C> + Allocator<C, D>,
{
    /// Makes the rows of `block` contiguous until [`RowMajor::finish`].
    #[inline]
    fn new(block: &'a mut OMatrix<f64, D, C>) -> Self {
        let (n, c) = block.shape();
        let copy = if n == c {
            transpose_square(block.as_mut_slice(), n);
            None
        } else {
            Some(block.transpose())
        };
        Self { block, copy }
    }

    /// The rows, c contiguous values each.
    #[inline]
    fn rows(&mut self) -> Rows<'_> {
        let width = self.block.ncols();
        let values = match &mut self.copy {
            Some(copy) => copy.as_mut_slice(),
            None => self.block.as_mut_slice(),
        };
        Rows { values, width }
    }

    /// Writes the rows back into the block.
    #[inline]
    fn finish(self) {
        match self.copy {
            Some(copy) => self.block.tr_copy_from(&copy),
            None => {
                let n = self.block.nrows();
                transpose_square(self.block.as_mut_slice(), n);
            }
        }
    }
}

/// S⁻¹ (n × n, symmetric) with the rows outside which each of its columns is zero.
pub(crate) struct Inverse<D: Dim>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// S⁻¹, exactly symmetric.
    z: OMatrix<f64, D, D>,
    /// The rows from the first to the last nonzero of each column of S⁻¹.
    spans: OVector<Span, D>,
}

impl<D: Dim> Inverse<D>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// Overwrites each column of `b` (n contiguous entries each) with `scale` · S⁻¹ times
    /// it: its nonzeros bᵢ are gathered into `entries` (n slots: the offset i·n of column i
    /// of S⁻¹ and `scale` · bᵢ), then the result is accumulated in tiles of [`TILE`] rows
    /// held in registers, over the hull of the spans of those columns (zero elsewhere).
    pub(crate) fn multiply_mut(
        &self,
        b: &mut [f64],
        entries: &mut OVector<(usize, f64), D>,
        scale: f64,
    ) {
        let n = self.z.nrows();
        let z = self.z.as_slice();
        for target in b.chunks_exact_mut(n.max(1)) {
            let mut hull = Span::EMPTY;
            let mut count = 0;
            for (i, &bi) in target.iter().enumerate() {
                let span = self.spans[i];
                if bi != 0.0 && span.start < span.end {
                    entries[count] = (i * n, scale * bi);
                    count += 1;
                    hull.join(span);
                }
            }
            target.fill(0.0);
            accumulate_rows(z, target, hull, &entries.as_slice()[..count]);
        }
    }
}

/// `target[start..end]` = Σ factor · `z`[offset + start..offset + end] over `entries`
/// (offset, factor), `rows` = start..end, in tiles of [`TILE`] rows (then pairs, then one)
/// accumulated in registers: [`update_row`]'s tiles, for a target outside `z`.
#[inline(always)]
fn accumulate_rows(z: &[f64], target: &mut [f64], rows: Span, entries: &[(usize, f64)]) {
    let Span { start, end } = rows;
    // An empty range (a zero column: start = usize::MAX, end = 0) writes nothing.
    if start >= end {
        return;
    }
    let mut row = start;
    while end - row >= TILE {
        accumulate::<TILE>(z, target, row, entries);
        row += TILE;
    }
    while end - row >= LANES {
        accumulate::<LANES>(z, target, row, entries);
        row += LANES;
    }
    if row < end {
        accumulate::<1>(z, target, row, entries);
    }
}

/// `target[row..row + T]` = Σ factor · S⁻¹[row..row + T, i] over the gathered `entries`
/// (offset i·n of column i, factor), accumulated in registers.
#[inline(always)]
fn accumulate<const T: usize>(z: &[f64], target: &mut [f64], row: usize, entries: &[(usize, f64)]) {
    let mut tile = [0.0; T];
    for &(offset, factor) in entries {
        let from = offset + row;
        let values: &[f64; T] = z[from..from + T].try_into().unwrap_or(&[0.0; T]);
        for (t, s) in tile.iter_mut().zip(values) {
            *t += factor * s;
        }
    }
    target[row..row + T].copy_from_slice(&tile);
}

/// Transposes the n × n column-major matrix `x` in place.
#[inline]
fn transpose_square(x: &mut [f64], n: usize) {
    for j in 0..n {
        for i in 0..j {
            x.swap(i + j * n, j + i * n);
        }
    }
}

/// The columns `start..end` of one row of right-hand sides outside which the row is zero
/// (empty when `start >= end`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    /// No column.
    const EMPTY: Span = Span {
        start: usize::MAX,
        end: 0,
    };

    /// From the first to the last nonzero of `row`.
    #[inline(always)]
    fn of(row: &[f64]) -> Span {
        match row.iter().position(|&v| v != 0.0) {
            Some(start) => Span {
                start,
                end: row
                    .iter()
                    .rposition(|&v| v != 0.0)
                    .map_or(start, |last| last + 1),
            },
            None => Span::EMPTY,
        }
    }

    /// Widens this span to cover `other`.
    #[inline(always)]
    fn join(&mut self, other: Span) {
        self.start = self.start.min(other.start);
        self.end = self.end.max(other.end);
    }
}

/// Row `target` −= Σ `factor` · row `source` over `entries` (`source`, `factor`), in the
/// order of `entries`, the row first multiplied by `pivot` when given; in tiles of [`TILE`]
/// columns (then pairs, then one) accumulated in registers, over the columns of `hull` only
/// (the rows involved are zero elsewhere).
#[inline(always)]
fn update_row(
    rows: &mut Rows<'_>,
    hull: Span,
    target: usize,
    entries: &[(usize, f64)],
    pivot: Option<f64>,
) {
    let end = hull.end;
    if hull.start >= end {
        return;
    }
    let mut column = hull.start;
    while end - column >= TILE {
        update_tile::<TILE>(rows, target, column, entries, pivot);
        column += TILE;
    }
    while end - column >= LANES {
        update_tile::<LANES>(rows, target, column, entries, pivot);
        column += LANES;
    }
    if column < end {
        update_tile::<1>(rows, target, column, entries, pivot);
    }
}

/// [`update_row`] on the `T` columns from `column`.
#[inline(always)]
fn update_tile<const T: usize>(
    rows: &mut Rows<'_>,
    target: usize,
    column: usize,
    entries: &[(usize, f64)],
    pivot: Option<f64>,
) {
    let width = rows.width;
    let start = target * width + column;
    let mut tile: [f64; T] = rows.values[start..start + T].try_into().unwrap_or([0.0; T]);
    if let Some(d) = pivot {
        for value in &mut tile {
            *value *= d;
        }
    }
    for &(source, factor) in entries {
        let from = source * width + column;
        let values: &[f64; T] = rows.values[from..from + T].try_into().unwrap_or(&[0.0; T]);
        for (t, s) in tile.iter_mut().zip(values) {
            *t -= factor * s;
        }
    }
    rows.values[start..start + T].copy_from_slice(&tile);
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector, Dyn, Matrix3, Vector3};

    #[test]
    fn factors_and_solves_positive_definite_matrix() {
        let s = Matrix3::new(4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0);
        let f = Cholesky::new(s, 1e-12).unwrap();
        let b = Vector3::new(1.0, -2.0, 0.5);
        assert!((s * f.solve(&b) - b).norm() < 1e-14);
        // L L⁻¹ b = b, and det S = Π dₖ.
        let mut z = f.mul_factor(&b);
        f.solve_factor_vector_mut(&mut z);
        assert!((z - b).norm() < 1e-14);
        assert!((f.pivots().iter().product::<f64>() - s.determinant()).abs() < 1e-12);
    }

    #[test]
    fn rejects_dependent_rows_zero_and_negative_diagonals() {
        // Row 3 = row 1 + row 2.
        let dependent = Matrix3::new(2.0, 1.0, 3.0, 1.0, 2.0, 3.0, 3.0, 3.0, 6.0);
        assert!(Cholesky::new(dependent, 1e-12).is_none());
        let zero = Matrix3::from_diagonal(&Vector3::new(1.0, 0.0, 1.0));
        assert!(Cholesky::new(zero, 0.0).is_none());
        let negative = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -1.0));
        assert!(Cholesky::new(negative, 0.0).is_none());
        // Pivot ratio 1 − 0.999² ≈ 2e-3 passes 1e-6 and fails 1e-2.
        let tilted = Matrix3::new(1.0, 0.999, 0.0, 0.999, 1.0, 0.0, 0.0, 0.0, 1.0);
        assert!(Cholesky::new(tilted, 1e-6).is_some());
        assert!(Cholesky::new(tilted, 1e-2).is_none());
    }

    /// The joint-space inertia of a tree (`parents[i]`, or `None` for a root joint):
    /// Σ over bodies b of Jᵦᵀ Jᵦ with Jᵦ's columns nonzero on b's ancestors and b itself, so
    /// Mᵢⱼ ≠ 0 exactly when one of i, j is an ancestor of the other.
    fn tree_mass_matrix(parents: &[Option<usize>]) -> DMatrix<f64> {
        let n = parents.len();
        let mut m = DMatrix::zeros(n, n);
        for body in 0..n {
            let mut j = DVector::zeros(n);
            let mut joint = Some(body);
            while let Some(i) = joint {
                j[i] = 1.0 + ((3 * body + 5 * i) % 7) as f64 / 7.0;
                joint = parents[i];
            }
            m += &j * j.transpose() * (1.0 + body as f64);
        }
        m
    }

    /// Whether joint `a` is `b` or one of its ancestors.
    fn ancestor_or_self(parents: &[Option<usize>], a: usize, b: usize) -> bool {
        let mut joint = Some(b);
        while let Some(i) = joint {
            if i == a {
                return true;
            }
            joint = parents[i];
        }
        false
    }

    /// Two legs of three joints (0–2, 3–5), a torso (6) with two arms of three joints and a
    /// neck, numbered parents first: a fixed base with three subtrees, S block-diagonal.
    const LEGS_AND_TORSO: [Option<usize>; 14] = [
        None,
        Some(0),
        Some(1),
        None,
        Some(3),
        Some(4),
        None,
        Some(6),
        Some(7),
        Some(8),
        Some(6),
        Some(10),
        Some(11),
        Some(6),
    ];

    /// Four legs of three joints on a fixed base (A1), numbered parents first, one leg a row.
    #[rustfmt::skip]
    const FOUR_LEGS: [Option<usize>; 12] = [
        None, Some(0), Some(1),
        None, Some(3), Some(4),
        None, Some(6), Some(7),
        None, Some(9), Some(10),
    ];

    #[test]
    fn tree_mass_matrix_factors_without_fill_in() {
        let parents = LEGS_AND_TORSO;
        let m = tree_mass_matrix(&parents);
        let n = parents.len();
        let f = Cholesky::new(m.clone(), 1e-12).unwrap();
        for k in 0..n {
            for j in 0..k {
                let related = ancestor_or_self(&parents, j, k);
                assert_eq!(f.l[(j, k)] != 0.0, related, "L[{j}, {k}]");
            }
        }
        // Several right-hand sides at once (the row-wise path) and one at a time agree with
        // S X = B.
        let b = DMatrix::from_fn(n, 5, |i, j| ((7 * i + 3 * j) % 11) as f64 - 5.0);
        let mut x = b.clone();
        f.solve_scaled_mut(&mut x, 1.0);
        assert!((&m * &x - &b).norm() < 1e-12 * b.norm() * m.norm());
        for (column, expected) in b.column_iter().zip(x.column_iter()) {
            let one = f.solve(&column.into_owned());
            assert!((one - expected).norm() < 1e-14 * expected.norm());
        }
        // L⁻¹ and L⁻ᵀ of a block against the product with L: D = L⁻¹ S L⁻ᵀ.
        let mut d = m.clone();
        f.solve_factor_mut(&mut d);
        let mut dt = d.transpose();
        f.solve_factor_mut(&mut dt);
        let pivots = f.pivots();
        assert!((dt - DMatrix::from_diagonal(&pivots)).norm() < 1e-12 * m.norm());
        // The matrix methods in sequence give S⁻¹ B as well.
        let mut y = b.clone();
        f.solve_factor_mut(&mut y);
        f.scale_inverse_pivots_mut(&mut y);
        f.solve_factor_transpose_mut(&mut y);
        assert!((y - x).norm() < 1e-14 * b.norm());
    }

    /// `solve_scaled_blocks_mut` against `solve_scaled_mut` of each block and against
    /// S X = scale · B, for wide blocks (through S⁻¹ or row-wise, by S's blocks) and narrow
    /// ones (solved column by column).
    fn check_blocks(s: &DMatrix<f64>) {
        let n = s.nrows();
        let f = Cholesky::new(s.clone(), 1e-12).unwrap();
        let block = |c: usize, seed: usize| {
            DMatrix::from_fn(n, c, |i, j| ((7 * i + 3 * j + seed) % 11) as f64 - 5.0)
        };
        for (c1, c2, c3) in [(n, n, 9), (8, 12, 0), (3, 2, 4), (1, 0, 0)] {
            let (mut a, mut b, mut c) = (block(c1, 1), block(c2, 2), block(c3, 3));
            let original = [a.clone(), b.clone(), c.clone()];
            f.solve_scaled_blocks_mut(&mut a, &mut b, &mut c, -0.5);
            for (fused, rhs) in [a, b, c].iter().zip(&original) {
                let mut single = rhs.clone();
                f.solve_scaled_mut(&mut single, -0.5);
                let difference = (fused - &single).norm();
                assert!(difference <= 1e-13 * (single.norm() + 1.0), "{difference}");
                let residual = (s * fused + rhs * 0.5).norm();
                assert!(
                    residual <= 1e-12 * s.norm() * (rhs.norm() + 1.0),
                    "{residual}"
                );
            }
        }
    }

    /// S⁻¹ B by right-looking passes over the nonzeros of L, one row update per nonzero (each
    /// column of L applied to all rows before the next): the order of operations the tiled,
    /// left-looking [`Cholesky::solve_rows`] must reproduce bit for bit.
    fn right_looking_solve(f: &Cholesky<Dyn>, b: &DMatrix<f64>, scale: f64) -> DMatrix<f64> {
        let n = f.l.nrows();
        let mut x = b.clone();
        for k in (0..n).rev() {
            for j in 0..k {
                let ljk = f.l[(j, k)];
                if ljk != 0.0 {
                    for c in 0..x.ncols() {
                        x[(j, c)] -= ljk * x[(k, c)];
                    }
                }
            }
        }
        for k in 0..n {
            let d = scale * f.inverse_pivots[k];
            for c in 0..x.ncols() {
                x[(k, c)] *= d;
            }
            for j in 0..k {
                let ljk = f.l[(j, k)];
                if ljk != 0.0 {
                    for c in 0..x.ncols() {
                        x[(k, c)] -= ljk * x[(j, c)];
                    }
                }
            }
        }
        x
    }

    #[test]
    fn tiled_solves_equal_one_update_per_nonzero_bit_for_bit() {
        // A tree (rows with few nonzeros) and a dense matrix of 40 (rows of up to 39
        // nonzeros: more than one batch), with block widths that use the tiles, the pairs and
        // a single remaining column.
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(0),
            Some(3),
            Some(4),
            Some(5),
            None,
            Some(7),
        ];
        // The same kind of tree numbered children first, whose L fills in.
        let unsorted = [
            Some(2),
            Some(2),
            None,
            Some(1),
            Some(3),
            None,
            Some(5),
            Some(0),
            Some(5),
        ];
        let n = 40;
        let g = DMatrix::from_fn(n, n, |i, j| (((5 * i + 2 * j) % 9) as f64 - 4.0) / 3.0);
        for s in [
            tree_mass_matrix(&parents),
            tree_mass_matrix(&unsorted),
            g.tr_mul(&g) + DMatrix::identity(n, n),
        ] {
            let n = s.nrows();
            let f = Cholesky::new(s.clone(), 1e-12).unwrap();
            for width in [8, 11, 19, n] {
                let b = DMatrix::from_fn(n, width, |i, j| ((7 * i + 3 * j) % 11) as f64 - 5.3);
                let mut x = b.clone();
                f.solve_scaled_mut(&mut x, -0.5);
                assert_eq!(x.as_slice(), right_looking_solve(&f, &b, -0.5).as_slice());
                let residual = (&s * &x + &b * 0.5).norm();
                assert!(residual <= 1e-12 * s.norm() * b.norm(), "{residual}");
            }
        }
    }

    #[test]
    fn sparse_right_hand_sides_solve_as_dense_ones() {
        // Legs and a torso (block-diagonal S) and the right-hand sides of an unconstrained
        // derivative: ∂/∂q nonzero where the joints are ancestor and descendant, the
        // identity, one nonzero column, and zero. The rows' spans skip only zeros: the
        // row-wise solve equals the right-looking one over every column, and the three
        // blocks through S⁻¹ agree with it.
        let parents = LEGS_AND_TORSO;
        let n = parents.len();
        let s = tree_mass_matrix(&parents);
        let f = Cholesky::new(s.clone(), 1e-12).unwrap();
        let related = |i: usize, j: usize| {
            ancestor_or_self(&parents, i, j) || ancestor_or_self(&parents, j, i)
        };
        let wrt_q = DMatrix::from_fn(n, n, |i, j| {
            if related(i, j) {
                ((7 * i + 3 * j) % 11) as f64 - 5.3
            } else {
                0.0
            }
        });
        let inputs = DMatrix::<f64>::identity(n, n);
        let column = DMatrix::from_fn(n, 9, |i, j| if j == 4 { i as f64 - 2.5 } else { 0.0 });
        for (a, b) in [(&wrt_q, &inputs), (&column, &DMatrix::zeros(n, 8))] {
            let (mut x, mut y, mut z) = (a.clone(), b.clone(), wrt_q.clone());
            f.multiply_blocks_mut(&f.first_rows(), &mut x, &mut y, &mut z, -1.0);
            for (block, rhs) in [(x, a), (y, b), (z, &wrt_q)] {
                let mut single = rhs.clone();
                f.solve_scaled_mut(&mut single, -1.0);
                assert_eq!(single, right_looking_solve(&f, rhs, -1.0));
                let difference = (&block - &single).amax();
                assert!(difference <= 1e-14 * single.amax(), "{difference}");
                assert!((&s * &block + rhs).norm() <= 1e-12 * s.norm() * (rhs.norm() + 1.0));
                // Exact zeros where S⁻¹ B has structural zeros (a leg's rows, the torso's
                // columns of a block the torso's rows do not reach).
                for (v, w) in block.iter().zip(single.iter()) {
                    assert_eq!(*w == 0.0, *v == 0.0);
                }
            }
        }
        // The legs' columns stay zero on the torso's rows.
        let mut y = inputs.clone();
        f.solve_scaled_mut(&mut y, 1.0);
        assert!(y.view((6, 0), (8, 6)).iter().all(|&v| v == 0.0));
        assert!((&s * &y - &inputs).norm() <= 1e-12 * s.norm());
    }

    #[test]
    fn inverse_is_symmetric_and_keeps_the_subtrees_apart() {
        // S⁻¹ of legs and a torso (block-diagonal), of a tree numbered children first
        // (whose L fills in) and of a dense matrix: S Z = I, Z exactly symmetric, exact zeros
        // between the subtrees of the fixed base, and each column's span its nonzero rows.
        let unsorted = [Some(2), Some(2), None, Some(1), Some(3), None, Some(5)];
        let n = 10;
        let g = DMatrix::from_fn(n, n, |i, j| (((5 * i + 2 * j) % 9) as f64 - 4.0) / 3.0);
        for s in [
            tree_mass_matrix(&LEGS_AND_TORSO),
            tree_mass_matrix(&unsorted),
            g.tr_mul(&g) + DMatrix::identity(n, n),
        ] {
            let n = s.nrows();
            let f = Cholesky::new(s.clone(), 1e-12).unwrap();
            let inverse = f.inverse(&f.first_rows());
            let z = &inverse.z;
            let residual = (&s * z - DMatrix::<f64>::identity(n, n)).norm();
            assert!(residual <= 1e-12 * s.norm() * z.norm(), "{residual}");
            assert_eq!(z, &z.transpose());
            for (span, column) in inverse.spans.iter().zip(z.column_iter()) {
                let column = column.clone_owned();
                assert_eq!(*span, Span::of(column.as_slice()));
                assert!(span.start < span.end);
            }
        }
        let f = Cholesky::new(tree_mass_matrix(&LEGS_AND_TORSO), 1e-12).unwrap();
        let z = f.inverse(&f.first_rows()).z;
        let subtree = |i: usize| [0, 0, 0, 1, 1, 1][..].get(i).copied().unwrap_or(2);
        for (i, j) in (0..14).flat_map(|i| (0..14).map(move |j| (i, j))) {
            assert_eq!(z[(i, j)] != 0.0, subtree(i) == subtree(j), "Z[{i}, {j}]");
        }
    }

    #[test]
    fn inverse_route_needs_diagonal_blocks_of_half_a_tile() {
        // The first nonzero rows of S⁻¹'s columns are the first joints of the root's
        // subtrees. Four legs of three joints (A1: Σ (i + 1 − firstᵢ) = 4 · 6 < 12 · 5 / 2)
        // and a chain of TILE/2 − 1 joints take the row-wise solve; a chain of TILE/2, legs
        // and a torso (blocks of 3, 3 and 8) and a dense matrix take S⁻¹.
        let first = |parents: &[Option<usize>]| {
            let f = Cholesky::new(tree_mass_matrix(parents), 1e-12).unwrap();
            f.first_rows().as_slice().to_vec()
        };
        let four_legs = first(&FOUR_LEGS);
        let expected: Vec<usize> = (0..12).map(|i| i - i % 3).collect();
        assert_eq!(four_legs, expected);
        assert!(!fills_tiles(&four_legs));
        let legs_and_torso = first(&LEGS_AND_TORSO);
        let expected: Vec<usize> = [0, 0, 0, 3, 3, 3].into_iter().chain([6; 8]).collect();
        assert_eq!(legs_and_torso, expected);
        assert!(fills_tiles(&legs_and_torso));
        let chain = |n: usize| (0..n).map(|i| i.checked_sub(1)).collect::<Vec<_>>();
        assert!(fills_tiles(&first(&chain(TILE / 2))));
        assert!(!fills_tiles(&first(&chain(TILE / 2 - 1))));
        let n = 10;
        let g = DMatrix::from_fn(n, n, |i, j| (((5 * i + 2 * j) % 9) as f64 - 4.0) / 3.0);
        let dense = Cholesky::new(g.tr_mul(&g) + DMatrix::identity(n, n), 1e-12).unwrap();
        assert_eq!(dense.first_rows().as_slice(), &[0; 10]);
        assert!(fills_tiles(dense.first_rows().as_slice()));
    }

    #[test]
    fn blocks_solved_together_equal_blocks_solved_alone() {
        // Tree-sparse: four legs (through the row-wise solve), two branches of a common
        // root (through S⁻¹), then a dense matrix.
        check_blocks(&tree_mass_matrix(&FOUR_LEGS));
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(0),
            Some(3),
            Some(4),
            Some(5),
            None,
            Some(7),
        ];
        check_blocks(&tree_mass_matrix(&parents));
        let n = 10;
        let g = DMatrix::from_fn(n, n, |i, j| (((5 * i + 2 * j) % 9) as f64 - 4.0) / 3.0);
        let dense = g.tr_mul(&g) + DMatrix::identity(n, n);
        check_blocks(&dense);
    }

    #[test]
    fn rows_solved_in_place_are_the_transposed_block_solve() {
        // X L⁻ᵀ on X's own storage (12 rows: row-wise) and on a transposed copy (3 rows), bit
        // for bit (L⁻¹ Xᵀ)ᵀ, on a tree and on a dense matrix; and D = L⁻¹ S L⁻ᵀ.
        let parents = [None, Some(0), Some(1), None, Some(3), Some(3), Some(5)];
        let n = 7;
        let g = DMatrix::from_fn(n, n, |i, j| (((5 * i + 2 * j) % 9) as f64 - 4.0) / 3.0);
        for s in [
            tree_mass_matrix(&parents),
            g.tr_mul(&g) + DMatrix::identity(n, n),
        ] {
            let f = Cholesky::new(s.clone(), 1e-12).unwrap();
            for rows in [12, 3] {
                let x = DMatrix::from_fn(rows, n, |i, j| ((7 * i + 3 * j) % 11) as f64 - 5.3);
                let mut in_place = x.clone();
                f.solve_factor_rows_mut(&mut in_place);
                let mut block = x.transpose();
                f.solve_factor_mut(&mut block);
                assert_eq!(in_place.as_slice(), block.transpose().as_slice());
            }
            let mut d = s.clone();
            f.solve_factor_rows_mut(&mut d);
            f.solve_factor_mut(&mut d);
            let pivots = DMatrix::from_diagonal(&f.pivots());
            assert!((d - pivots).norm() < 1e-12 * s.norm());
        }
    }

    #[test]
    fn unscaled_factor_of_a_scaled_matrix_is_the_factor_of_the_matrix() {
        let s = Matrix3::new(4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0);
        let f = Cholesky::new(s, 1e-12).unwrap();
        for scale in [2f64.powi(-100), 2f64.powi(80)] {
            let mut g = Cholesky::new(s * scale, 1e-12).unwrap();
            g.unscale_pivots(scale);
            assert_eq!(g.inverse_pivots, f.inverse_pivots);
            assert_eq!(g.l.upper_triangle(), f.l.upper_triangle());
        }
    }
}
