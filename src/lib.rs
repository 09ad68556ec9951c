//! hipport: port CUDA application stacks to AMD ROCm/HIP.
//!
//! Data flows one way: args → settings → walk → per file (read → lex/parse → rewrite and rules)
//! → sorted report → renderers.

pub mod edit;
pub mod finding;
pub mod gate;
pub mod mappings;
pub mod version;
