//! Safe file access for a tool that runs on repositories people did not write: what may be
//! opened (regular files only: a FIFO or a device named `hipport-migration.toml` must not hang
//! a run), where a write may land (never outside the chosen root, never onto a symlink, a FIFO,
//! a device or a read-only file), and the cleanup of temporary files when the run is
//! interrupted (SIGINT/SIGTERM).
//!
//! Writes are atomic: a temporary `.hipport-tmp-PID-XXXXXX` file in the destination's
//! directory, written, fsynced, given the destination's permissions (and, when run as root, its
//! owner), renamed over the destination, then the directory is fsynced. A destination with other
//! hard links is replaced by a new file: the other names keep the old content (as with
//! `sed -i`); hipport says so on stderr.
//!
//! SIGINT, SIGTERM and SIGHUP remove the temporary files of writes in flight. SIGKILL cannot be
//! caught, so the next run that writes into a directory first removes the temporary files there
//! that an earlier hipport left: named `.hipport-tmp-PID-…`, regular, owned by the same user,
//! and whose process `PID` no longer exists.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files alive now, removed by the signal thread before the process dies.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Directories already swept for stale temporary files in this run.
static SWEPT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The prefix of hipport's temporary files.
const TEMP_PREFIX: &str = ".hipport-tmp-";

/// What kind of file system object `m` is, in words.
pub fn kind_of(m: &std::fs::Metadata) -> &'static str {
    let t = m.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Errors unless `path` (following symlinks) is a regular file: checked before opening, so a
/// FIFO or a device is reported instead of read (which could block forever).
pub fn require_regular(path: &Path) -> io::Result<()> {
    let m = std::fs::metadata(path)?;
    if m.is_file() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "{} is {}, not a regular file: not read",
            path.display(),
            kind_of(&m)
        )))
    }
}

/// Reads a file that must be regular (see [`require_regular`]).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    require_regular(path)?;
    std::fs::read(path)
}

/// Reads at most `limit` bytes of the regular file `path`, for inputs whose size hipport does
/// not control (benchmark results, arrays to compare, recorded evidence). A FIFO, device, socket
/// or directory is refused by kind before it is opened; a file larger than `limit` is refused by
/// size before it is read, and again while reading (a file that grows). The open is
/// non-blocking and the opened handle is checked again, so a file swapped for a FIFO between
/// the check and the open cannot block the run. Messages name neither the path (the caller
/// does) nor any of the content.
pub fn read_regular_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let refuse = |m: &std::fs::Metadata| -> io::Result<()> {
        if !m.is_file() {
            return Err(io::Error::other(format!(
                "{}, not a regular file: not read",
                kind_of(m)
            )));
        }
        if m.len() > limit {
            return Err(io::Error::other(format!(
                "{} bytes, more than the {} limit for this input: not read",
                m.len(),
                show_limit(limit)
            )));
        }
        Ok(())
    };
    refuse(&std::fs::metadata(path)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    refuse(&file.metadata()?)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::other(format!(
            "grew past the {} limit for this input while being read: not read",
            show_limit(limit)
        )));
    }
    Ok(bytes)
}

/// `64 MiB`, `1 GiB`, `4096 bytes`.
fn show_limit(limit: u64) -> String {
    match limit {
        l if l >= 1 << 30 && l % (1 << 30) == 0 => format!("{} GiB", l >> 30),
        l if l >= 1 << 20 && l % (1 << 20) == 0 => format!("{} MiB", l >> 20),
        l => format!("{l} bytes"),
    }
}

/// Checks that `dest` may be replaced: absent, or a regular file (not a symlink) that is not
/// read-only.
pub fn check_destination(dest: &Path) -> io::Result<()> {
    let m = match std::fs::symlink_metadata(dest) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if !m.file_type().is_file() {
        return Err(io::Error::other(format!(
            "{} is {}: hipport only replaces regular files",
            dest.display(),
            kind_of(&m)
        )));
    }
    if m.permissions().readonly() {
        return Err(io::Error::other(format!(
            "{} is read-only: not replaced",
            dest.display()
        )));
    }
    Ok(())
}

