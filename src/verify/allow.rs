//! The allow-list of compile flags verify accepts from places the project controls
//! (`compile_commands.json`, hipport.toml's `[verify]`) and from `--extra-arg`.
//!
//! Build evidence counts only when hipport decides what the compile does: the mode
//! (`-fsyntax-only`, or `-c -o` to an object it then checks), the language (`-x hip`), the
//! architectures. A project flag may only change what the compiled code means in ways a build
//! system legitimately does (macros, the standard, warnings, optimisation, debug info, a named
//! set of code-generation switches); anything else is dropped and listed. A deny-list cannot do
//! this: clang has thousands of driver flags, and one (`-fdriver-only`) makes it exit 0 without
//! compiling, others write files where hipport did not ask (`-gen-reproducer`,
//! `-gen-cdb-fragment-path`, `-fmodules`, `-save-temps`, `-ftime-trace=`).
//!
//! `-I`, `-isystem`, `-iquote` and `-include` are judged with their paths by the caller.

/// `-f` switches that only change how code is compiled, each also accepted as `-fno-…`.
const F_SWITCHES: &[&str] = &[
    "PIC",
    "pic",
    "PIE",
    "pie",
    "exceptions",
    "cxx-exceptions",
    "rtti",
    "fast-math",
    "finite-math-only",
    "math-errno",
    "unsafe-math-optimizations",
    "associative-math",
    "reciprocal-math",
    "signed-zeros",
    "trapping-math",
    "strict-aliasing",
    "strict-overflow",
    "wrapv",
    "common",
    "signed-char",
    "unsigned-char",
    "short-enums",
    "omit-frame-pointer",
    "inline",
    "inline-functions",
    "builtin",
    "gnu-keywords",
    "operator-names",
    "threadsafe-statics",
    "visibility-inlines-hidden",
    "permissive",
    "openmp",
    "gpu-rdc",
    "gpu-flush-denormals-to-zero",
    "hip-fp32-correctly-rounded-divide-sqrt",
    "cuda-approx-transcendentals",
    "stack-protector",
    "stack-protector-strong",
    "stack-protector-all",
    "diagnostics-color",
    "color-diagnostics",
    "show-column",
    "caret-diagnostics",
    "char8_t",
    "sized-deallocation",
    "aligned-new",
    "relaxed-template-template-args",
    "delayed-template-parsing",
    "ms-extensions",
    "declspec",
    "asm",
    "unroll-loops",
    "vectorize",
    "slp-vectorize",
    "function-sections",
    "data-sections",
    "semantic-interposition",
    "merge-all-constants",
    "lax-vector-conversions",
];

/// `-f` options with a value, and the characters the value may have (never a path).
const F_VALUED: &[&str] = &[
    "visibility",
    "template-depth",
    "constexpr-depth",
    "constexpr-steps",
    "bracket-depth",
    "fp-contract",
    "gpu-default-stream",
    "openmp-version",
    "macro-backtrace-limit",
    "template-backtrace-limit",
    "error-limit",
    "diagnostics-color",
    "denormal-fp-math",
    "denormal-fp-math-f32",
    "hip-new-launch-api",
];

/// `-m` switches for the host ISA and the AMDGPU code generation, each also as `-mno-…`.
const M_SWITCHES: &[&str] = &[
    "64",
    "sse",
    "sse2",
    "sse3",
    "ssse3",
    "sse4.1",
    "sse4.2",
    "sse4",
    "avx",
    "avx2",
    "avx512f",
    "avx512bw",
    "avx512cd",
    "avx512dq",
    "avx512vl",
    "avx512bf16",
    "avx512fp16",
    "avx512vnni",
    "fma",
    "f16c",
    "bmi",
    "bmi2",
    "lzcnt",
    "popcnt",
    "aes",
    "pclmul",
    "sha",
    "rdrnd",
    "cx16",
    "movbe",
    "adx",
    "wavefrontsize64",
    "unsafe-fp-atomics",
    "cumode",
    "xnack",
    "sramecc",
];

/// `-m` options with a value (a CPU name, a code object version).
const M_VALUED: &[&str] = &["arch", "tune", "cpu", "code-object-version", "fpmath"];

/// Plain flags accepted as they are.
const PLAIN: &[&str] = &[
    "-pthread",
    "-pedantic",
    "-pedantic-errors",
    "-w",
    "-g",
    "-ggdb",
];

/// Whether `a` may reach the compiler; `Err` says why not (for the note listing it).
pub fn allowed(a: &str) -> Result<(), &'static str> {
    const NOT_LISTED: &str = "not on verify's allow-list of meaning-neutral compile flags (hipport decides how units compile)";
    if PLAIN.contains(&a) {
        return Ok(());
    }
    if let Some(v) = a.strip_prefix("-D") {
        return macro_ok(v, false);
    }
    if let Some(v) = a.strip_prefix("-U") {
        return macro_ok(v, true);
    }
    if let Some(v) = a.strip_prefix("-std=") {
        return word(v, "+").then_some(()).ok_or(NOT_LISTED);
    }
    if let Some(v) = a.strip_prefix("-O") {
        return matches!(v, "" | "0" | "1" | "2" | "3" | "s" | "z" | "g" | "fast")
            .then_some(())
            .ok_or(NOT_LISTED);
    }
    if let Some(v) = a.strip_prefix("-g") {
        let ok = matches!(v, "0" | "1" | "2" | "3" | "line-tables-only" | "dwarf")
            || v.strip_prefix("dwarf-")
                .is_some_and(|n| matches!(n, "2" | "3" | "4" | "5"));
        return ok.then_some(()).ok_or(NOT_LISTED);
    }
    if a.starts_with("-Wl,") || a.starts_with("-Wa,") || a.starts_with("-Wp,") {
        return Err("passes options to another tool");
    }
    if let Some(v) = a.strip_prefix("-W") {
        // A warning name: `-Wall`, `-Wno-unused`, `-Werror=format`, `-Wframe-larger-than=4096`.
        return (word(v, "-_=+") && v.starts_with(|c: char| c.is_ascii_alphabetic()))
            .then_some(())
            .ok_or(NOT_LISTED);
    }
    if let Some(v) = a.strip_prefix("-f") {
        return switch_or_valued(v, F_SWITCHES, F_VALUED)
            .then_some(())
            .ok_or(NOT_LISTED);
    }
    if let Some(v) = a.strip_prefix("-m") {
        return switch_or_valued(v, M_SWITCHES, M_VALUED)
            .then_some(())
            .ok_or(NOT_LISTED);
    }
    Err(NOT_LISTED)
}

