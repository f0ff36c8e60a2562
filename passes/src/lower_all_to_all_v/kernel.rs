//! Builds the InCore kernel of one all_to_all_v signature from the protocol's
//! step list (`protocol.rs`), with the typed builders of the ccl ops
//! (`ods`) and melior's for `arith`, `scf` and `func`. The builder is an
//! interpreter of steps: what the kernel does is the list, what each step
//! expands to is one function here.

use super::{
    protocol::{NamedStep, Step},
    views::{self, Extent},
    Signature, ARGUMENT,
};
use crate::{admit_launch_width::lanes::LaneMap, ir};
use cclir_dialect::{
    names,
    ods::{self, NotifyKind, WaitCmp},
};
use melior::{
    dialect::{
        arith::{self, CmpiPredicate},
        func, scf,
    },
    ir::{
        attribute::{IntegerAttribute, StringAttribute, TypeAttribute},
        block::BlockLike,
        r#type::{FunctionType, IntegerType, TypeLike},
        Attribute, Block, BlockRef, Identifier, Location, Operation, OperationRef, Region, RegionLike, Type, Value,
    },
    Context,
};

/// The kernel attribute that lists the steps it runs, in order.
pub const ATTR_PROTOCOL: &str = "ccl.protocol";

/// Where ops go: before the terminator of `block` (or at its end).
#[derive(Clone, Copy)]
struct Emitter<'c, 'a> {
    context: &'c Context,
    block: BlockRef<'c, 'a>,
    location: Location<'c>,
}

impl<'c, 'a> Emitter<'c, 'a> {
    fn emit(&self, op: Operation<'c>) -> OperationRef<'c, 'a> {
        match self.block.terminator() {
            Some(terminator) => self.block.insert_operation_before(terminator, op),
            None => self.block.append_operation(op),
        }
    }

    fn value(&self, op: Operation<'c>) -> Value<'c, 'a> {
        ir::result(self.emit(op), 0)
    }

