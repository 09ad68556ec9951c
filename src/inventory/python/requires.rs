//! The requirements a `setup()` call declares: the strings of its `install_requires` list, and,
//! where it passes a name (`install_requires=install_requires`), what the module adds to that
//! list (`install_requires.append('cupy-cuda12x>=13.0')`, `.extend([...])`, `+= [...]`, in any
//! branch: a requirement added on one platform's arm is still one a user installs). An
//! f-string that picks the CUDA major at install time (`f'custatevec-cu{major}>=1.13'`) names a
//! CUDA build whatever the major is: its name runs to the end of that interpolation and its CUDA
//! marker is the `cu{…}` part.

use super::packages::{self, Req};
use super::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// Each requirement string of the value `v` (a list, or the value a name was assigned), and of
/// what the module adds to the list `name` holds, with its parse where it has one.
fn requirements(v: Node, name: Option<&str>, module: Node, src: &[u8]) -> Vec<(String, Req)> {
    let mut nodes = items(v);
    if let Some(name) = name {
        ts::each(module, &mut |n| added_to(n, name, src, &mut nodes));
    }
    let mut out = Vec::new();
    for n in nodes {
        if let Some(r) = fstring_cuda_build(n, src) {
            let spec = String::from_utf8_lossy(&src[r.name_range.clone()]).into_owned();
            out.push((spec, r));
        } else if ts::named_children(n)
            .iter()
            .all(|c| c.node_kind() != K::Interpolation)
        {
            if let Some((s, r)) = super::string(n, src) {
                out.extend(packages::parse_req(&s, r.start).map(|q| (s, q)));
            }
        }
    }
    out
}

/// The requirements of a `setup()` call (`install_requires`, `setup_requires`): each checked,
/// `torch` satisfied where the build needs the ROCm wheel installed first
/// ([`super::build_first`]).
pub(super) fn setup_call(out: &mut super::Out, n: Node, src: &[u8], st: &super::State) {
    for kw in ["install_requires", "setup_requires"] {
        let Some(v) = super::keyword(n, kw, src) else {
            continue;
        };
        let mut module = n;
        while let Some(p) = module.parent() {
            module = p;
        }
        // `install_requires=install_requires`: the list the module assigned, and what it adds.
        let name = (v.node_kind() == K::Identifier).then(|| ts::text(v, src));
        let v = super::module_value(v, src).unwrap_or(v);
        let reqs = requirements(v, name, module, src);
        for (s, req) in reqs {
            if st.torch_first && super::build_first::open_torch(&s, &req) {
                out.push_pass(
                    &packages::CUDA_PACKAGE_WITH_ROCM_PATH,
                    req.name_range.clone(),
                    super::build_first::SATISFIED.into(),
                );
            } else {
                packages::check_req(out, &req);
            }
        }
    }
}

/// The string nodes of a requirement value: a string, or the strings of a list, tuple or set.
fn items(v: Node) -> Vec<Node> {
    match v.node_kind() {
        K::String => vec![v],
        K::List | K::Tuple | K::Set => ts::named_children(v)
            .into_iter()
            .filter(|c| c.node_kind() == K::String)
            .collect(),
        _ => Vec::new(),
    }
}

/// `name.append(s)`, `name.extend([...])`, `name += [...]`: the strings they add.
fn added_to<'t>(n: Node<'t>, name: &str, src: &[u8], nodes: &mut Vec<Node<'t>>) {
    match n.node_kind() {
        K::Call => {
            let Some(f) = n
                .field(F::Function)
                .filter(|f| f.node_kind() == K::Attribute)
            else {
                return;
            };
            let (Some(obj), Some(attr)) = (f.field(F::Object), f.field(F::Attribute)) else {
                return;
            };
            if ts::text(obj, src) != name {
                return;
            }
            let Some(args) = n.field(F::Arguments) else {
                return;
            };
            let first = ts::named_children(args).into_iter().next();
            match (ts::text(attr, src), first) {
                ("append", Some(a)) if a.node_kind() == K::String => nodes.push(a),
                ("extend", Some(a)) => nodes.extend(items(a)),
                _ => {}
            }
        }
        K::AugmentedAssignment if n.field(F::Left).is_some_and(|l| ts::text(l, src) == name) => {
            if let Some(r) = n.field(F::Right) {
                nodes.extend(items(r));
            }
        }
        _ => {}
    }
}

/// `f'custatevec-cu{utils.cuda_major_ver}>=1.13.1, <2'`: a package name that ends `-cu` or
/// `-cuda` right before an interpolation is a CUDA build of whichever major the expression
/// picks.
fn fstring_cuda_build(n: Node, src: &[u8]) -> Option<Req> {
    let kids = ts::named_children(n);
    let first = kids
        .iter()
        .position(|c| c.node_kind() == K::Interpolation)?;
    let content = kids[..first]
        .iter()
        .rev()
        .find(|c| c.node_kind() == K::StringContent)?;
    let interp = kids[first];
    if content.end_byte() != interp.start_byte() {
        return None;
    }
    let text = std::str::from_utf8(&src[content.byte_range()]).ok()?;
    let lead = text.len() - text.trim_start().len();
    let name = &text[lead..];
    let stem = name
        .strip_suffix("-cuda")
        .or_else(|| name.strip_suffix("-cu"))
        .or_else(|| name.strip_suffix("_cu"))?;
    if stem.is_empty()
        || !stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return None;
    }
    let range: Range<usize> = content.start_byte() + lead..interp.end_byte();
    let full = String::from_utf8_lossy(&src[range.clone()]).into_owned();
    let marker = full[stem.len() + 1..].to_string();
    Some(Req {
        name: full,
        name_range: range,
        cuda_marker: Some(marker),
        other_build: false,
    })
}

#[cfg(test)]
mod tests {
    use crate::inventory::{kind::FileKind, scan_bytes};

    /// cuQuantum's `setup.py`: wheels named for the CUDA major chosen at install time
    /// (`f'custatevec-cu{major}>=1.13'`) and requirements appended to the list on one platform's
    /// arm (`install_requires.append('cupy-cuda12x>=13.0')`). Twins: an f-string whose interpolation
    /// is not a CUDA major (`f'{name}>=1'`), and an append to another list.
    #[test]
    fn setup_py_requirements_appended_and_picked_per_cuda_major() {
        let src = "from setuptools import setup\nimport utils\nreqs = [\n    'numpy',\n    f'custatevec-cu{utils.cuda_major_ver}>=1.13.1, <2',\n    f'{utils.name}>=1',\n]\nif utils.cuda_major_ver == '12':\n    reqs.append('cupy-cuda12x>=13.0')\nelse:\n    reqs += ['cuda-python']\nother = []\nother.append('cupy-cuda11x')\nsetup(name='q', install_requires=reqs)\n";
        let f = scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes());
        let got: Vec<(&str, u32, &str)> = f
            .iter()
            .map(|f| {
                (
                    f.rule.as_str(),
                    f.line,
                    f.message.split(' ').next().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("HP821", 5, "custatevec-cu{utils.cuda_major_ver}"),
                ("HP820", 9, "cupy-cuda12x"),
                ("HP821", 11, "cuda-python"),
            ]
        );
        assert!(
            f[0].message
                .contains("is a CUDA build (cu{utils.cuda_major_ver})"),
            "{}",
            f[0].message
        );
    }
}
