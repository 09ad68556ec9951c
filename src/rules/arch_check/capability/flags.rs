//! Capability flags combined in one test: `bool is_sm8x = dprops->major == 8 && …;`,
//! `bool is_sm90 = dprops->major == 9 && …;`, then `TORCH_CHECK(is_sm90 || is_sm8x, …)`
//! (FlashAttention's guard, copied into many projects). Each comparison is open on its own,
//! but together they are one decision by NVIDIA compute capability, made where the flags meet:
//! one finding. The carrier is the group's first open comparison that needs a change
//! (REMEDIATION before UNKNOWN); the others are PASS naming it. Flags used only apart stay apart.

use crate::finding::Finding;
use crate::gate::Status;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, Src};
use std::collections::{BTreeMap, HashMap};
use tree_sitter::Node;

/// The top of the logical expression `n` sits in: up through `&&`/`||`/`!` and parentheses.
fn logical_top<'a>(s: &Src<'a>, mut n: Node<'a>) -> Node<'a> {
    while let Some(p) = s.parent(n) {
        let logical = match p.node_kind() {
            K::ParenthesizedExpression => true,
            K::UnaryExpression => p.field(F::Operator).is_some_and(|o| s.text(o) == "!"),
            K::BinaryExpression => p
                .field(F::Operator)
                .is_some_and(|o| matches!(s.text(o), "&&" | "||")),
            _ => false,
        };
        if !logical {
            break;
        }
        n = p;
    }
    n
}

/// The local a comparison's logical expression initialises (`bool is_sm90 = <here>;`).
fn flag_of<'a>(s: &Src<'a>, b: Node<'a>) -> Option<(&'a str, Node<'a>)> {
    let top = logical_top(s, b);
    let d = s.parent(top)?;
    if d.node_kind() != K::InitDeclarator || d.field(F::Value)?.id() != top.id() {
        return None;
    }
    let name = syntax::declarator_name(s, d.field(F::Declarator)?)?;
    Some((name, d))
}