    fn index_type(&self) -> Type<'c> {
        Type::index(self.context)
    }

    fn constant(&self, ty: Type<'c>, value: i64) -> Value<'c, 'a> {
        self.value(arith::constant(self.context, IntegerAttribute::new(ty, value).into(), self.location))
    }

    fn index(&self, value: i64) -> Value<'c, 'a> {
        self.constant(self.index_type(), value)
    }

    /// `scf.for %iv = lo to hi step step { body(%iv) }`.
    fn for_range(
        &self,
        lo: Value<'c, 'a>,
        hi: Value<'c, 'a>,
        step: Value<'c, 'a>,
        body: impl FnOnce(Emitter<'c, 'a>, Value<'c, 'a>),
    ) {
        let region = Region::new();
        let block = Block::new(&[(self.index_type(), self.location)]);
        block.append_operation(scf::r#yield(&[], self.location));
        region.append_block(block);
        let op = self.emit(scf::r#for(lo, hi, step, region, self.location));
        let inner = ir::first_block_of(op, 0).expect("scf.for has a body");
        body(Emitter { block: inner, ..*self }, ir::block_argument(inner, 0))
    }

    /// `scf.if %condition { body }`.
    fn if_then(&self, condition: Value<'c, 'a>, body: impl FnOnce(Emitter<'c, 'a>)) {
        let then = Region::new();
        let block = Block::new(&[]);
        block.append_operation(scf::r#yield(&[], self.location));
        then.append_block(block);
        let op = self.emit(scf::r#if(condition, &[], then, Region::new(), self.location));
        body(Emitter { block: ir::first_block_of(op, 0).expect("scf.if has a then block"), ..*self })
    }

    fn cmp(&self, predicate: CmpiPredicate, a: Value<'c, 'a>, b: Value<'c, 'a>) -> Value<'c, 'a> {
        self.value(arith::cmpi(self.context, predicate, a, b, self.location))
    }

    /// `min(max(value, lo), hi)`, signed.
    fn clamp(&self, value: Value<'c, 'a>, lo: Value<'c, 'a>, hi: Value<'c, 'a>) -> Value<'c, 'a> {
        let at_least = self.value(arith::maxsi(value, lo, self.location));
        self.value(arith::minsi(at_least, hi, self.location))
    }

    /// Runs `body` in `step`'s named location.
    fn in_step(&self, step: &NamedStep) -> Self {
        Emitter { location: ir::named_location(&format!("{ARGUMENT}.{}", step.name), self.location), ..*self }
    }
}

/// The values every step reads.
#[derive(Clone, Copy)]
struct Kernel<'c, 'a> {
    signature: &'a Signature<'c>,
    send: Value<'c, 'a>,
    send_counts: Value<'c, 'a>,
    recv: Value<'c, 'a>,
    recv_counts: Value<'c, 'a>,
    signal: Value<'c, 'a>,
    /// Flat (one-dimensional) views of `send` and `recv`.
    send_flat: Value<'c, 'a>,
    recv_flat: Value<'c, 'a>,
    me: Value<'c, 'a>,
    block: Value<'c, 'a>,
    lanes: LaneMap,
}

/// Builds the kernel `name` for `signature` running `protocol`, at
/// `location`, not yet inserted.
pub fn build<'c>(
    context: &'c Context,
    name: &str,
    signature: &Signature<'c>,
    protocol: &[NamedStep],
    location: Location<'c>,
) -> Operation<'c> {
    let inputs = signature.argument_types();
    let argument_locations: Vec<(Type<'c>, Location<'c>)> = inputs.iter().map(|ty| (*ty, location)).collect();
    let region = Region::new();
    region.append_block(Block::new(&argument_locations));
    let id = |text: &str| Identifier::new(context, text);
    let i64_type = IntegerType::new(context, 64).into();
    let function = func::func(
        context,
        StringAttribute::new(context, name),
        TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()),
        region,
        &[
            (id(names::ATTR_KIND), StringAttribute::new(context, "aiv").into()),
            (id(names::ATTR_BUILTIN_TEMPLATE_DIR), StringAttribute::new(context, ARGUMENT).into()),
            (id(names::ATTR_LAUNCH_WIDTH), IntegerAttribute::new(i64_type, signature.blocks as i64).into()),
            (id(ATTR_PROTOCOL), super::protocol_attribute(context, protocol)),
        ],
        location,
    );
    // Built in place: the body is filled through references into the new
    // function, then the function is handed back.
    {
        let entry = ir::first_block_of(ir::as_ref(&function), 0).expect("the kernel has a body");
        entry.append_operation(func::r#return(&[], location));
        let at = Emitter { context, block: entry, location };
        let argument = |i| ir::block_argument(entry, i);
        let send = argument(0);
        let recv = argument(2);
        let kernel = Kernel {
            signature,
            send,
            send_counts: argument(1),
            recv,
            recv_counts: argument(3),
            signal: argument(4),
            send_flat: flat(at, send, signature),
            recv_flat: flat(at, recv, signature),
            me: at.value(ods::Rank::build(location, at.index_type())),
            block: at.value(ods::BlockId::build(location, at.index_type())),
            lanes: signature.lanes,
        };
        for step in protocol {
            emit_step(at.in_step(step), &kernel, step.step);
        }
    }
    function
}

/// `buffer` as one flat run of elements (a collapse when it has several
/// dimensions).
fn flat<'c, 'a>(at: Emitter<'c, 'a>, buffer: Value<'c, 'a>, signature: &Signature<'c>) -> Value<'c, 'a> {
    if signature.data_shape.len() == 1 {
        return buffer;
    }
    let total: i64 = signature.data_shape.iter().product();
    let ty =
        melior::ir::r#type::MemRefType::new(signature.element, &[total], None, signature.data_space(buffer)).into();
    at.value(views::collapse_all(at.location, buffer, ty))
}

fn emit_step<'c, 'a>(at: Emitter<'c, 'a>, k: &Kernel<'c, 'a>, step: Step) {
    match step {
        Step::NotifyPeers { value } => for_each_other_rank(at, k, |at, peer| {
            let cell = signal_cell(at, k, k.me, k.block);
            let amount = at.constant(k.signature.signal_element, value);
            at.emit(ods::Notify::build(at.location, cell, peer, amount, NotifyKind::AtomicAdd));
        }),
        Step::WaitPeers { expected } => for_each_other_rank(at, k, |at, peer| {
            let cell = signal_cell(at, k, peer, k.block);
            let threshold = at.constant(k.signature.signal_element, expected);
            at.emit(ods::Wait::build(at.location, cell, threshold, WaitCmp::Ge));
        }),
        Step::ResetOwn { value } => for_each_other_rank(at, k, |at, peer| {
            let cell = signal_cell(at, k, peer, k.block);
            let amount = at.constant(k.signature.signal_element, value);
            at.emit(ods::Notify::build(at.location, cell, k.me, amount, NotifyKind::AtomicAdd));
        }),
        Step::Snapshot => for_each_owned_peer(at, k, true, |at, peer, _lane| {
            let signature = k.signature;
            let count_type = strided(signature.count_element, &[1], &[1], signature.counts_space);
            let theirs = at.value(views::subview(
                at.location,
                k.send_counts,
                &[Extent::Dynamic(k.me)],
                &[Extent::Static(1)],
                count_type,
            ));
            let count = at.value(ods::RemoteLoad::build(at.location, theirs, peer, signature.count_element));
            let clamped = clamp_count(at, signature, count);
            at.emit(ods::TensorWrite::build(at.location, k.recv_counts, clamped, &[peer]));
        }),
        Step::Push => for_each_owned_peer(at, k, false, |at, peer, lane| {
            let signature = k.signature;
            let mine = at.value(ods::Read::build(at.location, k.send_counts, &[peer], signature.count_element));
            let rows_counted = clamp_count(at, signature, mine);
            let rows = if signature.count_element.is_index() {
                rows_counted
            } else {
                at.value(arith::index_cast(rows_counted, at.index_type(), at.location))
            };
            let v = at.value(arith::muli(rows, at.index(signature.row_size), at.location));
            // This lane's part of the rows' elements (flat_lane_slice): with
            // one lane per peer (K <= 1) all of them, else e = ceil(v / K),
            // begin = min(lane * e, v), end = min(begin + e, v).
            let (begin, size) = match lane {
                None => (None, v),
                Some(lane) => {
                    let each = at.value(arith::ceildivsi(v, at.index(k.lanes.lanes_per_peer() as i64), at.location));
                    let start = at.value(arith::muli(lane, each, at.location));
                    let begin = at.value(arith::minsi(start, v, at.location));
                    let stop = at.value(arith::addi(begin, each, at.location));
                    let end = at.value(arith::minsi(stop, v, at.location));
                    (Some(begin), at.value(arith::subi(end, begin, at.location)))
                }
            };
            let any = at.cmp(CmpiPredicate::Sgt, size, at.index(0));
            at.if_then(any, |at| {
                let block_elements = at.index(signature.rows_per_peer * signature.row_size);
                let from_row = at.value(arith::muli(peer, block_elements, at.location));
                let to_row = at.value(arith::muli(k.me, block_elements, at.location));
                let (from, to) = match begin {
                    None => (from_row, to_row),
                    Some(begin) => (
                        at.value(arith::addi(from_row, begin, at.location)),
                        at.value(arith::addi(to_row, begin, at.location)),
                    ),
                };
                // `size` elements of a flattened buffer from `start`.
                let slice = |flat, start, buffer| {
                    let ty = strided(signature.element, &[ir::dynamic_extent()], &[1], signature.data_space(buffer));
                    at.value(views::subview(at.location, flat, &[Extent::Dynamic(start)], &[Extent::Dynamic(size)], ty))
                };
                let source = slice(k.send_flat, from, k.send);
                let target = slice(k.recv_flat, to, k.recv);
                at.emit(ods::Put::build(at.location, target, source, peer));
            });
        }),
    }
}

fn strided<'c>(element: Type<'c>, shape: &[i64], strides: &[i64], space: Option<Attribute<'c>>) -> Type<'c> {
    ir::strided_memref(element, shape, strides, space)
}

/// The one-element view `signal[row, column]`.
fn signal_cell<'c, 'a>(
    at: Emitter<'c, 'a>,
    k: &Kernel<'c, 'a>,
    row: Value<'c, 'a>,
    column: Value<'c, 'a>,
) -> Value<'c, 'a> {
    let signature = k.signature;
    let ty = strided(signature.signal_element, &[1, 1], &[signature.signal_stride, 1], signature.signal_space);
    at.value(views::subview(
        at.location,
        k.signal,
        &[Extent::Dynamic(row), Extent::Dynamic(column)],
        &[Extent::Static(1), Extent::Static(1)],
        ty,
    ))
}

/// `body(p)` for every rank p != me.
fn for_each_other_rank<'c, 'a>(
    at: Emitter<'c, 'a>,
    k: &Kernel<'c, 'a>,
    body: impl FnOnce(Emitter<'c, 'a>, Value<'c, 'a>),
) {
    let (zero, ranks, one) = (at.index(0), at.index(k.signature.ranks), at.index(1));
    at.for_range(zero, ranks, one, |at, peer| {
        let other = at.cmp(CmpiPredicate::Ne, peer, k.me);
        at.if_then(other, |at| body(at, peer));
    });
}

/// `body(q, lane)` for every peer q this block owns (the lane mapping of
/// the admitted width): with K = B / P lanes per peer, block `blk` owns
/// peer `blk / K` at lane `blk % K`; with B < P it owns peers `blk, blk +
/// B, ...` at lane 0. `lane` is `None` when a peer has one lane (K <= 1):
/// the block moves all of the peer's rows. `lane_zero_only` keeps only the
/// owner at lane 0.
fn for_each_owned_peer<'c, 'a>(
    at: Emitter<'c, 'a>,
    k: &Kernel<'c, 'a>,
    lane_zero_only: bool,
    body: impl FnOnce(Emitter<'c, 'a>, Value<'c, 'a>, Option<Value<'c, 'a>>),
) {
    let lanes = k.lanes.lanes_per_peer();
    match lanes {
        0 => {
            let (ranks, stride) = (at.index(k.signature.ranks), at.index(k.lanes.blocks() as i64));
            at.for_range(k.block, ranks, stride, |at, peer| body(at, peer, None));
        }
        1 => body(at, k.block, None),
        _ => {
            let per_peer = at.index(lanes as i64);
            let peer = at.value(arith::divui(k.block, per_peer, at.location));
            let lane = at.value(arith::remui(k.block, per_peer, at.location));
            if lane_zero_only {
                let first = at.cmp(CmpiPredicate::Eq, lane, at.index(0));
                at.if_then(first, |at| body(at, peer, Some(lane)));
            } else {
                body(at, peer, Some(lane))
            }
        }
    }
}

/// `clamp(count, 0, MR)` in the count's own type. An MR the type cannot
/// hold is above every count, so the bound is the type's largest value
/// (an i8 count with MR = 256 clamps to 127, not to 256 wrapped to 0).
fn clamp_count<'c, 'a>(at: Emitter<'c, 'a>, signature: &Signature<'c>, count: Value<'c, 'a>) -> Value<'c, 'a> {
    let ty = signature.count_element;
    let most = super::count_max(ty).expect("the signature checked the count type").min(signature.rows_per_peer);
    let zero = at.constant(ty, 0);
    let most = at.constant(ty, most);
    at.clamp(count, zero, most)
}
