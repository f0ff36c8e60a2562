//! What one op computes (`arith`, `index`, the ccl ops that name a rank or
//! block, views) and what it makes its thread do (the items of notifies,
//! waits, accesses and collectives).

use super::instantiate::{unfollowed, value_of, Ctx, Env, Flow, Interpreter};
use super::program::{Cell, ItemKind, Loc, Root, Within};
use super::values::{self, Layout, Val, View};
use crate::ir;
use melior::ir::{
    attribute::{ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute},
    operation::OperationLike,
    OperationRef, ValueLike,
};

/// A dense i64 array attribute of `op`.
pub(super) fn dense_i64(op: OperationRef<'_, '_>, name: &str) -> Option<Vec<i64>> {
    let attribute = DenseI64ArrayAttribute::try_from(op.attribute(name).ok()?).ok()?;
    (0..attribute.len()).map(|i| attribute.element(i).ok()).collect()
}

/// Static values of attribute `attr`, the dynamic ones (`i64::MIN`) taken in
/// order from `dynamic`.
pub(super) fn mixed(op: OperationRef<'_, '_>, attr: &str, dynamic: &[Val]) -> Vec<Val> {
    let Some(statics) = dense_i64(op, attr) else { return Vec::new() };
    let mut dynamic = dynamic.iter();
    statics
        .into_iter()
        .map(|v| if v == i64::MIN { dynamic.next().cloned().unwrap_or(Val::Unknown) } else { Val::Int(v) })
        .collect()
}

/// How many elements a value of `ty` holds: a vector's lanes, else one.
fn lanes(ty: melior::ir::Type<'_>) -> i64 {
    let text = ty.to_string();
    let Some(inner) = text.strip_prefix("vector<") else { return 1 };
    inner.split('x').map_while(|dim| dim.trim_start_matches('[').trim_end_matches(']').parse::<i64>().ok()).product()
}

