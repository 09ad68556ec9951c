//! The flags every command has, as cargo and ruff have them: `-q/--quiet`, `-v/--verbose` and
//! `--color auto|always|never`. They are read once by [`set`] before the command runs and then
//! only asked ([`quiet`], [`verbose`], [`colour`]), so a renderer deep in a command needs no
//! extra parameter to honour them.

use clap::Args;
use std::sync::atomic::{AtomicU8, Ordering};

/// When to colour output meant for a terminal.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug, Clone, Default)]
pub struct GlobalArgs {
    /// Print less: no progress, no per-finding lines on stderr (the report itself is kept).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more on stderr: the settings in effect (target, its source, configuration).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Colour: auto (a terminal without NO_COLOR), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// 0 quiet, 1 normal, 2 and up verbose.
static LEVEL: AtomicU8 = AtomicU8::new(1);
/// 0 auto, 1 always, 2 never.
static COLOR: AtomicU8 = AtomicU8::new(0);

/// Records the flags of this run.
pub fn set(g: &GlobalArgs) {
    let level = if g.quiet {
        0
    } else {
        1u8.saturating_add(g.verbose)
    };
    LEVEL.store(level, Ordering::Relaxed);
    COLOR.store(
        match g.color {
            ColorChoice::Auto => 0,
            ColorChoice::Always => 1,
            ColorChoice::Never => 2,
        },
        Ordering::Relaxed,
    );
}

/// `-q` was given.
pub fn quiet() -> bool {
    LEVEL.load(Ordering::Relaxed) == 0
}

/// `-v` was given (at least once).
pub fn verbose() -> bool {
    LEVEL.load(Ordering::Relaxed) >= 2
}

/// Whether output to stdout is coloured: `--color always`, or `auto` on a terminal without
/// `NO_COLOR` (<https://no-color.org>: any non-empty value).
pub fn colour() -> bool {
    use std::io::IsTerminal;
    match COLOR.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}
