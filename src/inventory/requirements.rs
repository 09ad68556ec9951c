//! requirements files (`requirements*.txt`, `constraints*.txt`, with or without `--hash`) and
//! `setup.cfg` `install_requires`. Both are line formats by specification: logical lines with
//! `\` continuations and `#` comments, read line by line here.

use super::packages;
use super::words::Site;
use super::Out;

/// Logical lines: (start offset, text) with continuations joined in place (offsets stay those of
/// the first physical line; continuation markers are blanked).
fn logical_lines(src: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    let mut pos = 0;
    for line in src.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let (start, mut text) = cur.take().unwrap_or((pos, String::new()));
        if let Some(stripped) = body.strip_suffix('\\') {
            text.push_str(stripped);
            text.push(' ');
            cur = Some((start, text));
        } else {
            text.push_str(body);
            out.push((start, text));
        }
        pos += line.len();
    }
    if let Some(c) = cur {
        out.push(c);
    }
    out
}

fn strip_comment(line: &str) -> &str {
    // A comment starts at `#` at line start or after whitespace (URLs keep their fragments).
    let b = line.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'#' && (i == 0 || b[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

pub fn scan(out: &mut Out) {
    let src = String::from_utf8_lossy(out.src()).into_owned();
    for (start, line) in logical_lines(&src) {
        let line = strip_comment(&line);
        let trimmed = line.trim_start();
        let lead = line.len() - trimmed.len();
        if trimmed.starts_with('-') {
            // Options: index URLs matter; -r/-c includes are walked on their own.
            let mut it = trimmed.split_whitespace();
            while let Some(opt) = it.next() {
                let url = if let Some((_, v)) = opt.split_once('=') {
                    Some(v)
                } else if matches!(
                    opt,
                    "-i" | "--index-url" | "--extra-index-url" | "-f" | "--find-links"
                ) {
                    it.next()
                } else {
                    None
                };
                if let Some(url) = url {
                    if let Some(i) = src[start..].find(url) {
                        packages::check_index(
                            out,
                            url,
                            start + i..start + i + url.len(),
                            Site::Build,
                        );
                    }
                }
            }
            continue;
        }
        if let Some(req) = packages::parse_req(trimmed, start + lead) {
            packages::check_req(out, &req);
        }
    }
}

/// `setup.cfg`: `[options] install_requires =` and `[options.extras_require]` values.
pub fn scan_setup_cfg(out: &mut Out) {
    let src = String::from_utf8_lossy(out.src()).into_owned();
    let mut section = String::new();
    let mut in_list = false;
    let mut pos = 0;
    for line in src.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let t = body.trim();
        let indented = body.starts_with([' ', '\t']);
        if t.starts_with('[') && t.ends_with(']') {
            section = t[1..t.len() - 1].trim().to_string();
            in_list = false;
        } else if !indented && t.contains('=') {
            let (k, v) = t.split_once('=').unwrap_or(("", ""));
            let k = k.trim();
            in_list = (section == "options" && matches!(k, "install_requires" | "setup_requires"))
                || section == "options.extras_require";
            let v = v.trim();
            if in_list && !v.is_empty() {
                let at = pos + body.find(v).unwrap_or(0);
                if let Some(req) = packages::parse_req(v, at) {
                    packages::check_req(out, &req);
                }
            }
        } else if in_list && indented && !t.is_empty() && !t.starts_with('#') {
            let at = pos + body.find(t).unwrap_or(0);
            if let Some(req) = packages::parse_req(t, at) {
                packages::check_req(out, &req);
            }
        } else if !indented {
            in_list = false;
        }
        pos += line.len();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    fn rules(kind: FileKind, src: &str) -> Vec<(String, u32, u32)> {
        scan_bytes("requirements.txt", kind, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line, f.column))
            .collect()
    }

    #[test]
    fn requirements_with_hashes_and_indexes() {
        let src = "# torch is pinned below\n--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.3.1+cu121 \\\n    --hash=sha256:abc\nrequests==2.31 # flash-attn later\nnvidia-cublas-cu12==12.1.3.1\ntensorrt==10.0.1\n";
        let r = rules(FileKind::Requirements, src);
        assert_eq!(
            r,
            vec![
                ("HP822".into(), 2, 19),
                ("HP820".into(), 3, 1),
                ("HP820".into(), 6, 1),
                ("HP821".into(), 7, 1),
            ]
        );
    }

    #[test]
    fn setup_cfg_install_requires() {
        let src = "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n    cupy-cuda12x>=13\n";
        let r = rules(FileKind::SetupCfg, src);
        assert_eq!(r, vec![("HP820".into(), 6, 5)]);
    }
}