fn result_width(op: OperationRef<'_, '_>) -> Option<u32> {
    ir::int_width(ir::result(op, 0).r#type())
}

impl<'c, 'a> Interpreter<'c, 'a> {
    /// Runs an op with no regions; its results.
    pub(super) fn effect(
        &mut self,
        op: OperationRef<'c, 'a>,
        name: &str,
        ctx: &Ctx,
        env: &mut Env,
    ) -> Flow<'c, 'a, Vec<Val>> {
        let operands: Vec<Val> = (0..ir::operand_count(op)).map(|i| value_of(env, ir::operand(op, i))).collect();
        if matches!(name.split('.').next(), Some("arith" | "index" | "math")) {
            return Ok(vec![arith(op, name, &operands)]);
        }
        let results = match name {
            "ccl.rank" => vec![Val::Int(values::wrap(ctx.rank as i64, result_width(op).unwrap_or(64)))],
            "ccl.comm_size" => vec![Val::Int(self.program.ranks as i64)],
            "ccl.block_id" => vec![Val::Int(ctx.block.unwrap_or(0) as i64)],
            "ccl.cal_all_to_all_v_blocks" => {
                let blocks = match (operands[0].int(), operands[1].int()) {
                    (Some(p), Some(l)) => cclir_support::formula::blocks(p as i128, l as i128).ok(),
                    _ => None,
                };
                vec![blocks.map_or(Val::Unknown, |b| Val::Int(b as i64))]
            }
            "memref.subview" => vec![subview(op, &operands)],
            "memref.cast" => vec![operands[0].clone()],
            "memref.collapse_shape" | "memref.expand_shape" => vec![reshape(op, name, &operands[0])],
            "memref.alloc" | "memref.alloca" => vec![self.alloc(op, ctx)?],
            "memref.dealloc" | "ccl.fence" | "ccl.cacheinvalid" => Vec::new(),
            "ccl.barrier" | "ccl.all_reduce" | "ccl.all_to_all_v" => {
                if ctx.block.is_some() {
                    return unfollowed(op, "a collective inside a kernel");
                }
                let mut roots = Vec::new();
                for (i, value) in operands.iter().enumerate() {
                    if let Val::View(view) = value {
                        self.program.data_written[view.root as usize] = true;
                        roots.push(view.root);
                    } else if ir::memref_parts(ir::operand(op, i).r#type()).is_some() {
                        return unfollowed(op, "a collective on a buffer the analysis does not know");
                    }
                }
                self.push(ctx, op, ItemKind::Collective { roots })?;
                Vec::new()
            }
            "ccl.notify" => {
                self.notify(op, ctx, &operands)?;
                Vec::new()
            }
            "ccl.wait" => {
                let cell = self.cell(op, ctx, &operands[0], Some(ctx.rank as i64))?;
                let eq = ir::enum_keyword(op, "cmp").as_deref() == Some("eq");
                self.push(ctx, op, ItemKind::Wait { cell, eq, threshold: operands[1].int() })?;
                Vec::new()
            }
            _ => return self.access(op, name, ctx, &operands),
        };
        Ok(results)
    }

    fn alloc(&mut self, op: OperationRef<'c, 'a>, ctx: &Ctx) -> Flow<'c, 'a, Val> {
        let ty = ir::result(op, 0).r#type();
        let Some((shape, element, _)) = ir::memref_parts(ty) else {
            return unfollowed(op, "an allocation of no memref");
        };
        if shape.iter().any(|d| ir::is_dynamic_size(*d)) {
            return unfollowed(op, "an allocation of a dynamic size");
        }
        let name = format!("the buffer {} allocated", self.program.threads[ctx.thread as usize].describe());
        let root = self.new_root(Root {
            name,
            len: shape.iter().product::<i64>().max(0) as u64,
            width: ir::int_width(element),
        });
        Ok(Val::View(View::exact(root, Some(Layout::identity(&shape)))))
    }

    /// The cell element 0 of `signal` names on rank `rank`, when known.
    fn cell(
        &mut self,
        op: OperationRef<'c, 'a>,
        ctx: &Ctx,
        signal: &Val,
        rank: Option<i64>,
    ) -> Flow<'c, 'a, Option<Cell>> {
        let Val::View(View { root, layout: Some(layout), .. }) = signal else { return Ok(None) };
        let Some(rank) = rank else { return Ok(None) };
        if rank < 0 || rank >= self.program.ranks as i64 {
            return self.out_of_range(op, ctx, format!("peer {rank} is not a rank (0..{})", self.program.ranks));
        }
        if layout.elements() < 1 {
            return self.out_of_range(op, ctx, "a signal view of no element".to_string());
        }
        Ok(Some(Loc { root: *root, rank: rank as u32, index: layout.nth(0) as u32 }))
    }

    /// An op the simulator would stop at: no conclusion when it surely
    /// runs, an unknown operand when it may not.
    fn out_of_range<T: Default>(&mut self, op: OperationRef<'c, 'a>, ctx: &Ctx, reason: String) -> Flow<'c, 'a, T> {
        if ctx.certain {
            return unfollowed(op, reason);
        }
        Ok(T::default())
    }

    fn notify(&mut self, op: OperationRef<'c, 'a>, ctx: &Ctx, operands: &[Val]) -> Flow<'c, 'a> {
        let cell = self.cell(op, ctx, &operands[0], operands[1].int())?;
        let root = match &operands[0] {
            Val::View(view) => Some(view.root),
            _ => None,
        };
        if cell.is_none() {
            match root {
                Some(root) => self.program.data_written[root as usize] = true,
                None => self.program.any_cell_unknown = true,
            }
        }
        let add = ir::enum_keyword(op, "op").as_deref() != Some("set");
        self.push(ctx, op, ItemKind::Notify { cell, root, add, value: operands[2].int() })
    }

    /// The elements of `view` on `rank` from row-major position `start`.
    fn elements(
        &mut self,
        op: OperationRef<'c, 'a>,
        ctx: &Ctx,
        view: &Val,
        rank: Option<i64>,
        run: Option<(Option<i64>, i64)>,
    ) -> Flow<'c, 'a, Option<Vec<Loc>>> {
        let Val::View(View { root, layout: Some(layout), .. }) = view else { return Ok(None) };
        let Some(rank) = rank else { return Ok(None) };
        if rank < 0 || rank >= self.program.ranks as i64 {
            return self.out_of_range(op, ctx, format!("peer {rank} is not a rank (0..{})", self.program.ranks));
        }
        let (start, count) = match run {
            None => (Some(0), layout.elements()),
            Some((start, count)) => (start, count),
        };
        let Some(start) = start else { return Ok(None) };
        match layout.run(start, count) {
            Some(indices) => Ok(Some(
                indices.into_iter().map(|index| Loc { root: *root, rank: rank as u32, index: index as u32 }).collect(),
            )),
            None if count > values::MAX_ELEMENTS => Ok(None),
            None => self.out_of_range(op, ctx, "an access out of the bounds of its view".to_string()),
        }
    }

    /// A GM access (read, write, or both: a put reads here and writes there).
    /// What it does not touch is `Some` of nothing; `None` is not known.
    fn access(&mut self, op: OperationRef<'c, 'a>, name: &str, ctx: &Ctx, operands: &[Val]) -> Flow<'c, 'a, Vec<Val>> {
        let me = Some(ctx.rank as i64);
        let position = |view: &Val, indices: &[Val]| -> Option<i64> {
            let Val::View(View { layout: Some(layout), .. }) = view else { return None };
            let indices: Option<Vec<i64>> = indices.iter().map(Val::int).collect();
            layout.position(&indices?)
        };
        let (read, write) = match name {
            "ccl.read" => (side(&operands[0], me, Some((position(&operands[0], &operands[1..]), 1))), None),
            "ccl.tile_load" => {
                let count = lanes(ir::result(op, 0).r#type());
                (side(&operands[0], me, Some((position(&operands[0], &operands[1..]), count))), None)
            }
            "ccl.remote_load" => (side(&operands[0], operands[1].int(), None), None),
            "ccl.tensor_write" => (None, side(&operands[0], me, Some((position(&operands[0], &operands[2..]), 1)))),
            "ccl.tile_store" => {
                let count = lanes(ir::operand(op, 0).r#type());
                (None, side(&operands[1], me, Some((position(&operands[1], &operands[2..]), count))))
            }
            "ccl.remote_store" => {
                let count = lanes(ir::operand(op, 0).r#type());
                (None, side(&operands[1], operands[2].int(), Some((Some(0), count))))
            }
            "ccl.put" => (side(&operands[1], me, None), side(&operands[0], operands[2].int(), None)),
            "ccl.get" => (side(&operands[1], operands[2].int(), None), side(&operands[0], me, None)),
            _ => return unfollowed(op, format!("the analysis does not model '{name}'")),
        };
        let mut touched = |side: &Option<Side<'_>>| match side {
            Some(Side { view, rank, run }) => self.elements(op, ctx, view, *rank, *run),
            None => Ok(Some(Vec::new())),
        };
        let (reads, writes) = (touched(&read)?, touched(&write)?);
        if let Some(Side { view: Val::View(view), .. }) = &write {
            self.program.data_written[view.root as usize] = true;
        }
        let ranks = self.program.ranks;
        let within = [read, write].map(|side| side.and_then(|side| side.within(ranks)));
        self.push(ctx, op, ItemKind::Access { reads, writes, within })?;
        let results = ir::result_count(op);
        Ok(vec![Val::Unknown; results])
    }
}

/// One side of an access: the view, the rank of the copy it touches, and
/// the run of elements from a row-major position (`None`: the whole view).
struct Side<'v> {
    view: &'v Val,
    rank: Option<i64>,
    run: Option<(Option<i64>, i64)>,
}

/// The side of `view` on `rank`, `run` of its elements.
fn side(view: &Val, rank: Option<i64>, run: Option<(Option<i64>, i64)>) -> Option<Side<'_>> {
    Some(Side { view, rank, run })
}

impl Side<'_> {
    /// Where the side stays when its elements are not known: the view's
    /// buffer, on its rank, and the elements a view of bounded size may
    /// cover.
    fn within(&self, ranks: u32) -> Option<Within> {
        let Val::View(view) = self.view else { return None };
        Some(Within {
            root: view.root,
            rank: self.rank.filter(|r| (0..ranks as i64).contains(r)).map(|r| r as u32),
            indices: view
                .bound()
                .and_then(|b| b.run(0, b.elements()))
                .map(|run| run.into_iter().map(|i| i as u32).collect()),
        })
    }
}

