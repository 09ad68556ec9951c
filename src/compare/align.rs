//! Matching two outputs by name before comparing them: a CSV that writes the same columns in
//! another order, or a JSON object whose keys come in another order, holds the same result.
//! When both sides name their values the candidate is rearranged into the baseline's layout;
//! names on one side only, or leaves whose shapes differ, make the two not comparable and are
//! reported by name. Inputs without names (or with duplicate names, or names of different
//! kinds) are compared by position, as before.

use super::{Array, Labels, Leaf};
use std::collections::{BTreeMap, BTreeSet};

/// The candidate in the baseline's layout, and what could not be matched.
#[derive(Debug)]
pub struct Aligned {
    pub candidate: Array,
    pub missing: Vec<String>,
    pub extra: Vec<String>,
    pub shape_differs: Vec<String>,
}

impl Aligned {
    /// Every name of each side found on the other with the same shape.
    pub fn matched(&self) -> bool {
        self.missing.is_empty() && self.extra.is_empty() && self.shape_differs.is_empty()
    }

    fn positional(a: &Array) -> Self {
        Aligned {
            candidate: a.clone(),
            missing: Vec::new(),
            extra: Vec::new(),
            shape_differs: Vec::new(),
        }
    }
}

fn unique<'a>(names: impl IntoIterator<Item = &'a String>) -> Option<BTreeSet<&'a str>> {
    let mut set = BTreeSet::new();
    names
        .into_iter()
        .all(|n| set.insert(n.as_str()))
        .then_some(set)
}

/// Names in `a` absent from `b`, in `a`'s order.
fn absent(a: &[&str], b: &BTreeSet<&str>) -> Vec<String> {
    a.iter()
        .filter(|n| !b.contains(**n))
        .map(|n| n.to_string())
        .collect()
}

/// Rearranges candidate `a` into baseline `b`'s layout by name (see the module docs).
pub fn align(b: &Array, a: &Array) -> Aligned {
    match (&b.labels, &a.labels) {
        (Labels::Columns(bc), Labels::Columns(ac)) => columns(b, bc, a, ac),
        (Labels::Leaves(bl), Labels::Leaves(al)) => leaves(bl, a, al),
        _ => Aligned::positional(a),
    }
}

fn columns(b: &Array, bc: &[String], a: &Array, ac: &[String]) -> Aligned {
    let (Some(bset), Some(aset)) = (unique(bc), unique(ac)) else {
        return Aligned::positional(a);
    };
    let bnames: Vec<&str> = bc.iter().map(String::as_str).collect();
    let anames: Vec<&str> = ac.iter().map(String::as_str).collect();
    let mut out = Aligned::positional(a);
    out.missing = absent(&bnames, &aset);
    out.extra = absent(&anames, &bset);
    if !out.matched() || bnames == anames || b.shape.len() != a.shape.len() {
        return out;
    }
    // Same names in another order: move each baseline column's values into place.
    let width = ac.len();
    let from: Vec<usize> = bnames
        .iter()
        .filter_map(|n| anames.iter().position(|x| x == n))
        .collect();
    out.candidate.data = a
        .data
        .chunks(width)
        .flat_map(|row| from.iter().map(|&i| row[i]))
        .collect();
    out.candidate.labels = b.labels.clone();
    out
}

fn leaves(bl: &[Leaf], a: &Array, al: &[Leaf]) -> Aligned {
    let (Some(bset), Some(aset)) = (
        unique(bl.iter().map(|l| &l.path)),
        unique(al.iter().map(|l| &l.path)),
    ) else {
        return Aligned::positional(a);
    };
    // Where each candidate leaf's values start.
    let mut at = BTreeMap::new();
    let mut offset = 0;
    for l in al {
        at.insert(l.path.as_str(), (offset, l));
        offset += l.len();
    }
    let bnames: Vec<&str> = bl.iter().map(|l| l.path.as_str()).collect();
    let anames: Vec<&str> = al.iter().map(|l| l.path.as_str()).collect();
    let mut out = Aligned::positional(a);
    out.missing = absent(&bnames, &aset);
    out.extra = absent(&anames, &bset);
    let mut data = Vec::with_capacity(a.data.len());
    for l in bl {
        match at.get(l.path.as_str()) {
            Some((start, al)) if al.shape == l.shape => {
                data.extend_from_slice(a.data.get(*start..*start + l.len()).unwrap_or(&[]))
            }
            Some(_) => out.shape_differs.push(l.path.clone()),
            None => {}
        }
    }
    if out.matched() {
        out.candidate.data = data;
        out.candidate.labels = Labels::Leaves(bl.to_vec());
    }
    out
}

/// The name and position of flat element `i` of `b`: a table's `[row, column]` with the
/// column's name, a leaf's key path with the position inside the leaf, or just the position.
pub fn locate(b: &Array, i: usize) -> (Option<String>, Vec<usize>) {
    let index = super::unravel(i, &b.shape);
    match &b.labels {
        Labels::None => (None, index),
        Labels::Columns(c) => {
            let col = if b.shape.len() == 2 { index[1] } else { 0 };
            (c.get(col).cloned(), index)
        }
        Labels::Leaves(ls) => {
            let mut start = 0;
            for l in ls {
                if i < start + l.len() {
                    return (Some(l.path.clone()), super::unravel(i - start, &l.shape));
                }
                start += l.len();
            }
            (None, index)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(names: &[&str], rows: &[&[f64]]) -> Array {
        Array {
            shape: vec![rows.len(), names.len()],
            data: rows.iter().flat_map(|r| r.iter().copied()).collect(),
            dtype: "csv text".into(),
            labels: Labels::Columns(names.iter().map(|s| s.to_string()).collect()),
        }
    }

    #[test]
    fn reordered_columns_are_moved_into_place() {
        let b = table(&["x", "y", "z"], &[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
        let a = table(&["z", "x", "y"], &[&[3.0, 1.0, 2.0], &[6.0, 4.0, 5.0]]);
        let r = align(&b, &a);
        assert!(r.matched());
        assert_eq!(r.candidate.data, b.data);
        let a = table(&["x", "w", "y"], &[&[1.0, 2.0, 3.0]]);
        let r = align(&b, &a);
        assert_eq!((r.missing, r.extra), (vec!["z".into()], vec!["w".into()]));
        // Duplicate names: by position.
        let a = table(&["x", "x", "y"], &[&[1.0, 2.0, 3.0]]);
        assert!(align(&b, &a).matched());
    }

    #[test]
    fn locates_by_column_and_leaf() {
        let b = table(&["x", "y"], &[&[1.0, 2.0], &[3.0, 4.0]]);
        assert_eq!(locate(&b, 3), (Some("y".into()), vec![1, 1]));
        let l = |p: &str, s: Vec<usize>| Leaf {
            path: p.into(),
            shape: s,
        };
        let b = Array {
            shape: vec![4],
            data: vec![0.0; 4],
            labels: Labels::Leaves(vec![l("loss", vec![]), l("m.acc", vec![3])]),
            ..Array::default()
        };
        assert_eq!(locate(&b, 0), (Some("loss".into()), vec![]));
        assert_eq!(locate(&b, 3), (Some("m.acc".into()), vec![2]));
    }
}
