//! `hipport compare BASELINE CANDIDATE`: numerical correctness evidence. Exit 0 within
//! tolerance, 1 outside it (or shapes differ), 2 when a file cannot be read.

use super::common::TextOrJson;
use crate::compare::{self, load, Tolerance};
use crate::gate::exit;
use crate::record::correctness::{self, Inputs};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(
    after_help = "Rule (numpy.allclose): |candidate - baseline| <= atol + rtol * |baseline| for every element.\nExit codes: 0 pass, 1 fail, 2 error."
)]
pub struct CompareArgs {
    /// The CUDA baseline output (.npy, .csv, .json). CSV columns (by header) and JSON object
    /// leaves (by key path) are matched by name; dtypes of both sides are reported.
    pub baseline: PathBuf,
    /// The ROCm candidate output.
    pub candidate: PathBuf,
    #[arg(long, default_value_t = 1e-5)]
    pub rtol: f64,
    #[arg(long, default_value_t = 1e-8)]
    pub atol: f64,
    /// NaN at the same place in both counts as equal.
    #[arg(long)]
    pub equal_nan: bool,
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// Write the result into the migration record's correctness gate (PASS within tolerance,
    /// REMEDIATION outside it), naming both files, the tolerance and the numbers. Both files
    /// must be inside the project.
    #[arg(long)]
    pub record: bool,
    /// The migration record --record writes.
    #[arg(long, value_name = "FILE", default_value = crate::record::FILE_NAME, requires = "record")]
    pub file: PathBuf,
}

pub fn run(a: CompareArgs) -> anyhow::Result<i32> {
    if !(a.rtol >= 0.0 && a.atol >= 0.0) {
        anyhow::bail!("--rtol and --atol must be non-negative numbers");
    }
    let recording = a
        .record
        .then(|| Inputs::check(&a.file, &a.baseline, &a.candidate))
        .transpose()?;
    let b = load::load(&a.baseline).map_err(anyhow::Error::msg)?;
    let c = load::load(&a.candidate).map_err(anyhow::Error::msg)?;
    let r = compare::compare(
        &b,
        &c,
        Tolerance {
            rtol: a.rtol,
            atol: a.atol,
            equal_nan: a.equal_nan,
        },
    );
    match a.format {
        TextOrJson::Json => crate::outln!("{}", serde_json::to_string_pretty(&r)?),
        TextOrJson::Text => {
            crate::outln!(
                "dtype: baseline {}, candidate {}",
                r.dtype_baseline,
                r.dtype_candidate
            );
            for (what, names) in [
                ("missing from the candidate", &r.missing),
                ("only in the candidate", &r.extra),
                ("shapes differ", &r.shape_differs),
            ] {
                if !names.is_empty() {
                    let shown: Vec<String> =
                        names.iter().map(|n| n.escape_debug().to_string()).collect();
                    crate::outln!("{what}: {}", shown.join(", "));
                }
            }
            if !r.shape_match {
                crate::outln!(
                    "shape mismatch: baseline {:?}, candidate {:?}",
                    r.shape_baseline,
                    r.shape_candidate
                );
            } else {
                crate::outln!("shape {:?}, {} elements", r.shape_baseline, r.elements);
                if r.elements == 0 {
                    crate::outln!("no numbers to compare: an empty output is no evidence");
                }
                crate::outln!(
                    "max abs error {:e}, max rel error {:e}",
                    r.max_abs_error,
                    r.max_rel_error
                );
                crate::outln!("outside tolerance: {} of {}", r.mismatched, r.elements);
                if let Some(w) = &r.worst {
                    let name = w
                        .name
                        .as_deref()
                        .map(|n| format!("`{}` ", n.escape_debug()))
                        .unwrap_or_default();
                    crate::outln!(
                        "worst at {name}{:?}: baseline {}, candidate {}",
                        w.index,
                        w.baseline,
                        w.candidate
                    );
                }
            }
            crate::outln!(
                "NaN: baseline {}, candidate {}; Inf: baseline {}, candidate {}",
                r.nan_baseline,
                r.nan_candidate,
                r.inf_baseline,
                r.inf_candidate
            );
            crate::outln!(
                "{} (rtol {:e}, atol {:e}{})",
                if r.pass { "PASS" } else { "FAIL" },
                r.rtol,
                r.atol,
                if r.equal_nan { ", equal NaN" } else { "" }
            );
        }
    }
    if let Some(i) = recording {
        let command = format!(
            "hipport {}",
            std::env::args().skip(1).collect::<Vec<_>>().join(" ")
        );
        let row = correctness::row(&i, &r, &command, &crate::record::whoami());
        let wanted = row.status;
        let shown = correctness::save(&i, row)?;
        if shown == wanted {
            crate::errln!(
                "hipport compare: correctness gate {shown} recorded in {}",
                i.record.display()
            );
        } else {
            crate::errln!(
                "hipport compare: {} keeps the correctness gate {shown} (set by a person); the comparison was not recorded",
                i.record.display()
            );
        }
    }
    Ok(if r.pass { exit::OK } else { exit::FINDINGS })
}
