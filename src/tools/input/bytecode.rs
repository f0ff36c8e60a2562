//! A look at MLIR bytecode before MLIR's reader sees it, for the few
//! corruptions that reader does not survive.
//!
//! MLIR 22's `BytecodeReader.cpp` checks most of what it reads, but it
//! trusts three things that a corrupted file can get wrong, and each makes
//! it touch memory it does not own (a heap overflow, or a read past the
//! buffer), so the run prints the reader's error, aborts in malloc or
//! faults depending on the heap's layout:
//!
//! - `AttrTypeReader::initialize` sizes its attribute and type tables by
//!   the two counts at the start of the AttrTypeOffset section, then fills
//!   them group by group, each dialect group with as many entries as the
//!   group says, without checking that they fit: a group that counts more
//!   entries than are left writes past the end of the table (and the loop,
//!   now past its end index, reads on until the section runs out).
//! - `StringSectionReader::initialize` takes each string's size as the
//!   length of its text plus the null terminator and drops the terminator
//!   (`size - 1`) without checking that the size is at least 1: a size of
//!   0 makes a string of 2^64 - 1 bytes, which faults where it is used.
//! - Both size their tables by a count from the file before reading the
//!   entries (`resize`): a corrupted count asks for gigabytes, and LLVM
//!   aborts ("SmallVector unable to grow", out of memory). Every entry
//!   takes at least one byte of its section, so a count larger than the
//!   bytes left is a corrupted file, found before anything is allocated.
//!
//! This module parses just enough to check those: the magic number, the
//! version, the producer, the section headers (with their alignment
//! padding), the count of dialects, the String section's sizes and the
//! AttrTypeOffset section's counts and dialect groups. One pass, no
//! allocation; text input stops at the magic number. Wherever the file is
//! malformed in a way MLIR's reader reports itself (a bad header, a
//! truncated section, an entry past the AttrType section, ...) the check
//! stops and leaves the file to MLIR, so those errors stay MLIR's own.
//! A file rejected here is one MLIR's reader rejects too, or crashes on.

use std::fmt;

/// MLIR bytecode starts with this.
pub const MAGIC: &[u8] = b"ML\xefR";

/// The newest bytecode version MLIR 22 reads (`bytecode::kVersion`).
const NEWEST_VERSION: u64 = 6;
/// From this version on the Properties section is required
/// (`bytecode::kNativePropertiesEncoding`).
const PROPERTIES_VERSION: u64 = 5;
/// What alignment padding is made of (`bytecode::kAlignmentByte`).
const ALIGNMENT_BYTE: u8 = 0xCB;

/// The top-level sections (`bytecode::Section::ID`).
const STRING: usize = 0;
const DIALECT: usize = 1;
const ATTR_TYPE: usize = 2;
const ATTR_TYPE_OFFSET: usize = 3;
const IR: usize = 4;
const PROPERTIES: usize = 8;
const SECTION_COUNT: usize = 9;

/// How MLIR names a section in its errors.
fn section_name(id: usize) -> String {
    const NAMES: [&str; SECTION_COUNT] = [
        "String",
        "Dialect",
        "AttrType",
        "AttrTypeOffset",
        "IR",
        "Resource",
        "ResourceOffset",
        "DialectVersions",
        "Properties",
    ];
    format!("{} ({id})", NAMES[id])
}

