//! The project's own namespaces under CUDA names: a `cuda::` use that resolves to a namespace
//! the project declares (nested in its own, or at the top of its own files) is the project's,
//! not libcu++'s or OpenCV's; its findings become PASS naming the declaration.

use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeMap;

/// libcu++'s members in namespace `cuda` (what a `cuda::` use names when it is libcu++'s):
/// atomics, barriers, pipelines, memory resources, `cuda::ptx`, `cuda::std`; the
/// `thread_scope…` and `aligned_size…` families are matched by prefix where this is used.
const LIBCU_MEMBERS: &[&str] = &[
    "std",
    "atomic",
    "barrier",
    "pipeline",
    "memcpy_async",
    "annotated_ptr",
    "access_property",
    "apply_access_property",
    "associate_access_property",
    "discard_memory",
    "stream_ref",
    "ptx",
    "mr",
    "device",
    "experimental",
    "binary_semaphore",
    "counting_semaphore",
    "latch",
    "make_pipeline",
    "proclaim_return_type",
    "ceil_div",
    "round_up",
    "round_down",
    "get_stream",
];

/// The namespace a translator finding says has no HIP counterpart.
fn unported_namespace(f: &Finding) -> Option<&str> {
    if f.rule != "HP001" {
        return None;
    }
    let rest = f.message.strip_prefix("namespace `")?;
    let (name, tail) = rest.split_once('`')?;
    if name == "cv::cuda" && tail.starts_with(" (OpenCV's CUDA modules") {
        return Some("cuda");
    }
    tail.starts_with(" has no HIP counterpart").then_some(name)
}

/// Whether `src` declares `member`: after `class`/`struct`/`enum`/`union`, or as the name of a
/// variable or function (after a type, `*` or `&`, before `;`, `=`, `(`, `[` or `{`).
/// `GpuMat & image` or `return GpuMat(…)` use a name; `extern Allocator * gpu_mat_allocator;`
/// and `class IC_Angle {` declare one.
fn declares_member(src: &[u8], member: &str) -> bool {
    let text = String::from_utf8_lossy(src);
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(p) = text[from..].find(member) {
        let at = from + p;
        let end = at + member.len();
        from = end;
        if text[..at].ends_with(word) || text[end..].starts_with(word) {
            continue;
        }
        let before = text[..at].trim_end();
        let after = text[end..].trim_start();
        let prev_word: &str = before.rsplit(|c: char| !word(c)).next().unwrap_or("");
        if matches!(prev_word, "class" | "struct" | "enum" | "union") && before.ends_with(word) {
            return true;
        }
        let typed = before.ends_with(['*', '&', '>'])
            || (before.ends_with(word)
                && !matches!(
                    prev_word,
                    "return"
                        | "new"
                        | "else"
                        | "case"
                        | "throw"
                        | "delete"
                        | "sizeof"
                        | "using"
                        | "namespace"
                        | "goto"
                ));
        if typed && after.starts_with([';', '=', '(', '[', '{']) && !before.ends_with("::") {
            return true;
        }
    }
    false
}

