//! Every view for people opens on the most harmful item, and a build-system decision is one
//! entry: a project with a CMake build of many CUDA lines, a Dockerfile on an NVIDIA image and
//! one kernel with a 64-lane hazard (a `threadIdx.x % 32` lane beside a `warpSize` warp id). Text, Markdown, GitHub annotations and
//! the HTML page's to-do list all start with the kernel's HP102; the CMake lines are one entry
//! with a count; JSON keeps every line (fingerprints for baselines do not change).

mod common;
use common::{hipport, write};
use std::path::{Path, PathBuf};

fn project(cmake_lines: usize, kernel: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().to_path_buf();
    for sub in ["tools", "zz"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    let mut cmake = String::from(
        "cmake_minimum_required(VERSION 3.18)\nproject(app LANGUAGES CXX CUDA)\nfind_package(CUDAToolkit REQUIRED)\n",
    );
    for i in 0..cmake_lines {
        cmake.push_str(&format!(
            "set(CUDA_NVCC_FLAGS \"${{CUDA_NVCC_FLAGS}} -DOPT{i}\")\n"
        ));
    }
    cmake.push_str(
        "add_executable(app main.cu)\ntarget_link_libraries(app CUDA::cudart CUDA::cublas)\n",
    );
    write(&root.join("CMakeLists.txt"), &cmake);
    write(
        &root.join("tools/CMakeLists.txt"),
        "enable_language(CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 80)\n",
    );
    write(
        &root.join("Dockerfile"),
        "FROM nvidia/cuda:12.4.0-devel-ubuntu22.04\nRUN nvcc --version\n",
    );
    write(&root.join("zz/main.cu"), kernel);
    (d, root)
}

const LANE_HAZARD: &str =
    "__global__ void k(int *o) {\n  int lane = threadIdx.x % 32;\n  o[threadIdx.x / warpSize * 32 + lane] = lane;\n}\n";
/// The negative twin: the same kernel asking the device for its width.
const PORTABLE: &str =
    "__global__ void k(int *o) {\n  int lane = threadIdx.x % warpSize;\n  o[lane] = lane;\n}\n";

fn out(root: &Path, format: &str) -> String {
    let r = hipport(root, &["scan", ".", "--format", format, "--exit-zero"]);
    assert!(r.code == 0, "{format}: {}", r.stderr);
    r.stdout
}

#[test]
fn every_view_opens_on_the_64_lane_hazard() {
    let (_d, root) = project(40, LANE_HAZARD);
    // Text: the first diagnostic.
    let text = out(&root, "text");
    let first = text.lines().find(|l| l.contains("[HP")).unwrap();
    assert!(first.contains("[HP102]"), "{first}\n{text}");
    // Concise: the first line.
    let concise = out(&root, "concise");
    assert!(
        concise.lines().next().unwrap().contains(" HP102 "),
        "{concise}"
    );
    // Markdown: the first listed item.
    let md = out(&root, "markdown");
    let item = md.lines().find(|l| l.starts_with("- `")).unwrap();
    assert!(item.contains("**HP102**"), "{item}\n{md}");
    // GitHub: the first annotation.
    let gh = out(&root, "github");
    let ann = gh.lines().find(|l| l.starts_with("::")).unwrap();
    assert!(ann.contains("title=HP102"), "{ann}");
    // HTML: the first entry of "what to do".
    let html = out(&root, "html");
    let todo = &html[html.find("class=\"todo\"").unwrap()..];
    let li = &todo[todo.find("<li").unwrap()..];
    assert!(li.starts_with("<li data-rule=\"HP102\""), "{}", &li[..200]);
}

#[test]
fn the_cmake_build_is_one_entry_with_its_counts() {
    let (_d, root) = project(40, LANE_HAZARD);
    let text = out(&root, "text");
    let cmake: Vec<&str> = text.lines().filter(|l| l.contains("[HP84")).collect();
    assert_eq!(cmake.len(), 1, "{text}");
    assert!(
        text.contains("one decision: the CMake build compiles CUDA")
            && text.contains("45 findings in `CMakeLists.txt`, `tools/CMakeLists.txt`"),
        "{text}"
    );
    assert!(text.contains("HP844 ×40"), "{text}");
    let md = out(&root, "markdown");
    assert_eq!(md.matches("**HP84").count(), 1, "{md}");
    let gh = out(&root, "github");
    assert_eq!(
        gh.lines().filter(|l| l.contains("title=HP84")).count(),
        1,
        "{gh}"
    );
    // JSON keeps every line: baselines and SARIF see each one.
    let json: serde_json::Value = serde_json::from_str(&out(&root, "json")).unwrap();
    let n = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("HP84"))
        .count();
    assert_eq!(n, 46);
}

#[test]
fn without_a_hazard_the_build_decision_leads() {
    // Negative twin: nothing of the kernel is listed; the first items are the repository's.
    let (_d, root) = project(3, PORTABLE);
    let text = out(&root, "text");
    assert!(!text.contains("[HP102]"), "{text}");
    let gh = out(&root, "github");
    let ann = gh.lines().find(|l| l.starts_with("::")).unwrap();
    assert!(!ann.contains("HP102"), "{ann}");
}