/// A corruption MLIR's reader would not survive, with what the file says
/// about itself (for the note MLIR attaches to its own bytecode errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corrupt {
    pub version: u64,
    pub producer: String,
    pub problem: Problem,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A section declares more entries (`declared`, e.g. "3 strings") than
    /// it has bytes left to describe, at least one each.
    TooManyEntries { section: usize, declared: String, bytes: usize },
    /// A string's size leaves no room for its null terminator.
    EmptyString { index: u64 },
    /// A dialect group counts more attributes (or types) than are left of
    /// those the AttrTypeOffset section declares.
    GroupOverflow { offset: usize, what: &'static str, count: u64, left: u64, declared: u64 },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::TooManyEntries { section, declared, bytes } => write!(
                f,
                "the {} section declares {declared}, more than its {bytes} remaining bytes can describe",
                section_name(*section)
            ),
            Problem::EmptyString { index } => write!(
                f,
                "string {index} in the {} section has size 0, which leaves no room for its null terminator",
                section_name(STRING)
            ),
            Problem::GroupOverflow { offset, what, count, left, declared } => write!(
                f,
                "the dialect group at file offset {offset} in the {} section counts {count} {what} entries, more than \
                 the {left} left of the {declared} the section declares",
                section_name(ATTR_TYPE_OFFSET)
            ),
        }
    }
}

impl Corrupt {
    /// The error at `buffer:0:0` (where MLIR locates its bytecode errors),
    /// with MLIR's note naming the version and the producer.
    pub fn diagnostic(&self, buffer: &str) -> crate::Diagnostic {
        let loc = crate::SourceLoc::File { file: buffer.to_string(), line: 0, col: 0 };
        let note = crate::Diagnostic {
            severity: crate::Severity::Note,
            loc: loc.clone(),
            message: format!("in bytecode version {} produced by: {}", self.version, self.producer),
            notes: Vec::new(),
        };
        crate::Diagnostic {
            severity: crate::Severity::Error,
            loc,
            message: self.problem.to_string(),
            notes: vec![note],
        }
    }
}

/// Checks `data` if it is bytecode (text passes at once).
pub fn check(data: &[u8]) -> Result<(), Corrupt> {
    if !data.starts_with(MAGIC) {
        return Ok(());
    }
    let mut reader = Reader::new(data, MAGIC.len(), data.len());
    let Ok(version) = reader.varint() else { return Ok(()) };
    let Ok(producer) = reader.c_string() else { return Ok(()) };
    match check_sections(&mut reader, version) {
        Err(Found::Problem(problem)) => {
            Err(Corrupt { version, producer: String::from_utf8_lossy(producer).into_owned(), problem })
        }
        Ok(()) | Err(Found::LeftToMlir) => Ok(()),
    }
}

/// What a check found, where it stopped early.
enum Found {
    /// The file is malformed in a way MLIR's reader reports itself, before
    /// it reaches anything checked here.
    LeftToMlir,
    Problem(Problem),
}

/// A truncated or out-of-range field: MLIR reports it.
impl From<Truncated> for Found {
    fn from(_: Truncated) -> Found {
        Found::LeftToMlir
    }
}

struct Truncated;

/// Reads the encoding of `EncodingReader` over `data[pos..end]`.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8], pos: usize, end: usize) -> Self {
        Reader { data, pos, end }
    }

    fn remaining(&self) -> usize {
        self.end - self.pos
    }

    fn is_empty(&self) -> bool {
        self.pos == self.end
    }

    fn byte(&mut self) -> Result<u8, Truncated> {
        if self.is_empty() {
            return Err(Truncated);
        }
        self.pos += 1;
        Ok(self.data[self.pos - 1])
    }

    fn skip(&mut self, length: u64) -> Result<(), Truncated> {
        if length > self.remaining() as u64 {
            return Err(Truncated);
        }
        self.pos += length as usize;
        Ok(())
    }

    /// A prefix varint: the trailing zeros of the first byte count the
    /// bytes that follow (none when its low bit is set, eight when it is
    /// zero), the rest of the bits are the value, little-endian.
    fn varint(&mut self) -> Result<u64, Truncated> {
        let first = self.byte()?;
        if first & 1 == 1 {
            return Ok(u64::from(first >> 1));
        }
        let extra = if first == 0 { 8 } else { first.trailing_zeros() as usize };
        let mut bytes = [0u8; 9];
        bytes[0] = first;
        for slot in &mut bytes[1..=extra] {
            *slot = self.byte()?;
        }
        if first == 0 {
            return Ok(u64::from_le_bytes(bytes[1..].try_into().expect("eight bytes")));
        }
        Ok(u64::from_le_bytes(bytes[..8].try_into().expect("eight bytes")) >> (extra + 1))
    }

    /// A null-terminated string, without its terminator.
    fn c_string(&mut self) -> Result<&'a [u8], Truncated> {
        let rest = &self.data[self.pos..self.end];
        let length = rest.iter().position(|&b| b == 0).ok_or(Truncated)?;
        self.pos += length + 1;
        Ok(&rest[..length])
    }
}

