//! Finding hipcc, asking its version, and running one compile. When hipcc is missing the error
//! says how to get one, because the build gate cannot be judged without it.
//!
//! A result counts only from a compiler hipport identified: `--version` names a HIP release and
//! a clang ([`find`]), it builds hipport's probe for every target architecture and refuses a
//! probe with an `#error` ([`check_target`]), and in object mode it wrote the object it was asked
//! for ([`run`]). `--hipcc /bin/true` or a wrapper that says yes to everything records nothing.
//!
//! No file name or project flag ever reaches a shell. ROCm 5.x's `hipcc` is a Perl script
//! (`hipcc.pl`) that joins its arguments into one string and runs it with `system()`, so a
//! source named `x$(touch y).cu` would run a command. hipport therefore asks hipcc once, on a
//! probe file of its own, which real compiler and flags it uses (`HIPCC_VERBOSE=1` prints the
//! `hipcc-cmd:` line), or finds clang itself (`HIP_CLANG_PATH`, the `InstalledDir` of
//! `hipcc --version`, Debian's `/usr/lib/llvm-N/bin`), checks that it compiles the probe, and
//! runs that clang directly with an argument vector. Only when no such clang is found does it
//! run hipcc, and then it refuses, per unit, any argument a shell would read specially.

use crate::version::Version;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A hipcc that answered `--version`, and how its compiles are run.
#[derive(Clone, Debug)]
pub struct Hipcc {
    pub path: PathBuf,
    /// `HIP version: …` and the clang line, joined with `; `.
    pub version: String,
    /// The HIP release (major.minor) hipcc reports, when it says.
    pub hip: Option<Version>,
    pub driver: Driver,
}

/// What a unit's compile runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Driver {
    /// hipcc's real compiler, run with an argument vector: `base` are the flags hipcc itself
    /// adds (HIP headers, device libraries, ROCm path), the unit's flags follow.
    Clang { path: PathBuf, base: Vec<String> },
    /// hipcc itself: its Perl version hands the command to a shell, so every argument must be a
    /// plain word ([`shell_safe`]).
    Hipcc,
}

impl Hipcc {
    /// One line for people: the compiler that really runs.
    pub fn describe_driver(&self) -> String {
        match &self.driver {
            Driver::Clang { path, .. } => format!("clang {} called directly", path.display()),
            Driver::Hipcc => format!(
                "{} (no clang found to call directly: names and flags with shell characters are refused)",
                self.path.display()
            ),
        }
    }
}

/// What to tell a person who has no hipcc.
pub const HOW_TO_GET: &str = "install one: on Debian 12 or Ubuntu 24.04 `apt-get install hipcc` (ROCm 5.2 HIP from the distribution), or the ROCm packages from https://rocm.docs.amd.com/projects/install-on-linux/ (hipcc in /opt/rocm/bin), or point --hipcc at it";

/// Why no compiler's results can count.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error("no hipcc found on PATH or in /opt/rocm/bin; {HOW_TO_GET}")]
    NotFound,
    #[error("--hipcc {0}: no such file")]
    NoSuchFile(PathBuf),
    #[error("{0}: cannot run: {1}")]
    CannotRun(PathBuf, String),
    /// `--version` does not name a HIP release and a clang: `/bin/true`, a wrapper, nvcc.
    #[error("{path} is not a HIP compiler: `{path} --version` {why}; build evidence counts only from a HIP clang (hipcc of a ROCm release, or Debian's hipcc)")]
    NotHip { path: PathBuf, why: String },
    /// The compiler exits 0 on a file with an `#error`.
    #[error("{0} is not a working compiler: it accepted hipport's probe file that has an #error, so a PASS from it would mean nothing")]
    AcceptsAnything(PathBuf),
    /// The compiler does not know (or has no device library for) a target architecture.
    #[error("{path} ({version}) cannot build for {arch}: {first}\nno unit was compiled: use a hipcc whose ROCm release supports {arch}, or name an architecture it supports with --offload-arch")]
    Arch {
        path: PathBuf,
        version: String,
        arch: String,
        first: String,
    },
}

