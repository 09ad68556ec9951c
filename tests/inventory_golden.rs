//! Golden tests for the repository inventory (issue 5): every mini-repository under
//! `testdata/inventory/` is inventoried and its findings (path, line, category, status, phase,
//! rule) are compared exactly with its `expected.json`. Re-bless with `HIPPORT_BLESS=1 cargo test
//! --test inventory_golden` and review the diff.

use hipport::finding::Category;
use hipport::gate::{Phase, Status};
use hipport::inventory::{self, Inventory};
use hipport::walk::WalkOptions;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Expected {
    path: String,
    line: u32,
    category: Category,
    status: Status,
    phase: Phase,
    rule: String,
}

fn run(dir: &Path) -> Inventory {
    inventory::scan_repo(
        &[dir.to_path_buf()],
        &WalkOptions::default(),
        hipport::source::DEFAULT_MAX_BYTES,
    )
}

fn repos() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/inventory");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

#[test]
fn goldens_match() {
    for dir in repos() {
        let inv = run(&dir);
        assert!(inv.errors.is_empty(), "{}: {:?}", dir.display(), inv.errors);
        let got: Vec<Expected> = inv
            .findings
            .iter()
            .map(|f| Expected {
                path: f.path.clone(),
                line: f.line,
                category: f.category,
                status: f.status,
                phase: f.phase,
                rule: f.rule.clone(),
            })
            .collect();
        let file = dir.join("expected.json");
        if std::env::var_os("HIPPORT_BLESS").is_some() {
            let mut s = serde_json::to_string_pretty(&got).unwrap();
            s.push('\n');
            std::fs::write(&file, s).unwrap();
            continue;
        }
        let want: Vec<Expected> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap_or_else(|e| {
                panic!("{}: {e} (bless with HIPPORT_BLESS=1)", file.display())
            }))
            .unwrap();
        if got != want {
            let g = serde_json::to_string_pretty(&got).unwrap();
            let w = serde_json::to_string_pretty(&want).unwrap();
            let diff = similar::TextDiff::from_lines(&w, &g)
                .unified_diff()
                .header("expected", "got")
                .to_string();
            panic!(
                "{}: findings differ from expected.json (HIPPORT_BLESS=1 re-blesses):\n{diff}",
                dir.display()
            );
        }
    }
}

fn ml_service() -> Inventory {
    run(&Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/inventory/ml-service"))
}

fn at<'a>(inv: &'a Inventory, path: &str, line: u32) -> Vec<&'a hipport::finding::Finding> {
    inv.findings
        .iter()
        .filter(|f| f.path == path && f.line == line)
        .collect()
}

#[test]
fn never_blocker() {
    let inv = ml_service();
    assert!(inv.findings.iter().all(|f| f.status != Status::Blocker));
}

#[test]
fn portable_framework_code_is_pass_not_remediation() {
    let inv = ml_service();
    let ns: Vec<_> = inv
        .findings
        .iter()
        .filter(|f| f.category == Category::FrameworkNamespace)
        .collect();
    assert!(ns.len() >= 5, "{ns:?}");
    assert!(ns.iter().all(|f| f.status == Status::Pass));
    // backend="nccl" (train.py:16) and torch.cuda.set_device (train.py:17): PASS only.
    for line in [16, 17] {
        let here = at(&inv, "train.py", line);
        assert!(!here.is_empty());
        assert!(here.iter().all(|f| f.status == Status::Pass), "{here:?}");
    }
    // Docstring (line 1) and comment (line 15) mention torch.cuda: nothing there.
    assert!(at(&inv, "train.py", 1).is_empty());
    assert!(at(&inv, "train.py", 15).is_empty());
}

#[test]
fn nccl_tuning_is_performance_everywhere() {
    let inv = ml_service();
    let d: Vec<_> = inv
        .findings
        .iter()
        .filter(|f| f.category == Category::Distributed)
        .collect();
    let paths: std::collections::BTreeSet<&str> = d.iter().map(|f| f.path.as_str()).collect();
    for p in [
        "train.py",
        "Dockerfile",
        "k8s/deployment.yaml",
        "scripts/launch.sh",
        "docker-compose.yml",
    ] {
        assert!(paths.contains(p), "no NCCL finding in {p}");
    }
    assert!(d.iter().all(|f| f.phase == Phase::Performance));
    let nvls: Vec<_> = d.iter().filter(|f| f.rule == "HP891").collect();
    assert!(nvls
        .iter()
        .all(|f| f.message.contains("RCCL ignores NCCL_NVLS_ENABLE")));
    assert_eq!(nvls.len(), 2);
}

#[test]
fn prebuilt_library_is_unknown() {
    let inv = ml_service();
    let so = at(&inv, "third_party/libfastops.so", 1);
    assert_eq!(so.len(), 1);
    assert_eq!(so[0].category, Category::BinaryDependency);
    assert_eq!(so[0].status, Status::Unknown);
    assert!(so[0].message.contains("libcudart.so.12"));
    assert!(so[0]
        .message
        .contains("no source: needs a ROCm build from its vendor, or a replacement"));
}

#[test]
fn readiness_probe_names_the_probe() {
    let inv = ml_service();
    let f = inv
        .findings
        .iter()
        .find(|f| f.path == "k8s/deployment.yaml" && f.rule == "HP880" && f.line == 26)
        .expect("readiness probe finding");
    assert_eq!(f.category, Category::Monitoring);
    assert!(f.message.contains("readiness probe"));
}

#[test]
fn wheel_with_cuda_shared_object_is_unknown() {
    use std::io::Write;
    let so = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/inventory/ml-service/third_party/libfastops.so"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let whl = dir.path().join("fastops-1.0-cp310-cp310-linux_x86_64.whl");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&whl).unwrap());
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("fastops/_C.so", opts).unwrap();
    zip.write_all(&so).unwrap();
    zip.start_file("fastops/__init__.py", opts).unwrap();
    zip.write_all(b"").unwrap();
    zip.finish().unwrap();
    let inv = run(dir.path());
    assert_eq!(inv.findings.len(), 1, "{:?}", inv.findings);
    assert_eq!(inv.findings[0].rule, "HP902");
    assert_eq!(inv.findings[0].status, Status::Unknown);
}

#[test]
fn freshly_linked_elf_is_found() {
    // Builds an ELF against a stub libcudart.so.12 when a C compiler is present.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("cudart.c"), "int cudaFree(void *p) { return 0; }\n").unwrap();
    std::fs::write(
        d.join("app.c"),
        "int cudaFree(void *p);\nint main(void) { return cudaFree(0); }\n",
    )
    .unwrap();
    let cc = |args: &[&str]| {
        std::process::Command::new("cc")
            .current_dir(d)
            .args(args)
            .status()
    };
    let Ok(s) = cc(&[
        "-shared",
        "-fPIC",
        "-Wl,-soname,libcudart.so.12",
        "-o",
        "libcudart.so.12",
        "cudart.c",
    ]) else {
        eprintln!("no C compiler: skipped");
        return;
    };
    assert!(s.success());
    assert!(cc(&[
        "-o",
        "app",
        "app.c",
        "-L.",
        "-Wl,--no-as-needed",
        "-l:libcudart.so.12"
    ])
    .unwrap()
    .success());
    std::fs::remove_file(d.join("libcudart.so.12")).unwrap();
    let inv = run(d);
    let app: Vec<_> = inv.findings.iter().filter(|f| f.path == "app").collect();
    assert_eq!(app.len(), 1, "{:?}", inv.findings);
    assert_eq!(app[0].rule, "HP900");
}
