//! `hipport port --compat-header` end to end: the header is written once at the output root in
//! every output mode (new file in the diff, `--out`, `--write`, `-o FILE`; a note for `-o -`),
//! files in subdirectories include it by a relative path, and nothing changes without the flag.

use std::path::Path;
use std::process::Command;

fn hipport() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
}

fn write(p: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

const WARP: &[u8] = b"#include <cuda_runtime.h>\n__global__ void k(int *p) {\n  p[threadIdx.x] = 1;\n  __syncwarp();\n}\n";
const SPARSE: &[u8] = b"#include <cusparse.h>\nconst char *name(cusparseStatus_t s) { return cusparseGetErrorString(s); }\n";
const PLAIN: &[u8] = b"#include <cuda_runtime.h>\nvoid f(float *p) { cudaFree(p); }\n";

fn tree(root: &Path) {
    write(&root.join("src/kernels/warp.cu"), WARP);
    write(&root.join("sparse.cpp"), SPARSE);
    write(&root.join("plain.cu"), PLAIN);
}

#[test]
fn out_dir_gets_one_header_with_the_union_of_shims() {
    let d = tempfile::tempdir().unwrap();
    tree(&d.path().join("in"));
    let out = d.path().join("out");
    let r = hipport()
        .args(["port", "-q", "--rocm", "5.2", "--compat-header", "--out"])
        .arg(&out)
        .arg(d.path().join("in"))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let header = std::fs::read_to_string(out.join("hipport_compat.h")).unwrap();
    assert!(header.contains("// ---- syncwarp (verify at runtime)"));
    assert!(header.contains("// ---- sparse_error_string"));
    assert!(header.contains("#include <hipsparse/hipsparse.h>"));
    let warp = std::fs::read_to_string(out.join("src/kernels/warp.cu")).unwrap();
    assert!(
        warp.contains("#include \"../../hipport_compat.h\"\n"),
        "{warp}"
    );
    let sparse = std::fs::read_to_string(out.join("sparse.cpp")).unwrap();
    assert!(
        sparse.contains("#include \"hipport_compat.h\"\n")
            && sparse.contains("hipsparseGetErrorString(s)")
    );
    let plain = std::fs::read_to_string(out.join("plain.cu")).unwrap();
    assert!(
        !plain.contains("hipport_compat.h"),
        "only files that use a shim include it"
    );
    assert!(!out.join("src/kernels/hipport_compat.h").exists());
}

#[test]
fn diff_shows_the_header_as_a_new_file_that_git_applies() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    tree(root);
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    let diff = hipport()
        .args(["port", "-q", "--rocm", "5.2", "--compat-header", "."])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(diff.status.success());
    let text = String::from_utf8_lossy(&diff.stdout);
    assert_eq!(text.matches("+++ b/hipport_compat.h").count(), 1, "{text}");
    assert!(text.contains("new file mode 100644\n--- /dev/null\n"));
    std::fs::write(root.join("p.diff"), &diff.stdout).unwrap();
    let applied = git(&["apply", "p.diff"]);
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let header = std::fs::read_to_string(root.join("hipport_compat.h")).unwrap();
    assert!(header.trim_end().ends_with("#endif // HIPPORT_COMPAT_H"));
}

#[test]
fn single_file_output_writes_the_header_next_to_it_or_says_how() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("warp.cu");
    write(&src, WARP);
    let dest = d.path().join("hip/warp.hip");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let r = hipport()
        .args(["port", "-q", "--rocm", "5.2", "--compat-header", "-o"])
        .arg(&dest)
        .arg(&src)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(std::fs::read_to_string(&dest)
        .unwrap()
        .contains("#include \"hipport_compat.h\""));
    assert!(d.path().join("hip/hipport_compat.h").exists());

    let r = hipport()
        .args(["port", "-q", "--rocm", "5.2", "--compat-header", "-o", "-"])
        .arg(&src)
        .output()
        .unwrap();
    assert!(r.status.success());
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        stderr.contains("\"hipport_compat.h\" (shims: syncwarp)") && stderr.contains("-o FILE"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&r.stdout).contains("__syncwarp();"));
}

#[test]
fn without_the_flag_or_without_a_gap_nothing_is_added() {
    let d = tempfile::tempdir().unwrap();
    tree(&d.path().join("in"));
    for args in [
        &["--rocm", "5.2"][..],
        &["--rocm", "7.0", "--compat-header"][..],
    ] {
        let out = d.path().join(format!("out{}", args.len()));
        let r = hipport()
            .args(["port", "-q", "--out"])
            .arg(&out)
            .args(args)
            .arg(d.path().join("in"))
            .output()
            .unwrap();
        assert!(r.status.success());
        let warp = std::fs::read_to_string(out.join("src/kernels/warp.cu")).unwrap();
        assert!(!warp.contains("hipport_compat.h"), "{args:?}: {warp}");
        assert!(!out.join("hipport_compat.h").exists(), "{args:?}");
    }
}
