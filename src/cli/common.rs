//! Flag groups shared by several subcommands, and their conversion into validated settings.

use crate::mappings::{self, Target};
use crate::version::Version;
use crate::walk::{WalkOptions, DEFAULT_EXTENSIONS};
use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct TargetArgs {
    /// Target ROCm release, X.Y or X.Y.Z (default: the newest HIP version the tables know).
    #[arg(long, value_name = "X.Y[.Z]")]
    pub rocm: Option<String>,
    /// Map cuBLAS/cuSPARSE/cuRAND/cuSOLVER straight to rocBLAS/rocSPARSE/rocRAND/rocSOLVER.
    #[arg(long)]
    pub roc: bool,
    /// Also translate APIs that HIP marks experimental.
    #[arg(long)]
    pub experimental: bool,
}

impl TargetArgs {
    pub fn target(&self) -> Result<Target, String> {
        let m = mappings::get();
        let rocm = match &self.rocm {
            None => m.newest,
            Some(s) if s.trim().eq_ignore_ascii_case("latest") => {
                return Err("--rocm latest: name an exact ROCm release (e.g. 6.4.1); \"latest\" is not a specification".into())
            }
            Some(s) => s
                .parse::<Version>()
                .map_err(|e| format!("--rocm: {e}"))?,
        };
        if rocm.major < 1 {
            return Err(format!("--rocm {rocm}: not a ROCm release"));
        }
        // A release line hipport does not know is allowed (the tables decide what exists) but
        // said, so a typo such as 6.21 does not pass silently.
        let known = crate::record::target::rocm_releases();
        if self.rocm.is_some() && !known.iter().any(|k| k.same_minor(&rocm)) {
            eprintln!(
                "hipport: warning: ROCm {rocm} is not a release line hipport knows ({} … {}); API availability is judged from the tables as if it existed",
                known.first().map(|v| v.to_string()).unwrap_or_default(),
                known.last().map(|v| v.to_string()).unwrap_or_default()
            );
        }
        Ok(Target {
            rocm,
            roc: self.roc,
            experimental: self.experimental,
        })
    }
}

#[derive(Args, Debug, Clone, Default)]
pub struct WalkArgs {
    /// Only process files matching this glob (repeatable), relative to each root.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip files matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Source extensions to select, comma-separated (default: cu,cuh,c,cc,cpp,cxx,h,hh,hpp,hxx,inl,cuinl).
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
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TextOrJson {
    #[default]
    Text,
    Json,
}
