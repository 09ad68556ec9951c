//! End to end: which CI lanes, scripts and build arms the project's ROCm build runs (issue 20,
//! items 5, 6 and 8). Each test writes a small tree, runs `hipport scan --format json` on it and
//! reads the findings; each case has its twin where the finding must stay.

mod common;

#[derive(Debug)]
struct F {
    path: String,
    line: u64,
    rule: String,
    status: String,
    message: String,
}

fn scan(files: &[(&str, &str)]) -> Vec<F> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for (p, text) in files {
        let at = root.join(p);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        common::write(&at, text);
    }
    let run = common::hipport(root, &["scan", ".", "--format", "json"]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| F {
            path: f["path"].as_str().unwrap().to_string(),
            line: f["line"].as_u64().unwrap(),
            rule: f["rule"].as_str().unwrap().to_string(),
            status: f["status"].as_str().unwrap().to_string(),
            message: f["message"].as_str().unwrap().to_string(),
        })
        .collect()
}

/// The open (non-PASS) findings as (path, line, rule).
fn open(fs: &[F]) -> Vec<(String, u64, String)> {
    fs.iter()
        .filter(|f| f.status != "PASS")
        .map(|f| (f.path.clone(), f.line, f.rule.clone()))
        .collect()
}

fn at<'a>(fs: &'a [F], path: &str, line: u64, rule: &str) -> &'a F {
    fs.iter()
        .find(|f| f.path == path && f.line == line && f.rule == rule)
        .unwrap_or_else(|| panic!("no {rule} at {path}:{line} in {fs:#?}"))
}

const WF: &str = ".github/workflows/ci.yml";

fn matrix_job(lanes: &str) -> String {
    format!(
        "name: ci\njobs:\n  build:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        toolkit_type: [{lanes}]\n    steps:\n      - uses: actions/checkout@v4\n      - name: build with nvcc\n        if: matrix.toolkit_type == 'cuda'\n        run: nvcc -arch=sm_80 -o k k.cu\n      - if: matrix.toolkit_type == 'cuda'\n        uses: ./.github/actions/cuda\n"
    )
}

const ACTION: &str =
    "name: cuda\nruns:\n  using: composite\n  steps:\n    - uses: Jimver/cuda-toolkit@v0.2.30\n";

#[test]
fn cuda_steps_of_a_job_with_a_rocm_lane_are_pass() {
    let fs = scan(&[
        (WF, &matrix_job("'cuda', 'rocm'")),
        (".github/actions/cuda/action.yml", ACTION),
    ]);
    assert!(open(&fs).is_empty(), "{fs:#?}");
    let nvcc = at(&fs, WF, 12, "HP850");
    assert!(
        nvcc.message
            .contains("`if: matrix.toolkit_type == 'cuda'` (line 10)")
            && nvcc.message.contains("ROCm lane `toolkit_type: rocm`"),
        "{}",
        nvcc.message
    );
    // The composite action is judged by its only caller, a CUDA-lane step.
    let action = at(&fs, ".github/actions/cuda/action.yml", 5, "HP850");
    assert!(
        action.message.contains("`.github/workflows/ci.yml:13`"),
        "{}",
        action.message
    );
}

#[test]
fn a_matrix_of_cuda_lanes_only_keeps_its_findings() {
    let fs = scan(&[
        (WF, &matrix_job("'cuda', 'cpu'")),
        (".github/actions/cuda/action.yml", ACTION),
    ]);
    let o = open(&fs);
    assert!(o.contains(&(WF.into(), 12, "HP850".into())), "{fs:#?}");
    // The lane's architecture list goes with the lane: one decision, held by its first finding.
    let arch = at(&fs, WF, 12, "HP843");
    assert!(
        arch.message
            .contains("folded into `.github/workflows/ci.yml:12`"),
        "{}",
        arch.message
    );
    // The composite action of the CUDA lane is the CI decision's, held with the workflow's.
    let action = at(&fs, ".github/actions/cuda/action.yml", 5, "HP850");
    assert!(
        action
            .message
            .contains("folded into `.github/workflows/ci.yml:12`"),
        "{}",
        action.message
    );
}

#[test]
fn env_is_substituted_into_run_and_comments_are_not_commands() {
    let wf = "env:\n  ROCM_INDEX: \"rocm7.2\"\n  CUDA_INDEX: cu124\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          # nvcc -o k k.cu is documented here, not run\n          pip install --index-url https://download.pytorch.org/whl/${ROCM_INDEX} torch\n      - run: pip install --index-url https://download.pytorch.org/whl/${{ env.CUDA_INDEX }} torch\n";
    let fs = scan(&[(WF, wf)]);
    // The ROCm index through env: nothing to replace; the comment runs nothing.
    assert!(!fs.iter().any(|f| f.line == 9 || f.line == 10), "{fs:#?}");
    // A CUDA index through env stays HP822.
    assert_eq!(at(&fs, WF, 11, "HP822").status, "REMEDIATION");
}

