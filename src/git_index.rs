//! The files a git repository tracks, read from its index (`.git/index`, versions 2 to 4)
//! without running git. `.gitignore` only keeps untracked files out of git: a repository may
//! commit a file its own ignore rules name (graphblast commits the `Makefile` that its
//! `.gitignore` lists to hide CMake's generated ones), and such a file is part of the project.
//! The walk honours ignore files, so it asks this module which ignored files are tracked.
//!
//! The index is read as untrusted bytes: every offset is bounds-checked, the entry count is
//! capped by the file's size, and a path is returned only when each of its components is a
//! plain name (no `.`, `..`, empty or absolute part). Anything malformed gives `None`, and the
//! walk goes on as before.

use std::path::{Component, Path, PathBuf};

/// The largest index read (a repository of a million files has an index of about 100 MB).
const MAX_INDEX: u64 = 256 << 20;

/// The work tree's top folder and the regular files its index tracks, relative to it, for the
/// repository holding `dir` (its own `.git`, or the nearest above it).
pub fn tracked(dir: &Path) -> Option<(PathBuf, Vec<String>)> {
    let start = dir.canonicalize().ok()?;
    let mut top = start.as_path();
    let git = loop {
        let g = top.join(".git");
        if std::fs::symlink_metadata(&g).is_ok() {
            break g;
        }
        top = top.parent()?;
    };
    let meta = std::fs::symlink_metadata(&git).ok()?;
    let gitdir = if meta.is_dir() {
        git
    } else if meta.is_file() && meta.len() < 4096 {
        // A linked work tree or a submodule: `gitdir: <path>`, relative to the top folder.
        let text = std::fs::read_to_string(&git).ok()?;
        let p = text.trim().strip_prefix("gitdir:")?.trim();
        top.join(p)
    } else {
        return None;
    };
    let index = gitdir.join("index");
    let meta = std::fs::metadata(&index).ok()?;
    if !meta.is_file() || meta.len() > MAX_INDEX {
        return None;
    }
    let bytes = std::fs::read(&index).ok()?;
    Some((top.to_path_buf(), parse(&bytes)?))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

/// The paths of the regular files (mode 100644 or 100755) an index lists.
pub fn parse(b: &[u8]) -> Option<Vec<String>> {
    if b.get(0..4)? != b"DIRC" {
        return None;
    }
    let version = be32(b, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(b, 8)? as usize;
    // Every entry takes at least 62 bytes: a larger count is a malformed index.
    if count > b.len() / 62 {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    let mut at = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        let mode = be32(b, start + 24)?;
        let flags = be16(b, start + 60)?;
        at = start + 62;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        let path: Vec<u8> = if version == 4 {
            // The number of bytes to drop from the previous path, then the rest, NUL-ended.
            let mut byte = *b.get(at)?;
            at += 1;
            let mut strip = u64::from(byte & 0x7f);
            while byte & 0x80 != 0 {
                byte = *b.get(at)?;
                at += 1;
                strip = strip.checked_add(1)?.checked_mul(128)? + u64::from(byte & 0x7f);
            }
            let keep = prev.len().checked_sub(usize::try_from(strip).ok()?)?;
            let end = at + b.get(at..)?.iter().position(|&c| c == 0)?;
            let mut p = prev[..keep].to_vec();
            p.extend_from_slice(&b[at..end]);
            at = end + 1;
            p
        } else {
            let end = at + b.get(at..)?.iter().position(|&c| c == 0)?;
            let p = b[at..end].to_vec();
            // 1 to 8 NULs pad the entry to a multiple of 8 bytes.
            let len = end - start;
            at = start + (len + 8) / 8 * 8;
            p
        };
        prev.clone_from(&path);
        if mode & 0o170000 != 0o100000 {
            continue;
        }
        let Ok(p) = String::from_utf8(path) else {
            continue;
        };
        if !p.is_empty()
            && Path::new(&p)
                .components()
                .all(|c| matches!(c, Component::Normal(_)))
        {
            out.push(p);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index entry of version 2: 62 bytes of stat, object id and flags, the path, NUL padding.
    fn entry(path: &str, mode: u32) -> Vec<u8> {
        let mut e = vec![0u8; 62];
        e[24..28].copy_from_slice(&mode.to_be_bytes());
        e[60..62].copy_from_slice(&(path.len() as u16).to_be_bytes());
        e.extend_from_slice(path.as_bytes());
        let len = e.len();
        e.resize((len + 8) / 8 * 8, 0);
        e
    }

    fn index(entries: &[(&str, u32)]) -> Vec<u8> {
        let mut b = b"DIRC".to_vec();
        b.extend_from_slice(&2u32.to_be_bytes());
        b.extend_from_slice(&(entries.len() as u32).to_be_bytes());
        for (p, m) in entries {
            b.extend(entry(p, *m));
        }
        b
    }

    /// Regular files are listed; a symbolic link, a submodule and a path with `..` are not; a
    /// truncated or oversized index gives nothing.
    #[test]
    fn reads_the_regular_files_of_a_version_2_index() {
        let b = index(&[
            ("Makefile", 0o100644),
            ("src/k.cu", 0o100755),
            ("link", 0o120000),
            ("ext/cub", 0o160000),
            ("../escape", 0o100644),
        ]);
        assert_eq!(parse(&b).unwrap(), ["Makefile", "src/k.cu"]);
        assert!(parse(&b[..b.len() - 9]).is_none());
        let mut huge = b.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(parse(&huge).is_none());
        assert!(parse(b"DIRX").is_none());
    }

    /// Version 4 compresses each path against the one before it.
    #[test]
    fn reads_prefix_compressed_paths_of_a_version_4_index() {
        let mut b = b"DIRC".to_vec();
        b.extend_from_slice(&4u32.to_be_bytes());
        b.extend_from_slice(&2u32.to_be_bytes());
        for (strip, rest) in [(0u8, "src/a.cu"), (4u8, "b.cu")] {
            let mut e = vec![0u8; 62];
            e[24..28].copy_from_slice(&0o100644u32.to_be_bytes());
            e.push(strip);
            e.extend_from_slice(rest.as_bytes());
            e.push(0);
            b.extend(e);
        }
        assert_eq!(parse(&b).unwrap(), ["src/a.cu", "src/b.cu"]);
    }
}
