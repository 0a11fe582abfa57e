//! The split of the coordinates (or the velocities) into independent, dependent and held
//! ones, with the dependent ones chosen by column-pivoted QR of the constraint Jacobian.

use crate::Error;
use nalgebra::{DMatrix, RowDVector};

/// The n coordinates (or velocities) split three ways, each set of indices into q (or q̇).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// The independent ones: the linearized state, in this order.
    pub independent: Vec<usize>,
    /// The dependent ones, solved from the constraints, increasing.
    pub dependent: Vec<usize>,
    /// The ones held at their operating values (neither independent nor needed as
    /// dependent), increasing.
    pub held: Vec<usize>,
}

/// The numerical rank of `c` and its columns in the order column-pivoted QR takes them
/// (nalgebra's `ColPivQR`, which pivots on the largest remaining entry): the first `rank` are
/// linearly independent. A diagonal entry of R at or below `tolerance` times the largest
/// counts as zero.
fn pivots(c: &DMatrix<f64>, tolerance: f64) -> (usize, Vec<usize>) {
    let ncols = c.ncols();
    if c.nrows() == 0 || ncols == 0 {
        return (0, (0..ncols).collect());
    }
    let qr = c.clone().col_piv_qr();
    let r = qr.r();
    let diagonal: Vec<f64> = (0..r.nrows().min(ncols)).map(|i| r[(i, i)].abs()).collect();
    let largest = diagonal.iter().fold(0.0f64, |a, &b| a.max(b));
    let rank = diagonal
        .iter()
        .take_while(|&&d| largest > 0.0 && d > tolerance * largest)
        .count();
    let mut order = RowDVector::from_iterator(ncols, 0..ncols);
    qr.p().permute_columns(&mut order);
    (rank, order.iter().copied().collect())
}

/// `Err(InvalidSelection)` unless every index is below n and none repeats across the sets.
fn check_indices(sets: &[&[usize]], n: usize) -> Result<(), Error> {
    let mut seen = vec![false; n];
    for &i in sets.iter().flat_map(|set| set.iter()) {
        if i >= n {
            return Err(Error::InvalidSelection {
                what: "an index is not below the number of coordinates",
            });
        }
        if std::mem::replace(&mut seen[i], true) {
            return Err(Error::InvalidSelection {
                what: "an index is repeated (within or across the independent and held sets)",
            });
        }
    }
    Ok(())
}

/// Splits the n columns of the constraint Jacobian `c` (rows × n): the dependent columns are
/// rank(c) columns among those neither in `independent` nor in `held`, chosen by pivoted QR so
/// that c restricted to them has full column rank (δx_D = −c_D⁺ (c_I δx_I) is then unique).
/// Given `independent`, every other column not chosen is held; without it, every column not
/// chosen and not held is independent (increasing).
///
/// # Errors
/// `InvalidSelection` for an index ≥ n or repeated, or when the columns left to choose from
/// have a lower rank than c: the independent and held ones are then constrained among
/// themselves.
pub(super) fn partition(
    c: &DMatrix<f64>,
    independent: Option<&[usize]>,
    held: &[usize],
    tolerance: f64,
) -> Result<Partition, Error> {
    let n = c.ncols();
    check_indices(&[independent.unwrap_or(&[]), held], n)?;
    let fixed = |i: &usize| held.contains(i) || independent.is_some_and(|set| set.contains(i));
    let candidates: Vec<usize> = (0..n).filter(|i| !fixed(i)).collect();
    let (rank, _) = pivots(c, tolerance);
    let (candidate_rank, order) = pivots(&c.select_columns(&candidates), tolerance);
    if candidate_rank < rank {
        return Err(Error::InvalidSelection {
            what: "the constraints cannot be solved for the entries that are neither \
                   independent nor held (the independent and held ones are constrained \
                   among themselves)",
        });
    }
    let mut dependent: Vec<usize> = order[..rank].iter().map(|&j| candidates[j]).collect();
    dependent.sort_unstable();
    let rest = candidates
        .iter()
        .copied()
        .filter(|i| !dependent.contains(i));
    let (independent, mut held) = match independent {
        Some(set) => (set.to_vec(), held.iter().copied().chain(rest).collect()),
        None => (rest.collect(), held.to_vec()),
    };
    held.sort_unstable();
    Ok(Partition {
        independent,
        dependent,
        held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One constraint x₀ + 2 x₂ = 0 on three coordinates.
    fn row() -> DMatrix<f64> {
        DMatrix::from_row_slice(1, 3, &[1.0, 0.0, 2.0])
    }

    #[test]
    fn automatic_choice_takes_the_largest_pivot_as_dependent() {
        let split = partition(&row(), None, &[], 1e-10).unwrap();
        assert_eq!(split.dependent, vec![2]);
        assert_eq!(split.independent, vec![0, 1]);
        assert!(split.held.is_empty());
    }

    #[test]
    fn given_independent_set_holds_what_is_not_needed() {
        let split = partition(&row(), Some(&[2]), &[], 1e-10).unwrap();
        assert_eq!(split.dependent, vec![0]);
        assert_eq!(split.held, vec![1]);
    }

    #[test]
    fn a_set_that_leaves_the_constraint_unsolvable_is_refused() {
        let error = partition(&row(), Some(&[0]), &[2], 1e-10).unwrap_err();
        assert!(matches!(error, Error::InvalidSelection { .. }), "{error}");
        let error = partition(&row(), Some(&[0, 0]), &[], 1e-10).unwrap_err();
        assert!(matches!(error, Error::InvalidSelection { .. }), "{error}");
        let error = partition(&row(), Some(&[3]), &[], 1e-10).unwrap_err();
        assert!(matches!(error, Error::InvalidSelection { .. }), "{error}");
    }
}
