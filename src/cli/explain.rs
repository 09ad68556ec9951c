//! `hipport explain CODE`: a rule's documentation, from its fixed sections.

use crate::catalog;
use crate::gate::exit;
use clap::Args;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// Rule code (e.g. HP101) or name; `all` lists every rule.
    pub code: String,
}

pub fn run(a: ExplainArgs) -> anyhow::Result<i32> {
    if a.code == "all" || a.code == "list" {
        for r in catalog::all() {
            crate::outln!(
                "{}  {:<28} {:<18} {:<12} {}",
                r.id.code,
                r.id.name,
                r.category.as_str(),
                r.status.as_str(),
                r.summary
            );
        }
        return Ok(exit::OK);
    }
    let Some(r) = catalog::by_code(&a.code) else {
        crate::errln!("hipport: no rule `{}` (try `hipport explain all`)", a.code);
        return Ok(exit::ERROR);
    };
    crate::outln!("{} {}: {}", r.id.code, r.id.name, r.summary);
    crate::outln!();
    crate::outln!(
        "category: {}   status: {}   phase: {}",
        r.category,
        r.status,
        r.phase
    );
    crate::outln!();
    crate::outln!("Why it matters\n  {}", r.why);
    crate::outln!();
    crate::outln!("Flagged");
    for l in r.bad.lines() {
        crate::outln!("    {l}");
    }
    crate::outln!();
    crate::outln!("After the fix");
    for l in r.good.lines() {
        crate::outln!("    {l}");
    }
    crate::outln!();
    crate::outln!("What to do\n  {}", r.fix);
    if !r.references.is_empty() {
        crate::outln!();
        crate::outln!("References");
        for u in r.references {
            crate::outln!("  {u}");
        }
    }
    Ok(exit::OK)
}
