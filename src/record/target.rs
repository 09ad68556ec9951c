//! Validating the exact ROCm target tuple for `record target`: "latest" is not a specification,
//! a ROCm or Python version needs its patch number, a ROCm release must be one hipport knows
//! (`mappings/hand/rocm_versions.tsv`), a gfx name must be a real one
//! (`mappings/hand/gfx_targets.tsv`), and required fields cannot be empty. Every problem is
//! reported at once, each naming the field and why.

use super::TargetTuple;
use crate::mappings::hand::HandTable;
use crate::version::Version;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

const ROCM_VERSIONS: &str = include_str!("../../mappings/hand/rocm_versions.tsv");
const GFX_TARGETS: &str = include_str!("../../mappings/hand/gfx_targets.tsv");

/// The raw `record target` flags.
#[derive(Clone, Debug, Default)]
pub struct TargetInput {
    pub gpu: String,
    pub gfx: Option<String>,
    pub rocm: String,
    pub os: String,
    pub kernel: String,
    pub python: String,
    /// `name=version`, repeatable.
    pub frameworks: Vec<String>,
    pub dependencies: Vec<String>,
    pub container: Option<String>,
    pub firmware: Option<String>,
    pub driver: Option<String>,
}

/// ` (kernel, driver UNKNOWN until known)` for the fields only the machine can tell, or empty.
pub fn unknown_fields_note(t: &TargetTuple) -> String {
    let missing: Vec<&str> = [("kernel", &t.kernel), ("driver", &t.driver)]
        .into_iter()
        .filter(|(_, v)| v.trim().is_empty())
        .map(|(k, _)| k)
        .collect();
    if missing.is_empty() {
        String::new()
    } else {
        format!(
            "; {} UNKNOWN until known (hipport record target --kernel … --driver … on the machine)",
            missing.join(", ")
        )
    }
}

/// One rejected field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: &'static str,
    pub value: String,
    pub why: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--{} `{}`: {}", self.field, self.value, self.why)
    }
}

/// Known ROCm releases, sorted.
pub fn rocm_releases() -> &'static [Version] {
    static V: OnceLock<Vec<Version>> = OnceLock::new();
    V.get_or_init(|| {
        let t = HandTable::parse("rocm_versions.tsv", ROCM_VERSIONS, &["rocm"])
            .expect("embedded rocm_versions.tsv is valid");
        let mut v: Vec<Version> = t
            .iter()
            .filter_map(|r| r.get("rocm").parse().ok())
            .collect();
        v.sort();
        v
    })
}

/// Known gfx names with their example products.
pub fn gfx_targets() -> &'static [(String, Vec<String>)] {
    static G: OnceLock<Vec<(String, Vec<String>)>> = OnceLock::new();
    G.get_or_init(|| {
        let t = HandTable::parse("gfx_targets.tsv", GFX_TARGETS, &["gfx", "products"])
            .expect("embedded gfx_targets.tsv is valid");
        t.iter()
            .map(|r| {
                let products = r
                    .get("products")
                    .split(" ; ")
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect();
                (r.get("gfx").to_string(), products)
            })
            .collect()
    })
}

pub fn is_gfx(name: &str) -> bool {
    gfx_targets().iter().any(|(g, _)| g == name)
}

/// `MI300X` → `gfx942`, matching product names without vendor words and spaces.
pub fn gfx_of_product(product: &str) -> Option<&'static str> {
    let key = squash(product);
    if key.is_empty() {
        return None;
    }
    gfx_targets()
        .iter()
        .find(|(_, ps)| ps.iter().any(|p| squash(p) == key))
        .map(|(g, _)| g.as_str())
}

fn squash(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let mut out: String = lower
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    for w in ["amd", "instinct", "radeon"] {
        if let Some(rest) = out.strip_prefix(w) {
            out = rest.to_string();
        }
    }
    out
}

/// Words that name a moving target, not a version.
fn floating(v: &str) -> bool {
    let l = v.trim().to_ascii_lowercase();
    [
        "latest", "stable", "nightly", "current", "newest", "main", "master", "*",
    ]
    .iter()
    .any(|w| l == *w || l.ends_with(&format!(":{w}")) || l.ends_with(&format!("-{w}")))
}

