//! `cargo xtask hipcc-check`: proves the goldens are real HIP by compiling every expected output
//! (except cases with a NO_COMPILE reason) with `hipcc --offload-arch=gfx90a -fsyntax-only`, and
//! the flags of the build a case models where it has a `hipcc_flags` file.

use anyhow::{bail, Result};
use hipport::testkit;
use std::process::{Command, ExitCode};

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut hipcc = "hipcc".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--hipcc" => hipcc = it.next().cloned().unwrap_or(hipcc),
            other => bail!("unknown argument `{other}`"),
        }
    }
    let root = crate::mappings::repo_root().join("testdata/port");
    let cases = testkit::load_cases(&root).map_err(anyhow::Error::msg)?;
    let (mut pass, mut fail, mut skipped) = (0, 0, 0);
    for case in &cases {
        if let Some(why) = &case.no_compile {
            println!("skip {}: {}", case.name, why.lines().next().unwrap_or(""));
            skipped += 1;
            continue;
        }
        let out = case.expected_output();
        let mut cmd = Command::new(&hipcc);
        cmd.args(["--offload-arch=gfx90a", "-fsyntax-only"]);
        // Headers and .cu files are HIP sources to the compiler.
        if matches!(case.ext().as_str(), "cu" | "cuh" | "h" | "hpp" | "inl") {
            cmd.args(["-x", "hip"]);
        }
        // A C file including HIP headers is compiled by the host compiler with the platform
        // macro that hipcc sets only for HIP sources.
        if case.ext() == "c" {
            cmd.arg("-D__HIP_PLATFORM_AMD__");
        }
        cmd.args(&case.hipcc_flags);
        cmd.arg(&out);
        let o = cmd.output()?;
        if o.status.success() {
            println!("ok   {}", case.name);
            pass += 1;
        } else {
            println!("FAIL {}\n{}", case.name, String::from_utf8_lossy(&o.stderr));
            fail += 1;
        }
    }
    // Every compat shim, alone in a header for ROCm 5.2 (Debian's hipcc), with its test snippet.
    let m = hipport::mappings::get();
    let target = hipport::mappings::Target {
        rocm: "5.2.0".parse().map_err(anyhow::Error::msg)?,
        roc: false,
        experimental: false,
        lds: None,
    };
    let dir = std::env::temp_dir().join(format!("hipport-compat-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for shim in hipport::compat::shims() {
        let name = format!("compat:{}", shim.id);
        if !shim.applies(&target) {
            println!("skip {name}: no gap in ROCm {}", target.rocm);
            skipped += 1;
            continue;
        }
        let unit = dir.join(format!("{}.hip", shim.id));
        std::fs::write(&unit, hipport::compat::test_unit(shim, &target, m))?;
        let o = Command::new(&hipcc)
            .args([
                "--offload-arch=gfx90a",
                "-fsyntax-only",
                "-std=c++17",
                "-x",
                "hip",
            ])
            .arg(&unit)
            .output()?;
        if o.status.success() {
            println!("ok   {name}");
            pass += 1;
        } else {
            println!("FAIL {name}\n{}", String::from_utf8_lossy(&o.stderr));
            fail += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{pass} passed, {fail} failed, {skipped} skipped");
    Ok(if fail == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