/// Where a section's contents are in the file.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// The sections after the producer, in the order MLIR reads them: the
/// string table first (a string in it names each dialect), then the
/// dialects, then the attribute and type offsets.
fn check_sections(reader: &mut Reader<'_>, version: u64) -> Result<(), Found> {
    if version > NEWEST_VERSION {
        return Err(Found::LeftToMlir);
    }
    let sections = read_section_headers(reader, version)?;
    let data = reader.data;
    check_strings(data, sections[STRING])?;
    let dialects = count_dialects(data, sections[DIALECT])?;
    check_attr_type_offsets(data, sections[ATTR_TYPE_OFFSET], sections[ATTR_TYPE].len(), dialects)
}

/// The section headers after the producer, as `BytecodeReader::Impl::read`
/// takes them: an ID byte whose high bit says an alignment follows, the
/// length, the alignment (a power of two, the padding `0xCB` bytes up to
/// it), the contents. Every required section must be there, once.
fn read_section_headers(reader: &mut Reader<'_>, version: u64) -> Result<[Span; SECTION_COUNT], Found> {
    let mut sections: [Option<Span>; SECTION_COUNT] = [None; SECTION_COUNT];
    while !reader.is_empty() {
        let id_and_alignment = reader.byte()?;
        let length = reader.varint()?;
        let id = usize::from(id_and_alignment & 0x7f);
        if id >= SECTION_COUNT {
            return Err(Found::LeftToMlir);
        }
        if id_and_alignment & 0x80 != 0 {
            align(reader)?;
        }
        let start = reader.pos;
        reader.skip(length)?;
        if sections[id].replace(Span { start, end: reader.pos }).is_some() {
            return Err(Found::LeftToMlir);
        }
    }
    let required = |id: usize| id <= IR || (id == PROPERTIES && version >= PROPERTIES_VERSION);
    let mut spans = [Span { start: 0, end: 0 }; SECTION_COUNT];
    for (id, section) in sections.iter().enumerate() {
        match section {
            Some(span) => spans[id] = *span,
            None if required(id) => return Err(Found::LeftToMlir),
            None => {}
        }
    }
    Ok(spans)
}

/// Skips a section's alignment padding. MLIR aligns the address in its
/// buffer, after checking that the buffer itself is aligned to as much
/// (or it reports that): so this is the offset from the file's start. The
/// alignment is the varint taken as MLIR's `unsigned` parameter takes it.
fn align(reader: &mut Reader<'_>) -> Result<(), Found> {
    let alignment = reader.varint()? as u32;
    if !alignment.is_power_of_two() {
        return Err(Found::LeftToMlir);
    }
    let padding = reader.pos.wrapping_neg() & (alignment as usize - 1);
    let start = reader.pos;
    reader.skip(padding as u64)?;
    if reader.data[start..reader.pos].iter().any(|&b| b != ALIGNMENT_BYTE) {
        return Err(Found::LeftToMlir);
    }
    Ok(())
}

/// Every entry of a table takes at least one byte of its section (its
/// size, or an index): a count larger than the bytes left is corrupted,
/// and MLIR would size its table by it before finding out.
fn check_count(
    reader: &Reader<'_>,
    section: usize,
    count: u64,
    declared: impl FnOnce() -> String,
) -> Result<(), Found> {
    let bytes = reader.remaining();
    if count > bytes as u64 {
        return Err(Found::Problem(Problem::TooManyEntries { section, declared: declared(), bytes }));
    }
    Ok(())
}

