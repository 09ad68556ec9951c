//! Standard output and error that never panic. `println!`/`eprintln!` panic when the reader
//! went away (`hipport scan . | head -1`, `port --write 2>&1 | head`), which aborts whatever
//! the command was doing, writes included. Here a closed stdout is remembered and every later
//! write to it is dropped, so the command finishes (or abandons) its work cleanly and exits as a
//! `cargo`/`ruff` run would: quietly, with exit 0 when only the consumer stopped reading. A failed
//! write to stderr is ignored: a diagnostic nobody reads is not a reason to stop.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// True once a write to stdout met a closed pipe.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// Writes formatted text to stdout; a closed pipe is remembered and later writes are dropped.
pub fn out(args: std::fmt::Arguments<'_>) {
    if stdout_closed() {
        return;
    }
    let mut lock = io::stdout().lock();
    if let Err(e) = lock.write_fmt(args) {
        note_error(&e);
    }
}

/// Writes formatted text to stderr, ignoring every failure.
pub fn err(args: std::fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Records a stdout write error: a broken pipe closes stdout for the rest of the run.
pub fn note_error(e: &io::Error) {
    if e.kind() == io::ErrorKind::BrokenPipe {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// The result of writing a whole output to stdout, with a broken pipe turned into success (and
/// remembered): the command goes on with what it still has to do (a summary file, writes).
pub fn tolerate_closed(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            note_error(&e);
            Ok(())
        }
        other => other,
    }
}

/// True when `e` (or any error in its chain) is a broken pipe: the reader of our output went
/// away, which ends the run quietly rather than as an I/O error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `println!` that does not panic on a closed stdout.
#[macro_export]
#[doc(hidden)]
macro_rules! outln {
    () => { $crate::cli::stdio::out(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::cli::stdio::out(format_args!("{}\n", format_args!($($arg)*)))
    }};
}

/// `print!` that does not panic on a closed stdout.
#[macro_export]
#[doc(hidden)]
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::stdio::out(format_args!($($arg)*)) };
}

/// `eprintln!` that does not panic on a closed stderr.
#[macro_export]
#[doc(hidden)]
macro_rules! errln {
    () => { $crate::cli::stdio::err(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::cli::stdio::err(format_args!("{}\n", format_args!($($arg)*)))
    }};
}

/// `eprint!` that does not panic on a closed stderr.
#[macro_export]
#[doc(hidden)]
macro_rules! errout {
    ($($arg:tt)*) => { $crate::cli::stdio::err(format_args!($($arg)*)) };
}