/// An `arith`, `index` or `math` op: integers computed as MLIR does, the
/// rest unknown.
fn arith(op: OperationRef<'_, '_>, name: &str, operands: &[Val]) -> Val {
    // A select chooses views as well as integers.
    if name == "arith.select" {
        return match operands[0].int() {
            Some(c) => operands[if c != 0 { 1 } else { 2 }].clone(),
            None => operands[1].clone().merge(&operands[2]),
        };
    }
    let width = if ir::result_count(op) > 0 { result_width(op) } else { None };
    let Some(width) = width else { return Val::Unknown };
    let ints: Option<Vec<i64>> = operands.iter().map(Val::int).collect();
    if ints.is_none() {
        if let Some(range) = range_arith(name, operands, width) {
            return range;
        }
    }
    match name {
        "arith.constant" | "index.constant" | "index.bool.constant" => op
            .attribute("value")
            .ok()
            .and_then(ir::int_attribute_value)
            .map_or(Val::Unknown, |v| Val::Int(values::wrap(v as i64, width))),
        "arith.cmpi" => {
            let predicate = op.attribute("predicate").ok().and_then(|a| IntegerAttribute::try_from(a).ok());
            let from = ir::int_width(ir::operand(op, 0).r#type()).unwrap_or(64);
            match (predicate, ints) {
                (Some(p), Some(v)) => values::compare(p.value(), v[0], v[1], from)
                    .map_or(Val::Unknown, |b| Val::Int(values::wrap(b as i64, 1))),
                _ => Val::Unknown,
            }
        }
        "arith.index_cast" | "arith.extsi" | "arith.trunci" | "index.casts" | "arith.index_castui" | "arith.extui"
        | "index.castu" => {
            let from = ir::int_width(ir::operand(op, 0).r#type()).unwrap_or(64);
            let signed = !matches!(name, "arith.index_castui" | "arith.extui" | "index.castu");
            ints.map_or(Val::Unknown, |v| Val::Int(values::cast(v[0], from, width, signed)))
        }
        _ => match ints.as_deref() {
            Some([a, b]) => values::binary(name, *a, *b, width).map_or(Val::Unknown, Val::Int),
            _ => Val::Unknown,
        },
    }
}

/// `memref.subview`.
fn subview(op: OperationRef<'_, '_>, operands: &[Val]) -> Val {
    let Val::View(source) = &operands[0] else { return Val::Unknown };
    let (root, layout) = (&source.root, &source.layout);
    let segment =
        |i: usize| -> Vec<Val> { ir::operand_segment(op, i).unwrap_or(0..0).map(|k| operands[k].clone()).collect() };
    let known =
        |attr: &str, i: usize| -> Option<Vec<i64>> { mixed(op, attr, &segment(i)).iter().map(Val::int).collect() };
    let (offsets, sizes, steps) = (known("static_offsets", 1), known("static_sizes", 2), known("static_strides", 3));
    let result_rank =
        |sizes: &[i64]| ir::memref_parts(ir::result(op, 0).r#type()).map_or(sizes.len(), |(s, _, _)| s.len());
    let layout = match (layout, &offsets, &sizes, &steps) {
        (Some(layout), Some(offsets), Some(sizes), Some(steps)) => {
            // A rank-reducing subview drops unit sizes, leftmost first.
            let mut extra = sizes.len().saturating_sub(result_rank(sizes));
            let mut dropped = Vec::new();
            for (d, size) in sizes.iter().enumerate() {
                if extra > 0 && *size == 1 {
                    dropped.push(d);
                    extra -= 1;
                }
            }
            values::subview(layout, offsets, sizes, steps, &dropped)
        }
        _ => None,
    };
    if layout.is_some() {
        return Val::View(View::exact(*root, layout));
    }
    // Sizes not known but bounded (a clamped count): the largest view (not
    // for a rank-reducing one, which would need its unit sizes known).
    let largest = |attr: &str, i: usize| -> Option<Vec<i64>> {
        mixed(op, attr, &segment(i)).iter().map(|v| v.bounds().map(|(_, hi)| hi)).collect()
    };
    let within = match (source.bound(), &offsets, largest("static_sizes", 2), &steps) {
        (Some(bound), Some(offsets), Some(sizes), Some(steps))
            if sizes.iter().all(|s| *s >= 0 && *s < i64::MAX) && result_rank(&sizes) == sizes.len() =>
        {
            values::subview(bound, offsets, &sizes, steps, &[])
        }
        _ => None,
    };
    Val::View(View { root: *root, layout: None, within })
}

/// The bounds an op keeps when an operand is a range or unknown: a clamp
/// (`maxsi`/`minsi` with a bound) gives a range, casts and adding or
/// multiplying by known amounts keep one. `None`: not such an op.
fn range_arith(name: &str, operands: &[Val], width: u32) -> Option<Val> {
    let (min, max) =
        if width >= 64 { (i64::MIN, i64::MAX) } else { (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1) };
    let bounds = |v: &Val| v.bounds().unwrap_or((i64::MIN, i64::MAX));
    let fits = |lo: i64, hi: i64| if lo >= min && hi <= max { Val::between(lo, hi) } else { Val::Unknown };
    let finite = |(lo, hi): (i64, i64)| lo != i64::MIN && hi != i64::MAX;
    let value = match name {
        "arith.maxsi" | "arith.minsi" => {
            let (a, b) = (bounds(&operands[0]), bounds(&operands[1]));
            if name == "arith.maxsi" {
                Val::between(a.0.max(b.0), a.1.max(b.1))
            } else {
                Val::between(a.0.min(b.0), a.1.min(b.1))
            }
        }
        "arith.index_cast" | "arith.extsi" | "index.casts" => {
            let (lo, hi) = bounds(&operands[0]);
            fits(lo, hi)
        }
        "arith.addi" | "arith.muli" => {
            let (a, b) = (bounds(&operands[0]), bounds(&operands[1]));
            if !finite(a) || !finite(b) {
                return Some(Val::Unknown);
            }
            let corners: Vec<Option<i64>> = [(a.0, b.0), (a.0, b.1), (a.1, b.0), (a.1, b.1)]
                .iter()
                .map(|&(x, y)| if name == "arith.addi" { x.checked_add(y) } else { x.checked_mul(y) })
                .collect();
            match corners.iter().copied().collect::<Option<Vec<i64>>>() {
                Some(c) => fits(*c.iter().min().expect("four"), *c.iter().max().expect("four")),
                None => Val::Unknown,
            }
        }
        _ => return None,
    };
    Some(value)
}

/// `memref.collapse_shape` and `memref.expand_shape`.
fn reshape(op: OperationRef<'_, '_>, name: &str, source: &Val) -> Val {
    let Val::View(View { root, layout, .. }) = source else { return Val::Unknown };
    let groups = reassociation(op);
    let layout = match (layout, groups) {
        (Some(layout), Some(groups)) if name == "memref.collapse_shape" => values::collapse(layout, &groups),
        (Some(layout), Some(groups)) => {
            let shape = ir::memref_parts(ir::result(op, 0).r#type()).map(|(s, _, _)| s);
            shape.filter(|s| s.iter().all(|d| !ir::is_dynamic_size(*d))).and_then(|shape| {
                let sizes: Vec<Vec<i64>> = groups.iter().map(|g| g.iter().map(|d| shape[*d]).collect()).collect();
                values::expand(layout, &sizes)
            })
        }
        _ => None,
    };
    Val::View(View::exact(*root, layout))
}

fn reassociation(op: OperationRef<'_, '_>) -> Option<Vec<Vec<usize>>> {
    let groups = ArrayAttribute::try_from(op.attribute("reassociation").ok()?).ok()?;
    (0..groups.len())
        .map(|g| {
            let group = ArrayAttribute::try_from(groups.element(g).ok()?).ok()?;
            (0..group.len())
                .map(|d| IntegerAttribute::try_from(group.element(d).ok()?).ok().map(|i| i.value() as usize))
                .collect()
        })
        .collect()
}