pub fn validate(i: &TargetInput) -> Result<TargetTuple, Vec<FieldError>> {
    let mut errs = Vec::new();
    let mut err = |field: &'static str, value: &str, why: String| {
        errs.push(FieldError {
            field,
            value: value.to_string(),
            why,
        })
    };
    let mut t = TargetTuple::default();
    let required = [
        ("gpu", &i.gpu),
        ("rocm", &i.rocm),
        ("os", &i.os),
        ("python", &i.python),
    ];
    // Kernel and driver are known only on the machine: optional, UNKNOWN until recorded.
    if floating(&i.kernel) {
        err(
            "kernel",
            &i.kernel,
            "\"latest\" is not a specification: name the exact version".into(),
        );
    }
    for (field, v) in required {
        if v.trim().is_empty() {
            err(field, v, "required, and empty".into());
        } else if floating(v) {
            err(
                field,
                v,
                "\"latest\" is not a specification: name the exact version".into(),
            );
        }
    }
    // GPU and gfx.
    let gpu = i.gpu.trim();
    let (product, gfx_in_gpu) = match gpu.rsplit_once([':', '/', ' ']) {
        Some((p, g)) if g.starts_with("gfx") => (p.trim(), Some(g)),
        _ if gpu.starts_with("gfx") => ("", Some(gpu)),
        _ => (gpu, None),
    };
    let gfx = i.gfx.as_deref().map(str::trim).or(gfx_in_gpu);
    match gfx {
        Some(g) if !is_gfx(g) => err(
            if i.gfx.is_some() { "gfx" } else { "gpu" },
            g,
            format!("not a known gfx target (LLVM AMDGPU processors, mappings/hand/gfx_targets.tsv), e.g. {}", suggest_gfx(g)),
        ),
        Some(g) => {
            if let Some(known) = gfx_of_product(product) {
                if known != g {
                    err("gfx", g, format!("`{product}` is {known}"));
                }
            }
            t.gfx = g.to_string();
        }
        None if !gpu.is_empty() && !floating(gpu) => match gfx_of_product(product) {
            Some(g) => t.gfx = g.to_string(),
            None => err("gpu", gpu, "the gfx architecture is unknown for this product: add --gfx gfxNNN (or --gpu 'PRODUCT:gfxNNN')".into()),
        },
        None => {}
    }
    t.gpu = if product.is_empty() {
        String::new()
    } else {
        product.to_string()
    };
    // ROCm: a full X.Y.Z that is a real release.
    if !i.rocm.trim().is_empty() && !floating(&i.rocm) {
        match i.rocm.trim().trim_start_matches("rocm-").parse::<Version>() {
            Err(e) => err("rocm", &i.rocm, e.to_string()),
            Ok(v) if v.patch.is_none() => {
                let line: Vec<String> = rocm_releases()
                    .iter()
                    .filter(|r| r.same_minor(&v))
                    .map(|r| r.to_string())
                    .collect();
                let hint = if line.is_empty() {
                    String::new()
                } else {
                    format!(" (known {v}.x: {})", line.join(", "))
                };
                err("rocm", &i.rocm, format!("missing patch version: name the exact release, e.g. {v}.0 or {v}.1, not the release line{hint}"));
            }
            Ok(v) if !rocm_releases().contains(&v) => {
                let all = rocm_releases();
                err("rocm", &i.rocm, format!(
                    "not a ROCm release hipport knows (mappings/hand/rocm_versions.tsv lists {} … {})",
                    all.first().map(|v| v.to_string()).unwrap_or_default(),
                    all.last().map(|v| v.to_string()).unwrap_or_default()
                ));
            }
            Ok(v) => t.rocm = v.to_string(),
        }
    }
    // Python: X.Y.Z.
    if !i.python.trim().is_empty() && !floating(&i.python) {
        match i.python.trim().parse::<Version>() {
            Err(e) => err("python", &i.python, e.to_string()),
            Ok(v) if v.patch.is_none() => err(
                "python",
                &i.python,
                format!("missing patch version: name the exact interpreter, e.g. {v}.12"),
            ),
            Ok(v) => t.python = v.to_string(),
        }
    }
    // OS and kernel.
    if !i.os.trim().is_empty() && !floating(&i.os) {
        if !i.os.chars().any(|c| c.is_ascii_digit()) {
            err(
                "os",
                &i.os,
                "name the distribution and its release, e.g. \"Ubuntu 22.04.4\"".into(),
            );
        }
        t.os = i.os.trim().to_string();
    }
    if !i.kernel.trim().is_empty() && !floating(&i.kernel) {
        let k = i.kernel.trim();
        let mut parts = k.split(['.', '-']);
        let numeric = |p: Option<&str>| {
            p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        if !(numeric(parts.next()) && numeric(parts.next())) {
            err(
                "kernel",
                k,
                "expected a kernel release as `uname -r` prints it, e.g. 5.15.0-119-generic".into(),
            );
        }
        t.kernel = k.to_string();
    }
    t.frameworks = pairs("framework", &i.frameworks, &mut err);
    if i.frameworks.is_empty() {
        err(
            "framework",
            "",
            "required: at least one name=version, e.g. --framework torch=2.4.1+rocm6.1".into(),
        );
    }
    t.dependencies = pairs("dependency", &i.dependencies, &mut err);
    if let Some(c) = &i.container {
        match container(c) {
            Ok((tag, digest)) => {
                t.container_tag = tag;
                t.container_digest = digest;
            }
            Err(why) => err("container", c, why),
        }
    }
    for (field, v, dest) in [
        ("firmware", &i.firmware, &mut t.firmware),
        ("driver", &i.driver, &mut t.driver),
    ] {
        if let Some(v) = v {
            if v.trim().is_empty() || floating(v) {
                err(field, v, "name the exact version".into());
            }
            *dest = v.trim().to_string();
        }
    }
    if errs.is_empty() {
        Ok(t)
    } else {
        Err(errs)
    }
}