/// Finds hipcc: `explicit`, else `hipcc` on PATH, else `/opt/rocm/bin/hipcc`; and identifies
/// it: its `--version` must name a HIP release and a clang, or nothing it says counts.
pub fn find(explicit: Option<&Path>) -> Result<Hipcc, FindError> {
    let path = match explicit {
        Some(p) => {
            if !p.is_file() {
                return Err(FindError::NoSuchFile(p.to_path_buf()));
            }
            // Absolute (links kept: ROCm's hipcc finds its release from its own path), because
            // compiles run in other directories.
            std::path::absolute(p)
                .map_err(|e| FindError::CannotRun(p.to_path_buf(), e.to_string()))?
        }
        None => on_path("hipcc")
            .or_else(|| Some(PathBuf::from("/opt/rocm/bin/hipcc")).filter(|p| p.is_file()))
            .ok_or(FindError::NotFound)?,
    };
    // An --offload-arch keeps Debian's hipcc from probing for GPUs (a traceback without one).
    let out = Command::new(&path)
        .args(["--offload-arch=gfx90a", "--version"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| FindError::CannotRun(path.clone(), e.to_string()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (version, hip) = parse_version(&text);
    if let Err(why) = identify(&text, hip.as_ref()) {
        return Err(FindError::NotHip { path, why });
    }
    let driver = find_clang(&path, &text);
    Ok(Hipcc {
        path,
        version,
        hip,
        driver,
    })
}

/// Whether `--version` output names a HIP release and a clang; else what it lacks.
fn identify(text: &str, hip: Option<&Version>) -> Result<(), String> {
    let clang = text.lines().any(|l| l.contains("clang version"));
    match (hip.is_some(), clang) {
        (true, true) => Ok(()),
        (false, true) => Err("names a clang but no `HIP version:`".into()),
        (true, false) => Err("names a HIP version but no clang".into()),
        (false, false) if text.trim().is_empty() => Err("prints nothing".into()),
        (false, false) => Err("names neither a `HIP version:` nor a clang".into()),
    }
}

/// Before any unit counts: the compiler builds hipport's probe for every target architecture,
/// and refuses a probe with an `#error` (a compiler that says yes to everything is not one).
pub fn check_target(hipcc: &Hipcc, archs: &[String]) -> Result<(), FindError> {
    let dir =
        tempfile::tempdir().map_err(|e| FindError::CannotRun(hipcc.path.clone(), e.to_string()))?;
    let good = dir.path().join("hipport_probe.hip");
    let bad = dir.path().join("hipport_probe_error.hip");
    std::fs::write(&good, PROBE)
        .and_then(|()| std::fs::write(&bad, PROBE_ERROR))
        .map_err(|e| FindError::CannotRun(hipcc.path.clone(), e.to_string()))?;
    let probe = |arch: &str, file: &Path| {
        let unit = UnitCommand {
            rel: String::new(),
            cwd: dir.path().to_path_buf(),
            args: vec![
                format!("--offload-arch={arch}"),
                "-fsyntax-only".into(),
                "-x".into(),
                "hip".into(),
                file.display().to_string(),
            ],
            notes: Vec::new(),
            output: None,
        };
        run(hipcc, &unit)
    };
    for arch in archs {
        // find_clang already compiled the probe for gfx90a with the clang it chose.
        if arch == "gfx90a" && matches!(hipcc.driver, Driver::Clang { .. }) {
            continue;
        }
        let (ok, output) = probe(arch, &good);
        if !ok {
            let first = super::classify::first_error(&output)
                .unwrap_or_else(|| "the probe did not compile".into());
            return Err(FindError::Arch {
                path: hipcc.path.clone(),
                version: hipcc.version.clone(),
                arch: arch.clone(),
                first: first.chars().take(300).collect(),
            });
        }
    }
    let arch = archs.first().map_or("gfx90a", String::as_str);
    if probe(arch, &bad).0 {
        return Err(FindError::AcceptsAnything(hipcc.path.clone()));
    }
    Ok(())
}

/// A fixed probe, compiled to learn and check the real compiler. Its name and contents are
/// hipport's, never the project's.
const PROBE: &str =
    "#include <hip/hip_runtime.h>\n__global__ void hipport_probe(int *p) { p[threadIdx.x] = 1; }\n";

/// A probe every compiler must refuse.
const PROBE_ERROR: &str =
    "#include <hip/hip_runtime.h>\n#error hipport probe: a compiler must refuse this file\n";

/// hipcc's real clang with its flags, checked on the probe; [`Driver::Hipcc`] when none works.
pub fn find_clang(hipcc: &Path, version_text: &str) -> Driver {
    let Ok(dir) = tempfile::tempdir() else {
        return Driver::Hipcc;
    };
    let probe = dir.path().join("hipport_probe.hip");
    if std::fs::write(&probe, PROBE).is_err() {
        return Driver::Hipcc;
    }
    let mut candidates: Vec<(PathBuf, Vec<String>)> = Vec::new();
    if let Some(c) = hipcc_cmd(hipcc, &probe, dir.path()) {
        candidates.push(c);
    }
    let prefix = hipcc
        .parent()
        .and_then(Path::parent)
        .map(|p| p.display().to_string());
    let base: Vec<String> = prefix.iter().map(|p| format!("--rocm-path={p}")).collect();
    for clang in clang_candidates(version_text) {
        candidates.push((clang, base.clone()));
    }
    for (path, base) in candidates {
        let ok = Command::new(&path)
            .args(&base)
            .args(["--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip"])
            .arg(&probe)
            .current_dir(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Driver::Clang { path, base };
        }
    }
    Driver::Hipcc
}

/// Runs hipcc verbosely on the probe and reads its `hipcc-cmd:` line: the clang it runs and
/// the flags it adds, without the probe's own mode, output, language, standard and link flags.
fn hipcc_cmd(hipcc: &Path, probe: &Path, cwd: &Path) -> Option<(PathBuf, Vec<String>)> {
    let o = Command::new(hipcc)
        .env("HIPCC_VERBOSE", "1")
        .args(["--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip"])
        .arg(probe)
        .current_dir(cwd)
        .output()
        .ok()?;
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    parse_hipcc_cmd(&text, &probe.display().to_string())
}

/// `hipcc-cmd: /usr/bin/clang++-15 -std=c++11 -isystem "…" --offload-arch=gfx90a … -x hip
/// probe.hip -lamdhip64` → (`/usr/bin/clang++-15`, the flags hipcc adds).
pub fn parse_hipcc_cmd(text: &str, probe: &str) -> Option<(PathBuf, Vec<String>)> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("hipcc-cmd:"))?;
    let words = super::compdb::split_command(line);
    let (clang, rest) = words.split_first()?;
    let clang = PathBuf::from(clang);
    if !clang.is_absolute() {
        return None;
    }
    let mut base = Vec::new();
    let mut it = rest.iter();
    while let Some(w) = it.next() {
        match w.as_str() {
            "-x" | "-o" => {
                it.next();
            }
            "-fsyntax-only" | "-c" => {}
            w if w == probe => {}
            w if w.starts_with("--offload-arch=")
                || w.starts_with("-std=")
                || w.starts_with("-l")
                || w.starts_with("-L") => {}
            w => base.push(w.to_string()),
        }
    }
    Some((clang, base))
}

/// Clangs to try when hipcc does not say which it runs: `$HIP_CLANG_PATH`, the `InstalledDir`
/// hipcc's `--version` names, Debian's `/usr/lib/llvm-N/bin` (newest first).
fn clang_candidates(version_text: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("HIP_CLANG_PATH") {
        dirs.push(PathBuf::from(d));
    }
    for l in version_text.lines() {
        if let Some(d) = l.trim().strip_prefix("InstalledDir:") {
            dirs.push(PathBuf::from(d.trim()));
        }
    }
    if let Ok(rd) = std::fs::read_dir("/usr/lib") {
        let mut llvm: Vec<(u32, PathBuf)> = rd
            .flatten()
            .filter_map(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                let v = n.strip_prefix("llvm-")?.parse().ok()?;
                Some((v, e.path().join("bin")))
            })
            .collect();
        llvm.sort_by_key(|x| std::cmp::Reverse(x.0));
        dirs.extend(llvm.into_iter().map(|(_, d)| d));
    }
    dirs.iter()
        .map(|d| d.join("clang++"))
        .filter(|p| p.is_file())
        .collect()
}

