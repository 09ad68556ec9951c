//! Surface reads and writes in forms HIP does not declare (HP025). CUDA has two forms of each
//! surface read: `surf3Dread(&v, surf, x, y, z)` and the value-returning
//! `v = surf3Dread<float>(surf, x, y, z)`, and takes a boundary mode last on every read and
//! write. HIP (`amd_surface_functions.h`) declares the pointer form only, and a boundary mode
//! only on the 1D read: the value form (gvdb-voxels reads its atlas so at about 30 places) and
//! a 2D/3D call with a mode stop the build at "no matching function". The names are HIP's too,
//! so the tables rename nothing and nothing else reports them.

use super::Pass;
use crate::lex::Tok;

/// `(name, HIP's argument count)`: the pointer (or value, for writes) form HIP declares.
const FORMS: &[(&str, usize)] = &[
    ("surf1Dread", 3),
    ("surf2Dread", 4),
    ("surf3Dread", 5),
    ("surf1Dwrite", 3),
    ("surf2Dwrite", 4),
    ("surf3Dwrite", 5),
];

pub(super) fn run(p: &mut Pass) {
    for i in 0..p.lexed.tokens.len() {
        let t = p.lexed.tokens[i];
        if t.kind != Tok::Ident {
            continue;
        }
        let Some(&(name, hip_args)) = FORMS.iter().find(|(n, _)| n.as_bytes() == p.text(i)) else {
            continue;
        };
        // `surf3Dread<float>(…)`: the call after the template arguments.
        let mut at = i;
        let mut templated = false;
        if let Some(lt) = p.lexed.next_code(i).filter(|&j| p.text(j) == b"<") {
            let Some(gt) = (lt + 1..p.lexed.tokens.len().min(lt + 16)).find(|&j| p.text(j) == b">")
            else {
                continue;
            };
            templated = true;
            at = gt;
        }
        let Some((_, args, _)) = super::fixups::call_args(p, at) else {
            continue;
        };
        let read = name.ends_with("read");
        let first = args.first().map(|&(a, b)| {
            let (s, e) = (
                p.lexed.tokens[a].start as usize,
                p.lexed.tokens[b - 1].end as usize,
            );
            String::from_utf8_lossy(&p.src()[s..e]).trim().to_string()
        });
        // The value form: a template argument and one argument fewer than the pointer form
        // (or, with a mode, as many), its first argument the surface, not `&v`.
        let value_form = read
            && templated
            && !first.as_deref().is_some_and(|f| f.starts_with('&'))
            && (args.len() == hip_args - 1 || args.len() == hip_args);
        let mode = if value_form {
            args.len() == hip_args
        } else {
            args.len() == hip_args + 1 && name != "surf1Dread"
        };
        if !value_form && !mode {
            continue;
        }
        let (what, fix) = if value_form {
            (
                format!("`{name}` returns the value here (`{name}<T>(surf, …)`), a form HIP does not declare (HIP's `{name}` writes through a pointer{})", if mode { " and takes no boundary mode" } else { "" }),
                format!("read into a variable, `T v; {name}(&v, surf, …);`, or define one `__device__` helper that does and returns it, used at every site"),
            )
        } else {
            (
                format!("`{name}` with a boundary mode: HIP's 2D and 3D surface functions take none"),
                "drop the mode argument (HIP's reads and writes behave like `cudaBoundaryModeZero`); where the code relies on `cudaBoundaryModeTrap` or `Clamp`, bound the coordinates first".to_string(),
            )
        };
        let f = p.ctx.finding(
            &super::rules::SURFACE_FORM,
            t.range(),
            format!("{what}: the call does not compile under hipcc"),
            Some(fix),
        );
        p.findings.push(f);
    }
}

#[cfg(test)]
mod tests {
    fn found(src: &str) -> Vec<(u32, String)> {
        let t = crate::translate::translate_for_tests(src, "6.2");
        t.findings
            .into_iter()
            .filter(|f| f.rule == "HP025")
            .map(|f| (f.line, f.message))
            .collect()
    }

    /// gvdb-voxels' value reads, with and without a mode, and a 2D write with a mode: HP025.
    /// Twins: the pointer form, a 1D read with a mode (HIP has it), a plain 3D write.
    #[test]
    fn value_reads_and_boundary_modes_are_reported() {
        let src = "__global__ void k(cudaSurfaceObject_t s, float* o) {\n  float a = surf3Dread<float>(s, 4, 1, 2);\n  uchar b = surf3Dread<uchar>(s, 1, 1, 2, cudaBoundaryModeClamp);\n  surf2Dwrite(a, s, 4, 1, cudaBoundaryModeZero);\n  float c; surf3Dread(&c, s, 4, 1, 2);\n  surf1Dread(&c, s, 4, cudaBoundaryModeZero);\n  surf3Dwrite(c, s, 4, 1, 2);\n  o[0] = a + b + c;\n}\n";
        let f = found(src);
        assert_eq!(
            f.iter().map(|x| x.0).collect::<Vec<_>>(),
            [2, 3, 4],
            "{f:?}"
        );
        assert!(
            f[0].1.starts_with("`surf3Dread` returns the value here"),
            "{}",
            f[0].1
        );
        assert!(f[1].1.contains("and takes no boundary mode"), "{}", f[1].1);
        assert!(
            f[2].1.contains("`surf2Dwrite` with a boundary mode"),
            "{}",
            f[2].1
        );
    }
}
