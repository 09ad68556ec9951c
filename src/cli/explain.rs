//! `hipport explain CODE`: a rule's documentation, from its fixed sections.

use crate::gate::exit;
use crate::rules;
use clap::Args;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// Rule code (e.g. HP101) or name; `all` lists every rule.
    pub code: String,
}

pub fn run(a: ExplainArgs) -> anyhow::Result<i32> {
    if a.code == "all" || a.code == "list" {
        for r in rules::all() {
            println!(
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
    let Some(r) = rules::by_code(&a.code) else {
        eprintln!("hipport: no rule `{}` (try `hipport explain all`)", a.code);
        return Ok(exit::ERROR);
    };
    println!("{} {}: {}", r.id.code, r.id.name, r.summary);
    println!();
    println!(
        "category: {}   status: {}   phase: {}",
        r.category, r.status, r.phase
    );
    println!();
    println!("Why it matters\n  {}", r.why);
    println!();
    println!("Flagged");
    for l in r.bad.lines() {
        println!("    {l}");
    }
    println!();
    println!("After the fix");
    for l in r.good.lines() {
        println!("    {l}");
    }
    println!();
    println!("What to do\n  {}", r.fix);
    if !r.references.is_empty() {
        println!();
        println!("References");
        for u in r.references {
            println!("  {u}");
        }
    }
    Ok(exit::OK)
}
