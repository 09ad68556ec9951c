//! The migration vocabulary: gate statuses, failure phases and process exit codes.
//!
//! These words are a contract with users' scripts and CI (they appear verbatim in JSON, SARIF
//! and baselines): add variants, never rename them.

crate::vocabulary! {
    /// The status of one item or gate. `Blocker` is only ever set by a person (configuration or
    /// the migration record); analysis never produces it on its own.
    pub enum Status [case_insensitive] {
        Blocker = "BLOCKER",
        Remediation = "REMEDIATION",
        Unknown = "UNKNOWN",
        Pass = "PASS",
    }
}

crate::vocabulary! {
    /// Where a problem would surface if nothing is done about it.
    pub enum Phase [case_insensitive] {
        Install = "INSTALL",
        Build = "BUILD",
        Import = "IMPORT",
        Init = "INIT",
        Runtime = "RUNTIME",
        Correctness = "CORRECTNESS",
        Performance = "PERFORMANCE",
    }
}

crate::vocabulary! {
    /// The ten migration gates, in the order a migration passes them: the ids that
    /// `hipport record gate NAME` takes and boards print.
    pub enum Gate {
        Baseline = "baseline",
        Inventory = "inventory",
        Target = "target",
        Build = "build",
        Functional = "functional",
        Correctness = "correctness",
        Precision = "precision",
        Distributed = "distributed",
        Operations = "operations",
        Performance = "performance",
    }
}

impl Gate {
    /// The title boards print.
    pub const fn title(self) -> &'static str {
        match self {
            Gate::Baseline => "CUDA baseline",
            Gate::Inventory => "Dependency inventory",
            Gate::Target => "Exact ROCm target",
            Gate::Build => "Build",
            Gate::Functional => "Functional",
            Gate::Correctness => "Correctness",
            Gate::Precision => "Production precision",
            Gate::Distributed => "Distributed",
            Gate::Operations => "Operations",
            Gate::Performance => "Performance",
        }
    }

    /// What the gate asks, one line, for boards and `record init`.
    pub const fn question(self) -> &'static str {
        match self {
            Gate::Baseline => "is the CUDA baseline frozen and reproducible?",
            Gate::Inventory => "is every CUDA dependency found and mapped?",
            Gate::Target => "is the exact ROCm target tuple defined?",
            Gate::Build => "does the translated tree compile with hipcc?",
            Gate::Functional => "do representative workloads run on the target?",
            Gate::Correctness => "do outputs match the baseline within tolerance?",
            Gate::Precision => "does the production precision work?",
            Gate::Distributed => "does the production GPU and node count work?",
            Gate::Operations => "are monitoring, deployment and runbooks ported?",
            Gate::Performance => "does performance meet the requirement?",
        }
    }
}

/// Process exit codes, documented in the README.
pub mod exit {
    /// Success; nothing that the mode reports.
    pub const OK: i32 = 0;
    /// The mode ran and reports findings (new findings for `check`, NOT READY for `gate`).
    pub const FINDINGS: i32 = 1;
    /// Usage, configuration or I/O error.
    pub const ERROR: i32 = 2;
}