/// `path` made absolute and resolved as far as it exists (the rest appended as written, with
/// `.` and `..` applied), so a destination not yet created can be compared with a root.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let parts: Vec<std::path::Component> = abs.components().collect();
    // The longest prefix that exists is resolved by the file system, the rest as written.
    for cut in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..cut].iter().collect();
        if let Ok(c) = std::fs::canonicalize(&prefix) {
            let mut out = c;
            for part in &parts[cut..] {
                match part {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::Normal(n) => out.push(n),
                    _ => {}
                }
            }
            return Ok(out);
        }
    }
    Ok(abs)
}

/// Errors unless `dir` lies inside `root` (both resolved).
pub fn require_inside(root: &Path, dir: &Path) -> io::Result<()> {
    let r = resolve(root)?;
    let d = resolve(dir)?;
    if d.starts_with(&r) {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "{} resolves to {}, outside {}: not written",
            dir.display(),
            d.display(),
            r.display()
        )))
    }
}

/// Makes sure the directory `dir` of a destination exists. Inside a `root` the missing
/// directories are created, after checking that they would lie inside it (and checked again
/// once made, against links swapped in meanwhile); without a root nothing is created: a
/// destination in a directory that does not exist (`-o /nonexistent/dir/x.cu`) is an error.
fn make_dirs(dir: &Path, root: Option<&Path>) -> io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    match root {
        Some(root) => {
            require_inside(root, dir)?;
            std::fs::create_dir_all(dir)?;
            require_inside(root, dir)
        }
        None if dir.is_dir() => Ok(()),
        None => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "directory {} does not exist: not created (hipport creates directories only inside the tree it writes)",
                dir.display()
            ),
        )),
    }
}

/// Makes `root/name` a real directory (not a symlink, inside `root`) and returns it.
pub fn real_dir_inside(root: &Path, name: &str) -> io::Result<PathBuf> {
    let dir = root.join(name);
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.file_type().is_dir() => {}
        Ok(m) => {
            return Err(io::Error::other(format!(
                "{} is {}, not a directory inside the project: hipport writes only into a real `{name}` directory (remove it, or name another place with --out)",
                dir.display(),
                kind_of(&m)
            )))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => std::fs::create_dir(&dir)?,
        Err(e) => return Err(e),
    }
    require_inside(root, &dir)?;
    Ok(dir)
}

/// Writes `bytes` to `dest` atomically, never through a symlink and never outside `root`
/// (when given): the directories up to `dest` are created inside `root` and checked. The
/// permissions are those of `like`, else of the file replaced, else 0644.
pub fn write_atomic(
    dest: &Path,
    bytes: &[u8],
    like: Option<&Path>,
    root: Option<&Path>,
) -> io::Result<()> {
    let staged = stage(dest, bytes, like, root, true)?;
    let dir = staged.dir.clone();
    commit(staged)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// One write of [`write_all_atomic`]: destination, new content, the file whose permissions it
/// takes, and the root it must stay inside.
pub struct Write<'a> {
    pub dest: PathBuf,
    pub bytes: &'a [u8],
    pub like: Option<&'a Path>,
    pub root: Option<&'a Path>,
}

