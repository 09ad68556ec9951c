//! Issue 23 attacks: see tests/attacks.rs.

#[allow(unused_imports)]
use super::*;
