//! [`Accesses`] read from the IR of a kernel.

use super::*;

/// [`Accesses`] read from the IR of the kernel the events are of, each
/// once.
pub struct IrAccesses<'o, 'n, 'c, 'a> {
    ops: &'o crate::comm_order::model::EventOps<'c, 'a>,
    reader: crate::comm_order::memory::Reader<'n>,
    aliases: Aliases,
    cache: FxHashMap<u32, Option<Access>>,
    /// Per function of the module: whether a call of it may return with
    /// writes in flight (missing: it may).
    loud: &'o [bool],
    /// Call ops known to return with nothing in flight, whatever `loud`
    /// says (a kernel alone knows no callee: `placement=minimal`'s scan
    /// finds them, [`SoundPlacement::quiet_calls`]).
    ///
    /// [`SoundPlacement::quiet_calls`]: crate::comm_order::buffers::SoundPlacement::quiet_calls
    quiet_calls: Option<&'o FxHashSet<crate::comm_order::model::OpKey>>,
}

impl<'o, 'n, 'c, 'a> IrAccesses<'o, 'n, 'c, 'a> {
    pub fn new(
        ops: &'o crate::comm_order::model::EventOps<'c, 'a>,
        names: &'n cclir_dialect::names::Interned,
        aliases: Aliases,
        loud: &'o [bool],
    ) -> Self {
        IrAccesses {
            ops,
            reader: crate::comm_order::memory::Reader::new(names),
            aliases,
            cache: FxHashMap::default(),
            loud,
            quiet_calls: None,
        }
    }

    /// The same, knowing which call ops return with nothing in flight.
    pub fn with_quiet_calls(mut self, quiet: &'o FxHashSet<crate::comm_order::model::OpKey>) -> Self {
        self.quiet_calls = Some(quiet);
        self
    }
}

impl Accesses for IrAccesses<'_, '_, '_, '_> {
    fn access(&mut self, order: u32) -> Option<Access> {
        let (ops, reader) = (self.ops, &self.reader);
        self.cache.entry(order).or_insert_with(|| ops.get(order).and_then(|op| reader.access(op))).clone()
    }

    fn base_size(&mut self, order: u32) -> Option<i128> {
        self.reader.base_size_of(self.ops.get(order)?)
    }

    fn call_writes(&mut self, order: u32) -> Option<Vec<Access>> {
        self.reader.call_writes(self.ops.get(order)?)
    }

    fn reads(&mut self, order: u32) -> Option<Access> {
        self.reader.read_access(self.ops.get(order)?)
    }

    fn loud(&self, order: u32, callee: Option<usize>) -> bool {
        let quiet = self
            .quiet_calls
            .zip(self.ops.get(order))
            .is_some_and(|(quiet, op)| quiet.contains(&crate::comm_order::model::OpKey::of(op)));
        !quiet && callee.is_none_or(|c| self.loud.get(c).copied().unwrap_or(true))
    }

    fn aliases(&self) -> &Aliases {
        &self.aliases
    }
}
