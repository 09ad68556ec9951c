//! `compare`: numerical correctness evidence between a CUDA-baseline output and a ROCm
//! candidate. Reports the largest absolute and relative errors, NaN/Inf counts and shape
//! mismatches, and passes or fails with numpy's `allclose` rule
//! (`|a - b| <= atol + rtol * |b|`, `b` the baseline), never demanding bitwise identity.
//! Named data is matched by name before it is compared: CSV columns by their header, JSON
//! objects leaf by leaf by key path (see [`align`]), so an output that only reorders its
//! columns or keys is equal, and a missing or extra name is reported by that name.

pub mod align;
pub mod json;
pub mod load;
pub mod npy;

use serde::Serialize;

/// A dense array in C order, as `f64`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
    /// What the values were before they became `f64`: a NumPy dtype name (`float32`, `int64`,
    /// …) for `.npy`, `csv text` or `json number` for text formats.
    pub dtype: String,
    /// Names of the values, when the format gives them.
    pub labels: Labels,
}

/// Names carried by an input, used to match the two sides by name instead of by position.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Labels {
    /// Positions only (`.npy`, nested JSON arrays, CSV without a header).
    #[default]
    None,
    /// A CSV header: one name per column of a `[rows, columns]` (or `[rows]`) array.
    Columns(Vec<String>),
    /// A JSON object's numeric leaves, in document order; the data holds them one after another.
    Leaves(Vec<Leaf>),
}

/// One numeric leaf of a JSON object: its key path (`metrics.acc`, `runs[0].loss`) and shape
/// (`[]` for a single number).
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    pub path: String,
    pub shape: Vec<usize>,
}

impl Leaf {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
    /// Treat NaN in both at the same place as equal (numpy's `equal_nan`).
    pub equal_nan: bool,
}

/// The worst element: its flat index, position and values.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Worst {
    pub index: Vec<usize>,
    /// The CSV column or JSON key path of the element, when the inputs name their values
    /// (then `index` is the position inside that leaf, or the `[row, column]` of the table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub baseline: f64,
    pub candidate: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub pass: bool,
    pub shape_baseline: Vec<usize>,
    pub shape_candidate: Vec<usize>,
    pub shape_match: bool,
    /// The dtypes read (`float32`, `int64`, `csv text`, `json number`, …).
    pub dtype_baseline: String,
    pub dtype_candidate: String,
    /// Columns or key paths of the baseline that the candidate lacks.
    pub missing: Vec<String>,
    /// Columns or key paths of the candidate that the baseline lacks.
    pub extra: Vec<String>,
    /// Key paths present on both sides with different shapes.
    pub shape_differs: Vec<String>,
    pub elements: usize,
    /// Elements outside the tolerance (NaN and Inf mismatches included).
    pub mismatched: usize,
    pub max_abs_error: f64,
    pub max_rel_error: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<Worst>,
    pub nan_baseline: usize,
    pub nan_candidate: usize,
    pub inf_baseline: usize,
    pub inf_candidate: usize,
    pub rtol: f64,
    pub atol: f64,
    pub equal_nan: bool,
}

pub(crate) fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (d, &n) in shape.iter().enumerate().rev() {
        if n > 0 {
            idx[d] = i % n;
            i /= n;
        }
    }
    idx
}

