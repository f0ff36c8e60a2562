//! "Did you mean": the registered name nearest to a mistyped one.

/// The candidate nearest to `name` by edit distance, if it is near enough
/// to be a likely typo (at most half the longer name, and at least 2).
pub fn nearest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    candidates
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(name.len()) / 2).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_nearest_close_name_is_suggested() {
        let names = ["cse", "canonicalize", "ccl-insert-comm-fence"];
        assert_eq!(super::nearest("canonicalise", names.into_iter()), Some("canonicalize"));
        assert_eq!(super::nearest("ccl-insert-comm-fense", names.into_iter()), Some("ccl-insert-comm-fence"));
        assert_eq!(super::nearest("completely-different", names.into_iter()), None);
    }
}