/// Whether hipcc.pl may be handed this word: letters, digits and `-_=./:,+@%` only (no
/// spaces, quotes, `$`, backticks, `;`, `|`, `&`, `<`, `>`, globs, newlines), and not a name
/// ending in `.a`, which hipcc.pl unpacks with `ar` in a shell.
pub fn shell_safe(w: &str) -> bool {
    !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./:,+@%".contains(c))
        && !w.ends_with(".a")
}

/// `HIP version: 5.2.21153-0` + `Debian clang version 15.0.6` → the summary and HIP 5.2.
pub fn parse_version(text: &str) -> (String, Option<Version>) {
    let mut parts = Vec::new();
    let mut hip = None;
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("HIP version:") {
            let v = v.trim();
            parts.push(format!("HIP {v}"));
            let mut nums = v.split(['.', '-']);
            if let (Some(a), Some(b)) = (nums.next(), nums.next()) {
                hip = format!("{a}.{b}").parse().ok();
            }
        } else if line.contains("clang version") {
            parts.push(line.to_string());
        }
    }
    (parts.join("; "), hip)
}

pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Why a unit was not handed to hipcc.pl (the start of its error line).
pub const REFUSED: &str = "not compiled: hipcc here is a script that runs its command through a shell and hipport found no clang to call directly, so a name or flag with shell characters (space, quote, $, `, ;, |, &, <, >, *, ?, …) or ending in .a is refused; set HIP_CLANG_PATH to the directory of ROCm's clang++ or rename the file. Word";