/// Findings on a CUDA namespace the project declares nested in its own become PASS.
pub fn pass_own_namespaces(
    findings: &mut [Finding],
    sources: &BTreeMap<String, Vec<u8>>,
    declared: &[(String, Vec<String>)],
) {
    // Nested declarations first; a top-level one (`::cuda`) only in the project's own files,
    // never in a copy of libcu++/CCCL.
    let mut first: BTreeMap<&str, &str> = BTreeMap::new();
    let mut top: BTreeMap<&str, &str> = BTreeMap::new();
    let mut nested_names: std::collections::BTreeSet<&str> = Default::default();
    for (path, names) in declared {
        for n in names {
            match n.strip_prefix("::") {
                Some(n) => {
                    let libcu = ["libcudacxx", "cccl", "cuda/std/"]
                        .iter()
                        .any(|p| path.contains(p));
                    if crate::decisions::kind::own(path) && !libcu {
                        top.entry(n).or_insert(path.as_str());
                    }
                }
                None => {
                    first.entry(n.as_str()).or_insert(path.as_str());
                    nested_names.insert(n.as_str());
                }
            }
        }
    }
    for (n, p) in &top {
        first.entry(n).or_insert(p);
    }
    if first.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        let Some(name) = unported_namespace(f).map(str::to_string) else {
            continue;
        };
        let Some(&decl) = first.get(name.as_str()) else {
            continue;
        };
        // `cuda::std::…` is libcu++ even in a project with its own `cuda` namespace.
        let after = sources
            .get(&f.path)
            .and_then(|b| b.get(f.byte_range.1..))
            .unwrap_or_default();
        let after: Vec<u8> = after
            .iter()
            .copied()
            .filter(|c| !c.is_ascii_whitespace())
            .take(5)
            .collect();
        if after.starts_with(b"::std") {
            continue;
        }
        // Beside a top-level declaration only, libcu++'s own members stay libcu++'s.
        let raw = sources
            .get(&f.path)
            .and_then(|b| b.get(f.byte_range.1..))
            .unwrap_or_default();
        let raw = String::from_utf8_lossy(&raw[..raw.len().min(80)]);
        let member: String = raw
            .trim_start()
            .strip_prefix("::")
            .unwrap_or("")
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `thread_scope`, `thread_scope_device`…; `aligned_size_t`.
        let libcu = LIBCU_MEMBERS.contains(&member.as_str())
            || member.starts_with("thread_scope")
            || member.starts_with("aligned_size");
        let nested = nested_names.contains(name.as_str());
        if !nested && libcu {
            continue;
        }
        // `using namespace cv;` then `cuda::GpuMat` inside the project's namespace: the
        // project's `cuda` namespace is found first, and a member it does not declare comes
        // from the namespace it pulls in (ORB-SLAM2-GPU's `namespace ORB_SLAM2 { namespace cuda
        // { using namespace cv::cuda; … } }`): OpenCV's `GpuMat` stays OpenCV's, the project's
        // `IC_Angle` and `gpu_mat_allocator` are its own.
        if f.message.contains("(OpenCV's CUDA modules") {
            let decls: Vec<&Vec<u8>> = declared
                .iter()
                .filter(|(_, ns)| ns.iter().any(|n| n == &name))
                .filter_map(|(p, _)| sources.get(p))
                .collect();
            if decls.is_empty() || !decls.iter().any(|b| declares_member(b, &member)) {
                continue;
            }
        }
        f.status = Status::Pass;
        let how = if nested {
            "declared inside another namespace in"
        } else {
            "declared in"
        };
        f.message = format!(
            "namespace `{name}` is the project's own ({how} {decl}), not CUDA's: nothing to port"
        );
        f.suggestion = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bifrost's own top-level `namespace cuda { … child_stream … }` in `src/cuda/stream.hpp`:
    /// `cuda::child_stream` is the project's. Twins: `cuda::atomic` beside it stays libcu++'s,
    /// and a top-level declaration in a vendored copy counts for nothing.
    #[test]
    fn a_top_level_own_namespace_holds_its_members_but_not_libcus() {
        let src = b"cuda::child_stream s; cuda::atomic<int> a;".to_vec();
        let mut sources = BTreeMap::new();
        sources.insert("src/linalg.cu".to_string(), src);
        let msg = "namespace `cuda` has no HIP counterpart";
        let run = |decl_path: &str| {
            let mut fs = vec![
                finding("HP001", "src/linalg.cu", msg, (0, 4)),
                finding("HP001", "src/linalg.cu", msg, (22, 26)),
            ];
            let decl = vec![(decl_path.to_string(), vec!["::cuda".to_string()])];
            pass_own_namespaces(&mut fs, &sources, &decl);
            fs
        };
        let fs = run("src/cuda/stream.hpp");
        assert_eq!(fs[0].status, Status::Pass);
        assert!(
            fs[0].message.contains("declared in src/cuda/stream.hpp"),
            "{}",
            fs[0].message
        );
        assert_eq!(fs[1].status, Status::Remediation);
        let fs = run("third_party/lib/stream.hpp");
        assert_eq!(fs[0].status, Status::Remediation);
    }

    /// ORB-SLAM2-GPU: `using namespace cv;`, then `cuda::IC_Angle` and `cuda::GpuMat` inside
    /// `namespace ORB_SLAM2`, whose own `cuda` namespace declares `IC_Angle` and pulls in
    /// `cv::cuda`: the project's class is its own, OpenCV's `GpuMat` stays OpenCV's.
    #[test]
    fn opencv_members_through_the_projects_cuda_namespace() {
        let src =
            b"cuda::IC_Angle::load(); cuda::GpuMat m(s, t, cuda::gpu_mat_allocator);".to_vec();
        let header = b"namespace ORB_SLAM2 { namespace cuda {\n using namespace cv::cuda;\n class IC_Angle { void f(GpuMat & image); };\n extern GpuMat::Allocator * gpu_mat_allocator;\n} }".to_vec();
        let mut sources = BTreeMap::new();
        sources.insert("src/ORBextractor.cc".to_string(), src);
        sources.insert("include/cuda/Orb.hpp".to_string(), header);
        let msg = "namespace `cv::cuda` (OpenCV's CUDA modules, named through `using namespace cv`) has no HIP counterpart: OpenCV builds its `cuda*` modules only against CUDA";
        let mut fs = vec![
            finding("HP001", "src/ORBextractor.cc", msg, (0, 4)),
            finding("HP001", "src/ORBextractor.cc", msg, (24, 28)),
            finding("HP001", "src/ORBextractor.cc", msg, (45, 49)),
        ];
        let decl = vec![("include/cuda/Orb.hpp".to_string(), vec!["cuda".to_string()])];
        pass_own_namespaces(&mut fs, &sources, &decl);
        let statuses: Vec<Status> = fs.iter().map(|f| f.status).collect();
        assert_eq!(statuses, [Status::Pass, Status::Remediation, Status::Pass]);
    }

    use super::super::test_finding as finding;

    #[test]
    fn own_namespace_uses_pass_but_libcu_std_stays() {
        let src = b"x = cuda::get(); y = cuda::std::atomic<int>{};".to_vec();
        let mut sources = BTreeMap::new();
        sources.insert("k.cu".to_string(), src);
        let msg = "namespace `cuda` has no HIP counterpart";
        let mut fs = vec![
            finding("HP001", "k.cu", msg, (4, 8)),
            finding("HP001", "k.cu", msg, (21, 25)),
        ];
        let decl = vec![("utils.h".to_string(), vec!["cuda".to_string()])];
        pass_own_namespaces(&mut fs, &sources, &decl);
        assert_eq!(fs[0].status, Status::Pass);
        assert!(fs[0].message.contains("utils.h"));
        assert_eq!(fs[1].status, Status::Remediation);
        // Twin: without the declaration nothing changes.
        let mut fs = vec![finding("HP001", "k.cu", msg, (4, 8))];
        pass_own_namespaces(&mut fs, &sources, &[]);
        assert_eq!(fs[0].status, Status::Remediation);
    }
}
