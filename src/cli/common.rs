//! Flag groups shared by several subcommands, and their conversion into validated settings.

use crate::settings::Request;
use crate::walk::{WalkOptions, DEFAULT_EXTENSIONS};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug, Clone, Default)]
pub struct TargetArgs {
    /// Target ROCm release, X.Y or X.Y.Z (default: hipport.toml, the migration record, else the newest release hipport knows).
    #[arg(long, value_name = "X.Y[.Z]")]
    pub rocm: Option<String>,
    /// Map cuBLAS/cuSPARSE/cuRAND/cuSOLVER straight to rocBLAS/rocSPARSE/rocRAND/rocSOLVER.
    #[arg(long)]
    pub roc: bool,
    /// Also translate APIs that HIP marks experimental.
    #[arg(long)]
    pub experimental: bool,
}

/// The settings request of a command with these flag groups (paths first).
pub fn request(
    paths: &[PathBuf],
    target: &TargetArgs,
    walk: &WalkArgs,
    config: &ConfigArgs,
) -> Request {
    Request {
        paths: paths.to_vec(),
        rocm: target.rocm.clone(),
        roc: target.roc,
        experimental: target.experimental,
        offload_arch: Vec::new(),
        walk: walk.options(),
        max_file_size: walk.max_file_size,
        config_file: config.config.clone(),
        no_config: config.no_config,
        use_record: true,
        select: config.select.clone(),
        ignore: config.ignore.clone(),
    }
}

#[derive(Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// Read this configuration instead of the nearest hipport.toml above the scanned path.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore hipport.toml.
    #[arg(long)]
    pub no_config: bool,
    /// Report only these rules, comma-separated codes or names (HP001,inline-ptx).
    #[arg(long, value_name = "RULE,...", value_delimiter = ',')]
    pub select: Vec<String>,
    /// Never report these rules, comma-separated codes or names (as `hipport.toml` level "off").
    #[arg(long, value_name = "RULE,...", value_delimiter = ',')]
    pub ignore: Vec<String>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct WalkArgs {
    /// Only process files matching this glob (repeatable), relative to each root.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip files matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Source extensions to select, comma-separated (default: cu,cuh,c,cc,cpp,cxx,h,hh,hpp,hxx,inl,cuinl,inc,hu,hcu).
    #[arg(long, value_name = "EXT,...", value_delimiter = ',')]
    pub ext: Vec<String>,
    /// Do not respect .gitignore and other ignore files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Follow symbolic links (loops are detected and reported).
    #[arg(long)]
    pub follow_links: bool,
    /// Refuse files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = crate::source::DEFAULT_MAX_BYTES)]
    pub max_file_size: u64,
}

impl WalkArgs {
    pub fn options(&self) -> WalkOptions {
        let extensions = if self.ext.is_empty() {
            DEFAULT_EXTENSIONS.iter().map(|s| s.to_string()).collect()
        } else {
            self.ext
                .iter()
                .map(|e| e.trim().trim_start_matches('.').to_string())
                .filter(|e| !e.is_empty())
                .collect()
        };
        WalkOptions {
            extensions,
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            use_ignore_files: !self.no_ignore,
            follow_links: self.follow_links,
            all_files: false,
            links: false,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TextOrJson {
    #[default]
    Text,
    Json,
}
