//! The model of a project's ROCm build that rules and the translator ask, instead of each
//! re-deriving it from one file. [`includes`] resolves a unit's `#include "…"` to project files;
//! [`project`] collects what those files define (macros and their arms, functions written for
//! ROCm, integer constants, `warpSize` macros) and answers, per unit, what it sees from them;
//! [`own`] finds the functions a project declares under CUDA-API names and answers whether a use
//! resolves to the project's definition rather than CUDA's.
//! Built once per run by a token-only pre-pass over the project's headers (see
//! [`project::Project::of_inputs`]), shared read-only by the parallel per-file pipeline.

pub mod includes;
pub mod own;
pub mod project;
