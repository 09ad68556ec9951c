//! Finding hipcc, asking its version, and running one compile. When hipcc is missing the error
//! says how to get one, because the build gate cannot be judged without it.

use crate::version::Version;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A hipcc that answered `--version`.
#[derive(Clone, Debug)]
pub struct Hipcc {
    pub path: PathBuf,
    /// `HIP version: …` and the clang line, joined with `; `.
    pub version: String,
    /// The HIP release (major.minor) hipcc reports, when it says.
    pub hip: Option<Version>,
}

/// What to tell a person who has no hipcc.
pub const HOW_TO_GET: &str = "install one: on Debian 12 or Ubuntu 24.04 `apt-get install hipcc` (ROCm 5.2 HIP from the distribution), or the ROCm packages from https://rocm.docs.amd.com/projects/install-on-linux/ (hipcc in /opt/rocm/bin), or point --hipcc at it";

/// Finds hipcc: `explicit`, else `hipcc` on PATH, else `/opt/rocm/bin/hipcc`.
pub fn find(explicit: Option<&Path>) -> Result<Hipcc, String> {
    let path = match explicit {
        Some(p) => {
            if !p.is_file() {
                return Err(format!("--hipcc {}: no such file", p.display()));
            }
            p.to_path_buf()
        }
        None => on_path("hipcc")
            .or_else(|| Some(PathBuf::from("/opt/rocm/bin/hipcc")).filter(|p| p.is_file()))
            .ok_or_else(|| format!("no hipcc found on PATH or in /opt/rocm/bin; {HOW_TO_GET}"))?,
    };
    // An --offload-arch keeps Debian's hipcc from probing for GPUs (a traceback without one).
    let out = Command::new(&path)
        .args(["--offload-arch=gfx90a", "--version"])
        .output()
        .map_err(|e| format!("{}: cannot run: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (version, hip) = parse_version(&text);
    if !out.status.success() && version.is_empty() {
        return Err(format!(
            "{} --version failed: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    Ok(Hipcc { path, version, hip })
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

/// One compile to run: hipcc's arguments and the directory to run it in.
#[derive(Clone, Debug)]
pub struct UnitCommand {
    pub rel: String,
    pub cwd: PathBuf,
    pub args: Vec<String>,
    /// Flags dropped or translated from the project's own command.
    pub notes: Vec<String>,
}

impl UnitCommand {
    /// The command as one shell-readable line (for evidence and `--format json`).
    pub fn display(&self, hipcc: &Path) -> String {
        let mut s = shell_word(&hipcc.to_string_lossy());
        for a in &self.args {
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

/// Runs one compile; returns success and the combined output.
pub fn run(hipcc: &Path, unit: &UnitCommand) -> (bool, String) {
    match Command::new(hipcc)
        .args(&unit.args)
        .current_dir(&unit.cwd)
        .output()
    {
        Ok(o) => {
            let mut text = String::from_utf8_lossy(&o.stderr).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stdout));
            (o.status.success(), text)
        }
        Err(e) => (false, format!("error: cannot run {}: {e}", hipcc.display())),
    }
}

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
    fn quotes_shell_words() {
        assert_eq!(shell_word("-DX=1"), "-DX=1");
        assert_eq!(shell_word("a b"), "'a b'");
    }
}
