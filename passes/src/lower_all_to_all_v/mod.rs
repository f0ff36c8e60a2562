//! `ccl-lower-all-to-all-v`: each admitted `ccl.all_to_all_v` becomes a
//! `func.call` of a synthesized InCore kernel that runs the protocol of
//! `protocol.rs`: Barrier A, the snapshot of every peer's count for this
//! rank, the push of this lane's slice of each owned peer's rows, Barrier
//! B, the reset (docs/passes/lower-all-to-all-v.md).
//!
//! One kernel per distinct signature (element type, P, rows per peer, row
//! size, B, S, window-ness: the types of the five memref operands and the
//! launch width), reused by every call with that signature, and by a later
//! run of the pass. The kernel carries `ccl.builtin_template_dir`, so a
//! call of it is a publish for Phase B. Markers are not written here:
//! `ccl-insert-comm-fence` places them and `ccl-verify-comm-order` proves
//! them.

pub mod kernel;
pub mod protocol;
pub mod views;

use crate::{
    admit_launch_width::lanes::{LaneError, LaneMap},
    framework::{Anchor, CclPass, Counters, OptionValues, PassContext, PassFailed, PassInfo, Report},
    ir, pass_options, pass_statistics,
};
use cclir_dialect::{
    names,
    names::{Interned, Name},
    ods::{AllToAllV, OpKind},
};
use melior::{
    dialect::func,
    ir::{
        attribute::{ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike},
        r#type::{IntegerType, TypeLike},
        Attribute, Location, OperationRef, Type, Value, ValueLike,
    },
    Context,
};
use rustc_hash::FxHashMap;

pub const ARGUMENT: &str = "ccl-lower-all-to-all-v";

pass_options! {
    /// The pass's options.
    pub struct LowerOptions {
        late_snapshot: bool("late-snapshot", "Test only: read the peers' counts after Barrier B (the old, racy order ccl-sim must catch)", default = false),
    }
}

pass_statistics! {
    /// What one run did.
    pub struct LowerStatistics {
        lowered: "collectives-lowered", "ccl.all_to_all_v ops replaced by a kernel call",
        created: "kernels-created", "Kernels synthesized (one per distinct signature)",
        reused: "kernels-reused", "Calls of a kernel made earlier for the same signature",
    }
}

pub static INFO: PassInfo = PassInfo {
    argument: ARGUMENT,
    name: "CclLowerAllToAllV",
    summary: "Lower each admitted ccl.all_to_all_v to a call of a synthesized kernel that snapshots the peer counts after the start barrier",
    description: "Turns each admitted `ccl.all_to_all_v` into a `func.call` of a kernel the\n\
        pass synthesizes: the collective as the device code that runs it, with the\n\
        peers' counts read once, right after the start barrier, and kept locally.\n\
        A module pass (`passes/src/lower_all_to_all_v/`); it places no markers:\n\
        `ccl-insert-comm-fence` places them and `ccl-verify-comm-order` proves them.",
    anchor: Anchor::Module,
    dependent_dialects: &["arith", "ccl", "func", "memref", "scf"],
    options: LowerOptions::SPECS,
    statistics: LowerStatistics::SPECS,
    create,
};

fn create(values: OptionValues<'_>, counters: &Counters) -> Box<dyn CclPass> {
    Box::new(Lower { options: LowerOptions::from_values(values), stats: LowerStatistics::bind(counters) })
}

struct Lower {
    options: LowerOptions,
    stats: LowerStatistics,
}

/// What a kernel depends on: the operand types and the launch width, and
/// what follows from them.
#[derive(Clone, Debug)]
pub struct Signature<'c> {
    types: [Type<'c>; 5],
    /// B.
    pub blocks: u64,
    /// P.
    pub ranks: i64,
    /// MR: rows per peer in `recv` (and `send`).
    pub rows_per_peer: i64,
    /// Elements per row.
    pub row_size: i64,
    /// The shape of `send` and `recv`.
    pub data_shape: Vec<i64>,
    pub element: Type<'c>,
    pub count_element: Type<'c>,
    pub counts_space: Option<Attribute<'c>>,
    pub signal_element: Type<'c>,
    pub signal_space: Option<Attribute<'c>>,
    /// S: the signal's columns.
    pub signal_stride: i64,
    pub lanes: LaneMap,
}

