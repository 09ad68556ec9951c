//! Renderers: pure functions of analysis results and a writer. Analysis never prints.
pub mod diff;
pub mod github;
pub mod gitlab;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod stats;
pub mod text;