/// Compares candidate `a` against baseline `b`, matching named values by name first.
pub fn compare(b: &Array, a: &Array, t: Tolerance) -> Comparison {
    let aligned = align::align(b, a);
    let a = &aligned.candidate;
    let count = |x: &Array, f: fn(&f64) -> bool| x.data.iter().filter(|v| f(v)).count();
    let mut c = Comparison {
        pass: false,
        shape_baseline: b.shape.clone(),
        shape_candidate: a.shape.clone(),
        shape_match: a.shape == b.shape && aligned.matched(),
        dtype_baseline: b.dtype.clone(),
        dtype_candidate: a.dtype.clone(),
        missing: aligned.missing,
        extra: aligned.extra,
        shape_differs: aligned.shape_differs,
        elements: b.data.len(),
        mismatched: 0,
        max_abs_error: 0.0,
        max_rel_error: 0.0,
        worst: None,
        nan_baseline: count(b, |v| v.is_nan()),
        nan_candidate: count(a, |v| v.is_nan()),
        inf_baseline: count(b, |v| v.is_infinite()),
        inf_candidate: count(a, |v| v.is_infinite()),
        rtol: t.rtol,
        atol: t.atol,
        equal_nan: t.equal_nan,
    };
    if !c.shape_match || a.data.len() != b.data.len() {
        return c;
    }
    let mut worst_excess = f64::NEG_INFINITY;
    for (i, (&y, &x)) in b.data.iter().zip(&a.data).enumerate() {
        let (close, abs, rel) = if x.is_nan() || y.is_nan() {
            let both = x.is_nan() && y.is_nan();
            (
                both && t.equal_nan,
                if both { 0.0 } else { f64::NAN },
                if both { 0.0 } else { f64::NAN },
            )
        } else if x.is_infinite() || y.is_infinite() {
            let same = x == y;
            (
                same,
                if same { 0.0 } else { f64::INFINITY },
                if same { 0.0 } else { f64::INFINITY },
            )
        } else {
            let d = (x - y).abs();
            let rel = if y == 0.0 {
                if d == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                d / y.abs()
            };
            (d <= t.atol + t.rtol * y.abs(), d, rel)
        };
        if !abs.is_nan() {
            c.max_abs_error = c.max_abs_error.max(abs);
            c.max_rel_error = c.max_rel_error.max(rel);
        }
        if !close {
            c.mismatched += 1;
        }
        // The worst element: the largest excess over the allowed error (NaN mismatches count as worst).
        let excess = if abs.is_nan() {
            f64::INFINITY
        } else {
            abs - (t.atol + t.rtol * y.abs())
        };
        if !close && excess > worst_excess {
            worst_excess = excess;
            let (name, index) = align::locate(b, i);
            c.worst = Some(Worst {
                index,
                name,
                baseline: y,
                candidate: x,
            });
        }
    }
    // Nothing compared is no evidence: two outputs without numbers never pass.
    c.pass = c.mismatched == 0 && c.elements > 0;
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(v: &[f64]) -> Array {
        Array {
            shape: vec![v.len()],
            data: v.to_vec(),
            ..Array::default()
        }
    }

    const TOL: Tolerance = Tolerance {
        rtol: 1e-5,
        atol: 1e-8,
        equal_nan: false,
    };

    #[test]
    fn allclose_semantics() {
        let c = compare(&arr(&[1.0, 2.0, 0.0]), &arr(&[1.000001, 2.0, 0.0]), TOL);
        assert!(c.pass, "{c:?}");
        assert!((c.max_abs_error - 1e-6).abs() < 1e-12);
        let c = compare(&arr(&[1.0, 2.0]), &arr(&[1.001, 2.0]), TOL);
        assert!(!c.pass);
        assert_eq!(c.mismatched, 1);
        assert_eq!(c.worst.unwrap().index, [0]);
    }

    #[test]
    fn no_numbers_never_pass() {
        let c = compare(&arr(&[]), &arr(&[]), TOL);
        assert!(!c.pass && c.shape_match && c.elements == 0);
        let empty = load::csv("just text\n").unwrap();
        assert!(!compare(&empty, &empty, TOL).pass);
    }

    #[test]
    fn nan_inf_and_shapes() {
        let c = compare(
            &arr(&[f64::NAN, f64::INFINITY]),
            &arr(&[f64::NAN, f64::INFINITY]),
            TOL,
        );
        assert!(!c.pass);
        assert_eq!((c.nan_baseline, c.inf_candidate), (1, 1));
        let c = compare(
            &arr(&[f64::NAN]),
            &arr(&[f64::NAN]),
            Tolerance {
                equal_nan: true,
                ..TOL
            },
        );
        assert!(c.pass);
        let c = compare(
            &arr(&[1.0, 2.0]),
            &Array {
                shape: vec![1, 2],
                data: vec![1.0, 2.0],
                ..Array::default()
            },
            TOL,
        );
        assert!(!c.pass && !c.shape_match);
        assert_eq!(unravel(5, &[2, 3]), [1, 2]);
    }
}