/// Macros by which the compiler says what it is and which side it compiles: redefining one
/// (`-D__HIP_DEVICE_COMPILE__`) or removing it (`-U__HIPCC__`) could leave the GPU code out of
/// the compile.
const IDENTITY_MACROS: &[&str] = &[
    "__HIP__",
    "__HIPCC__",
    "__HIP_DEVICE_COMPILE__",
    "__CUDA_ARCH__",
    "__CUDACC__",
    "__NVCC__",
    "__clang__",
    "__AMDGCN__",
    "__AMDGPU__",
    "__cplusplus",
];

/// A `-D`/`-U` value: a name (and `=` body) on one line. A newline would start a new directive
/// in clang's predefines. `-U` of a reserved name (`__…`) and either of the compiler's identity
/// macros are refused.
fn macro_ok(v: &str, undefine: bool) -> Result<(), &'static str> {
    let name = v.split('=').next().unwrap_or("");
    let bare = name.split('(').next().unwrap_or(name);
    if IDENTITY_MACROS.contains(&bare) || (undefine && bare.starts_with("__")) {
        return Err("changes a macro by which the compiler says what it compiles");
    }
    if name.is_empty()
        || !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || "(),. ".contains(c))
    {
        return Err("not a macro name");
    }
    if v.chars().any(char::is_control) {
        return Err("a macro with a control character (a newline would start a directive)");
    }
    Ok(())
}

/// `name`, `no-name` (a listed switch) or `name=value` (a listed option, value without a path).
fn switch_or_valued(v: &str, switches: &[&str], valued: &[&str]) -> bool {
    if let Some((name, value)) = v.split_once('=') {
        return valued.contains(&name) && !value.is_empty() && word(value, "-_.+,");
    }
    let name = v.strip_prefix("no-").unwrap_or(v);
    switches.contains(&name)
}

/// Letters, digits and the `extra` characters only.
fn word(v: &str, extra: &str) -> bool {
    !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meaning_neutral_flags_pass() {
        for a in [
            "-DOK=1",
            "-DNAME=\"a b\"",
            "-UNDEBUG",
            "-D__HIP_PLATFORM_AMD__",
            "-D_GLIBCXX_USE_CXX11_ABI=0",
            "-D__CUDA_NO_HALF_OPERATORS__",
            "-std=c++17",
            "-std=gnu++20",
            "-O3",
            "-Ofast",
            "-g",
            "-g2",
            "-gdwarf-5",
            "-Wall",
            "-Wno-unused-result",
            "-Werror=format",
            "-Wframe-larger-than=4096",
            "-w",
            "-fPIC",
            "-fno-exceptions",
            "-fopenmp",
            "-fvisibility=hidden",
            "-ftemplate-depth=2048",
            "-ffp-contract=fast",
            "-march=native",
            "-mavx2",
            "-mno-wavefrontsize64",
            "-pthread",
        ] {
            assert_eq!(allowed(a), Ok(()), "{a}");
        }
    }

    #[test]
    fn flags_that_skip_the_compile_or_write_files_are_dropped() {
        for a in [
            // Issue 23 item 1: clang exits 0 without compiling, or writes outside the tree.
            "-fdriver-only",
            "-gen-reproducer",
            "-gen-reproducer=always",
            "-gen-cdb-fragment-path",
            "-fmodules",
            "-fmodules-cache-path=/tmp/x",
            "-fsyntax-only",
            "-fplugin=/tmp/evil.so",
            "-fpass-plugin=/tmp/evil.so",
            "-fprofile-generate",
            "-ftime-trace=/etc/out",
            "-ftime-trace",
            "-fmacro-prefix-map=/a=/b",
            "-fcrash-diagnostics-dir=/tmp",
            "-fvisibility=../x",
            "-gsplit-dwarf",
            "-save-temps",
            "-###",
            "-E",
            "-M",
            "-MM",
            "-S",
            "-c",
            "-v",
            "-emit-llvm",
            "--cuda-host-only",
            "--offload-device-only",
            "--help",
            "-print-resource-dir",
            "-Xclang",
            "-mllvm",
            "-B/tmp/x",
            "-Wl,-rpath,/x",
            "-Wp,-include,/etc/shadow",
            "-Wx$(touch pwned).a",
            "-W",
            "-mcpu=../x",
            "-DX\n#include \"/etc/passwd\"",
            "-DOK=1\r",
            "-U__HIPCC__",
            "-U__HIP_PLATFORM_AMD__",
            "-D__HIP_DEVICE_COMPILE__=1",
            "-D__CUDA_ARCH__=800",
            "-D",
            "-D-fdriver-only",
            "-std=c++17;",
            "-O3x",
            "--hip-path=/tmp",
            "-nogpulib",
            "-include-pch",
        ] {
            assert!(allowed(a).is_err(), "{a:?} passed the allow-list");
        }
    }
}
