//! The generator's tests: determinism, the pinned digest, the coverage
//! of every feature, and features claimed against the text.

use super::*;
use std::collections::BTreeSet;

#[test]
fn every_feature_is_in_at_least_five_percent_of_seeds_0_to_999() {
    let coverage = coverage(0..1000);
    let below: Vec<&str> = coverage.below(5.0).iter().map(|f| f.name()).collect();
    assert!(below.is_empty(), "features in fewer than 5% of the programs: {below:?}\n{}", coverage.table());
}

#[test]
fn the_same_seed_gives_the_same_program() {
    for seed in [0, 1, 77, 1 << 40, u64::MAX] {
        let (a, b) = (litmus_program(seed), litmus_program(seed));
        assert_eq!((a.ranks, &a.text, &a.features), (b.ranks, &b.text, &b.features), "seed {seed}");
    }
    assert_ne!(litmus_program(5).text, litmus_program(6).text);
}

/// The texts of seeds 0..200, hashed (FNV-1a): generation uses integer
/// arithmetic and ordered maps only, so the digest is the same on every
/// platform. A deliberate change of the generator changes it: update it
/// then (the test prints the new one).
#[test]
fn the_programs_are_the_same_on_every_platform() {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for seed in 0..200 {
        for byte in litmus_program(seed).text.bytes() {
            hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    assert_eq!(hash, PINNED_DIGEST, "the litmus programs changed: the digest is now {hash:#018x}");
}

const PINNED_DIGEST: u64 = 0xa922_e21f_98ce_1920;

#[test]
fn the_first_line_names_the_rank_count() {
    for seed in 0..200 {
        let litmus = litmus_program(seed);
        let first = litmus.text.lines().next().unwrap();
        assert_eq!(first, format!("// ccl-gen --litmus {seed}: run with ccl-sim --ranks {}", litmus.ranks));
        assert_eq!(litmus.features.contains(&Feature::ThreeRanks), litmus.ranks == 3);
    }
}

/// A feature a program claims is in its text, and (for the features an
/// op or attribute shows) a feature its text shows is claimed.
#[test]
fn the_features_claimed_are_the_features_in_the_text() {
    let lines = |text: &str| text.lines().map(|l| l.trim().to_string()).collect::<Vec<_>>();
    for seed in 0..400 {
        let litmus = litmus_program(seed);
        let text = lines(&litmus.text);
        let has = |needle: &str| text.iter().any(|l| l.contains(needle));
        let line_is = |op: &str| text.iter().any(|l| l == op);
        let notify_down = text.iter().any(|l| {
            l.starts_with("ccl.notify atomic_add")
                && l.split(',').nth(2).is_some_and(|v| v.trim().starts_with("%cm") || v.trim().starts_with("%neg"))
        });
        let select_of_views = text.iter().any(|l| l.contains("= arith.select") && l.contains(": memref<"));
        let signal_on_buffer = text.iter().any(|l| {
            (l.starts_with("ccl.notify") || l.starts_with("ccl.wait")) && l.split_whitespace().nth(2) == Some("%sig,")
        });
        let exact: Vec<(Feature, bool)> = vec![
            (Feature::TileStore, has("ccl.tile_store")),
            (Feature::TensorWrite, has("ccl.tensor_write")),
            (Feature::Get, has("ccl.get ")),
            (Feature::RemoteStore, has("ccl.remote_store")),
            (Feature::Put, has("ccl.put ")),
            (Feature::Read, has("ccl.read ")),
            (Feature::TileLoad, has("ccl.tile_load")),
            (Feature::RemoteLoad, has("ccl.remote_load")),
            (Feature::RegionInvalidate, has("ccl.cacheinvalid %")),
            (Feature::WholeInvalidate, line_is("ccl.cacheinvalid")),
            (Feature::Fence, line_is("ccl.fence")),
            (Feature::NotifySet, has("ccl.notify set")),
            (Feature::NotifyAddNegative, notify_down),
            (Feature::WaitGe, has("ccl.wait ge")),
            (Feature::WaitEq, has("ccl.wait eq")),
            (Feature::SelectOfViews, select_of_views),
            (Feature::OtherViewOps, has("memref.cast") || has("memref.expand_shape")),
            (Feature::CellSubview, has("= memref.subview %sig")),
            (
                Feature::CellBuffer,
                has("%cell0: memref<1xi32, #ccl.window>")
                    || has("%cell1: memref<1xi32, #ccl.window>")
                    || has("%cell2: memref<1xi32, #ccl.window>"),
            ),
            (Feature::CellIsElementZero, signal_on_buffer),
            (Feature::Alloc, has("memref.alloc")),
            (Feature::CallInKernel, has("func.call @store")),
            (Feature::TwoBlocks, has("ccl.launch_width = 2")),
            (Feature::Submit, has("ccl.submit")),
            (Feature::Barrier, has("ccl.barrier")),
            (Feature::AllReduce, has("ccl.all_reduce")),
            (Feature::AllToAllV, has("ccl.all_to_all_v")),
            (Feature::CollectiveInWrapper, has("func.func @sync")),
            (Feature::LaunchInHostLoop, has("scf.for %r =")),
        ];
        for (feature, shown) in exact {
            assert_eq!(
                litmus.features.contains(&feature),
                shown,
                "seed {seed}: {} claimed {} but the text shows it {}\n{}",
                feature.name(),
                litmus.features.contains(&feature),
                shown,
                litmus.text
            );
        }
        // Claimed, so in the text.
        let implied: Vec<(Feature, bool)> = vec![
            (Feature::NotifyAddPositive, has("ccl.notify atomic_add")),
            (Feature::Subview, has("memref.subview")),
            (Feature::ForLoop, has("scf.for %")),
            (Feature::PureWaitLoop, has("scf.for %wl")),
            (Feature::IfOnMemory, has("arith.cmpi sge, %s") || has("arith.cmpi eq, %r") || has("arith.cmpi eq, %t")),
            (Feature::IndexFromMemory, has("arith.index_cast %d")),
            (Feature::SignalCellGmRead, has("= ccl.read %cell") || has("= ccl.read %sig")),
            (Feature::MarkersAtRandom, has("ccl.fence") || has("ccl.cacheinvalid")),
            (Feature::TwoLaunches, has("%r1) ") || has("%r1)") || has("scf.for %r =")),
        ];
        for (feature, shown) in implied {
            if litmus.features.contains(&feature) {
                assert!(shown, "seed {seed}: {} claimed but not in the text\n{}", feature.name(), litmus.text);
            }
        }
    }
}

#[test]
fn the_table_has_a_line_per_feature() {
    let coverage = coverage(0..20);
    let table = coverage.table();
    assert_eq!(table.lines().count(), Feature::ALL.len() + 1);
    let names: BTreeSet<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names.len(), Feature::ALL.len(), "two features share a name");
    assert_eq!(coverage.programs, 20);
    assert!(coverage.count(Feature::IfOnRankOrBlock) == 20);
}
