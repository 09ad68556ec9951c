//! Issue 23 points 2, 7, 8, 9 and 11: secrets from linked settings files, writes through
//! links and FIFOs, directories created outside the root, the configuration in effect,
//! Markdown injection through file names, closed pipes, and baseline counts that would wrap.

#[allow(unused_imports)]
use super::*;

const KERNEL: &str = "#include <cuda_runtime.h>\n__global__ void k(float *p) { unsigned lane; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane)); p[threadIdx.x] = __shfl_sync(0xffffffff, p[0], 0) + lane; }\nint main() { float *p; cudaMalloc(&p, 4); cudaFree(p); return 0; }\n";

fn project() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("proj");
    write(&root.join("k.cu"), KERNEL);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    (d, root)
}

/// hipport with a canary in its environment, so a leak of the environment shows.
fn with_canary(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(args)
        .current_dir(dir)
        .env("HIPPORT_CANARY", "canary-7f3a9c")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains("panicked"), "{args:?}: {all}");
    (out.status.code(), all)
}

#[test]
fn settings_files_linked_to_the_environment_are_refused_without_being_echoed() {
    let (_d, root) = project();
    let link = root.join("hipport.toml");
    std::os::unix::fs::symlink("/proc/self/environ", &link).unwrap();
    for args in [
        &["scan", "."][..],
        &["check", "."],
        &["gate", "."],
        &["port", "."],
    ] {
        let (code, all) = with_canary(&root, args);
        assert_eq!(code, Some(2), "{args:?}: {all}");
        assert!(!all.contains("canary-7f3a9c"), "{args:?} leaked: {all}");
        assert!(all.contains("hipport.toml"), "{args:?}: {all}");
    }
    std::fs::remove_file(&link).unwrap();
    // A regular file whose bad line holds a secret: the position is given, the value is not.
    write(
        &link,
        "[target]\nrocm = \"6.2.0\"\nAWS_SECRET_ACCESS_KEY=canary-7f3a9c\n",
    );
    let (code, all) = with_canary(&root, &["scan", "."]);
    assert_eq!(code, Some(2), "{all}");
    assert!(all.contains("line 3"), "{all}");
    assert!(!all.contains("canary-7f3a9c"), "leaked: {all}");
    std::fs::remove_file(&link).unwrap();
    // The migration record and the baseline, linked out of the project.
    for (name, args) in [
        ("hipport-migration.toml", &["gate", "."][..]),
        ("hipport-baseline.json", &["check", "."]),
    ] {
        let p = root.join(name);
        std::os::unix::fs::symlink("/proc/self/environ", &p).unwrap();
        let (code, all) = with_canary(&root, args);
        assert_eq!(code, Some(2), "{name}: {all}");
        assert!(!all.contains("canary-7f3a9c"), "{name} leaked: {all}");
        std::fs::remove_file(&p).unwrap();
    }
}

#[test]
fn summaries_are_never_written_through_links_or_into_fifos() {
    let (d, root) = project();
    let outside = d.path().join("outside.md");
    write(&outside, "kept\n");
    let link = root.join("summary.md");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let r = hipport(&root, &["scan", ".", "--summary", "summary.md"]);
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "kept\n");
    let fifo = root.join("summary.fifo");
    mkfifo(&fifo);
    let r = run_limited(
        &root,
        &["scan", ".", "--summary", "summary.fifo"],
        Duration::from_secs(60),
    );
    assert_eq!(r.code, Some(2), "{}", r.text());
    // A plain file is appended to, as GitHub expects of $GITHUB_STEP_SUMMARY.
    write(&root.join("plain.md"), "before\n");
    let r = hipport(&root, &["scan", ".", "--summary", "plain.md"]);
    assert_eq!(r.code, Some(0), "{}", r.text());
    let got = std::fs::read_to_string(root.join("plain.md")).unwrap();
    assert!(
        got.starts_with("before\n# hipport remediation report"),
        "{got}"
    );
}

#[test]
fn an_output_file_never_creates_directories() {
    let (d, root) = project();
    let missing = d.path().join("no/such/dir");
    let dest = missing.join("x.cu");
    let r = hipport(&root, &["port", "k.cu", "-o", dest.to_str().unwrap()]);
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(!d.path().join("no").exists(), "a directory was created");
    let page = missing.join("r.html");
    let r = hipport(&root, &["report", ".", "-o", page.to_str().unwrap()]);
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(!d.path().join("no").exists(), "a directory was created");
}