impl<'c> Signature<'c> {
    /// The kernel's argument types: send, send_counts, recv, recv_counts,
    /// signal.
    pub fn argument_types(&self) -> Vec<Type<'c>> {
        self.types.to_vec()
    }

    /// The memory space of `send` or `recv`.
    pub fn data_space(&self, buffer: Value<'c, '_>) -> Option<Attribute<'c>> {
        ir::memref_parts(buffer.r#type()).and_then(|(_, _, space)| space)
    }

    fn key(&self) -> (Vec<usize>, u64) {
        (self.types.iter().map(|t| t.to_raw().ptr as usize).collect(), self.blocks)
    }
}

/// The largest value a count of type `ty` holds (a signless integer wider
/// than i1, or index), or `None` for any other type.
pub fn count_max(ty: Type<'_>) -> Option<i64> {
    if ty.is_index() {
        return Some(i64::MAX);
    }
    let int = IntegerType::try_from(ty).ok()?;
    match int.width() {
        w if !int.is_signless() || w < 2 => None,
        w if w >= 64 => Some(i64::MAX),
        w => Some((1i64 << (w - 1)) - 1),
    }
}

/// Reads the signature of `op`, or says why it cannot be lowered (the
/// section's errors, each located at the op).
fn signature<'c>(names: &Interned, op: AllToAllV<'c, '_>) -> Result<Signature<'c>, String> {
    let name = AllToAllV::NAME;
    let signal = op.signal().ok_or_else(|| {
        format!("'{name}' has no signal operand: lowering synchronises on a memref<P x S x i32, #ccl.window>")
    })?;
    let blocks = op.launch_width().ok_or_else(|| {
        format!(
            "'{name}' has no admitted launch_width: run ccl-admit-launch-width on a constant number of blocks first"
        )
    })?;
    let operands = [op.send(), op.send_counts(), op.recv(), op.recv_counts(), signal];
    let mut parts = Vec::new();
    for (label, value) in ["send", "send_counts", "recv", "recv_counts", "signal"].iter().zip(operands) {
        let ty = value.r#type();
        let Some((shape, element, space)) = ir::memref_parts(ty) else {
            return Err(format!("'{name}' operand {label} must be a ranked memref, got {ty}"));
        };
        if shape.iter().any(|&d| ir::is_dynamic_size(d)) || !ir::has_identity_layout(ty) {
            return Err(format!(
                "'{name}' operand {label} has a dynamic shape or layout ({ty}): lowering needs static shapes"
            ));
        }
        parts.push((shape, element, space));
    }
    let [send, counts, recv, recv_counts, signal_parts] = <[_; 5]>::try_from(parts).expect("five operands");
    let ranks = match counts.0.as_slice() {
        [p] => *p,
        _ => {
            return Err(format!(
                "'{name}' send_counts must be one-dimensional (P counts), got {}",
                op.send_counts().r#type()
            ))
        }
    };
    if count_max(counts.1).is_none() {
        return Err(format!(
            "'{name}' send_counts must hold integer counts (a signless integer wider than i1, or index), got {}",
            op.send_counts().r#type()
        ));
    }
    if recv_counts.0 != counts.0 || recv_counts.1 != counts.1 {
        return Err(format!(
            "'{name}' recv_counts must have the shape and element type of send_counts ({ranks} x {}), got {}",
            counts.1,
            op.recv_counts().r#type()
        ));
    }
    if !counts.2.is_some_and(|space| names.is_window_space(space)) {
        return Err(format!("'{name}' send_counts must be window-bound: peers read it remotely"));
    }
    if ranks == 0 {
        return Err(format!("'{name}' send_counts holds no counts: lowering needs at least one rank"));
    }
    let (rows, row_size) = match recv.0.split_first() {
        Some((rows, rest)) => (*rows, rest.iter().try_fold(1i64, |n, &d| n.checked_mul(d))),
        None => return Err(format!("'{name}' recv must have at least one dimension")),
    };
    if send.0 != recv.0 || send.1 != recv.1 {
        return Err(format!(
            "'{name}' send and recv must have the same shape and element type, got {} and {}",
            op.send().r#type(),
            op.recv().r#type()
        ));
    }
    // Every element offset of the kernel is an index below the total.
    let Some(row_size) = row_size.filter(|size| size.checked_mul(rows).is_some()) else {
        return Err(format!("'{name}' recv has more elements than an index can count ({})", op.recv().r#type()));
    };
    if rows % ranks != 0 {
        return Err(format!("'{name}' recv has {rows} rows, not a multiple of the {ranks} ranks"));
    }
    let signal_i32 = IntegerType::try_from(signal_parts.1).is_ok_and(|int| int.width() == 32 && int.is_signless());
    let signal_window = signal_parts.2.is_some_and(|space| names.is_window_space(space));
    let (signal_rows, stride) = match signal_parts.0.as_slice() {
        [rows, columns] if signal_i32 && signal_window => (*rows, *columns),
        _ => return Err(format!("'{name}' signal must be memref<P x S x i32, #ccl.window>, got {}", signal.r#type())),
    };
    if signal_rows != ranks {
        return Err(format!("'{name}' signal has {signal_rows} rows, not one per rank ({ranks})"));
    }
    if let Some(declared) = op.signal_stride().filter(|&declared| declared != stride) {
        return Err(format!("'{name}' signal_stride {declared} does not match the {stride} columns of the signal"));
    }
    if stride < blocks {
        return Err(format!("signal stride {stride} is narrower than the admitted launch width {blocks}"));
    }
    let lanes = u64::try_from(blocks)
        .map_err(|_| format!("'{name}' launch width {blocks} is not admissible: a launch width is positive"))
        .and_then(|b| LaneMap::new(ranks as u64, b).map_err(|error: LaneError| format!("'{name}' {error}")))?;
    Ok(Signature {
        types: operands.map(|v| v.r#type()),
        blocks: blocks as u64,
        ranks,
        rows_per_peer: rows / ranks,
        row_size,
        data_shape: recv.0,
        element: recv.1,
        count_element: counts.1,
        counts_space: counts.2,
        signal_element: signal_parts.1,
        signal_space: signal_parts.2,
        signal_stride: stride,
        lanes,
    })
}

impl CclPass for Lower {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = Interned::new(ir::context_of(module));
        let mut launches = Vec::new();
        ir::walk_nested(module, |op| {
            if names.is(Name::of(op), OpKind::AllToAllV) {
                launches.extend(AllToAllV::of_kind(op));
            }
            ir::Walk::Advance
        });
        // Every error of the run first; nothing is rewritten when any.
        let mut lowerings = Vec::new();
        let mut failed = false;
        for &launch in &launches {
            let found = signature(&names, launch)
                .map(|signature| (launch, signature, symbol_table_of(module, launch.operation())));
            match found {
                Ok(lowering) => lowerings.push(lowering),
                Err(message) => {
                    cx.report(Report::error_at(launch.operation(), message));
                    failed = true;
                }
            }
        }
        if failed {
            return Err(PassFailed);
        }
        if lowerings.is_empty() {
            cx.preserve_all();
            return Ok(());
        }
        let protocol = if self.options.late_snapshot { protocol::LATE_SNAPSHOT } else { protocol::PROTOCOL };
        let context = ir::context_of(module);
        let mut tables: FxHashMap<ir::OpKey, Kernels> = FxHashMap::default();
        for (launch, signature, table) in lowerings {
            let op = launch.operation();
            let kernels =
                tables.entry(ir::OpKey::of(table)).or_insert_with(|| Kernels::of_table(table, &names, protocol));
            let (name, created) = kernels.get(context, table, &signature, protocol, op.location());
            if created {
                self.stats.created.add(1);
            } else {
                self.stats.reused.add(1);
            }
            let arguments = [launch.send(), launch.send_counts(), launch.recv(), launch.recv_counts()]
                .into_iter()
                .chain(launch.signal())
                .collect::<Vec<_>>();
            let mut call =
                func::call(context, FlatSymbolRefAttribute::new(context, &name), &arguments, &[], op.location());
            let width = IntegerAttribute::new(IntegerType::new(context, 64).into(), signature.blocks as i64);
            call.set_attribute(names::ATTR_LAUNCH_WIDTH, width.into());
            let block = op.block().expect("an op in a block");
            block.insert_operation_before(op, call);
            cx.erase(op);
            self.stats.lowered.add(1);
        }
        Ok(())
    }
}

/// The symbol table the call of `op`'s kernel looks its callee up in, where
/// the kernel goes: the nearest enclosing `builtin.module`, or the parent
/// of the nearest enclosing symbol (a function: MLIR holds a symbol's
/// parent to be a symbol table), whichever is nearer; `module` (the pass's
/// anchor) if neither.
fn symbol_table_of<'c, 'a>(module: OperationRef<'c, 'a>, op: OperationRef<'c, 'a>) -> OperationRef<'c, 'a> {
    let mut child_is_symbol = false;
    let mut at = op.parent_operation();
    while let Some(ancestor) = at {
        if child_is_symbol || ir::op_name(ancestor) == "builtin.module" {
            return ancestor;
        }
        child_is_symbol = ir::symbol_name(ancestor).is_some();
        at = ancestor.parent_operation();
    }
    module
}

/// The kernels of one symbol table by signature: the ones an earlier run
/// made with the same protocol (found by their template attribute, step
/// list, argument types and launch width) and the new ones.
struct Kernels {
    by_signature: FxHashMap<(Vec<usize>, u64), String>,
    taken: rustc_hash::FxHashSet<String>,
}

impl Kernels {
    fn of_table(table: OperationRef<'_, '_>, names: &Interned, protocol: &[protocol::NamedStep]) -> Self {
        let mut kernels = Kernels { by_signature: FxHashMap::default(), taken: Default::default() };
        let steps = protocol_attribute(ir::context_of(table), protocol);
        for op in ir::regions(table).flat_map(ir::blocks).flat_map(ir::ops) {
            let Some(symbol) = ir::symbol_name(op) else { continue };
            kernels.taken.insert(symbol.to_string());
            let ours = Name::of(op) == names.func
                && ir::discardable_string_attr(op, names::ATTR_BUILTIN_TEMPLATE_DIR) == Some(ARGUMENT)
                && op.attribute(kernel::ATTR_PROTOCOL).ok() == Some(steps);
            if let (true, Some(entry)) = (ours, ir::entry_block(op)) {
                let types: Vec<usize> = (0..entry.argument_count())
                    .map(|i| ir::block_argument(entry, i).r#type().to_raw().ptr as usize)
                    .collect();
                let width = ir::discardable_i64_attr(op, names::ATTR_LAUNCH_WIDTH).unwrap_or(0) as u64;
                kernels.by_signature.entry((types, width)).or_insert_with(|| symbol.to_string());
            }
        }
        kernels
    }

    /// The kernel for `signature`, made at the end of `table` if there is
    /// none yet; whether it was made.
    fn get<'c>(
        &mut self,
        context: &'c Context,
        table: OperationRef<'c, '_>,
        signature: &Signature<'c>,
        protocol: &[protocol::NamedStep],
        location: Location<'c>,
    ) -> (String, bool) {
        if let Some(name) = self.by_signature.get(&signature.key()) {
            return (name.clone(), false);
        }
        let base = format!("__ccl_all_to_all_v_p{}_b{}", signature.ranks, signature.blocks);
        let name = std::iter::once(base.clone())
            .chain((1..).map(|n| format!("{base}_{n}")))
            .find(|candidate| !self.taken.contains(candidate))
            .expect("a free name");
        let function = kernel::build(context, &name, signature, protocol, location);
        let body = ir::first_block_of(table, 0).expect("a symbol table has a body");
        match body.terminator() {
            Some(terminator) => body.insert_operation_before(terminator, function),
            None => body.append_operation(function),
        };
        self.taken.insert(name.clone());
        self.by_signature.insert(signature.key(), name.clone());
        (name, true)
    }
}

/// The `ccl.protocol` attribute a kernel running `protocol` carries: its
/// step names in order.
pub fn protocol_attribute<'c>(context: &'c Context, protocol: &[protocol::NamedStep]) -> Attribute<'c> {
    let steps: Vec<Attribute<'c>> =
        protocol.iter().map(|step| StringAttribute::new(context, step.name).into()).collect();
    ArrayAttribute::new(context, &steps).into()
}

#[cfg(test)]
mod tests;
