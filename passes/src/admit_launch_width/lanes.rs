//! The lane mapping of an admitted `ccl.all_to_all_v` launch: which peer and
//! lane each of the B blocks serves (docs/semantics.md, "Lane mapping").
//!
//! With P ranks and B blocks, K = `lanes_per_peer(P, B)`:
//! - B >= P (so B = K * P): block `idx` serves peer `idx / K`, lane `idx % K`;
//!   the blocks cover every (peer, lane) pair exactly once;
//! - B < P (K = 0): block `idx` serves peers `idx, idx + B, idx + 2B, ... < P`
//!   (its first peer at lane 0); the blocks partition the peers.
//!
//! Only a B that `CalAllToAllVBlocks` can produce is accepted: 1 <= B < P, or
//! a positive multiple of P. Any other B would name a peer that does not
//! exist (`lanes_per_peer(4, 6)` would give K = 1 and block 5 would serve
//! "peer 5" of 4), so it is an error here, not a silent wrong answer.

use std::ops::Range;

/// A lane-mapping question with no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaneError {
    #[error("the rank count must be positive, got 0")]
    NoRanks,
    #[error(
        "launch width {blocks} is not admissible for {ranks} ranks: CalAllToAllVBlocks yields a width below the \
         rank count or a positive multiple of it"
    )]
    Inadmissible { ranks: u64, blocks: u64 },
    #[error("block {block} is outside the launch width {blocks}")]
    BlockOutOfRange { block: u64, blocks: u64 },
    #[error("lane {lane} is outside the {lanes} lane(s) of a peer")]
    LaneOutOfRange { lane: u64, lanes: u64 },
}

/// Whether `blocks` is a width `CalAllToAllVBlocks(ranks, L)` yields for some
/// L > 0.
pub fn is_admissible(ranks: u64, blocks: u64) -> bool {
    ranks > 0 && blocks > 0 && (blocks < ranks || blocks.is_multiple_of(ranks))
}

/// K: `B / P` when `B >= P`, else 0.
pub fn lanes_per_peer(ranks: u64, blocks: u64) -> Result<u64, LaneError> {
    LaneMap::new(ranks, blocks).map(|map| map.lanes_per_peer())
}

/// The peer and lane block `block` serves.
pub fn block_lane(ranks: u64, blocks: u64, block: u64) -> Result<BlockLane, LaneError> {
    LaneMap::new(ranks, blocks)?.block_lane(block)
}

/// Every peer block `block` serves, ascending.
pub fn peers_of_block(ranks: u64, blocks: u64, block: u64) -> Result<Vec<u64>, LaneError> {
    LaneMap::new(ranks, blocks)?.peers_of_block(block)
}

/// The part `[begin, end)` of a flat payload of `len` elements that lane
/// `lane` of `lanes` moves: with `e = ceil(len / lanes)`, `begin =
/// min(lane * e, len)` and `end = min(begin + e, len)`. `lanes = 0` (a block
/// per peer, B < P) means the single lane 0 moves everything.
pub fn flat_lane_slice(len: u64, lanes: u64, lane: u64) -> Result<Range<u64>, LaneError> {
    let lanes = lanes.max(1);
    if lane >= lanes {
        return Err(LaneError::LaneOutOfRange { lane, lanes });
    }
    let each = len.div_ceil(lanes);
    let begin = lane.saturating_mul(each).min(len);
    let end = begin.saturating_add(each).min(len);
    Ok(begin..end)
}

/// What one block serves: a peer, and a lane of that peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockLane {
    pub peer: u64,
    pub lane: u64,
}

/// The mapping of one admitted launch (P ranks, B blocks), validated once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneMap {
    ranks: u64,
    blocks: u64,
    lanes: u64,
}

impl LaneMap {
    pub fn new(ranks: u64, blocks: u64) -> Result<Self, LaneError> {
        if ranks == 0 {
            return Err(LaneError::NoRanks);
        }
        if !is_admissible(ranks, blocks) {
            return Err(LaneError::Inadmissible { ranks, blocks });
        }
        let lanes = if blocks >= ranks { blocks / ranks } else { 0 };
        Ok(Self { ranks, blocks, lanes })
    }

