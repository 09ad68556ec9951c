//! `cudaDeviceProp` members that the target's `hipDeviceProp_t` lacks. ROCm 6.0 made
//! `hipDeviceProp_t` CUDA-shaped; before it, `prop.deviceOverlap`, `prop.uuid`,
//! `prop.asyncEngineCount` and others do not compile. The port renames the struct, never its
//! members, so each such read is reported (HP001) with what to do instead. The facts are kept by
//! hand in `mappings/hand/device_prop_members.tsv`, each with its source.

use super::rules;
use super::Pass;
use crate::lex::Tok;
use crate::mappings::hand::HandTable;
use crate::version::Version;
use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../mappings/hand/device_prop_members.tsv");

/// A member and the release whose `hipDeviceProp_t` first has it, with what to do before then.
pub(crate) struct Member {
    pub rocm_min: Version,
    pub note: String,
}

/// The table, by member name.
pub(crate) fn table() -> &'static HashMap<String, Member> {
    static T: OnceLock<HashMap<String, Member>> = OnceLock::new();
    T.get_or_init(|| {
        let t = HandTable::parse(
            "device_prop_members.tsv",
            TABLE,
            &["struct", "member", "rocm_min", "note", "source"],
        )
        .expect("embedded device_prop_members.tsv is valid");
        t.iter()
            .map(|r| {
                let v = r
                    .version("rocm_min")
                    .expect("valid rocm_min")
                    .expect("rocm_min set");
                (
                    r.get("member").to_string(),
                    Member {
                        rocm_min: v,
                        note: r.get("note").to_string(),
                    },
                )
            })
            .collect()
    })
}

/// Whether the file reads device properties through the struct (a byte search).
fn uses_device_prop(src: &[u8]) -> bool {
    memchr::memmem::find(src, b"cudaDeviceProp").is_some()
        || memchr::memmem::find(src, b"hipDeviceProp_t").is_some()
}

pub(super) fn run(p: &mut Pass) {
    let src = p.src();
    let target = p.opts.target.rocm;
    let t = table();
    if t.values().all(|m| target >= m.rocm_min) || !uses_device_prop(src) {
        return;
    }
    let toks = &p.lexed.tokens;
    let mut prev: Option<usize> = None;
    for (i, tok) in toks.iter().enumerate() {
        if tok.kind == Tok::Comment {
            continue;
        }
        let after_access = prev.is_some_and(|j| {
            toks[j].kind == Tok::Punct && matches!(toks[j].text(src), b"." | b"->")
        });
        prev = Some(i);
        if tok.kind != Tok::Ident || !after_access {
            continue;
        }
        let Ok(name) = std::str::from_utf8(tok.text(src)) else {
            continue;
        };
        let Some(m) = t.get(name) else {
            continue;
        };
        if target >= m.rocm_min {
            continue;
        }
        let f = p.ctx.finding(
            &rules::UNPORTED_API,
            tok.range(),
            format!(
                "`.{name}`: `hipDeviceProp_t` has this `cudaDeviceProp` member only from ROCm {}; the target is ROCm {target}",
                m.rocm_min
            ),
            Some(format!("target ROCm {} or later; {}", m.rocm_min, m.note)),
        );
        p.findings.push(f);
    }
}

#[cfg(test)]
mod tests {
    fn findings(src: &str, rocm: &str) -> Vec<(u32, String)> {
        let opts = crate::translate::Options::for_tests(rocm, false);
        let t = crate::translate::translate_bytes(
            "q.cu",
            src.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        t.findings
            .into_iter()
            .filter(|f| f.rule == "HP001" && f.message.starts_with("`."))
            .map(|f| (f.line, f.message))
            .collect()
    }

    /// Rodinia's gaussian.cu and cuda-samples' simpleIPC/deviceQuery read members the ROCm 5.x
    /// struct lacks; ROCm 6.0's struct has them all. Members HIP 5.2 has, a member of another
    /// struct in a file that never uses device properties, and comments are not flagged.
    #[test]
    fn device_prop_members_missing_before_rocm_6() {
        let src = "cudaDeviceProp prop;\n\
            cudaGetDeviceProperties(&prop, 0);\n\
            if (!prop.deviceOverlap) return;  // prop.uuid\n\
            int n = prop.multiProcessorCount + p->asyncEngineCount;\n\
            printf(\"%d\", prop.maxTexture1DLayered[0]);\n";
        let got = findings(src, "5.2");
        let lines: Vec<u32> = got.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [3, 4, 5], "{got:?}");
        assert!(got[0]
            .1
            .contains("only from ROCm 6.0.0; the target is ROCm 5.2"));
        assert!(findings(src, "6.0").is_empty());
        assert!(findings(src, "7.0").is_empty());
        let other = "struct Obj { int uuid; };\nint f(Obj o) { return o.uuid; }\n";
        assert!(findings(other, "5.2").is_empty());
    }
}
