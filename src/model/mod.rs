//! The model of a project's ROCm build that rules and the translator ask, instead of each
//! re-deriving it from one file. [`includes`] resolves a unit's `#include "…"` to project files;
//! [`project`] collects what those files define (macros and their arms, functions written for
//! ROCm, integer constants, `warpSize` macros) and answers, per unit, what it sees from them;
//! [`own`] finds the functions a project declares under CUDA-API names and answers whether a use
//! resolves to the project's definition rather than CUDA's.
//!
//! Per file, [`syntax`] is the parsed file as every question sees it ([`syntax::Src`], with the
//! node [`index`]); [`cond`] and [`macro_env`] evaluate a preprocessor condition under the macro
//! environment of a HIP-Clang compile (and of a current CUDA build); [`hipside`] turns that into
//! regions HIP compiles or never compiles, and [`cuda_side`] marks the regions only the CUDA
//! build compiles. Rules, the translator and the project pre-pass ask these; none of them
//! imports a rule.
//!
//! Built once per run by a token-only pre-pass over the project's headers (see
//! [`project::Project::of_inputs`]), shared read-only by the parallel per-file pipeline.

pub mod backend_arms;
pub mod cond;
pub mod const_expr;
pub mod cuda_side;
pub mod device_arms;
pub mod folders;
pub mod hip_pins;
pub mod hipside;
pub mod includes;
pub mod index;
pub mod launch;
pub mod macro_env;
pub mod own;
pub mod project;
pub mod syntax;
pub mod token_fns;
