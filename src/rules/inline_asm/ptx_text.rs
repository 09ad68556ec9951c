//! PTX written as C/C++ string literals (openMVS's mesh-refinement module: `".version 3.2\n"`
//! `".target sm_20\n"` … for 1,900 lines, loaded with `cuModuleLoadDataEx`): a whole kernel
//! module in NVIDIA's virtual ISA that no AMD GPU can load, and that no rename or
//! PTX-instruction finding covers. One finding per module, at its first line, naming its target.

use crate::finding::Finding;
use crate::lex::Tok;
use crate::model::syntax::Src;

rule!(EMBEDDED_PTX, "HP912", PtxArtifact, Remediation, Runtime,
    summary: "PTX embedded in a string, or loaded with `cuModuleLoadData`/NVRTC.",
    why: "PTX text and NVRTC programs target NVIDIA GPUs; on ROCm code objects come from HIP source through hiprtc or hipcc.",
    bad: "mod = cuModuleLoadData(PTX_SOURCE)",
    good: "prog = hiprtcCreateProgram(HIP_SOURCE, ...)  # compile HIP C++ at run time",
    fix: "Replace the PTX with HIP C++ source compiled by hiprtc (or prebuilt code objects per gfx target).",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html"],
);

/// The contents of a string token without its quotes and prefix.
fn contents(text: &str) -> &str {
    crate::rules::driver_api::loaded::inner(text).unwrap_or("")
}

/// One HP912 per run of adjacent string literals that opens with a PTX `.version` directive
/// and names a `.target` or an `.entry` within its first lines.
pub fn check(s: &Src, out: &mut Vec<Finding>) {
    if memchr::memmem::find(s.ctx.src, b".version").is_none() {
        return;
    }
    let toks = &s.lexed.tokens;
    let text = |k: usize| String::from_utf8_lossy(toks[k].text(s.bytes())).into_owned();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if t.kind != Tok::Str
            || t.in_directive()
            || !contents(&text(i)).trim_start().starts_with(".version")
        {
            i += 1;
            continue;
        }
        // The run of adjacent literals (comments between them allowed); its first lines.
        let mut j = i;
        let mut head = String::new();
        let mut lines = 0;
        while j < toks.len() && toks[j].kind == Tok::Str {
            if lines < 16 {
                head.push_str(contents(&text(j)).trim_end_matches("\\n"));
                head.push('\n');
                lines += 1;
            }
            j = s.lexed.next_code(j).unwrap_or(toks.len());
        }
        if head.contains(".target") || head.contains(".entry") {
            let target = head
                .lines()
                .map(str::trim)
                .find_map(|l| l.strip_prefix(".target"))
                .map(|t| t.trim().split(',').next().unwrap_or("").trim().to_string())
                .filter(|t| !t.is_empty());
            let what = target.map_or(String::new(), |t| format!(" for `{t}`"));
            out.push(s.ctx.finding(
                &EMBEDDED_PTX,
                t.range(),
                format!("a PTX module{what} written as a string: no AMD GPU loads PTX, and no port of its instructions exists; rewrite its kernels in HIP C++"),
                Some("replace the module with HIP kernels built into a code object (`hipcc --genco`) or compiled at run time by hiprtc".into()),
            ));
        }
        i = j.max(i + 1);
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{fires, hazard_findings};

    /// openMVS's mesh-refinement module. Twins: a string that mentions `.version` in prose,
    /// and a PTX-looking run with neither `.target` nor `.entry`.
    #[test]
    fn a_ptx_module_in_string_literals() {
        let src = "static const char* const g_mod =\n\t\".version 3.2\\n\"\n\t\".target sm_20\\n\"\n\t\".address_size 64\\n\"\n\t\".global .texref texImageRef;\\n\";\nconst char* a = \"see .version in the manual\";\nconst char* b = \".version 1\\n\" \"x\";\n";
        assert_eq!(fires(src, "HP912"), [2]);
        let f = hazard_findings(src);
        let m = &f.iter().find(|f| f.rule == "HP912").unwrap().message;
        assert!(m.contains("for `sm_20`"), "{m}");
    }
}