#[test]
fn unreferenced_packaging_scripts_are_one_decision() {
    let flags: Vec<String> = [50, 60, 70, 75, 80, 86, 89, 90]
        .iter()
        .map(|a| format!("-gencode arch=compute_{a},code=sm_{a}"))
        .collect();
    let script = format!("#!/bin/bash\nnvcc {} -c k.cu\n", flags.join(" "));
    let fs = scan(&[
        ("tools/build_wheel.sh", &script),
        ("README.md", "Build with `pip install .`\n"),
    ]);
    let o: Vec<&F> = fs.iter().filter(|f| f.status != "PASS").collect();
    assert_eq!(o.len(), 1, "{fs:#?}");
    assert_eq!(o[0].status, "UNKNOWN");
    assert!(
        o[0].message.starts_with("legacy packaging scripts nothing in the build, CI or docs runs: 1 script in `tools/` (`build_wheel.sh`), 2 CUDA settings")
            && o[0].message.contains("Decide whether to keep these scripts"),
        "{}",
        o[0].message
    );
    // Every occurrence stays in JSON (fingerprints unchanged), grouped under the one finding.
    assert_eq!(fs.iter().filter(|f| f.rule == "HP843").count(), 8);

    // The twin: the same script run from CI keeps its findings.
    let wf = "jobs:\n  wheel:\n    runs-on: ubuntu-latest\n    steps:\n      - run: bash tools/build_wheel.sh\n";
    let fs = scan(&[("tools/build_wheel.sh", &script), (WF, wf)]);
    let o = open(&fs);
    assert!(
        o.contains(&("tools/build_wheel.sh".into(), 2, "HP850".into())),
        "{fs:#?}"
    );
    // The eight arch flags of one line are one fact, and the line that runs nvcc with them is
    // one edit: the flags fold into the line's HP850 (all PASS naming it).
    assert_eq!(o.iter().filter(|x| x.2 == "HP843").count(), 0, "{fs:#?}");
    let head = fs
        .iter()
        .find(|f| f.rule == "HP850" && f.line == 2)
        .expect("HP850");
    assert!(
        head.message.contains("one edit of this line"),
        "{}",
        head.message
    );
}

#[test]
fn cmake_arms_of_a_hip_aware_build() {
    let cm = "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX)\nfind_package(hip)\nif(HIP_FOUND)\n  enable_language(HIP)\nelse()\n  enable_language(CUDA)\nendif()\nif(BUILD_CUDA)\n  find_package(CUDAToolkit REQUIRED)\nelse()\n  message(FATAL_ERROR \"CUDA is required\")\nendif()\n";
    let fs = scan(&[("CMakeLists.txt", cm)]);
    let cuda = at(&fs, "CMakeLists.txt", 7, "HP840");
    assert_eq!(cuda.status, "PASS");
    assert!(
        cuda.message.contains("`else()` arm (line 6)"),
        "{}",
        cuda.message
    );
    assert_eq!(at(&fs, "CMakeLists.txt", 10, "HP841").status, "PASS");
    let stop = at(&fs, "CMakeLists.txt", 12, "HP846");
    assert_eq!(stop.status, "REMEDIATION");
    // The twin: a CUDA-only CMake file keeps its CUDA language and says nothing of stops.
    let fs = scan(&[(
        "CMakeLists.txt",
        "project(p LANGUAGES CXX)\nif(USE_CUDA)\n  enable_language(CUDA)\nelse()\n  message(FATAL_ERROR \"x\")\nendif()\n",
    )]);
    assert_eq!(
        open(&fs),
        vec![("CMakeLists.txt".into(), 3, "HP840".into())]
    );
}

#[test]
fn make_library_lists_linked_through_an_expansion() {
    let mk = "LIBRARIES :=\nLIBRARIES += nccl\nSYS += m pthread\nall: k.o\n\t$(CXX) -o k k.o $(LIBRARIES:%=-l%) $(SYS:%=-l%)\n";
    let fs = scan(&[("Makefile", mk)]);
    assert_eq!(open(&fs), vec![("Makefile".into(), 2, "HP851".into())]);
}

#[test]
fn shell_arms_on_a_backend_variable() {
    let sh = "#!/bin/bash\nif [ \"$BACKEND\" = cuda ]; then\n  nvcc -arch=sm_80 -o k k.cu\nelif [ \"$BACKEND\" = rocm ]; then\n  hipcc -o k k.cu\nfi\n";
    let wf = "jobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: bash build.sh\n";
    let fs = scan(&[("build.sh", sh), (WF, wf)]);
    assert!(open(&fs).is_empty(), "{fs:#?}");
    assert!(at(&fs, "build.sh", 3, "HP850")
        .message
        .contains("`if [ \"$BACKEND\" = cuda ]` arm (line 2)"));
    // The twin: a script without a ROCm arm keeps its CUDA arm.
    let cuda_only =
        "#!/bin/bash\nif [ \"$BACKEND\" = cuda ]; then\n  nvcc -arch=sm_80 -o k k.cu\nfi\n";
    let fs = scan(&[("build.sh", cuda_only), (WF, wf)]);
    assert!(
        open(&fs).contains(&("build.sh".into(), 3, "HP850".into())),
        "{fs:#?}"
    );
}