/// One compile to run: hipcc's arguments and the directory to run it in.
#[derive(Clone, Debug)]
pub struct UnitCommand {
    pub rel: String,
    pub cwd: PathBuf,
    pub args: Vec<String>,
    /// Flags dropped or translated from the project's own command.
    pub notes: Vec<String>,
    /// The object the command asks for (`--full`): a unit passes only if it was written.
    pub output: Option<PathBuf>,
}

impl UnitCommand {
    /// The command as one shell-readable line (for evidence and `--format json`).
    pub fn display(&self, hipcc: &Hipcc) -> String {
        let (prog, base): (&Path, &[String]) = match &hipcc.driver {
            Driver::Clang { path, base } => (path, base),
            Driver::Hipcc => (&hipcc.path, &[]),
        };
        let mut s = shell_word(&prog.to_string_lossy());
        for a in base.iter().chain(&self.args) {
            s.push(' ');
            s.push_str(&shell_word(a));
        }
        s
    }
}

fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./:,+@%".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// Runs one compile; returns success and the combined output. With [`Driver::Hipcc`] a unit
/// whose arguments are not all [`shell_safe`] is not run: the output says which word and why.
/// A compile asked for an object succeeds only if that object was written (a regular,
/// non-empty file that did not exist before).
pub fn run(hipcc: &Hipcc, unit: &UnitCommand) -> (bool, String) {
    let mut cmd = match &hipcc.driver {
        Driver::Clang { path, base } => {
            let mut c = Command::new(path);
            c.args(base);
            c
        }
        Driver::Hipcc => {
            if let Some(bad) = unit.args.iter().find(|a| !shell_safe(a)) {
                return (false, format!("error: {REFUSED}: `{bad}`"));
            }
            Command::new(&hipcc.path)
        }
    };
    if let Some(o) = &unit.output {
        let _ = std::fs::remove_file(o);
    }
    // clang's temporary files (and anything a crash would leave) stay inside the tree.
    match cmd
        .args(&unit.args)
        .current_dir(&unit.cwd)
        .env("TMPDIR", &unit.cwd)
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(o) => {
            let mut text = String::from_utf8_lossy(&o.stderr).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stdout));
            let mut ok = o.status.success();
            if let (true, Some(obj)) = (ok, &unit.output) {
                let written =
                    std::fs::symlink_metadata(obj).is_ok_and(|m| m.is_file() && m.len() > 0);
                if !written {
                    ok = false;
                    text.push_str(&format!(
                        "\nerror: {NO_OBJECT} ({})\n",
                        obj.file_name().unwrap_or_default().to_string_lossy()
                    ));
                }
            }
            (ok, text)
        }
        Err(e) => (
            false,
            format!("error: cannot run {}: {e}", hipcc.path.display()),
        ),
    }
}

