//! `compile_commands.json`: reading it and rewriting each nvcc (or host compiler) command into a
//! hipcc one. GPU architecture flags become `--offload-arch`, nvcc-only flags are dropped or
//! translated, and every change is written down as a note so a person can check it.
//!
//! The database is the project's, so it is not trusted: only `-I`, `-isystem`, `-iquote` and
//! `-include` inside the project root and the meaning-neutral flags of [`super::allow`] are
//! kept; everything else is dropped with a note. Nothing here names a file outside the root.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One entry of a compilation database, with its command split into arguments.
#[derive(Clone, Debug)]
pub struct CompileEntry {
    pub directory: PathBuf,
    /// Absolute path of the source file.
    pub file: PathBuf,
    pub args: Vec<String>,
}

#[derive(Deserialize)]
struct RawEntry {
    directory: String,
    file: String,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    arguments: Option<Vec<String>>,
}

/// Where an include path written in the database lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remapped {
    /// Inside the project: this path in the translated tree.
    Inside(String),
    /// Outside the project root: dropped.
    Outside,
}

/// The largest compilation database read (LLVM's own is about 40 MB).
const MAX_BYTES: u64 = 512 << 20;

/// Reads a `compile_commands.json` (a regular file of a bounded size: never a FIFO or a device).
pub fn load(path: &Path) -> Result<Vec<CompileEntry>, String> {
    crate::safety::require_regular(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    if len > MAX_BYTES {
        return Err(format!(
            "{}: {len} bytes, more than the {} MB verify reads from a compilation database",
            path.display(),
            MAX_BYTES >> 20
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let raw: Vec<RawEntry> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for r in raw {
        let directory = PathBuf::from(&r.directory);
        let file = directory.join(&r.file);
        let args = match (r.arguments, r.command) {
            (Some(a), _) => a,
            (None, Some(c)) => split_command(&c),
            (None, None) => continue,
        };
        out.push(CompileEntry {
            directory,
            file,
            args,
        });
    }
    Ok(out)
}

/// Splits a shell command line with POSIX shell rules (`shlex`): whitespace separates, quotes
/// group, backslash escapes. Nothing is run. A line the rules cannot split (an unclosed quote,
/// a trailing backslash) is split at whitespace; every argument still passes the allow-list.
pub fn split_command(cmd: &str) -> Vec<String> {
    shlex::split(cmd).unwrap_or_else(|| cmd.split_whitespace().map(str::to_string).collect())
}

/// The flags kept from an original command, and what was changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rewritten {
    pub flags: Vec<String>,
    pub notes: Vec<String>,
}

/// Options whose value is the next argument when not attached with `=`.
const TAKES_VALUE: &[&str] = &[
    "-o",
    "-arch",
    "--gpu-architecture",
    "-gencode",
    "--generate-code",
    "-code",
    "--gpu-code",
    "-ccbin",
    "--compiler-bindir",
    "-Xcompiler",
    "--compiler-options",
    "-Xptxas",
    "--ptxas-options",
    "-Xnvlink",
    "--nvlink-options",
    "-Xcudafe",
    "-Xfatbin",
    "-Xarchive",
    "-maxrregcount",
    "--maxrregcount",
    "-MF",
    "-MT",
    "-MQ",
    "-x",
    "--default-stream",
    "--threads",
    "-t",
    "-I",
    "--include-path",
    "-isystem",
    "--system-include",
    "-iquote",
    "-include",
    "--pre-include",
    "-D",
    "--define-macro",
    "-U",
    "--undefine-macro",
    "--std",
    "-rdc",
    "--relocatable-device-code",
    "-L",
    "--library-path",
    "-l",
    "--library",
    "--diag-suppress",
    "-diag-suppress",
    "-Xlinker",
    "-ldir",
    "--output-file",
    "--options-file",
    "-optf",
    "-split-compile",
];

/// nvcc flags without a clang meaning, dropped with a note.
const DROP_ALONE: &[&str] = &[
    "-lineinfo",
    "--generate-line-info",
    "--expt-relaxed-constexpr",
    "-expt-relaxed-constexpr",
    "--expt-extended-lambda",
    "-expt-extended-lambda",
    "--extended-lambda",
    "-extended-lambda",
    "-Wno-deprecated-gpu-targets",
    "--keep",
    "-keep",
    "-G",
    "--device-debug",
    "-dlto",
    "--dlink-time-opt",
    "-forward-unknown-to-host-compiler",
    "--forward-unknown-to-host-compiler",
    "-cudart",
    "--cudart",
    "-MD",
    "-MMD",
    "-MP",
    "-dc",
    "--device-c",
    "-dw",
    "--device-w",
    "-src-in-ptx",
    "--resource-usage",
    "-res-usage",
    "--display-error-number",
    "-Wreorder",
    "--use-local-env",
    "-static-global-template-stub",
];

/// Rewrites one compile command (`args[0]` is the compiler) into hipcc flags: no compiler, no
/// source file, no `-o`/`-c`/dependency outputs (the caller adds its own mode and output).
/// `remap` turns an include path as written into one inside the translated tree.
pub fn rewrite(args: &[String], source: &Path, remap: &dyn Fn(&str) -> Remapped) -> Rewritten {
    let mut r = Rewritten::default();
    let mut i = 1;
    let src_name = source.file_name().map(|n| n.to_string_lossy().into_owned());
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        // Split `--opt=value` and `--opt value` forms for options that take a value.
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with('-') && TAKES_VALUE.contains(&n) => {
                (n, Some(v.to_string()))
            }
            _ => (a, None),
        };
        let value = if TAKES_VALUE.contains(&name) && attached.is_none() && !is_short_attached(a) {
            let v = args.get(i).cloned();
            i += 1;
            v
        } else {
            attached
        };
        if !a.starts_with('-') {
            // The source file (or another input): the caller supplies the translated one.
            let is_source = Path::new(a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                == src_name;
            if !is_source {
                r.notes.push(format!("dropped input `{a}`"));
            }
            continue;
        }
        let v = value.clone().unwrap_or_default();
        match name {
            "-o" | "-c" | "-MF" | "-MT" | "-MQ" | "-x" | "--output-file" => {}
            "-arch" | "--gpu-architecture" | "-gencode" | "--generate-code" | "-code"
            | "--gpu-code" => {
                r.notes
                    .push(format!("`{name} {v}` replaced by --offload-arch"));
            }
            "-Xcompiler" | "--compiler-options" => {
                let host: Vec<String> = std::iter::once(String::new())
                    .chain(v.split(',').filter(|f| !f.is_empty()).map(str::to_string))
                    .collect();
                let inner = rewrite(&host, Path::new(""), remap);
                r.flags.extend(inner.flags);
                r.notes.extend(inner.notes);
                r.notes
                    .push(format!("`{name} {v}` passed to the host compiler directly"));
            }
            "-I" | "--include-path" | "-isystem" | "--system-include" | "-iquote" => {
                let flag = match name {
                    "--include-path" => "-I",
                    "--system-include" => "-isystem",
                    n => n,
                };
                push_path(&mut r, flag, &v, remap);
            }
            "-include" | "--pre-include" => push_path(&mut r, "-include", &v, remap),
            "-D" | "--define-macro" => keep(&mut r, format!("-D{v}")),
            "-U" | "--undefine-macro" => keep(&mut r, format!("-U{v}")),
            "--std" => keep(&mut r, format!("-std={v}")),
            "-rdc" | "--relocatable-device-code" => {
                if v == "true" {
                    r.flags.push("-fgpu-rdc".into());
                    r.notes.push(format!("`{name}={v}` → -fgpu-rdc"));
                }
            }
            "--default-stream" => {
                if v == "per-thread" {
                    r.flags.push("-fgpu-default-stream=per-thread".into());
                }
                r.notes
                    .push(format!("`--default-stream {v}` → -fgpu-default-stream"));
            }
            "-L" | "--library-path" | "-l" | "--library" | "-Xlinker" | "-ldir" => {}
            "-ccbin" | "--compiler-bindir" | "-Xptxas" | "--ptxas-options" | "-Xnvlink"
            | "--nvlink-options" | "-Xcudafe" | "-Xfatbin" | "-Xarchive" | "-maxrregcount"
            | "--maxrregcount" | "--threads" | "-t" | "--diag-suppress" | "-diag-suppress"
            | "--options-file" | "-optf" | "-split-compile" => {
                r.notes.push(format!("dropped nvcc-only `{name} {v}`"));
            }
            "-use_fast_math" | "--use_fast_math" => {
                r.flags.push("-ffast-math".into());
                r.notes.push(format!("`{name}` → -ffast-math"));
            }
            _ if DROP_ALONE.contains(&name) => r.notes.push(format!("dropped nvcc-only `{name}`")),
            _ if a.starts_with("-I") => push_path(&mut r, "-I", &a[2..], remap),
            _ if a.starts_with("-l") || a.starts_with("-L") => {}
            _ => keep(&mut r, a.to_string()),
        }
    }
    r
}

/// Keeps `flag` when it passes the allow-list, else notes it as dropped.
fn keep(r: &mut Rewritten, flag: String) {
    match super::allow::allowed(&flag) {
        Ok(()) => r.flags.push(flag),
        Err(why) => r
            .notes
            .push(format!("dropped `{}`: {why}", flag.escape_debug())),
    }
}

/// Filters flags from another untrusted place (hipport.toml's `[verify]`) through the same
/// allow-list as the database.
pub fn filter(flags: &[String], remap: &dyn Fn(&str) -> Remapped) -> Rewritten {
    let args: Vec<String> = std::iter::once(String::new())
        .chain(flags.iter().cloned())
        .collect();
    rewrite(&args, Path::new(""), remap)
}

/// `-Ifoo`, `-DX=1`: the value is attached to a one-letter option.
fn is_short_attached(a: &str) -> bool {
    ["-I", "-D", "-U", "-L", "-l", "-o", "-x", "-t"]
        .iter()
        .any(|p| {
            a.len() > p.len()
                && a.starts_with(p)
                && !a.starts_with("-isystem")
                && !a.starts_with("-include")
        })
        && !TAKES_VALUE.contains(&a)
}

fn push_path(r: &mut Rewritten, flag: &str, path: &str, remap: &dyn Fn(&str) -> Remapped) {
    if is_cuda_toolkit_path(path) {
        r.notes
            .push(format!("dropped CUDA toolkit include `{flag} {path}`"));
        return;
    }
    // `-include NAME` is looked up like `#include "NAME"`: kept as the project wrote it unless
    // it names a path (absolute, `./`, `../`) or a file next to the command.
    let p = match remap(path) {
        Remapped::Inside(p) => p,
        Remapped::Outside
            if flag == "-include"
                && !path.starts_with('/')
                && !path.starts_with('.')
                && !path.contains("..") =>
        {
            path.to_string()
        }
        Remapped::Outside => {
            r.notes.push(format!(
                "dropped `{flag} {path}`: outside the project root (pass it to verify with -I/--extra-arg if you trust it)"
            ));
            return;
        }
    };
    if flag == "-I" {
        r.flags.push(format!("-I{p}"));
    } else {
        r.flags.push(flag.to_string());
        r.flags.push(p);
    }
}

fn is_cuda_toolkit_path(p: &str) -> bool {
    p.split('/')
        .any(|c| c == "cuda" || c.starts_with("cuda-") || c == "CUDA")
        && (p.contains("include") || p.contains("targets"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        split_command(s)
    }

    #[test]
    fn splits_quoted_commands() {
        assert_eq!(
            args(r#"nvcc -DNAME="a b" -I'x y' file.cu"#),
            ["nvcc", "-DNAME=a b", "-Ix y", "file.cu"]
        );
        assert_eq!(
            args(r#"cc -DS=\"q\" "a\"b" x\ y"#),
            ["cc", "-DS=\"q\"", "a\"b", "x y"]
        );
        // Unbalanced quotes: split at whitespace, nothing lost or joined.
        assert_eq!(args("cc 'a b"), ["cc", "'a", "b"]);
    }

    #[test]
    fn rewrites_nvcc_flags() {
        let cmd = args("/usr/local/cuda/bin/nvcc -DFOO=1 -I/src/include -I /usr/local/cuda/include -isystem /src/third -arch=sm_80 -gencode arch=compute_70,code=sm_70 -Xptxas -v --expt-relaxed-constexpr -Xcompiler -fPIC,-Wall -O3 -std=c++17 -x cu -c /src/a.cu -o a.o -MD -MF a.d");
        let remap = |p: &str| match p.strip_prefix("/src") {
            Some(r) => Remapped::Inside(format!("/out{r}")),
            None => Remapped::Outside,
        };
        let r = rewrite(&cmd, Path::new("/src/a.cu"), &remap);
        assert_eq!(
            r.flags,
            [
                "-DFOO=1",
                "-I/out/include",
                "-isystem",
                "/out/third",
                "-fPIC",
                "-Wall",
                "-O3",
                "-std=c++17"
            ]
        );
        let notes = r.notes.join("\n");
        assert!(notes.contains("-arch sm_80"), "{notes}");
        assert!(notes.contains("-gencode arch=compute_70,code=sm_70"));
        assert!(notes.contains("-Xptxas -v"));
        assert!(notes.contains("--expt-relaxed-constexpr"));
        assert!(notes.contains("/usr/local/cuda/include"));
    }

    #[test]
    fn rewrites_host_compiler_commands() {
        let cmd = args("g++ -Iinc -DX -O2 -c src/b.cpp -o b.o");
        let r = rewrite(&cmd, Path::new("/p/src/b.cpp"), &|p| {
            Remapped::Inside(format!("/o/{p}"))
        });
        assert_eq!(r.flags, ["-I/o/inc", "-DX", "-O2"]);
        assert!(r.notes.is_empty());
    }

    #[test]
    fn only_allowed_flags_survive_from_an_untrusted_database() {
        let cmd = args("nvcc -fplugin=/tmp/evil.so -Xclang -load -B/tmp/x -ftime-trace=/etc/out -save-temps -include /etc/passwd -isystem /usr/include/evil -Wp,-include,/etc/shadow -Wl,-rpath,/x -fno-exceptions -march=native -fmacro-prefix-map=/a=/b '-Wx$(touch pwned).a' -mllvm -x86-asm-syntax=intel -Wall -g -include config.h -include ../outside.h -c a.cu");
        // Nothing named exists next to the command, and /etc is outside the project.
        let remap = |_: &str| Remapped::Outside;
        let r = rewrite(&cmd, Path::new("/p/a.cu"), &remap);
        assert_eq!(
            r.flags,
            [
                "-fno-exceptions",
                "-march=native",
                "-Wall",
                "-g",
                "-include",
                "config.h"
            ],
            "{:#?}",
            r.notes
        );
        let notes = r.notes.join("\n");
        for dropped in [
            "-fplugin=/tmp/evil.so",
            "-Xclang",
            "-mllvm",
            "-x86-asm-syntax=intel",
            "-B/tmp/x",
            "-ftime-trace=/etc/out",
            "-save-temps",
            "-include /etc/passwd",
            "-isystem /usr/include/evil",
            "-Wp,-include,/etc/shadow",
            "-Wl,-rpath,/x",
            "-fmacro-prefix-map=/a=/b",
            "-include ../outside.h",
            "-Wx$(touch pwned).a",
        ] {
            assert!(notes.contains(dropped), "{dropped} not noted in {notes}");
        }
        // -Xcompiler values go through the same filter.
        let r = rewrite(
            &args("nvcc -Xcompiler -fPIC,-fplugin=/x.so,-Wall a.cu"),
            Path::new("/p/a.cu"),
            &remap,
        );
        assert_eq!(r.flags, ["-fPIC", "-Wall"]);
    }

    #[test]
    fn flags_that_forge_a_pass_or_write_outside_are_dropped_and_listed() {
        // Issue 23 item 1, from the database and from [verify] extra_args alike.
        let remap = |_: &str| Remapped::Outside;
        let db = args("nvcc -fdriver-only -gen-reproducer -gen-cdb-fragment-path /tmp/cdb -fmodules -Xcompiler -fdriver-only -DOK=1 -c bad.cu");
        let r = rewrite(&db, Path::new("/p/bad.cu"), &remap);
        let extra: Vec<String> = ["-fdriver-only", "-gen-reproducer", "-fmodules", "-DOK=1"]
            .map(String::from)
            .to_vec();
        let f = filter(&extra, &remap);
        for r in [r, f] {
            assert_eq!(r.flags, ["-DOK=1"], "{:#?}", r.notes);
            let notes = r.notes.join("\n");
            for gone in ["`-fdriver-only`", "`-gen-reproducer`", "`-fmodules`"] {
                assert!(
                    notes.contains(&format!("dropped {gone}")),
                    "{gone}: {notes}"
                );
            }
        }
    }
}