fn suggest_gfx(g: &str) -> String {
    let lower = g.to_ascii_lowercase();
    gfx_targets()
        .iter()
        .map(|(n, _)| n.as_str())
        .find(|n| *n == lower || (lower.len() > 4 && n.starts_with(&lower[..lower.len() - 1])))
        .unwrap_or("gfx942 (MI300X), gfx90a (MI250X), gfx1100 (RX 7900 XTX)")
        .to_string()
}

/// `name=version` or pip's `name==version` (also `name===version`, `name@version`) pairs;
/// versions need X.Y.Z digits at the start, and a local label (`2.6.0+rocm6.4`) is kept.
fn pairs(
    field: &'static str,
    items: &[String],
    err: &mut impl FnMut(&'static str, &str, String),
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for it in items {
        let Some((name, ver)) = it.split_once(['=', '@']) else {
            err(
                field,
                it,
                "expected name==version (pip) or name=version, e.g. torch==2.6.0+rocm6.4".into(),
            );
            continue;
        };
        let (name, ver) = (name.trim(), ver.trim_start_matches('=').trim());
        if [">", "<", "~", "!"].iter().any(|op| name.ends_with(op)) {
            err(
                field,
                it,
                "a range is not a pin: name the exact version with == (e.g. torch==2.6.0)".into(),
            );
            continue;
        }
        if name.is_empty() || ver.is_empty() {
            err(field, it, "expected name=version with both parts".into());
        } else if floating(ver) {
            err(
                field,
                it,
                "\"latest\" is not a specification: name the exact version".into(),
            );
        } else if !full_version_prefix(ver) {
            err(
                field,
                it,
                "the version needs major.minor.patch, e.g. 2.4.1 (pins must be exact)".into(),
            );
        } else {
            out.insert(name.to_string(), ver.to_string());
        }
    }
    out
}

fn full_version_prefix(v: &str) -> bool {
    let v = v.trim_start_matches('v');
    let head: String = v
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let nums: Vec<&str> = head.split('.').take(3).collect();
    nums.len() == 3 && nums.iter().all(|n| !n.is_empty())
}

/// `image:tag[@sha256:…]` or `image@sha256:…` → (tag reference, digest).
fn container(c: &str) -> Result<(String, String), String> {
    let c = c.trim();
    let (name, digest) = match c.split_once('@') {
        Some((n, d)) => {
            let hex = d.strip_prefix("sha256:").unwrap_or("");
            if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err("the digest must be sha256: followed by 64 hex digits".into());
            }
            (n, d.to_string())
        }
        None => (c, String::new()),
    };
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.split_once(':') {
        None if digest.is_empty() => {
            Err("no tag and no digest: pin the image with :tag (better, @sha256:digest too)".into())
        }
        Some((_, tag)) if floating(tag) => {
            Err("\"latest\" is not a specification: pin an exact tag or a digest".into())
        }
        _ => Ok((name.to_string(), digest)),
    }
}

