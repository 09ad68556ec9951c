//! Shell scripts (and shell fragments inside Dockerfiles and Makefiles) through tree-sitter-bash:
//! each simple command's words and each variable assignment go to `inventory::words`.
//! Comments and heredoc bodies are not commands, so nothing in them is flagged.

use super::ts::{self, Lang};
use super::words::{self, Cx, Site, Word};
use super::Out;
use crate::kinds::bash::{Field as F, Kind as K, NodeExt};
use std::collections::BTreeMap;
use tree_sitter::Node;

pub fn scan(out: &mut Out, site: Site) {
    let src = out.src();
    scan_fragment(out, 0, src, site, Cx::default());
}

/// Parses `frag` (which starts at byte `offset` of the file) as Bash and checks its commands.
pub fn scan_fragment(out: &mut Out, offset: usize, frag: &[u8], site: Site, cx: Cx) {
    scan_fragment_env(out, offset, frag, site, cx, &BTreeMap::new());
}

/// [`scan_fragment`] for a CI `run:` block with the `env:` in scope: `$X`, `${X}` and
/// `${{ env.X }}` in a word read as their values (findings stay on the word as written), and
/// `${{ … }}` expressions and `#` comment lines are never commands.
pub fn scan_fragment_env(
    out: &mut Out,
    offset: usize,
    frag: &[u8],
    site: Site,
    cx: Cx,
    env: &BTreeMap<String, String>,
) {
    let masked = mask(frag);
    let Some(tree) = ts::parse(Lang::Bash, &masked) else {
        return;
    };
    let exp = |t: &str| -> String {
        if env.is_empty() {
            t.to_string()
        } else {
            expand(t, env)
        }
    };
    let mut commands: Vec<Node> = Vec::new();
    let mut assignments: Vec<Node> = Vec::new();
    ts::each(tree.root_node(), &mut |n| match n.node_kind() {
        K::Command => commands.push(n),
        K::VariableAssignment => assignments.push(n),
        _ => {}
    });
    for a in assignments {
        let (Some(name), value) = (a.field(F::Name), a.field(F::Value)) else {
            continue;
        };
        let name_text = ts::text(name, frag);
        let (vtext, vrange) = match value {
            Some(v) => (
                exp(unquote(ts::text(v, frag))),
                v.start_byte() + offset..v.end_byte() + offset,
            ),
            None => (String::new(), a.end_byte() + offset..a.end_byte() + offset),
        };
        words::setting(
            out,
            name_text,
            name.start_byte() + offset..name.end_byte() + offset,
            &vtext,
            vrange,
            site,
        );
    }
    for c in commands {
        let mut ws = Vec::new();
        for ch in ts::named_children(c) {
            match ch.node_kind() {
                // The command's own environment for a ROCm build (`CUPY_INSTALL_USE_HIP=1 pip
                // install cupy`) is part of what it runs; other assignments are not words.
                K::VariableAssignment
                    if ch.field(F::Name).is_some_and(|n| {
                        let n = ts::text(n, frag);
                        n.contains("HIP") || n.contains("ROCM")
                    }) =>
                {
                    ws.push(Word::new(
                        exp(unquote(ts::text(ch, frag))),
                        ch.start_byte() + offset..ch.end_byte() + offset,
                    ))
                }
                K::VariableAssignment
                | K::FileRedirect
                | K::HerestringRedirect
                | K::HeredocRedirect => {}
                _ => ws.push(Word::new(
                    exp(unquote(ts::text(ch, frag))),
                    ch.start_byte() + offset..ch.end_byte() + offset,
                )),
            }
        }
        words::command(out, &ws, site, cx);
    }
    // Arms the ROCm build never runs (`if [ "$BACKEND" = cuda ]` in a script with a ROCm arm).
    let dead: Vec<(std::ops::Range<usize>, String)> = super::shell_arms::dead_arms(
        tree.root_node(),
        &masked,
        out.src()[..offset].iter().filter(|&&c| c == b'\n').count() + 1,
    )
    .into_iter()
    .map(|(r, why)| {
        (
            r.start + offset..r.end + offset,
            as_written(&why, frag, &masked),
        )
    })
    .collect();
    if !dead.is_empty() {
        out.pass_within(&dead, &[], |why| format!(" ({why})"));
    }
}

