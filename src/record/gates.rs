//! The record's gate names: the ids of [`Gate`], the one list (in `src/gate.rs`), checked
//! exactly as the record and `hipport record gate NAME` write them.

pub use crate::gate::Gate;

/// The gate an exact id names (`build`, not `Build`).
pub fn gate(name: &str) -> Option<Gate> {
    Gate::ALL.into_iter().find(|g| g.as_str() == name)
}

pub fn is_gate(name: &str) -> bool {
    gate(name).is_some()
}

/// `unknown gate `x`: expected one of baseline, inventory, …`.
pub fn unknown_gate(name: &str) -> String {
    let ids: Vec<&str> = Gate::ALL.iter().map(|g| g.as_str()).collect();
    format!("unknown gate `{name}`: expected one of {}", ids.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_gates_each_with_a_question_and_exact_ids() {
        assert_eq!(Gate::ALL.len(), 10);
        assert!(Gate::ALL.iter().all(|g| !g.question().is_empty()));
        assert!(is_gate("build") && !is_gate("Build") && !is_gate(" build"));
        assert!(unknown_gate("x").ends_with("baseline, inventory, target, build, functional, correctness, precision, distributed, operations, performance"));
    }
}