/// The String section: a count, then each string's size (its text and
/// null terminator), last string first, then the strings.
fn check_strings(data: &[u8], section: Span) -> Result<(), Found> {
    let mut reader = Reader::new(data, section.start, section.end);
    let count = reader.varint()?;
    check_count(&reader, STRING, count, || format!("{count} strings"))?;
    // MLIR checks that each size fits in what is left and that the sizes
    // end where the strings begin; it does not check for a size of 0.
    let mut data_end = section.len() as u64;
    let mut empty = None;
    for index in (0..count).rev() {
        let size = reader.varint()?;
        if size > data_end {
            return Err(Found::LeftToMlir);
        }
        data_end -= size;
        if size == 0 {
            empty = Some(index);
        }
    }
    if (reader.pos - section.start) as u64 != data_end {
        return Err(Found::LeftToMlir);
    }
    match empty {
        Some(index) => Err(Found::Problem(Problem::EmptyString { index })),
        None => Ok(()),
    }
}

/// The Dialect section starts with the count of dialects.
fn count_dialects(data: &[u8], section: Span) -> Result<u64, Found> {
    let mut reader = Reader::new(data, section.start, section.end);
    let count = reader.varint()?;
    check_count(&reader, DIALECT, count, || format!("{count} dialects"))?;
    Ok(count)
}

