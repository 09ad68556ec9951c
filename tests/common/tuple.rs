//! The one target tuple the migration-record tests share (an MI300X on ROCm 6.4.1), so each test
//! says only how its tuple differs from it.

/// `record target` arguments for the shared tuple: Instinct MI300X, ROCm 6.4.1, Ubuntu 22.04.4,
/// kernel 5.15.0-119-generic, Python 3.10.14, torch 2.6.0+rocm6.4.1.
pub const MI300X_TARGET: &[&str] = &[
    "record",
    "target",
    "--gpu",
    "Instinct MI300X",
    "--rocm",
    "6.4.1",
    "--os",
    "Ubuntu 22.04.4",
    "--kernel",
    "5.15.0-119-generic",
    "--python",
    "3.10.14",
    "--framework",
    "torch=2.6.0+rocm6.4.1",
];

/// [`MI300X_TARGET`] without the flags in `drop` (each with its value), then `extra` appended.
pub fn record_target<'a>(drop: &[&str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut out: Vec<&'a str> = MI300X_TARGET[..2].to_vec();
    for pair in MI300X_TARGET[2..].chunks(2) {
        if !drop.contains(&pair[0]) {
            out.extend_from_slice(pair);
        }
    }
    out.extend_from_slice(extra);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_a_flag_with_its_value_and_appends() {
        let v = record_target(&["--kernel", "--rocm"], &["--rocm", "7.0"]);
        assert!(!v.contains(&"--kernel") && !v.contains(&"5.15.0-119-generic"));
        assert!(!v.contains(&"6.4.1"));
        assert_eq!(&v[v.len() - 2..], &["--rocm", "7.0"]);
        assert_eq!(record_target(&[], &[]), MI300X_TARGET);
    }
}