/// Many atomic writes (`port --out`, `--write`) with the guarantees of [`write_atomic`],
/// batched: every new content goes to a registered temporary file first (in parallel), then
/// all of them are fsynced by many threads at once (the file system commits concurrent syncs
/// together, where one thread per core would wait for each in turn), and only then are they
/// renamed over their destinations and each directory is fsynced once. A crash or a signal
/// leaves every destination old or new, never partial. One result per write, in order.
pub fn write_all_atomic(writes: &[Write<'_>]) -> Vec<io::Result<()>> {
    use rayon::prelude::*;
    let mut staged: Vec<io::Result<Staged>> = writes
        .par_iter()
        .map(|w| stage(&w.dest, w.bytes, w.like, w.root, false))
        .collect();
    let synced = in_parallel_io(&staged, |s| match s {
        Ok(s) => std::fs::File::open(&s.tmp).and_then(|f| f.sync_all()),
        Err(_) => Ok(()),
    });
    for (s, r) in staged.iter_mut().zip(synced) {
        if let (Ok(_), Err(e)) = (&s, r) {
            *s = Err(e);
        }
    }
    let dirs: Vec<PathBuf> = staged
        .iter()
        .filter_map(|s| s.as_ref().ok().map(|s| s.dir.clone()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let committed: Vec<io::Result<()>> = staged.into_iter().map(|s| commit(s?)).collect();
    in_parallel_io(&dirs, |d| std::fs::File::open(d).and_then(|f| f.sync_all()));
    committed
}

/// Runs a blocking I/O call on every item with up to 32 threads (fsync waits on the disk, not
/// on a core); the results in order.
fn in_parallel_io<T: Sync>(
    items: &[T],
    f: impl Fn(&T) -> io::Result<()> + Sync,
) -> Vec<io::Result<()>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<io::Result<()>>>> =
        items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..items.len().clamp(1, 32) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or(Ok(()))
        })
        .collect()
}

/// A new content waiting in a registered temporary file next to its destination.
struct Staged {
    dest: PathBuf,
    dir: PathBuf,
    tmp: tempfile::TempPath,
}

/// Checks `dest`, creates its directories inside `root`, and writes `bytes` to a registered
/// temporary file beside it with the right permissions and owner (fsynced when `sync`).
fn stage(
    dest: &Path,
    bytes: &[u8],
    like: Option<&Path>,
    root: Option<&Path>,
    sync: bool,
) -> io::Result<Staged> {
    let dir = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    make_dirs(dir, root)?;
    check_destination(dest)?;
    let old = std::fs::symlink_metadata(dest).ok();
    let mut tmp = registered_temp(dir)?;
    let tmp_path = tmp.path().to_path_buf();
    let result = (|| {
        tmp.write_all(bytes)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            let like_meta = like.and_then(|l| std::fs::metadata(l).ok());
            let mode = like_meta
                .as_ref()
                .or(old.as_ref())
                .map_or(0o644, |m| m.permissions().mode() & 0o7777);
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))?;
            if let Some(o) = &old {
                // Keeps the owner where we may (as root); elsewhere the file is ours anyway.
                let mine = tmp.as_file().metadata()?;
                if mine.uid() != o.uid() || mine.gid() != o.gid() {
                    let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(o.uid()), Some(o.gid()));
                }
                if o.nlink() > 1 {
                    crate::errln!(
                        "hipport: note: {} had {} hard links; it is replaced by a new file and the other links keep the old content",
                        dest.display(),
                        o.nlink()
                    );
                }
            }
        }
        if sync {
            tmp.as_file().sync_all()?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        drop(tmp);
        unregister(&tmp_path);
        return Err(e);
    }
    Ok(Staged {
        dest: dest.to_path_buf(),
        dir: dir.to_path_buf(),
        tmp: tmp.into_temp_path(),
    })
}

/// Renames a staged temporary file over its destination.
fn commit(s: Staged) -> io::Result<()> {
    let tmp_path = s.tmp.to_path_buf();
    // The rename and the unregistering happen under the lock, so the signal thread never
    // removes a path that has just become the destination.
    let guard = TEMPS.lock().unwrap_or_else(|e| e.into_inner());
    let persisted = s.tmp.persist(&s.dest).map(|_| ()).map_err(|e| e.error);
    drop(guard);
    unregister(&tmp_path);
    persisted
}

