//! `hipport.toml`: found by walking up from the scanned path, overridden by flags, and every bad
//! key or value is an exit-2 error that names the key.

mod common;
use common::{copy_fixture, hipport, read, schema_errors, write};

#[test]
fn found_by_walking_up_and_overridden_by_flags() {
    let (_d, tree) = copy_fixture("check");
    let r = hipport(&tree.join("src"), &["scan", ".", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["target"]["rocm"], "6.2.0");
    assert_eq!(v["target"]["rocm_explicit"], true);
    assert_eq!(v["target"]["offload_arch"][0], "gfx90a");
    let r = hipport(&tree, &["scan", ".", "--format", "json", "--rocm", "6.1"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["target"]["rocm"], "6.1");
    assert_eq!(v["target"]["rocm_explicit"], false);
    let r = hipport(&tree, &["scan", ".", "--format", "json", "--no-config"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["target"].get("offload_arch").is_none());
}

fn config_error(toml: &str) -> String {
    let (_d, tree) = copy_fixture("check");
    write(&tree.join("hipport.toml"), toml);
    let r = hipport(&tree, &["scan", "."]);
    assert_eq!(r.code, 2, "{toml}: {}", r.stdout);
    let r2 = hipport(&tree, &["check", ".", "--update-baseline"]);
    assert_eq!(r2.code, 2, "check reads the same configuration");
    r.stderr
}

#[test]
fn errors_name_the_key() {
    let cases = [
        ("[target]\nrocm = \"banana\"\n", "target.rocm"),
        ("[target]\nrocm = \"latest\"\n", "target.rocm"),
        ("[target]\nrocm_version = \"6.2.0\"\n", "`target.rocm_version`"),
        ("[target]\noffload_arch = [\"sm_80\"]\n", "target.offload_arch[0]"),
        ("[paths]\nincludes = [\"src/**\"]\n", "`paths.includes`"),
        ("[paths]\nexclude = [\"src/[\"]\n", "paths.exclude[0]"),
        ("[rules]\nHP001 = \"maybe\"\n", "`rules.HP001`"),
        ("[rules]\nHP998 = \"off\"\n", "rules.HP998"),
        ("[[suppress]]\nrule = \"HP001\"\n", "missing field `reason`"),
        (
            "[[accept]]\nrule = \"HP001\"\npath = \"src/*.cu\"\nstatus = \"DONE\"\nreason = \"x\"\n",
            "accept[0].status",
        ),
        (
            "[[accept]]\nrule = \"HP001\"\npath = \"src/*.cu\"\nstatus = \"BLOCKER\"\nreason = \"  \"\n",
            "accept[0].reason",
        ),
        ("[[accept]]\nstatus = \"BLOCKER\"\nreason = \"r\"\n", "accept[0]"),
        ("colour = \"red\"\n", "`colour`"),
    ];
    for (toml, key) in cases {
        let e = config_error(toml);
        assert!(e.contains(key), "{toml} -> {e}");
        assert!(e.contains("hipport.toml"), "{e}");
    }
}

#[test]
fn rules_off_and_suppressions_drop_findings() {
    let (_d, tree) = copy_fixture("check");
    let cfg = tree.join("hipport.toml");
    let base = read(&cfg);
    write(
        &cfg,
        &format!("{base}\n[[suppress]]\nrule = \"HP001\"\npath = \"src/*.cuh\"\nreason = \"header only used by CUDA tools\"\n"),
    );
    let r = hipport(&tree, &["scan", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let paths: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["src/saxpy.cu", "src/saxpy.cu"]);
    assert_eq!(v["summary"]["suppressed"], 1);
    write(&cfg, &format!("{base}\n[rules]\nHP001 = \"off\"\n"));
    let r = hipport(&tree, &["scan", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 0);
}

#[test]
fn accepted_and_blocker_decisions_show_with_their_reason() {
    let (_d, tree) = copy_fixture("check");
    let cfg = tree.join("hipport.toml");
    write(
        &cfg,
        &format!(
            "{}\n[[accept]]\nrule = \"HP001\"\npath = \"src/saxpy.cu\"\nstatus = \"BLOCKER\"\nreason = \"L2 persistence has no ROCm equivalent\"\nby = \"lead\"\n\n[[accept]]\nrule = \"HP001\"\npath = \"src/util.cuh\"\nstatus = \"ACCEPTED\"\nreason = \"CUDA-only path, compiled out for HIP\"\n",
            read(&cfg)
        ),
    );
    let r = hipport(&tree, &["scan", ".", "--format", "markdown"]);
    // A BLOCKER never exits 0 (`scan --fail-on` defaults to blocker, as ruff's errors).
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = r.stdout;
    assert!(
        md.contains("NOT READY: 0 REMEDIATION, 8 UNKNOWN, 2 BLOCKER"),
        "{md}"
    );
    assert!(md.contains("## BLOCKER (2)"), "{md}");
    assert!(md.contains("Decision: BLOCKER by lead: L2 persistence has no ROCm equivalent"));
    assert!(md.contains("## ACCEPTED (1)"), "{md}");
    assert!(md.contains("CUDA-only path, compiled out for HIP"));
    let r = hipport(&tree, &["scan", ".", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let levels: Vec<&str> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "error", "none"]);
    assert_eq!(schema_errors(&v), Vec::<String>::new());
    let accepted = &v["runs"][0]["results"][2];
    assert_eq!(accepted["suppressions"][0]["kind"], "external");
    assert_eq!(
        accepted["suppressions"][0]["justification"],
        "CUDA-only path, compiled out for HIP"
    );
}