/// The newest ROCm release the release table knows: the one default target of the tool.
pub fn default_rocm() -> Version {
    rocm_releases()
        .last()
        .copied()
        .unwrap_or_else(|| crate::mappings::get().newest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good() -> TargetInput {
        TargetInput {
            gpu: "MI300X".into(),
            rocm: "6.4.1".into(),
            os: "Ubuntu 22.04.4".into(),
            kernel: "5.15.0-119-generic".into(),
            python: "3.10.14".into(),
            frameworks: vec!["torch=2.6.0+rocm6.4.1".into()],
            container: Some(
                "rocm/pytorch:rocm6.4.1_ubuntu22.04_py3.10_pytorch_release_2.6.0".into(),
            ),
            ..Default::default()
        }
    }

    fn fields(i: &TargetInput) -> Vec<&'static str> {
        validate(i).unwrap_err().iter().map(|e| e.field).collect()
    }

    #[test]
    fn frameworks_take_pip_pins_and_keep_the_local_label() {
        let mut i = good();
        i.frameworks = vec![
            "torch==2.6.0+rocm6.4".into(),
            "vllm===0.8.5".into(),
            "triton=3.2.0".into(),
        ];
        let t = validate(&i).unwrap();
        assert_eq!(t.frameworks["torch"], "2.6.0+rocm6.4");
        assert_eq!(t.frameworks["vllm"], "0.8.5");
        assert_eq!(t.frameworks["triton"], "3.2.0");
        i.frameworks = vec!["torch>=2.6.0".into()];
        assert_eq!(fields(&i), ["framework"]);
        i.frameworks = vec!["torch==2.6".into()];
        assert_eq!(fields(&i), ["framework"]);
        i.frameworks = vec!["torch==latest".into()];
        assert_eq!(fields(&i), ["framework"]);
    }

    #[test]
    fn accepts_an_exact_tuple_and_infers_gfx() {
        let t = validate(&good()).unwrap();
        assert_eq!(t.gfx, "gfx942");
        assert_eq!(t.rocm, "6.4.1");
    }

    #[test]
    fn rejects_latest_missing_patch_and_unknown_gfx() {
        let mut i = good();
        i.rocm = "latest".into();
        assert_eq!(fields(&i), ["rocm"]);
        i.rocm = "6.4".into();
        let e = validate(&i).unwrap_err();
        assert!(e[0].why.contains("missing patch"), "{}", e[0]);
        assert!(e[0].to_string().contains("6.4.1"));
        i.rocm = "6.4.9".into();
        assert_eq!(fields(&i), ["rocm"]);
        let mut i = good();
        i.gpu = "MI300X:gfx943".into();
        assert_eq!(fields(&i), ["gpu"]);
        i.gpu = "Mystery GPU".into();
        assert_eq!(fields(&i), ["gpu"]);
        i.gfx = Some("gfx1100".into());
        assert!(validate(&i).is_ok());
        let mut i = good();
        i.container = Some("rocm/pytorch:latest".into());
        i.python = "3.10".into();
        i.frameworks = vec!["torch=latest".into()];
        assert_eq!(fields(&i), ["python", "framework", "container"]);
    }

    #[test]
    fn empty_required_fields_are_named() {
        let e = validate(&TargetInput::default()).unwrap_err();
        let names: Vec<&str> = e.iter().map(|e| e.field).collect();
        for f in ["gpu", "rocm", "os", "python", "framework"] {
            assert!(names.contains(&f), "{f} missing from {names:?}");
        }
        // Kernel and driver stay UNKNOWN until an AMD machine exists.
        assert!(!names.contains(&"kernel") && !names.contains(&"driver"));
    }

    #[test]
    fn tables_load() {
        assert!(rocm_releases().len() > 30);
        assert!(is_gfx("gfx90a") && !is_gfx("gfx999"));
        assert_eq!(gfx_of_product("AMD Instinct MI250X"), Some("gfx90a"));
    }
}
