//! Printing a report for `scan` and `check` (colour on a terminal for text), and the Markdown
//! job summary (`--summary FILE`, or `$GITHUB_STEP_SUMMARY` with `--format github`).

use crate::render::{self, markdown, Format};
use crate::report::Report;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the report to stdout; text is coloured as `--color` says (on a terminal without
/// `NO_COLOR` by default).
pub fn print(r: &Report, format: Format) -> std::io::Result<()> {
    use codespan_reporting::term::termcolor::{Ansi, NoColor};
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let colour = format == Format::Text && super::shape::colour();
    let written = if colour {
        render::render(r, format, &mut Ansi::new(&mut out))
    } else {
        render::render(r, format, &mut NoColor::new(&mut out))
    };
    super::stdio::tolerate_closed(written.and_then(|()| out.flush()))
}

/// Writes the report to `-o FILE` (atomically, never coloured), or to stdout without one.
pub fn print_to(r: &Report, format: Format, file: Option<&Path>) -> anyhow::Result<()> {
    match file {
        None => Ok(print(r, format)?),
        Some(f) => {
            use codespan_reporting::term::termcolor::NoColor;
            let mut buf = Vec::new();
            render::render(r, format, &mut NoColor::new(&mut buf))?;
            emit(Some(f), &buf)
        }
    }
}

/// Writes finished output to `-o FILE` (atomically), or to stdout without one.
pub fn emit(file: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    match file {
        Some(f) if f != Path::new("-") => {
            crate::safety::write_atomic(f, bytes, None, None)
                .with_context(|| format!("cannot write {}", f.display()))?;
            Ok(())
        }
        _ => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            super::stdio::tolerate_closed(out.write_all(bytes).and_then(|()| out.flush()))?;
            Ok(())
        }
    }
}

/// Where the Markdown summary goes: the flag, else `$GITHUB_STEP_SUMMARY` for `--format github`.
pub fn summary_path(flag: Option<&Path>, format: Format) -> Option<PathBuf> {
    flag.map(Path::to_path_buf).or_else(|| {
        (format == Format::Github)
            .then(|| std::env::var_os("GITHUB_STEP_SUMMARY"))
            .flatten()
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

/// Appends the Markdown report to the summary file (GitHub collects appended step summaries).
/// The file is created if absent (its directory must exist); a symlink, FIFO, device or
/// directory is refused without being opened for writing, so a name in the tree cannot send
/// the report elsewhere or block the run.
pub fn write_summary(file: &Path, r: &Report) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    markdown::write(r, &mut buf)?;
    let mut f =
        open_append(file).with_context(|| format!("cannot write summary {}", file.display()))?;
    f.write_all(&buf)
        .with_context(|| format!("cannot write summary {}", file.display()))
}

fn open_append(file: &Path) -> std::io::Result<std::fs::File> {
    use std::io::{Error, ErrorKind};
    if let Ok(m) = std::fs::symlink_metadata(file) {
        if !m.file_type().is_file() {
            return Err(Error::other(format!(
                "{} is {}, not a regular file: not written",
                file.display(),
                crate::safety::kind_of(&m)
            )));
        }
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Against a swap between the check and the open: no link followed, no wait on a FIFO.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let f = options.open(file)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{} is not a regular file: not written", file.display()),
        ));
    }
    Ok(f)
}
