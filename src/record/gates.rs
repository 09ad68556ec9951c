//! The ten migration gates, in board order: ids come from the report's board
//! ([`crate::board::GATES`]), the one list; this module adds what each gate asks.

/// Gate ids in the order the workflow passes them (from [`crate::board::GATES`]).
pub const GATES: [&str; 10] = {
    let mut ids = [""; 10];
    let mut i = 0;
    while i < 10 {
        ids[i] = crate::board::GATES[i].0;
        i += 1;
    }
    ids
};

/// What each gate asks, one line, for boards and `record init`.
pub fn question(gate: &str) -> &'static str {
    match gate {
        "baseline" => "is the CUDA baseline frozen and reproducible?",
        "inventory" => "is every CUDA dependency found and mapped?",
        "target" => "is the exact ROCm target tuple defined?",
        "build" => "does the translated tree compile with hipcc?",
        "functional" => "do representative workloads run on the target?",
        "correctness" => "do outputs match the baseline within tolerance?",
        "precision" => "does the production precision work?",
        "distributed" => "does the production GPU and node count work?",
        "operations" => "are monitoring, deployment and runbooks ported?",
        "performance" => "does performance meet the requirement?",
        _ => "",
    }
}

pub fn is_gate(name: &str) -> bool {
    GATES.contains(&name)
}

/// `unknown gate `x`: expected one of baseline, inventory, …`.
pub fn unknown_gate(name: &str) -> String {
    format!(
        "unknown gate `{name}`: expected one of {}",
        GATES.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_gates_each_with_a_question() {
        assert_eq!(GATES.len(), 10);
        assert!(GATES.iter().all(|g| !question(g).is_empty()));
        assert!(is_gate("build") && !is_gate("Build"));
    }
}
