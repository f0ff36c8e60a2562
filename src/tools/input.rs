//! A look at the input before MLIR parses it. MLIR's parser, verifier and
//! printer recurse once per nesting level of the IR, so a deep enough nest
//! exhausts any stack and crashes the process. Nesting is bounded by
//! brackets in the text, so one linear scan finds the deepest point; past
//! the limit the input is rejected with a located error instead.
//! Bytecode has its own check ([`bytecode`]).

pub mod bytecode;

/// Where the input first nests deeper than the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub line: usize,
    pub col: usize,
    pub limit: usize,
}

/// What `check_nesting`'s byte-by-byte scan does at a byte.
const OTHER: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const QUOTE: u8 = 3;
const SLASH: u8 = 4;

/// The bytes of each class, shared by the table and the block census.
const OPENERS: [u8; 3] = *b"{([";
const CLOSERS: [u8; 3] = *b"})]";
/// A quote starts a string, a slash may start a comment.
const SPECIALS: [u8; 2] = *b"\"/";

static CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    let mut k = 0;
    while k < OPENERS.len() {
        class[OPENERS[k] as usize] = OPEN;
        class[CLOSERS[k] as usize] = CLOSE;
        k += 1;
    }
    class[SPECIALS[0] as usize] = QUOTE;
    class[SPECIALS[1] as usize] = SLASH;
    class
};

/// Checks that no `{`, `(` or `[` of `text` (outside strings and comments)
/// opens past `limit` levels.
///
/// Most of a program is far from the limit and free of strings and
/// comments, so the scan goes a block at a time: a block with no quote or
/// slash that cannot reach the limit even if all its opening brackets came
/// first, and cannot close below depth zero, changes the depth by its
/// count of openings minus closings, which the compiler computes with
/// vector instructions. Any other block is scanned byte by byte.
pub fn check_nesting(text: &[u8], limit: usize) -> Result<(), TooDeep> {
    if text.starts_with(bytecode::MAGIC) {
        return Ok(());
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len() {
        if let Some(block) = text.get(i..i + BLOCK).and_then(|bytes| <&[u8; BLOCK]>::try_from(bytes).ok()) {
            let census = Census::of(block);
            if !census.special && depth + census.opens <= limit && census.closes <= depth {
                depth = depth + census.opens - census.closes;
                i += BLOCK;
                continue;
            }
        }
        let end = (i + BLOCK).min(text.len());
        i = scan_bytes(text, i, end, &mut depth, limit)?;
    }
    Ok(())
}

/// Bytes per block of `check_nesting`'s fast path.
const BLOCK: usize = 64;

/// The brackets of a block, and whether it holds a quote or a slash.
struct Census {
    opens: usize,
    closes: usize,
    special: bool,
}

impl Census {
    fn of(block: &[u8; BLOCK]) -> Census {
        // Compares, not table lookups, over a fixed length: it vectorizes.
        let is_one_of = |b: u8, set: &[u8]| set.iter().fold(0u8, |any, &member| any | (b == member) as u8);
        let (mut opens, mut closes, mut special) = (0u8, 0u8, 0u8);
        for &b in block {
            opens += is_one_of(b, &OPENERS);
            closes += is_one_of(b, &CLOSERS);
            special |= is_one_of(b, &SPECIALS);
        }
        Census { opens: opens as usize, closes: closes as usize, special: special != 0 }
    }
}

/// Scans byte by byte from `i` until at least `end`, and past it until any
/// string or comment begun before `end` is over; returns where it stopped.
fn scan_bytes(text: &[u8], mut i: usize, end: usize, depth: &mut usize, limit: usize) -> Result<usize, TooDeep> {
    while i < end {
        match CLASS[text[i] as usize] {
            OTHER => {}
            OPEN => {
                *depth += 1;
                if *depth > limit {
                    return Err(TooDeep::at(text, i, limit));
                }
            }
            CLOSE => *depth = depth.saturating_sub(1),
            // A string ends at its closing quote or, unterminated, at the
            // end of its line (where MLIR's lexer reports it).
            QUOTE => {
                i += 1;
                while i < text.len() && text[i] != b'"' && text[i] != b'\n' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ if text.get(i + 1) == Some(&b'/') => {
                i = text[i..].iter().position(|&b| b == b'\n').map_or(text.len(), |newline| i + newline);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(i)
}

impl TooDeep {
    /// The error for the bracket at byte `offset` (lines and columns are
    /// counted only here, off the hot loop).
    fn at(text: &[u8], offset: usize, limit: usize) -> TooDeep {
        let before = &text[..offset];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |newline| newline + 1);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        TooDeep { line, col: offset - line_start + 1, limit }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = b"// {{{{\n\"{{{{\" {(\n[x]\n)}";
        assert_eq!(check_nesting(text, 3), Ok(()));
        assert_eq!(check_nesting(text, 1), Err(TooDeep { line: 2, col: 9, limit: 1 }));
    }

    /// The block fast path agrees with the byte-by-byte scan, errors and
    /// their positions included, on random text dense in brackets, quotes,
    /// comments and escapes (which straddle block boundaries).
    #[test]
    fn blocks_agree_with_the_byte_scan() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..3000 {
            // Openings outweigh closings so the limits are reached; some
            // texts have quotes and slashes rarely (so whole blocks take
            // the fast path), others often.
            let special_odds = if rng.bool() { 200 } else { 8 };
            let text: Vec<u8> = (0..rng.usize(0..600))
                .map(|_| match rng.u32(0..special_odds) {
                    0 => b"\"\\/\n"[rng.usize(0..4)],
                    _ => b"{{([[)}]ab \n"[rng.usize(0..12)],
                })
                .collect();
            for limit in [1, 5, 40, 1000] {
                let mut depth = 0;
                let bytewise = scan_bytes(&text, 0, text.len(), &mut depth, limit).map(|_| ());
                assert_eq!(check_nesting(&text, limit), bytewise, "{:?} limit {limit}", String::from_utf8_lossy(&text));
            }
        }
    }

    #[test]
    fn a_deep_nest_is_found_at_its_deepest_line() {
        let text: String = (0..10).map(|i| format!("{}{{\n", " ".repeat(i))).collect();
        assert_eq!(check_nesting(text.as_bytes(), 10), Ok(()));
        assert_eq!(check_nesting(text.as_bytes(), 9), Err(TooDeep { line: 10, col: 10, limit: 9 }));
        assert_eq!(check_nesting(b"ML\xefR{{{{", 1), Ok(()));
    }
}