/// Copies the regular file `src` to `dest` atomically (streamed, not read into memory), with
/// the same checks as [`write_atomic`]: inside `root`, never onto a symlink or special file.
pub fn copy_atomic(src: &Path, dest: &Path, root: &Path) -> io::Result<()> {
    require_regular(src)?;
    let dir = dest.parent().unwrap_or(Path::new("."));
    make_dirs(dir, Some(root))?;
    check_destination(dest)?;
    let mut tmp = registered_temp(dir)?;
    let tmp_path = tmp.path().to_path_buf();
    let result = (|| {
        let mut from = std::fs::File::open(src)?;
        io::copy(&mut from, tmp.as_file_mut())?;
        tmp.as_file()
            .set_permissions(from.metadata()?.permissions())?;
        let guard = TEMPS.lock().unwrap_or_else(|e| e.into_inner());
        let persisted = tmp.persist(dest).map(|_| ()).map_err(|e| e.error);
        drop(guard);
        persisted
    })();
    unregister(&tmp_path);
    result
}

/// Writes a scratch file (verify's translated tree): checked like [`write_atomic`] (inside
/// `root`, never onto a symlink or special file) but neither atomic nor fsynced.
pub fn write_scratch(dest: &Path, bytes: &[u8], root: &Path) -> io::Result<()> {
    let dir = dest.parent().unwrap_or(Path::new("."));
    make_dirs(dir, Some(root))?;
    check_destination(dest)?;
    std::fs::write(dest, bytes)
}

/// A new temporary file in `dir`, registered for the signal thread. Created under the lock, so
/// a signal never finds a temporary file that is on disk but not yet registered.
fn registered_temp(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    sweep_stale(dir);
    let mut temps = TEMPS.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
        .tempfile_in(dir)?;
    temps.push(tmp.path().to_path_buf());
    Ok(tmp)
}

/// Removes, once per directory and run, the temporary files an earlier hipport killed by
/// SIGKILL left in `dir` (see the module comment for what counts as one).
fn sweep_stale(dir: &Path) {
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if swept.iter().any(|d| d == dir) {
            return;
        }
        swept.push(dir.to_path_buf());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = stale_owner(&name.to_string_lossy()) else {
            continue;
        };
        let path = e.path();
        let Ok(m) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if m.file_type().is_file() && ours(&m) && std::fs::remove_file(&path).is_ok() {
            crate::errln!(
                "hipport: note: removed {}, a temporary file left by an interrupted hipport (process {pid})",
                path.display()
            );
        }
    }
}

/// The process id in a temporary file name of a hipport that no longer runs.
fn stale_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || !random.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let pid: u32 = pid.parse().ok()?;
    (pid != std::process::id() && !alive(pid)).then_some(pid)
}

#[cfg(unix)]
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn alive(_pid: u32) -> bool {
    true
}

#[cfg(unix)]
fn ours(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: getuid has no preconditions.
    m.uid() == unsafe { libc::getuid() }
}

#[cfg(not(unix))]
fn ours(_m: &std::fs::Metadata) -> bool {
    false
}

fn unregister(p: &Path) {
    let mut t = TEMPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = t.iter().position(|x| x == p) {
        t.swap_remove(i);
    }
}

/// Catches every signal whose default action ends the process and that can be caught
/// (SIGINT, SIGTERM, SIGHUP, SIGQUIT, …) and starts a thread that waits for the first one: it
/// removes the temporary files of writes in flight, then lets the signal kill the process as it
/// would have (same signal, same exit status). Call first thing in `main`. Child processes start
/// with the default handlers (`exec` resets caught signals).
#[cfg(unix)]
pub fn install_signal_cleanup() {
    use signal_hook::consts::signal::{
        SIGALRM, SIGHUP, SIGINT, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGXCPU,
        SIGXFSZ,
    };
    let caught = [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
        SIGXFSZ,
    ];
    let Ok(mut signals) = signal_hook::iterator::Signals::new(caught) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("hipport-signals".into())
        .spawn(move || {
            let Some(sig) = signals.forever().next() else {
                return;
            };
            let temps = TEMPS.lock().unwrap_or_else(|e| e.into_inner());
            for p in temps.iter() {
                let _ = std::fs::remove_file(p);
            }
            // Die of the signal, as without the handler (keeping the lock: no new rename).
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        });
}

#[cfg(not(unix))]
pub fn install_signal_cleanup() {}