/// `why` (text read from `masked`) with each GitHub expression shown as written in `frag`.
fn as_written(why: &str, frag: &[u8], masked: &[u8]) -> String {
    let mut out = why.to_string();
    let mut i = 0;
    while let Some(p) = frag[i..].windows(3).position(|w| w == b"${{") {
        let at = i + p;
        let Some(end) = frag[at..]
            .windows(2)
            .position(|w| w == b"}}")
            .map(|e| at + e + 2)
        else {
            break;
        };
        if let (Ok(m), Ok(o)) = (
            std::str::from_utf8(&masked[at..end]),
            std::str::from_utf8(&frag[at..end]),
        ) {
            if m != o {
                out = out.replacen(m, o, 1);
            }
        }
        i = end;
    }
    out
}

/// `frag` with its `${{ … }}` expressions turned into plain words of the same length, and
/// comment lines blanked: byte offsets stay, and neither parses as a command.
fn mask(frag: &[u8]) -> Vec<u8> {
    let mut m = frag.to_vec();
    let mut i = 0;
    while i + 3 <= m.len() {
        if &m[i..i + 3] == b"${{" {
            let end = m[i..]
                .windows(2)
                .position(|w| w == b"}}")
                .map_or(m.len(), |p| i + p + 2);
            // Every expression parses as one plain word: bash would read `${{ matrix.x }}` as
            // a parameter expansion whose braces swallow the lines after it. The words are
            // read from `frag` as written (an `env.X` one expands to its value, any other keeps
            // GitHub's per-run value).
            for b in &mut m[i..end] {
                if *b != b'\n' {
                    *b = b'_';
                }
            }
            // A ROCm switch (`${{ inputs.rocm }}`) stays readable as the variable
            // `$inputs_rocm___`, so a test of it decides its arms.
            let inner = frag[i + 3..end.saturating_sub(2).max(i + 3)].trim_ascii();
            if !inner.is_empty()
                && std::str::from_utf8(inner).is_ok_and(super::gha_expr::rocm_switch)
                && inner.len() < end - i
                && inner
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
            {
                m[i] = b'$';
                for (k, c) in inner.iter().enumerate() {
                    m[i + 1 + k] = if c.is_ascii_alphanumeric() { *c } else { b'_' };
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    let mut start = 0;
    while start < m.len() {
        let end = m[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(m.len(), |p| start + p);
        let line = &m[start..end];
        if line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'#') && !line.starts_with(b"#!")
        {
            for b in &mut m[start..end] {
                *b = b' ';
            }
        }
        start = end + 1;
    }
    m
}

/// `$X`, `${X}` and `${{ env.X }}` in `t` replaced by their values in `env`; other references
/// stay as written.
pub fn expand(t: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let r = &rest[at..];
        let (name, len) = if let Some(inner) = r.strip_prefix("${{") {
            match inner.find("}}") {
                Some(e) => (
                    inner[..e].trim().strip_prefix("env.").map(str::to_string),
                    3 + e + 2,
                ),
                None => (None, r.len()),
            }
        } else if let Some(inner) = r.strip_prefix("${") {
            match inner.find('}') {
                Some(e) => (Some(inner[..e].to_string()), 2 + e + 1),
                None => (None, r.len()),
            }
        } else {
            let n = r[1..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            (Some(r[1..1 + n].to_string()), 1 + n)
        };
        match name.and_then(|n| env.get(&n)) {
            Some(v) => out.push_str(v),
            None => out.push_str(&r[..len.max(1)]),
        }
        rest = &r[len.max(1)..];
    }
    out.push_str(rest);
    out
}

pub fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};
    use super::{expand, mask};
    use std::collections::BTreeMap;

    fn rules(src: &str) -> Vec<(String, u32)> {
        scan_bytes("run.sh", FileKind::Shell, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

    #[test]
    fn nccl_install_locations_are_not_nccl_tuning() {
        // multi-gpu-programming-models' test.sh: where NCCL is installed, not a setting NCCL
        // reads; the tuning variable beside it is one.
        let src = "export NCCL_HOME=$(dirname `echo $LD_LIBRARY_PATH | grep nccl`)\nexport NCCL_ROOT_DIR=/opt/nccl\nexport NCCL_SOCKET_IFNAME=eth0\n";
        let r = rules(src);
        assert!(!r.iter().any(|(_, l)| *l == 1 || *l == 2), "{r:?}");
        assert!(r.contains(&("HP890".into(), 3)), "{r:?}");
    }

    #[test]
    fn flags_commands_not_comments() {
        let src = "#!/bin/bash\n# nvidia-smi in a comment\necho \"nvcc is not run here\"\nnvidia-smi -L\nexport NCCL_IB_HCA=mlx5_0\nnvcc -arch=sm_80 -o k k.cu -lcublas\n";
        let r = rules(src);
        assert!(r.contains(&("HP880".into(), 4)), "{r:?}");
        assert!(r.contains(&("HP890".into(), 5)), "{r:?}");
        assert!(r.contains(&("HP850".into(), 6)));
        assert!(r.contains(&("HP843".into(), 6)));
        assert!(r.contains(&("HP851".into(), 6)));
        assert!(!r.iter().any(|(_, l)| *l == 2 || *l == 3), "{r:?}");
    }

    #[test]
    fn ci_env_and_expressions() {
        let env: BTreeMap<String, String> = [("ROCM_INDEX".to_string(), "rocm7.2".to_string())]
            .into_iter()
            .collect();
        assert_eq!(expand("whl/${ROCM_INDEX}", &env), "whl/rocm7.2");
        assert_eq!(expand("whl/$ROCM_INDEX/x", &env), "whl/rocm7.2/x");
        assert_eq!(expand("${{ env.ROCM_INDEX }}", &env), "rocm7.2");
        assert_eq!(
            expand("$HOME/${{ matrix.x }}$", &env),
            "$HOME/${{ matrix.x }}$"
        );
        let src = b"  # nvcc k.cu\necho ${{ env.ROCM_INDEX }} ${{ matrix.x }} # c\n#!/bin/sh\n";
        let m = mask(src);
        assert_eq!(m.len(), src.len());
        assert!(!m.windows(4).any(|w| w == b"nvcc"));
        assert!(m.windows(6).any(|w| w == b"echo _"));
        // Any expression is one plain word to the parser (its value is read from the text).
        assert!(!m.windows(3).any(|w| w == b"${{"));
    }

    fn messages(src: &str) -> Vec<(u32, String, bool)> {
        scan_bytes("run.sh", FileKind::Shell, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP850")
            .map(|f| (f.line, f.message, f.status == crate::gate::Status::Pass))
            .collect()
    }

    /// miniBUDE's and gpu-benches' scripts: nvcc in a message or a pattern is a word, not a
    /// command; `which nvcc` is a probe; a compile in the same script still is a run.
    #[test]
    fn nvcc_as_a_word_is_not_a_run() {
        let src = "echo needs nvcc\nprintf 'no %s\\n' nvcc >&2\ncat log | grep -i /bin/nvcc | sed 's/nvcc/x/'\nawk '/nvcc/ {print}' log\n";
        assert_eq!(messages(src), vec![]);
        // A probe alone is one open finding saying so.
        let m = messages("if ! which nvcc; then exit 1; fi\ncommand -v nvcc >/dev/null\n");
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(
            m[0].1.starts_with("probes for nvcc (`which nvcc`)"),
            "{m:?}"
        );
        assert!(!m[0].2);
        assert!(
            m[1].2 && m[1].1.contains("the nvcc probe at line 1"),
            "{m:?}"
        );
        // Twins: a compile beside the message and the probe is a run, and holds the decision.
        let m = messages("echo needs nvcc\nwhich nvcc\nnvcc -c a.cu\nCXX=nvcc make\n");
        let open: Vec<u32> = m.iter().filter(|x| !x.2).map(|x| x.0).collect();
        assert_eq!(open, vec![3, 4], "{m:?}");
        assert!(m[0].1.contains("the nvcc use at line 3"), "{m:?}");
    }

    #[test]
    fn nvcc_version_is_a_version_check() {
        let r = rules("V=$(nvcc --version | grep release)\n");
        assert_eq!(r, vec![("HP812".to_string(), 1)]);
    }

    /// torch-quiver's Dockerfile: PyG's extension wheels from a `+cu102` page (HP822), and
    /// `torch-scatter`, a source build on ROCm (HP820), as for `torch` from a CUDA index. Twin:
    /// the same page name outside a pip command (an echo) is no install.
    #[test]
    fn cuda_wheel_page_of_another_project() {
        let r = rules("pip install --no-index torch-scatter -f https://data.pyg.org/whl/torch-1.9.0+cu102.html
echo https://data.pyg.org/whl/torch-1.9.0+cu102.html
");
        assert_eq!(r, vec![("HP820".to_string(), 1), ("HP822".to_string(), 1)]);
    }

    #[test]
    fn docker_gpus_and_cuda_index() {
        let r = rules("docker run --gpus all img\npip install torch --index-url https://download.pytorch.org/whl/cu121\n");
        assert!(r.contains(&("HP862".into(), 1)));
        // A program's own `--gpus` option (RAFT's `train.py --gpus 0`) is not Docker's; an
        // options string alone (a CI container's `options:`) and `podman run` are.
        let own = rules("python -u train.py --name raft --gpus 0 --num_steps 10\n--shm-size 1g --gpus all\nsudo podman run --gpus=all img\n");
        assert!(!own.contains(&("HP862".into(), 1)), "{own:?}");
        assert!(own.contains(&("HP862".into(), 2)), "{own:?}");
        assert!(own.contains(&("HP862".into(), 3)), "{own:?}");
        assert!(r.contains(&("HP822".into(), 2)));
        assert!(r.contains(&("HP820".into(), 2)), "{r:?}");
    }

    /// clean-pvnet's `docker run -it --rm -d \` / `--runtime=nvidia \`: the NVIDIA container
    /// runtime, across a continued line (HP862). Twins: another runtime, and a program's own
    /// `--runtime` option.
    #[test]
    fn docker_runtime_nvidia_is_the_nvidia_container_runtime() {
        let r = rules(
            "docker run -it --rm -d \\
    --runtime=nvidia \\
    img
docker run --runtime nvidia img
docker run --runtime=runc img
python bench.py --runtime=nvidia
",
        );
        let lines: Vec<u32> = r
            .iter()
            .filter(|(c, _)| c == "HP862")
            .map(|(_, l)| *l)
            .collect();
        assert_eq!(lines, [2, 4], "{r:?}");
    }

    /// DeepSpeed's AMD CI lane installs torch from the ROCm index (and its CPU lanes from the CPU
    /// one): no CUDA wheel to replace. The same command with PyPI or a CUDA index is flagged.
    #[test]
    fn torch_from_a_rocm_or_cpu_index_is_not_a_cuda_package() {
        let src = "pip install -U torch torchvision --index-url https://download.pytorch.org/whl/rocm6.0\npip install torch --index-url https://download.pytorch.org/whl/cpu\npip install torch torchvision\npip install torch --extra-index-url https://download.pytorch.org/whl/nightly/cu124\npip install torchvision==0.18.1 -f https://pytorch-extension.intel.com/release-whl/stable/xpu/cn/torchvision/\npip install torch -f https://example.com/wheels/cuda/xpu/\n";
        let r = rules(src);
        assert!(!r.iter().any(|(_, l)| *l <= 2 || *l == 5), "{r:?}");
        assert!(r.contains(&("HP820".into(), 3)), "{r:?}");
        assert!(r.contains(&("HP820".into(), 4)), "{r:?}");
        assert!(r.contains(&("HP822".into(), 4)), "{r:?}");
        // A folder that also names CUDA is not another platform's.
        assert!(r.contains(&("HP820".into(), 6)), "{r:?}");
    }
}
