//! Every pass name `ccl-opt` knows: the Rust ccl passes and named pipelines
//! (from the passes crate), and MLIR's upstream passes. MLIR's C API can add
//! an upstream pass by name but cannot enumerate them, so the upstream
//! catalogue (names, summaries, option help) is the `mlir-opt --list-passes`
//! of the same MLIR install, recorded by build.rs, filtered to the names the
//! linked MLIR actually accepts.

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

/// What a name in a pipeline refers to.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'r> {
    Pass(&'static PassInfo),
    Pipeline(&'static PipelineInfo),
    Upstream(&'r str),
}

pub struct Registry {
    passes: &'static [&'static PassInfo],
    pipelines: &'static [&'static PipelineInfo],
    upstream: Vec<UpstreamPass>,
}

impl Registry {
    /// The registry of this build. Upstream names are checked against the
    /// linked MLIR once per process.
    pub fn global() -> &'static Registry {
        static REGISTRY: OnceLock<Registry> = OnceLock::new();
        REGISTRY.get_or_init(|| {
            crate::ffi::register_upstream_passes_once();
            let context = Context::new();
            let upstream = parse_listing(UPSTREAM_LISTING)
                .into_iter()
                .filter(|pass| crate::ffi::is_upstream_pass(&context, &pass.name))
                .collect();
            Registry { passes: cclir_passes::all_passes(), pipelines: cclir_passes::all_pipelines(), upstream }
        })
    }

    pub fn passes(&self) -> &'static [&'static PassInfo] {
        self.passes
    }

    pub fn pipelines(&self) -> &'static [&'static PipelineInfo] {
        self.pipelines
    }

    pub fn upstream(&self) -> &[UpstreamPass] {
        &self.upstream
    }

    pub fn lookup(&self, name: &str) -> Option<Entry<'_>> {
        if let Some(info) = self.passes.iter().find(|p| p.argument == name) {
            return Some(Entry::Pass(info));
        }
        if let Some(info) = self.pipelines.iter().find(|p| p.argument == name) {
            return Some(Entry::Pipeline(info));
        }
        self.upstream.iter().find(|p| p.name == name).map(|p| Entry::Upstream(p.name.as_str()))
    }

    /// Whether `name` is a pass or pipeline of either kind. An upstream name
    /// missing from the catalogue is still asked of MLIR itself.
    pub fn is_known(&self, context: &Context, name: &str) -> bool {
        self.lookup(name).is_some() || crate::ffi::is_upstream_pass(context, name)
    }

    /// The registered name nearest to `name`, for "did you mean".
    pub fn suggest(&self, name: &str) -> Option<&str> {
        let candidates = self
            .passes
            .iter()
            .map(|p| p.argument)
            .chain(self.pipelines.iter().map(|p| p.argument))
            .chain(self.upstream.iter().map(|p| p.name.as_str()));
        candidates
            .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
            .filter(|(distance, candidate)| *distance <= (candidate.len().max(name.len()) / 2).max(2))
            .min_by_key(|(distance, _)| *distance)
            .map(|(_, candidate)| candidate)
    }

    /// Every name, for command-line flag suggestions.
    pub fn all_names(&self) -> impl Iterator<Item = &str> {
        self.passes
            .iter()
            .map(|p| p.argument)
            .chain(self.pipelines.iter().map(|p| p.argument))
            .chain(self.upstream.iter().map(|p| p.name.as_str()))
    }
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