/// Runs one file's work; a panic inside becomes that file's error (with the panic message), so
/// one bad file never ends a run. Every per-file pass (sources, inventory) goes through here.
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        format!("internal error while processing (please report): {msg}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn special_files_and_links_are_not_replaced_or_read() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        let fifo = r.join("fifo");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let e = require_regular(&fifo).unwrap_err().to_string();
        assert!(e.contains("a FIFO"), "{e}");
        let e = write_atomic(&fifo, b"x", None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a FIFO"), "{e}");
        let e = require_regular(Path::new("/dev/null"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a device"), "{e}");
        std::fs::write(r.join("target"), "keep").unwrap();
        std::os::unix::fs::symlink(r.join("target"), r.join("link")).unwrap();
        let e = write_atomic(&r.join("link"), b"x", None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read(r.join("target")).unwrap(), b"keep");
        let ro = r.join("ro");
        std::fs::write(&ro, "keep").unwrap();
        let mut p = std::fs::metadata(&ro).unwrap().permissions();
        p.set_readonly(true);
        std::fs::set_permissions(&ro, p).unwrap();
        let e = write_atomic(&ro, b"x", None, None).unwrap_err().to_string();
        assert!(e.contains("read-only"), "{e}");
        assert_eq!(std::fs::read(&ro).unwrap(), b"keep");
    }

    #[cfg(unix)]
    #[test]
    fn writes_stay_inside_the_root_and_keep_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("out");
        let outside = d.path().join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("sub")).unwrap();
        let e = write_atomic(&root.join("sub/a.cu"), b"x", None, Some(&root))
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside"), "{e}");
        assert!(!outside.join("a.cu").exists());
        let f = root.join("deep/a.cu");
        std::fs::create_dir_all(root.join("deep")).unwrap();
        std::fs::write(&f, "old").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&f, b"new", None, Some(&root)).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
        let names: Vec<_> = std::fs::read_dir(root.join("deep")).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }

    #[cfg(unix)]
    #[test]
    fn stale_temporary_files_of_dead_runs_are_removed_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        // A process id that cannot exist (above Linux's pid_max limit of 2^22).
        let dead = format!("{TEMP_PREFIX}{}-AbC123", (1u32 << 22) + 7);
        let mine = format!("{TEMP_PREFIX}{}-AbC123", std::process::id());
        let other = ".hipport-notes.txt".to_string();
        let no_random = format!("{TEMP_PREFIX}{}-", (1u32 << 22) + 7);
        for n in [&dead, &mine, &other, &no_random] {
            std::fs::write(dir.join(n), "x").unwrap();
        }
        std::fs::create_dir(dir.join(format!("{TEMP_PREFIX}{}-dir1", (1u32 << 22) + 8))).unwrap();
        write_atomic(&dir.join("a.cu"), b"new", None, Some(dir)).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = vec![
            "a.cu".to_string(),
            mine,
            other,
            no_random,
            format!("{TEMP_PREFIX}{}-dir1", (1u32 << 22) + 8),
        ];
        want.sort();
        assert_eq!(left, want);
        assert!(
            stale_owner(&format!("{TEMP_PREFIX}1-abc")).is_none(),
            "init is alive"
        );
    }

    #[test]
    fn real_dir_inside_refuses_a_symlinked_state_directory() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("p");
        std::fs::create_dir_all(&root).unwrap();
        assert!(real_dir_inside(&root, ".hipport").unwrap().is_dir());
        #[cfg(unix)]
        {
            let other = d.path().join("q");
            std::fs::create_dir_all(&other).unwrap();
            std::os::unix::fs::symlink(d.path(), other.join(".hipport")).unwrap();
            let e = real_dir_inside(&other, ".hipport").unwrap_err().to_string();
            assert!(e.contains("symbolic link"), "{e}");
        }
        let e = resolve(Path::new("/nonexistent-dir/x/../y")).unwrap();
        assert_eq!(e, Path::new("/nonexistent-dir/y"));
    }
}
