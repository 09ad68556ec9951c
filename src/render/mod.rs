//! Renderers: pure functions of analysis results and a writer. Analysis never prints.
pub mod diff;
pub mod stats;
pub mod text;
