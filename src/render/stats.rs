//! `port --stats` as text: one line per changed or flagged file, then the totals.

use crate::translate::Stats;
use std::io::{self, Write};

pub fn families(s: &Stats) -> String {
    if s.renamed.is_empty() {
        return "-".into();
    }
    s.renamed
        .iter()
        .map(|(k, v)| format!("{k}:{v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn write_line(w: &mut dyn Write, name: &str, s: &Stats) -> io::Result<()> {
    writeln!(
        w,
        "{name}: renamed {} ({}), includes {}+{}, launches {}, fix-ups {}, unported {}, lines changed {}",
        s.renamed_total(),
        families(s),
        s.includes_rewritten,
        s.includes_inserted,
        s.launches_rewritten,
        s.fixups,
        s.unported,
        s.lines_changed
    )
}
