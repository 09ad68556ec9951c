//! CUDA→HIP mapping tables, loaded once per run from data embedded at build time.
pub mod table;
