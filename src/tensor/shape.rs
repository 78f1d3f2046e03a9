//! Shape rules shared by the ops.

pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// The broadcast of two shapes (NumPy rules: align on the right; each pair of dimensions is
/// equal or one of them is 1).
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Vec<usize> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|i| {
            let da = if i + a.len() >= rank {
                a[i + a.len() - rank]
            } else {
                1
            };
            let db = if i + b.len() >= rank {
                b[i + b.len() - rank]
            } else {
                1
            };
            match (da, db) {
                (x, y) if x == y => x,
                (1, y) => y,
                (x, 1) => x,
                _ => panic!("shapes {a:?} and {b:?} do not broadcast"),
            }
        })
        .collect()
}

/// `shape` with 1s prepended to reach `rank`.
pub(crate) fn left_pad(shape: &[usize], rank: usize) -> Vec<usize> {
    let mut out = vec![1; rank - shape.len()];
    out.extend_from_slice(shape);
    out
}

/// Normalises an axis that may count from the end (-1 = last).
pub(crate) fn axis_index(axis: isize, rank: usize) -> usize {
    let a = if axis < 0 { axis + rank as isize } else { axis };
    assert!(
        a >= 0 && (a as usize) < rank,
        "axis {axis} out of range for rank {rank}"
    );
    a as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[2, 3], &[3]), vec![2, 3]);
        assert_eq!(broadcast_shapes(&[4, 1, 5], &[3, 1]), vec![4, 3, 5]);
        assert_eq!(broadcast_shapes(&[], &[2]), vec![2]);
        assert!(std::panic::catch_unwind(|| broadcast_shapes(&[2], &[3])).is_err());
    }
}