#[test]
fn every_report_names_the_configuration_in_effect() {
    let d = tempfile::tempdir().unwrap();
    // A configuration in a parent directory that excludes everything.
    write(
        &d.path().join("hipport.toml"),
        "[paths]\nexclude = [\"**\"]\n",
    );
    let sub = d.path().join("sub");
    write(&sub.join("k.cu"), KERNEL);
    let r = hipport(&sub, &["scan", "."]);
    assert!(
        r.stdout.contains("config ") && r.stdout.contains("hipport.toml"),
        "{}",
        r.text()
    );
    let r = hipport(&sub, &["scan", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let shown = v["target"]["config"].as_str().unwrap();
    assert!(shown.ends_with("hipport.toml"), "{shown}");
    let r = hipport(&sub, &["scan", ".", "--format", "markdown"]);
    assert!(r.stdout.contains("hipport.toml"), "{}", r.text());
    let r = hipport(&sub, &["scan", ".", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let shown = v["runs"][0]["properties"]["config"].as_str().unwrap();
    assert!(shown.ends_with("hipport.toml"), "{shown}");
    let r = hipport(&sub, &["scan", ".", "--no-config", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["target"]["config"], "none");
}

#[test]
fn file_names_cannot_inject_markdown_or_workflow_commands() {
    let (_d, root) = project();
    let name = "a`b\n<img src=x onerror=alert(1)>\n## Done\n::error file=x::forged\n.cu";
    write(&root.join(name), KERNEL);
    write(&root.join("step.md"), "");
    for args in [
        &["scan", ".", "--format", "markdown"][..],
        &["scan", ".", "--format", "github", "--summary", "step.md"],
    ] {
        let r = hipport(&root, args);
        assert_eq!(r.code, Some(0), "{}", r.text());
        let md = if args.contains(&"markdown") {
            r.stdout.clone()
        } else {
            std::fs::read_to_string(root.join("step.md")).unwrap()
        };
        assert!(
            md.contains("onerror"),
            "the hostile file was not reported: {md}"
        );
        for line in md.lines() {
            assert!(
                !line.starts_with("## Done")
                    && !line.starts_with("::error file=x")
                    && !line.starts_with("<img"),
                "{args:?}: injected line {line:?}"
            );
            // The name stays inside one code span, its line breaks shown as `\n`.
            if let Some(at) = line.find("<img") {
                assert!(line[..at].ends_with("``a`b\\n"), "{args:?}: {line:?}");
            }
        }
    }
}

/// Runs hipport with its stdout (and optionally stderr) connected to a pipe whose reader is
/// already gone, as `hipport … | head` once head has exited.
fn closed_pipe(dir: &Path, args: &[&str], stderr_too: bool) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipport"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(if stderr_too {
            Stdio::piped()
        } else {
            Stdio::from(tempfile::tempfile().unwrap())
        });
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{args:?} hung");
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), format!("{status:?}"))
}

#[test]
fn a_closed_pipe_ends_the_run_quietly_and_finishes_the_writes() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().to_path_buf();
    write(&root.join("k.cu"), KERNEL);
    for i in 0..30 {
        write(&root.join(format!("m{i}.cu")), KERNEL);
    }
    for args in [
        &["explain", "all"][..],
        &["explain", "HP101"],
        &["scan", "."],
        &["scan", ".", "--format", "json"],
        &["port", "."],
        &["gate", "."],
    ] {
        let (code, how) = closed_pipe(&root, args, false);
        assert_eq!(code, Some(0), "{args:?}: {how}");
    }
    // `port --write 2>&1 | head`: stdout and stderr closed; every file is still written.
    let (code, how) = closed_pipe(
        &root,
        &["port", ".", "--write", "--allow-no-vcs", "--rocm", "6.2.0"],
        true,
    );
    assert_eq!(code, Some(0), "{how}");
    for i in 0..30 {
        let got = std::fs::read_to_string(root.join(format!("m{i}.cu"))).unwrap();
        assert!(got.contains("hipMalloc"), "m{i}.cu was not written");
    }
}

#[test]
fn baseline_counts_saturate_instead_of_wrapping() {
    let (_d, root) = project();
    let r = hipport(&root, &["check", ".", "--update-baseline"]);
    assert_eq!(r.code, Some(0), "{}", r.text());
    let file = root.join("hipport-baseline.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let entries = v["entries"].as_array_mut().unwrap();
    assert!(!entries.is_empty());
    let mut twin = entries[0].clone();
    entries[0]["count"] = serde_json::json!(u64::MAX);
    twin["count"] = serde_json::json!(u64::MAX);
    entries.push(twin);
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    let r = hipport(&root, &["check", "."]);
    assert_eq!(r.code, Some(0), "{}", r.text());
}

#[test]
fn evidence_named_by_a_record_is_read_bounded() {
    let (_d, root) = project();
    write(
        &root.join("hipport-migration.toml"),
        "schema_version = 1\n\n[[gate]]\nname = \"build\"\nstatus = \"PASS\"\ndate = \"2026-11-30T19:03:27Z\"\nrecorded_by = \"x@example.org\"\nnote = \"n\"\n\n[gate.evidence]\npath = \"/dev/zero\"\nsha256 = \"00\"\n",
    );
    let r = run_limited(&root, &["gate", "."], Duration::from_secs(60));
    assert!(matches!(r.code, Some(1) | Some(2)), "{}", r.text());
    let build = r
        .stdout
        .lines()
        .find(|l| l.starts_with("build "))
        .unwrap_or("");
    assert!(build.contains("UNKNOWN"), "{}", r.text());
}