    pub fn ranks(&self) -> u64 {
        self.ranks
    }

    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// K (0 when B < P).
    pub fn lanes_per_peer(&self) -> u64 {
        self.lanes
    }

    fn check_block(&self, block: u64) -> Result<(), LaneError> {
        if block < self.blocks {
            Ok(())
        } else {
            Err(LaneError::BlockOutOfRange { block, blocks: self.blocks })
        }
    }

    /// Block `idx` serves peer `idx` lane 0 when K = 0, else peer `idx / K`,
    /// lane `idx % K`.
    pub fn block_lane(&self, block: u64) -> Result<BlockLane, LaneError> {
        self.check_block(block)?;
        Ok(match block.checked_div(self.lanes) {
            None => BlockLane { peer: block, lane: 0 },
            Some(peer) => BlockLane { peer, lane: block % self.lanes },
        })
    }

    /// `[idx / K]` when B >= P, else `idx, idx + B, idx + 2B, ... < P`.
    pub fn peers_of_block(&self, block: u64) -> Result<Vec<u64>, LaneError> {
        self.check_block(block)?;
        Ok(match block.checked_div(self.lanes) {
            Some(peer) => vec![peer],
            None => (block..self.ranks).step_by(self.blocks as usize).collect(),
        })
    }

    /// The slice of a peer's `len`-element payload block `block` moves.
    pub fn block_slice(&self, block: u64, len: u64) -> Result<Range<u64>, LaneError> {
        let BlockLane { lane, .. } = self.block_lane(block)?;
        flat_lane_slice(len, self.lanes, lane)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admit_launch_width::formula;

    const TABLE: &[(u64, u64, u64)] =
        &[(8, 1, 1), (8, 7, 7), (8, 8, 8), (8, 10, 8), (8, 15, 8), (8, 16, 16), (16, 7, 7), (16, 16, 16)];

    fn b_of(p: u64, l: u64) -> u64 {
        formula::blocks(p as i128, l as i128).unwrap() as u64
    }

    /// B < P: the peer sets of the blocks partition [0, P). B >= P: the
    /// (peer, lane) pairs of the blocks are exactly [0, P) x [0, K).
    fn assert_partition(p: u64, b: u64) {
        let map = LaneMap::new(p, b).unwrap();
        if b < p {
            assert_eq!(map.lanes_per_peer(), 0);
            let mut seen = vec![0u32; p as usize];
            for block in 0..b {
                let peers = map.peers_of_block(block).unwrap();
                assert_eq!(peers[0], map.block_lane(block).unwrap().peer);
                assert_eq!(map.block_lane(block).unwrap().lane, 0);
                for peer in peers {
                    seen[peer as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "P={p} B={b}: {seen:?}");
        } else {
            let k = map.lanes_per_peer();
            assert_eq!(k * p, b);
            let mut seen = vec![0u32; (p * k) as usize];
            for block in 0..b {
                let BlockLane { peer, lane } = map.block_lane(block).unwrap();
                assert!(peer < p && lane < k);
                assert_eq!(map.peers_of_block(block).unwrap(), vec![peer]);
                seen[(peer * k + lane) as usize] += 1;
            }
            assert!(seen.iter().all(|&n| n == 1), "P={p} B={b}");
        }
    }

    #[test]
    fn worked_table_partitions_peers_or_lanes() {
        for &(p, l, b) in TABLE {
            assert_eq!(b_of(p, l), b);
            assert_partition(p, b);
        }
    }

    #[test]
    fn worked_table_mappings() {
        // (8, 10 -> 8): one lane per peer.
        assert_eq!(lanes_per_peer(8, 8), Ok(1));
        assert_eq!(block_lane(8, 8, 5), Ok(BlockLane { peer: 5, lane: 0 }));
        // (8, 16 -> 16): two lanes per peer.
        assert_eq!(lanes_per_peer(8, 16), Ok(2));
        assert_eq!(block_lane(8, 16, 5), Ok(BlockLane { peer: 2, lane: 1 }));
        assert_eq!(peers_of_block(8, 16, 15), Ok(vec![7]));
        // (16, 7 -> 7): block 2 serves peers 2, 9.
        assert_eq!(lanes_per_peer(16, 7), Ok(0));
        assert_eq!(peers_of_block(16, 7, 2), Ok(vec![2, 9]));
        assert_eq!(peers_of_block(16, 7, 1), Ok(vec![1, 8, 15]));
        // (8, 1 -> 1): one block serves every peer.
        assert_eq!(peers_of_block(8, 1, 0), Ok((0..8).collect::<Vec<_>>()));
    }

    #[test]
    fn every_formula_width_partitions() {
        for p in 1..=24 {
            for l in 1..=100 {
                assert_partition(p, b_of(p, l));
            }
        }
    }

    #[test]
    fn admissible_is_exactly_what_the_formula_yields() {
        for p in 1..=24u64 {
            let yielded: std::collections::BTreeSet<u64> = (1..=100).map(|l| b_of(p, l)).collect();
            for b in 0..=100 {
                assert_eq!(is_admissible(p, b), yielded.contains(&b), "P={p} B={b}");
            }
        }
    }

    #[test]
    fn inadmissible_widths_are_rejected() {
        // The original maps block 5 of lanes_per_peer(4, 6) = 1 to peer 5 of 4.
        assert_eq!(lanes_per_peer(4, 6), Err(LaneError::Inadmissible { ranks: 4, blocks: 6 }));
        assert_eq!(block_lane(4, 6, 5), Err(LaneError::Inadmissible { ranks: 4, blocks: 6 }));
        assert_eq!(peers_of_block(4, 6, 5), Err(LaneError::Inadmissible { ranks: 4, blocks: 6 }));
        assert_eq!(lanes_per_peer(8, 0), Err(LaneError::Inadmissible { ranks: 8, blocks: 0 }));
        assert_eq!(lanes_per_peer(0, 4), Err(LaneError::NoRanks));
        assert_eq!(
            lanes_per_peer(4, 6).unwrap_err().to_string(),
            "launch width 6 is not admissible for 4 ranks: CalAllToAllVBlocks yields a width below the rank count \
             or a positive multiple of it"
        );
    }

    #[test]
    fn blocks_outside_the_launch_are_rejected() {
        assert_eq!(block_lane(8, 16, 16), Err(LaneError::BlockOutOfRange { block: 16, blocks: 16 }));
        assert_eq!(peers_of_block(16, 7, 7), Err(LaneError::BlockOutOfRange { block: 7, blocks: 7 }));
    }

    /// The lanes' slices tile [0, v) in order: no gap, no overlap.
    fn assert_tiles(v: u64, k: u64) {
        let mut next = 0;
        for lane in 0..k.max(1) {
            let slice = flat_lane_slice(v, k, lane).unwrap();
            assert_eq!(slice.start, next, "v={v} K={k} lane={lane}");
            assert!(slice.end >= slice.start);
            next = slice.end;
        }
        assert_eq!(next, v, "v={v} K={k}");
    }

    #[test]
    fn flat_lane_slices_cover_the_payload_without_overlap() {
        for v in 0..=70 {
            for k in 0..=9 {
                assert_tiles(v, k);
            }
        }
        assert_eq!(flat_lane_slice(10, 3, 0), Ok(0..4));
        assert_eq!(flat_lane_slice(10, 3, 1), Ok(4..8));
        assert_eq!(flat_lane_slice(10, 3, 2), Ok(8..10));
        // More lanes than elements: the tail lanes are empty.
        assert_eq!(flat_lane_slice(2, 4, 3), Ok(2..2));
        assert_eq!(flat_lane_slice(u64::MAX, 2, 1), Ok(u64::MAX / 2 + 1..u64::MAX));
        assert_eq!(flat_lane_slice(10, 3, 3), Err(LaneError::LaneOutOfRange { lane: 3, lanes: 3 }));
        // K = 0: the one lane moves everything.
        assert_eq!(flat_lane_slice(10, 0, 0), Ok(0..10));
    }

    #[test]
    fn block_slices_of_a_launch_cover_each_peer_once() {
        let map = LaneMap::new(8, 16).unwrap();
        let v = 33;
        for peer in 0..8 {
            let mut covered = 0;
            for block in (0..16).filter(|&b| map.block_lane(b).unwrap().peer == peer) {
                covered += map.block_slice(block, v).unwrap().count();
            }
            assert_eq!(covered, v as usize);
        }
    }
}
