//! Jupyter notebooks (`.ipynb`): their code cells are Python a user runs (trt_pose's demos
//! build and load TensorRT engines only in notebooks). A notebook is JSON; its code is read as
//! Python with every line of a code cell's `source` at the line it has in the file, so findings
//! point at the notebook's own lines. Lines that are no Python (IPython's `!shell` and `%magic`
//! lines, markdown and output cells, the JSON around them) are left empty.

/// The notebook's code cells as Python text, line for line with the file; `None` when the file
/// is no notebook JSON or has no code cell.
pub fn code(bytes: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let nb: serde_json::Value = serde_json::from_str(text).ok()?;
    let cells = nb.get("cells")?.as_array()?;
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<String> = vec![String::new(); lines.len()];
    let mut at = 0usize;
    let mut any = false;
    for cell in cells {
        let Some(source) = cell.get("source") else {
            continue;
        };
        let parts: Vec<&str> = match source {
            serde_json::Value::Array(a) => a.iter().filter_map(|v| v.as_str()).collect(),
            serde_json::Value::String(s) => vec![s.as_str()],
            _ => continue,
        };
        let is_code = cell.get("cell_type").and_then(|t| t.as_str()) == Some("code");
        for part in parts {
            // The part's JSON spelling, found on a line at or after the last one: the file's
            // own lines, in order.
            let Ok(json) = serde_json::to_string(part) else {
                continue;
            };
            let Some(k) = (at..lines.len()).find(|&k| {
                let l = lines[k].trim();
                l == json || l.strip_suffix(',') == Some(json.as_str())
            }) else {
                continue;
            };
            at = k + 1;
            let line = part.trim_end_matches(['\n', '\r']);
            if !is_code || line.contains('\n') {
                continue;
            }
            let magic = line.trim_start().starts_with(['!', '%']);
            if !magic {
                out[k] = line.to_string();
                any = true;
            }
        }
    }
    any.then(|| out.join("\n").into_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": [\n    \"import tensorrt  # in prose\\n\"\n   ]\n  },\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"!pip install torch2trt\\n\",\n    \"import torch\\n\",\n    \"from torch2trt import TRTModule\\n\",\n    \"import tensorrt as trt\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 4\n}\n";

    /// A notebook's code cells are scanned as Python, each finding on the notebook's own line;
    /// twins: the same import in a markdown cell, and a shell line, say nothing.
    #[test]
    fn a_notebooks_code_cells_are_python_at_their_own_lines() {
        let code = String::from_utf8(super::code(NB.as_bytes()).unwrap()).unwrap();
        let lines: Vec<&str> = code.split('\n').collect();
        assert_eq!(lines[16], "import torch");
        assert_eq!(lines[18], "import tensorrt as trt");
        assert_eq!(lines[6], "");
        assert_eq!(lines[15], "");
        let f = scan_bytes("demo.ipynb", FileKind::Notebook, NB.as_bytes());
        let open: Vec<(String, u32)> = f
            .iter()
            .filter(|f| f.status != crate::gate::Status::Pass)
            .map(|f| (f.rule.clone(), f.line))
            .collect();
        assert!(open.iter().any(|(_, l)| *l == 19), "{open:?}");
        assert!(open.iter().all(|(_, l)| *l != 7), "{open:?}");
        // Not a notebook: nothing, no error.
        assert!(super::code(b"{\"cells\": 3}").is_none());
        assert!(super::code(b"not json").is_none());
    }
}