/// Why a compile that exited 0 is still not a PASS (the start of its error line).
pub const NO_OBJECT: &str =
    "the compiler exited 0 but did not write the object it was asked for: not a PASS";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_debian_hipcc_version() {
        let (v, hip) = parse_version(
            "HIP version: 5.2.21153-0\nDebian clang version 15.0.6\nTarget: x86_64-pc-linux-gnu\n",
        );
        assert_eq!(v, "HIP 5.2.21153-0; Debian clang version 15.0.6");
        assert_eq!(hip, Some("5.2".parse().unwrap()));
    }

    #[test]
    fn reads_the_real_compiler_from_hipcc_cmd() {
        let text = "hipcc-cmd: /usr/bin/clang++-15  -std=c++11 -isystem \"/usr/lib/llvm-15/lib/clang/15.0.6/include/..\" -isystem /usr/hsa/include --hip-version=5.2.21153 --rocm-path=/usr --offload-arch=gfx90a -O3 -mllvm -amdgpu-early-inline-all=true --hip-device-lib-path=\"/usr/lib/x86_64-linux-gnu/amdgcn/bitcode\"  -L\"/usr/lib\" -lgcc_s  -fsyntax-only -x hip /tmp/p/hipport_probe.hip -lamdhip64\n";
        let (clang, base) = parse_hipcc_cmd(text, "/tmp/p/hipport_probe.hip").unwrap();
        assert_eq!(clang, Path::new("/usr/bin/clang++-15"));
        assert_eq!(
            base,
            [
                "-isystem",
                "/usr/lib/llvm-15/lib/clang/15.0.6/include/..",
                "-isystem",
                "/usr/hsa/include",
                "--hip-version=5.2.21153",
                "--rocm-path=/usr",
                "-O3",
                "-mllvm",
                "-amdgpu-early-inline-all=true",
                "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
            ]
        );
        assert!(parse_hipcc_cmd("no such line", "p").is_none());
        assert!(parse_hipcc_cmd("hipcc-cmd: clang++ -x hip p", "p").is_none());
    }

    #[test]
    fn shell_characters_are_not_safe_for_hipcc_pl() {
        assert!(shell_safe("-I/work/out/src") && shell_safe("--offload-arch=gfx90a"));
        for w in [
            "x$(touch pwned).cu",
            "a b.cu",
            "-DX=\"1\"",
            "`id`",
            "a;b",
            "-Wx.a",
            "",
        ] {
            assert!(!shell_safe(w), "{w}");
        }
    }

    #[test]
    fn hipcc_fallback_refuses_a_shell_word_without_running_anything() {
        let d = tempfile::tempdir().unwrap();
        let h = Hipcc {
            path: PathBuf::from("/bin/sh"),
            version: String::new(),
            hip: None,
            driver: Driver::Hipcc,
        };
        let unit = UnitCommand {
            rel: "x.cu".into(),
            cwd: d.path().to_path_buf(),
            args: vec!["-c".into(), "touch pwned".into()],
            notes: vec![],
            output: None,
        };
        let (ok, out) = run(&h, &unit);
        assert!(!ok);
        assert!(
            out.contains("not compiled") && out.contains("`touch pwned`"),
            "{out}"
        );
        assert!(!d.path().join("pwned").exists());
    }

    #[test]
    fn quotes_shell_words() {
        assert_eq!(shell_word("-DX=1"), "-DX=1");
        assert_eq!(shell_word("a b"), "'a b'");
    }

    #[test]
    fn only_a_hip_clang_is_identified() {
        let id = |t: &str| identify(t, parse_version(t).1.as_ref());
        assert!(id("HIP version: 5.2.21153-0\nDebian clang version 15.0.6\n").is_ok());
        assert!(id("HIP version: 6.2.41133-dd7f95766\nAMD clang version 18.0.0git\n").is_ok());
        assert_eq!(id("").unwrap_err(), "prints nothing");
        assert!(id("true (GNU coreutils) 9.1\n").is_err());
        assert!(id("Debian clang version 15.0.6\n").is_err());
        assert!(id("nvcc: NVIDIA (R) Cuda compiler driver\n").is_err());
        assert!(id("HIP version: 5.2.0\n").is_err());
        let e = find(Some(Path::new("/bin/true"))).unwrap_err();
        assert!(matches!(e, FindError::NotHip { .. }), "{e}");
        assert!(
            e.to_string().contains("/bin/true is not a HIP compiler"),
            "{e}"
        );
    }

    #[test]
    fn a_compile_that_exits_0_without_its_object_is_not_a_pass() {
        let d = tempfile::tempdir().unwrap();
        let h = Hipcc {
            path: PathBuf::from("/bin/true"),
            version: String::new(),
            hip: None,
            driver: Driver::Hipcc,
        };
        let obj = d.path().join("k.o");
        // A stale object from an earlier run does not count either.
        std::fs::write(&obj, "stale").unwrap();
        let unit = UnitCommand {
            rel: "k.cu".into(),
            cwd: d.path().to_path_buf(),
            args: vec!["-c".into(), "-o".into(), obj.display().to_string()],
            notes: vec![],
            output: Some(obj.clone()),
        };
        let (ok, out) = run(&h, &unit);
        assert!(!ok, "{out}");
        assert!(out.contains(NO_OBJECT), "{out}");
        assert!(!obj.exists());
        let (ok, _) = run(
            &h,
            &UnitCommand {
                output: None,
                ..unit
            },
        );
        assert!(ok, "-fsyntax-only mode has no object to check");
    }
}
