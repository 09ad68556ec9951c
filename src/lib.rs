//! hipport: port CUDA application stacks to AMD ROCm/HIP.
//!
//! Data flows one way: args → settings → walk → per file (read → lex/parse → rewrite and rules)
//! → sorted report → renderers.

// First: its `rule!` macro declares the rules of both families (`rules` and `inventory`).
#[macro_use]
pub(crate) mod registry;
/// Public for `cargo xtask fuzz`, which checks a mutated baseline against the CLI.
pub mod baseline;
pub mod board;
pub(crate) mod catalog;
pub mod cli;
pub mod compare;
pub mod compat;
pub(crate) mod config;
pub(crate) mod decisions;
pub mod edit;
pub mod finding;
pub mod gate;
pub mod git_index;
pub mod inventory;
pub(crate) mod kinds;
pub mod lex;
pub mod lines;
pub mod mappings;
pub mod model;
pub mod parse;
pub mod perf;
pub mod pipeline;
pub(crate) mod prefilter;
pub(crate) mod probe;
pub(crate) mod project_files;
pub mod record;
pub mod render;
pub mod report;
pub(crate) mod rules;
pub mod safety;
pub mod scan;
pub mod settings;
pub mod source;
#[doc(hidden)]
pub mod testkit;
pub mod translate;
pub(crate) mod verdict;
pub(crate) mod verify;
pub mod version;
mod vocab;
pub mod walk;