/// Folds the open comparisons `checks` (index into `out`, comparison node) whose flags one
/// expression of the same function combines.
pub(super) fn fold(s: &Src, checks: &[(usize, Node)], out: &mut [Finding]) {
    // Function -> flag name -> (its declarator, the findings of its comparisons).
    type Flags<'a> = BTreeMap<&'a str, (Node<'a>, Vec<usize>)>;
    let mut by_fn: HashMap<usize, (Node, Flags)> = HashMap::new();
    for &(i, b) in checks {
        let (Some((name, decl)), Some(func)) = (flag_of(s, b), s.enclosing_function(b)) else {
            continue;
        };
        by_fn
            .entry(func.id())
            .or_insert_with(|| (func, BTreeMap::new()))
            .1
            .entry(name)
            .or_insert_with(|| (decl, Vec::new()))
            .1
            .push(i);
    }
    for (func, flags) in by_fn.into_values() {
        if flags.len() < 2 {
            continue;
        }
        // Union the flags each use combines; the first such use names the group's test.
        let names: Vec<&str> = flags.keys().copied().collect();
        let mut group: Vec<usize> = (0..names.len()).collect();
        fn root(g: &mut [usize], mut x: usize) -> usize {
            while g[x] != x {
                g[x] = g[g[x]];
                x = g[x];
            }
            x
        }
        let mut test_of: BTreeMap<usize, (u32, String)> = BTreeMap::new();
        for id in s.descendants(func, K::Identifier) {
            let Some(k) = names.iter().position(|n| *n == s.text(id)) else {
                continue;
            };
            if flags[names[k]].0.byte_range().contains(&id.start_byte()) {
                continue;
            }
            let top = logical_top(s, id);
            let met: Vec<usize> = syntax::identifiers(s, top)
                .into_iter()
                .filter_map(|n| names.iter().position(|x| *x == n))
                .collect();
            if met.iter().any(|m| *m != k) {
                let line = s.line(top.start_byte()) as u32 + 1;
                for m in met {
                    let (a, b) = (root(&mut group, k), root(&mut group, m));
                    group[b] = a;
                }
                let r = root(&mut group, k);
                test_of
                    .entry(r)
                    .or_insert_with(|| (line, s.text(top).to_string()));
            }
        }
        // Group root -> (its flags, the findings of their comparisons).
        let mut members: BTreeMap<usize, (Vec<&str>, Vec<usize>)> = BTreeMap::new();
        for k in 0..names.len() {
            let r = root(&mut group, k);
            let m = members.entry(r).or_default();
            m.0.push(names[k]);
            m.1.extend(flags[names[k]].1.iter().copied());
        }
        for (r, (group_flags, mut idx)) in members {
            let Some((test_line, test)) = test_of
                .iter()
                .find(|(k, _)| root(&mut group, **k) == r)
                .map(|(_, v)| v.clone())
            else {
                continue;
            };
            if idx.len() < 2 {
                continue;
            }
            idx.sort_by_key(|&i| (out[i].line, out[i].column));
            let carrier = *idx
                .iter()
                .find(|&&i| out[i].status == Status::Remediation)
                .unwrap_or(&idx[0]);
            // The other flags, by where they are declared.
            let own = flags
                .iter()
                .find(|(_, (_, is))| is.contains(&carrier))
                .map(|(n, _)| *n);
            let mut others: Vec<(usize, &str)> = group_flags
                .iter()
                .filter(|n| Some(**n) != own)
                .map(|n| (s.line(flags[n].0.start_byte()) + 1, *n))
                .collect();
            others.sort();
            let others: Vec<String> = others
                .iter()
                .map(|(line, n)| format!("`{n}` (line {line})"))
                .collect();
            let (cline, ctext) = {
                let c = &out[carrier];
                (
                    c.line,
                    String::from_utf8_lossy(&s.bytes()[c.byte_range.0..c.byte_range.1])
                        .into_owned(),
                )
            };
            let test: String = test.split_whitespace().collect::<Vec<_>>().join(" ");
            let c = &mut out[carrier];
            c.message.push_str(&format!(
                "; {}, with {}, makes one test, `{test}` on line {test_line}: one decision by NVIDIA compute capability",
                own.map_or_else(|| "its flag".to_string(), |n| format!("its flag `{n}`")),
                others.join(" and ")
            ));
            for &i in &idx {
                if i != carrier {
                    out[i].settle(&format!(
                        " (part of the test `{test}` on line {test_line}, whose finding on line {cline}, `{ctext}`, carries it: one decision)"
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{fires_open, hazard_findings};

    /// FlashAttention's guard: three flags, one `TORCH_CHECK` over them: one open finding,
    /// carried by a comparison that needs a change. Twin: the same flags used apart (each in
    /// its own `if`) stay one finding each.
    #[test]
    fn capability_flags_one_test_combines_are_one_finding() {
        let src = "void f(cudaDeviceProp dprops) {\n  bool is_sm8x = dprops.major == 8 && dprops.minor >= 0;\n  bool is_sm90 = dprops.major == 9 && dprops.minor == 0;\n  bool is_sm110 = dprops.major == 11 && dprops.minor == 0;\n  CHECK(is_sm90 || is_sm8x || is_sm110, \"Ampere or newer\");\n}\n";
        let open = fires_open(src, "HP402");
        assert_eq!(open.len(), 1, "{open:?}");
        let all = hazard_findings(src);
        let carrier = all
            .iter()
            .find(|f| f.rule == "HP402" && f.line == open[0])
            .unwrap();
        assert!(
            carrier.status == crate::gate::Status::Remediation
                && carrier
                    .message
                    .contains("`is_sm90 || is_sm8x || is_sm110` on line 5"),
            "{}",
            carrier.message
        );
        let apart = "void f(cudaDeviceProp dprops) {\n  bool is_sm8x = dprops.major == 8 && dprops.minor >= 0;\n  bool is_sm90 = dprops.major == 9 && dprops.minor == 0;\n  if (is_sm90) g();\n  if (is_sm8x) h();\n}\n";
        assert_eq!(fires_open(apart, "HP402"), [2, 3]);
    }
}