/// The AttrTypeOffset section: the count of attributes, the count of
/// types, then the attributes' and then the types' entries in dialect
/// groups (a dialect index, a count, then each entry's size in the
/// AttrType section, with a flag in its low bit).
fn check_attr_type_offsets(data: &[u8], section: Span, attr_type_bytes: usize, dialects: u64) -> Result<(), Found> {
    let mut reader = Reader::new(data, section.start, section.end);
    let attributes = reader.varint()?;
    let types = reader.varint()?;
    check_count(&reader, ATTR_TYPE_OFFSET, attributes.saturating_add(types), || {
        format!("{attributes} attributes and {types} types")
    })?;
    let mut offset = 0u64;
    for (declared, what) in [(attributes, "attribute"), (types, "type")] {
        let mut read = 0u64;
        while read != declared {
            let group = reader.pos;
            if reader.varint()? >= dialects {
                return Err(Found::LeftToMlir);
            }
            let count = reader.varint()?;
            let left = declared - read;
            if count > left {
                return Err(Found::Problem(Problem::GroupOverflow { offset: group, what, count, left, declared }));
            }
            for _ in 0..count {
                let size = reader.varint()? >> 1;
                if size > attr_type_bytes as u64 - offset {
                    return Err(Found::LeftToMlir);
                }
                offset += size;
            }
            read += count;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::operation::OperationLike;

    /// Files `ccl-opt --emit-bytecode` wrote (the bytecode fuzz seeds).
    const SEEDS: [&[u8]; 3] = [
        include_bytes!("../../../fuzz/regressions/bytecode/moe-dispatch"),
        include_bytes!("../../../fuzz/regressions/bytecode/moe-dispatch-fenced"),
        include_bytes!("../../../fuzz/regressions/bytecode/upstream"),
    ];

    /// MLIR's `EncodingEmitter::emitVarInt`: `n` bytes hold a value below
    /// 2^(7n) shifted left by `n`, with a 1 bit marking the length.
    fn varint(value: u64) -> Vec<u8> {
        for n in 1..=8u32 {
            if value < 1u64 << (7 * n) {
                let encoded = (value << n) | (1 << (n - 1));
                return encoded.to_le_bytes()[..n as usize].to_vec();
            }
        }
        [&[0u8][..], &value.to_le_bytes()].concat()
    }

    /// Writes `value` over the varint at `at`, in as many bytes as that one
    /// has (the file's layout stays as it was); `None` if it does not fit.
    fn rewrite_varint(file: &[u8], at: usize, value: u64) -> Option<Vec<u8>> {
        let mut reader = Reader::new(file, at, file.len());
        reader.varint().ok()?;
        let width = reader.pos - at;
        let mut encoded = varint(value);
        if encoded.len() > width {
            return None;
        }
        // A wider encoding of the same value: MLIR's reader takes it too.
        if encoded.len() < width {
            let n = width as u32;
            encoded = ((value << n) | (1 << (n - 1))).to_le_bytes()[..width].to_vec();
            if width == 9 {
                encoded = [&[0u8][..], &value.to_le_bytes()].concat();
            }
        }
        let mut out = file.to_vec();
        out[at..at + width].copy_from_slice(&encoded);
        Some(out)
    }

    /// Where the fields this module checks are in a valid file.
    struct Layout {
        sections: [Span; SECTION_COUNT],
        /// The String section's count, and each size (position, value),
        /// last string first.
        string_count_at: usize,
        string_sizes: Vec<(usize, u64)>,
        attributes_at: usize,
        types_at: usize,
        /// Each dialect group: its position, where its count is, the
        /// count, and how many of its kind were left before it.
        groups: Vec<Group>,
    }

    struct Group {
        at: usize,
        count_at: usize,
        count: u64,
        left: u64,
        what: &'static str,
    }

    fn sections_of(file: &[u8]) -> [Span; SECTION_COUNT] {
        let mut reader = Reader::new(file, MAGIC.len(), file.len());
        let version = reader.varint().ok().unwrap();
        reader.c_string().ok().unwrap();
        read_section_headers(&mut reader, version).ok().unwrap()
    }

    fn layout(file: &[u8]) -> Layout {
        let sections = sections_of(file);
        let strings = sections[STRING];
        let mut reader = Reader::new(file, strings.start, strings.end);
        let count = reader.varint().ok().unwrap();
        let string_sizes = (0..count)
            .map(|_| {
                let at = reader.pos;
                (at, reader.varint().ok().unwrap())
            })
            .collect();
        let offsets = sections[ATTR_TYPE_OFFSET];
        let mut reader = Reader::new(file, offsets.start, offsets.end);
        let attributes = reader.varint().ok().unwrap();
        let types_at = reader.pos;
        let types = reader.varint().ok().unwrap();
        let mut groups = Vec::new();
        for (declared, what) in [(attributes, "attribute"), (types, "type")] {
            let mut read = 0;
            while read != declared {
                let at = reader.pos;
                reader.varint().ok().unwrap();
                let count_at = reader.pos;
                let count = reader.varint().ok().unwrap();
                for _ in 0..count {
                    reader.varint().ok().unwrap();
                }
                groups.push(Group { at, count_at, count, left: declared - read, what });
                read += count;
            }
        }
        assert!(reader.is_empty(), "the offsets end with the last group");
        Layout {
            sections,
            string_count_at: strings.start,
            string_sizes,
            attributes_at: offsets.start,
            types_at,
            groups,
        }
    }

    fn problem(file: &[u8]) -> Option<Problem> {
        check(file).err().map(|corrupt| corrupt.problem)
    }

    #[test]
    fn varints_read_as_mlir_writes_them() {
        let mut values = vec![0, 1, 63, 64, 127, 128, u64::MAX, u64::MAX - 1];
        for bits in 1..64 {
            values.extend([(1u64 << bits) - 1, 1 << bits, (1 << bits) + 1]);
        }
        for value in values {
            let bytes = varint(value);
            let mut reader = Reader::new(&bytes, 0, bytes.len());
            assert_eq!(reader.varint().ok(), Some(value), "{value} as {bytes:x?}");
            assert!(reader.is_empty());
            for cut in 0..bytes.len() {
                assert!(Reader::new(&bytes, 0, cut).varint().is_err(), "{value} cut at {cut}");
            }
        }
    }

    #[test]
    fn files_mlir_writes_pass() {
        for seed in SEEDS {
            assert_eq!(check(seed), Ok(()));
            let layout = layout(seed);
            assert!(layout.groups.len() >= 2 && !layout.string_sizes.is_empty());
        }
        // MLIR's writer on generated programs of every shape.
        let session = crate::Session::new();
        for seed in 0..40 {
            let config = crate::generator::Config {
                seed,
                ops: 5 + 40 * seed as usize,
                depth: seed as usize % 5,
                functions: None,
            };
            let program = session
                .parse(&crate::generator::generate(&config), "generated.mlir")
                .expect("generated programs parse");
            let file = program.operation().write_bytecode();
            assert_eq!(check(&file), Ok(()), "seed {seed}");
            layout(&file);
        }
    }

    #[test]
    fn every_truncation_is_left_to_mlir() {
        // A cut section is the reader's own error ("attempting to parse a
        // byte at the end of the bytecode", a missing section).
        for file in SEEDS.iter().copied().chain(corrupted().into_iter().map(|(file, _)| file)) {
            for end in 0..file.len() {
                assert_eq!(check(&file[..end]), Ok(()), "cut at {end}");
            }
        }
    }

    /// The reproducers of `lit-tests/Driver/Inputs/bytecode/` this module
    /// rejects, and the dialect group that overflows in each.
    fn corrupted() -> Vec<(&'static [u8], Problem)> {
        let overflow =
            |offset, what, count, left, declared| Problem::GroupOverflow { offset, what, count, left, declared };
        vec![
            (
                include_bytes!("../../../lit-tests/Driver/Inputs/bytecode/offsets-overflow-end.mlirbc"),
                overflow(59, "attribute", 123, 2, 2),
            ),
            (
                include_bytes!("../../../lit-tests/Driver/Inputs/bytecode/offsets-overflow-past-section.mlirbc"),
                overflow(38, "attribute", 127, 17, 17),
            ),
            (
                include_bytes!("../../../lit-tests/Driver/Inputs/bytecode/offsets-overflow-malloc-abort.mlirbc"),
                overflow(38, "type", 16, 4, 4),
            ),
        ]
    }

    #[test]
    fn the_lit_reproducers_overflow_where_expected() {
        for (file, expected) in corrupted() {
            assert_eq!(problem(file), Some(expected));
        }
    }

    #[test]
    fn a_group_that_counts_past_the_table_is_rejected() {
        for seed in SEEDS {
            let layout = layout(seed);
            for group in &layout.groups {
                for count in [group.left + 1, group.left + 2, group.left * 2 + 1, 127] {
                    let Some(file) = rewrite_varint(seed, group.count_at, count) else { continue };
                    let expected = count > group.left;
                    let found = problem(&file);
                    if expected {
                        assert_eq!(
                            found,
                            Some(Problem::GroupOverflow {
                                offset: group.at,
                                what: group.what,
                                count,
                                left: group.left,
                                declared: if group.what == "attribute" {
                                    layout.groups.iter().filter(|g| g.what == "attribute").map(|g| g.count).sum()
                                } else {
                                    layout.groups.iter().filter(|g| g.what == "type").map(|g| g.count).sum()
                                },
                            })
                        );
                    }
                }
                // Fewer entries than the group had: no overflow at this
                // group (what the misread bytes after it say is MLIR's).
                for count in 0..group.count {
                    let file = rewrite_varint(seed, group.count_at, count).unwrap();
                    assert!(
                        !matches!(problem(&file), Some(Problem::GroupOverflow { offset, .. }) if offset == group.at),
                        "count {count} at {}",
                        group.at
                    );
                }
            }
        }
    }

    #[test]
    fn counts_past_their_section_are_rejected() {
        let mut exercised = [false; SECTION_COUNT];
        for seed in SEEDS {
            let layout = layout(seed);
            let offsets = layout.sections[ATTR_TYPE_OFFSET];
            let first_group = layout.groups[0].at;
            let (attributes, types) = {
                let mut reader = Reader::new(seed, offsets.start, offsets.end);
                (reader.varint().ok().unwrap(), reader.varint().ok().unwrap())
            };
            let bytes = offsets.end - first_group;
            for (at, count) in [(layout.attributes_at, attributes), (layout.types_at, types)] {
                // The largest count that fits where the count was.
                let huge =
                    [count + 10_000, 127].into_iter().find(|&huge| rewrite_varint(seed, at, huge).is_some()).unwrap();
                let file = rewrite_varint(seed, at, huge).unwrap();
                assert!(matches!(
                    problem(&file),
                    Some(Problem::TooManyEntries { section: ATTR_TYPE_OFFSET, bytes: b, .. }) if b == bytes
                ));
            }
            // The largest counts a file of that size can declare are no
            // error of ours (the groups then disagree with them).
            let file = rewrite_varint(seed, layout.attributes_at, bytes as u64 - types).unwrap();
            assert!(!matches!(problem(&file), Some(Problem::TooManyEntries { .. })));

            // The string and dialect counts, as large as their bytes hold:
            // an error exactly when that is more than the section's bytes.
            for (section, at) in [(STRING, layout.string_count_at), (DIALECT, layout.sections[DIALECT].start)] {
                let width = {
                    let mut reader = Reader::new(seed, at, seed.len());
                    reader.varint().ok().unwrap();
                    reader.pos - at
                };
                let largest = (1u64 << (7 * width)) - 1;
                let bytes = layout.sections[section].end - (at + width);
                let found = problem(&rewrite_varint(seed, at, largest).unwrap());
                let too_many = matches!(found, Some(Problem::TooManyEntries { section: s, bytes: b, .. }) if s == section && b == bytes);
                assert_eq!(too_many, largest > bytes as u64, "section {section}: {largest} entries in {bytes} bytes");
                exercised[section] |= too_many;
            }
        }
        assert!(exercised[STRING] && exercised[DIALECT]);
        let message = problem(&rewrite_varint(SEEDS[0], layout(SEEDS[0]).attributes_at, 16000).unwrap()).unwrap();
        assert_eq!(
            message.to_string(),
            "the AttrTypeOffset (3) section declares 16000 attributes and 14 types, more than its 154 remaining \
             bytes can describe"
        );
    }

    #[test]
    fn a_string_of_size_zero_is_rejected() {
        let seed = SEEDS[0];
        let layout = layout(seed);
        let count = layout.string_sizes.len() as u64;
        for (k, pair) in layout.string_sizes.windows(2).enumerate() {
            let ((at, size), (next_at, next_size)) = (pair[0], pair[1]);
            // The string's bytes go to its neighbour: the sizes still add
            // up, as MLIR checks, and the string is 2^64 - 1 bytes long.
            let Some(file) =
                rewrite_varint(seed, at, 0).and_then(|file| rewrite_varint(&file, next_at, size + next_size))
            else {
                continue;
            };
            assert_eq!(problem(&file), Some(Problem::EmptyString { index: count - 1 - k as u64 }));
            // Sizes that do not add up are MLIR's error.
            assert_eq!(check(&rewrite_varint(seed, at, 0).unwrap()), Ok(()));
        }
        let file = rewrite_varint(seed, layout.string_sizes[0].0, 0).unwrap();
        let file = rewrite_varint(&file, layout.string_sizes[1].0, layout.string_sizes[0].1 + layout.string_sizes[1].1)
            .unwrap();
        let diagnostic = check(&file).unwrap_err().diagnostic("in.mlirbc").to_string();
        assert_eq!(
            diagnostic,
            format!(
                "in.mlirbc:0:0: error: string {} in the String (0) section has size 0, which leaves no room for its \
                 null terminator\nin.mlirbc:0:0: note: in bytecode version 6 produced by: MLIR22.1.8",
                count - 1
            )
        );
    }

    /// `seed` with the AttrTypeOffset section aligned to `alignment`,
    /// padded with `padding`.
    fn realigned(seed: &[u8], alignment: u64, padding: u8) -> Vec<u8> {
        let offsets = sections_of(seed)[ATTR_TYPE_OFFSET];
        let mut reader = Reader::new(seed, 0, seed.len());
        // The header: the ID byte, then the length, just before the contents.
        let header = (0..offsets.start)
            .rev()
            .find(|&at| {
                reader.pos = at + 1;
                seed[at] == ATTR_TYPE_OFFSET as u8
                    && reader.varint().ok() == Some(offsets.len() as u64)
                    && reader.pos == offsets.start
            })
            .unwrap();
        let mut out = seed[..header].to_vec();
        out.push(ATTR_TYPE_OFFSET as u8 | 0x80);
        out.extend(varint(offsets.len() as u64));
        out.extend(varint(alignment));
        while !out.len().is_multiple_of(alignment as usize) {
            out.push(padding);
        }
        out.extend(&seed[offsets.start..]);
        out
    }

    #[test]
    fn aligned_sections_are_found_past_their_padding() {
        let session = crate::Session::new();
        for alignment in [1, 2, 8, 16] {
            let file = realigned(SEEDS[0], alignment, ALIGNMENT_BYTE);
            assert_eq!(check(&file), Ok(()));
            // MLIR reads the realigned file: the layout is the one it sees.
            session.parse_bytes(&file, "aligned.mlirbc").expect("MLIR reads the aligned file");
            let (corrupt, expected) = corrupted()[1].clone();
            assert_eq!(
                problem(&realigned(corrupt, alignment, ALIGNMENT_BYTE)),
                Some(expected.clone()).map(|p| {
                    let Problem::GroupOverflow { offset, what, count, left, declared } = p else { unreachable!() };
                    let shift = realigned(corrupt, alignment, ALIGNMENT_BYTE).len() - corrupt.len();
                    Problem::GroupOverflow { offset: offset + shift, what, count, left, declared }
                })
            );
        }
        // Padding that is not 0xCB, an alignment that is not a power of
        // two: MLIR's errors.
        let (corrupt, _) = corrupted()[1];
        assert_eq!(check(&realigned(corrupt, 16, 0)), Ok(()));
        let file = realigned(corrupt, 16, ALIGNMENT_BYTE);
        let at = file.iter().position(|&b| b == ATTR_TYPE_OFFSET as u8 | 0x80).unwrap();
        let mut reader = Reader::new(&file, at + 1, file.len());
        reader.varint().ok().unwrap();
        let mut bad = file.clone();
        bad[reader.pos] = varint(12)[0];
        assert_eq!(check(&bad), Ok(()));
    }

    /// Random corruptions of the seeds: the check never panics and always
    /// ends, and whatever it rejects is one of its three problems with the
    /// numbers of the file.
    #[test]
    fn random_corruptions_end_in_a_verdict() {
        let mut rng = fastrand::Rng::with_seed(30);
        let mut rejected = 0;
        for round in 0..20_000 {
            let mut file = SEEDS[round % SEEDS.len()].to_vec();
            for _ in 0..rng.usize(1..4) {
                let at = rng.usize(MAGIC.len()..file.len());
                file[at] = if rng.bool() { rng.u8(..) } else { file[at] ^ (1 << rng.u32(0..8)) };
            }
            if let Err(corrupt) = check(&file) {
                rejected += 1;
                assert_eq!(corrupt.version, 6);
                assert!(!corrupt.problem.to_string().is_empty());
            }
        }
        assert!(rejected > 0);
    }

    #[test]
    fn text_is_not_checked() {
        assert_eq!(check(b"module {}"), Ok(()));
        assert_eq!(check(b""), Ok(()));
        assert_eq!(check(b"ML\xef"), Ok(()));
    }
}
