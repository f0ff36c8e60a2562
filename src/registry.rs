//! Every pass name `ccl-opt` knows: the Rust ccl passes and named pipelines
//! (from the passes crate), and MLIR's upstream passes. MLIR's C API can add
//! an upstream pass by name but cannot enumerate them, so the upstream
//! catalogue (names, summaries, option help) is the `mlir-opt --list-passes`
//! of the same MLIR install, recorded by build.rs, filtered to the names the
//! linked MLIR actually accepts. The filter asks MLIR once per catalogue
//! name, so it runs only when the catalogue is needed (listing, "did you
//! mean"), not on every run: building a pipeline hands any name that is not
//! a Rust pass straight to MLIR.

use cclir_passes::framework::{PassInfo, PipelineInfo};
use melior::Context;
use std::sync::OnceLock;

/// One upstream pass as `--list-passes` shows it.
#[derive(Debug, Clone)]
pub struct UpstreamPass {
    pub name: String,
    /// The pass's own line and its option lines, as mlir-opt prints them.
    pub lines: Vec<String>,
}

const UPSTREAM_LISTING: &str = include_str!(concat!(env!("OUT_DIR"), "/upstream-passes.txt"));

/// What a Rust-side name in a pipeline refers to (any other name is
/// MLIR's to resolve).
#[derive(Debug, Clone, Copy)]
pub enum Entry {
    Pass(&'static PassInfo),
    Pipeline(&'static PipelineInfo),
}

pub struct Registry {
    passes: &'static [&'static PassInfo],
    pipelines: &'static [&'static PipelineInfo],
    /// The upstream catalogue, filtered on first use.
    upstream: OnceLock<Vec<UpstreamPass>>,
}

impl Registry {
    /// The registry of this build.
    pub fn global() -> &'static Registry {
        static REGISTRY: OnceLock<Registry> = OnceLock::new();
        REGISTRY.get_or_init(|| Registry {
            passes: cclir_passes::all_passes(),
            pipelines: cclir_passes::all_pipelines(),
            upstream: OnceLock::new(),
        })
    }

    pub fn passes(&self) -> &'static [&'static PassInfo] {
        self.passes
    }

    pub fn pipelines(&self) -> &'static [&'static PipelineInfo] {
        self.pipelines
    }

    /// The upstream passes the linked MLIR accepts, as `--list-passes` shows them.
    pub fn upstream(&self) -> &[UpstreamPass] {
        self.upstream.get_or_init(|| {
            crate::ffi::register_upstream_passes_once();
            let context = Context::new();
            parse_listing(UPSTREAM_LISTING)
                .into_iter()
                .filter(|pass| crate::ffi::is_upstream_pass(&context, &pass.name))
                .collect()
        })
    }

    /// The Rust pass or named pipeline called `name`, if any.
    pub fn lookup(&self, name: &str) -> Option<Entry> {
        if let Some(info) = self.passes.iter().find(|p| p.argument == name) {
            return Some(Entry::Pass(info));
        }
        self.pipelines.iter().find(|p| p.argument == name).map(|info| Entry::Pipeline(info))
    }

    /// Whether `name` is a pass or pipeline of either kind; upstream names
    /// are asked of MLIR itself.
    pub fn is_known(&self, context: &Context, name: &str) -> bool {
        self.lookup(name).is_some() || crate::ffi::is_upstream_pass(context, name)
    }

    /// The registered name nearest to `name`, for "did you mean".
    pub fn suggest(&self, name: &str) -> Option<&str> {
        nearest(name, self.all_names())
    }

    /// Every name, Rust and upstream.
    pub fn all_names(&self) -> impl Iterator<Item = &str> {
        self.passes
            .iter()
            .map(|p| p.argument)
            .chain(self.pipelines.iter().map(|p| p.argument))
            .chain(self.upstream().iter().map(|p| p.name.as_str()))
    }
}

/// The candidate nearest to `name` by edit distance, if it is near enough
/// to be a likely typo (at most half the longer name, and at least 2).
pub fn nearest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    candidates
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(name.len()) / 2).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Splits `mlir-opt --list-passes` output into passes: a pass line is indented
/// two spaces and starts with `--`; deeper lines are its options.
fn parse_listing(listing: &str) -> Vec<UpstreamPass> {
    let mut passes: Vec<UpstreamPass> = Vec::new();
    for line in listing.lines() {
        if let Some(rest) = line.strip_prefix("  --") {
            let name = rest.split_whitespace().next().unwrap_or_default();
            let name = name.split('=').next().unwrap_or_default().to_string();
            passes.push(UpstreamPass { name, lines: vec![line.to_string()] });
        } else if line.starts_with("    ") {
            if let Some(pass) = passes.last_mut() {
                pass.lines.push(line.to_string());
            }
        }
    }
    passes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_is_split_into_passes_and_options() {
        let listing = "Passes:\n  --cse   -   Eliminate common sub-expressions\n  --canonicalize   -   Canonicalize operations\n    --max-iterations=<long>   - Max\n";
        let passes = parse_listing(listing);
        assert_eq!(passes.len(), 2);
        assert_eq!(passes[1].name, "canonicalize");
        assert_eq!(passes[1].lines.len(), 2);
    }
}
