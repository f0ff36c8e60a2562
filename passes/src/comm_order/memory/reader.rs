//! Reading accesses from the IR: a memref value as a window into its
//! buffer ([`View`]), and [`Reader`], which builds the [`Access`]es of a
//! function's ops from it.

use super::*;
/// A memref value as a window into its buffer: the flat index of its first
/// element, and its strides and sizes (from its type).
#[derive(Clone, Debug)]
struct View {
    base: Base,
    offset: Option<Affine>,
    strides: SmallVec<[Option<i128>; 4]>,
    sizes: SmallVec<[Option<i128>; 4]>,
    /// The number of elements of the buffer, when the base's type is static.
    base_size: Option<i128>,
}

impl View {
    fn opaque() -> Self {
        View { base: Base::Opaque, offset: None, strides: SmallVec::new(), sizes: SmallVec::new(), base_size: None }
    }

    /// `(lo, span)` of the whole view.
    fn hull(&self) -> (Option<Affine>, Option<i128>) {
        (self.offset.clone(), self.span())
    }

    /// Last minus first element: `Σ (size - 1) · stride`, strides not
    /// negative.
    fn span(&self) -> Option<i128> {
        let mut span = 0i128;
        for (stride, size) in self.strides.iter().zip(&self.sizes) {
            let (stride, size) = ((*stride)?, (*size)?);
            if stride < 0 || size < 1 {
                return None;
            }
            span = span.checked_add((size - 1).checked_mul(stride)?)?;
        }
        Some(span)
    }

    /// Whether consecutive positions of the view are consecutive elements
    /// of the buffer (row-major strides of its sizes).
    fn contiguous(&self) -> bool {
        let mut expected = 1i128;
        for (stride, size) in self.strides.iter().zip(&self.sizes).rev() {
            match (stride, size) {
                (Some(stride), Some(size)) if *size == 1 || *stride == expected => {
                    expected = expected.saturating_mul(*size);
                }
                _ => return false,
            }
        }
        true
    }

    /// The flat index of the element at `indices`.
    fn at(&self, indices: &[Affine]) -> Option<Affine> {
        let mut flat = self.offset.clone()?;
        if indices.len() != self.strides.len() {
            return None;
        }
        for (index, stride) in indices.iter().zip(&self.strides) {
            flat = flat.add_scaled(index, (*stride)?)?;
        }
        Some(flat)
    }
}

/// Builds [`Access`]es from the IR of one function.
pub struct Reader<'n> {
    names: &'n cclir_dialect::names::Interned,
}

impl<'n> Reader<'n> {
    pub fn new(names: &'n cclir_dialect::names::Interned) -> Self {
        Reader { names }
    }

    /// The elements a ccl op touches, as this block's access: what a store,
    /// remote write or invalidate writes (for an invalidate, the lines it
    /// may write back: its target, on this rank), what a read reads; `None`
    /// for an op that touches no memory this way (whole-GM invalidates:
    /// see [`Access::anything`]).
    pub fn access(&self, op: OperationRef<'_, '_>) -> Option<Access> {
        use cclir_dialect::ods::CclOp as C;
        let kind = self.names.kind(cclir_dialect::names::Name::of(op))?;
        let mut origins = Origins::default();
        let me = Affine::sym(Sym::Rank);
        let access = match cclir_dialect::ods::CclOp::view(kind, op)? {
            C::TileStore(store) => {
                let lanes = lanes(melior::ir::ValueLike::r#type(&store.tile()));
                self.element_access(me, store.dst(), &store.indices().collect::<Vec<_>>(), lanes, &mut origins)
            }
            C::TensorWrite(write) => {
                self.element_access(me, write.dst(), &write.indices().collect::<Vec<_>>(), Some(1), &mut origins)
            }
            C::TileLoad(load) => {
                let lanes = lanes(melior::ir::ValueLike::r#type(&ir::first_result(op)));
                self.element_access(me, load.src(), &load.indices().collect::<Vec<_>>(), lanes, &mut origins)
            }
            C::Read(read) => {
                self.element_access(me, read.src(), &read.indices().collect::<Vec<_>>(), Some(1), &mut origins)
            }
            C::Get(get) => self.whole_access(me, get.dst(), &mut origins),
            C::Put(put) => {
                let rank = self.affine(put.peer(), &mut origins, 0);
                self.whole_access(rank, put.dst(), &mut origins)
            }
            C::RemoteStore(store) => {
                let rank = self.affine(store.peer(), &mut origins, 0);
                let view = self.view(store.dst(), &mut origins, 0);
                let lanes = lanes(melior::ir::ValueLike::r#type(&store.tile()));
                let (lo, span) = match lanes {
                    Some(lanes) if view.contiguous() => (view.offset.clone(), Some(lanes - 1)),
                    _ => view.hull(),
                };
                Access { rank, base: view.base, lo, span, origins: SmallVec::new() }
            }
            C::RemoteLoad(load) => {
                let rank = self.affine(load.peer(), &mut origins, 0);
                self.whole_access(rank, load.src(), &mut origins)
            }
            C::CacheInvalid(invalidate) => self.whole_access(me, invalidate.target()?, &mut origins),
            _ => return None,
        };
        Some(Access { origins: origins.0, ..access })
    }

    /// The elements a ccl op reads from GM through this block's cache, as
    /// this block's access: a `read`, `tile_load` or `remote_load`'s
    /// source, the peer's `src` a `get` copies from, this rank's `src` a
    /// `put` copies from (SEMANTICS.md, "Values": both copies read through
    /// the cache). `None` for an op that reads no memory this way.
    pub fn read_access(&self, op: OperationRef<'_, '_>) -> Option<Access> {
        use cclir_dialect::ods::CclOp as C;
        let kind = self.names.kind(cclir_dialect::names::Name::of(op))?;
        match cclir_dialect::ods::CclOp::view(kind, op)? {
            C::TileLoad(_) | C::Read(_) | C::RemoteLoad(_) => self.access(op),
            C::Get(_) | C::Put(_) => self.source_access(op),
            _ => None,
        }
    }

    /// What a call (`func.call`, `ccl.submit`) may write: any element of
    /// the memory each memref operand reaches, on any rank (memory is
    /// reached only through memref values). `None` when that is not a
    /// call.
    pub fn call_writes(&self, op: OperationRef<'_, '_>) -> Option<Vec<Access>> {
        let name = cclir_dialect::names::Name::of(op);
        if name != self.names.call && !self.names.is(name, cclir_dialect::ods::OpKind::Submit) {
            return None;
        }
        let mut out = Vec::new();
        for i in 0..ir::operand_count(op) {
            let operand = ir::operand(op, i);
            if !operand.r#type().is_mem_ref() {
                continue;
            }
            let view = self.view(operand, &mut Origins::default(), 0);
            // Anything in the buffer: a callee may index past the view.
            out.push(Access { base: view.base, lo: None, span: None, ..Access::anything() });
        }
        Some(out)
    }

    /// What the source of a `put` (this rank) or `get` (the peer) reads.
    pub fn source_access(&self, op: OperationRef<'_, '_>) -> Option<Access> {
        use cclir_dialect::ods::CclOp as C;
        let kind = self.names.kind(cclir_dialect::names::Name::of(op))?;
        let mut origins = Origins::default();
        let access = match cclir_dialect::ods::CclOp::view(kind, op)? {
            C::Put(put) => self.whole_access(Affine::sym(Sym::Rank), put.src(), &mut origins),
            C::Get(get) => {
                let rank = self.affine(get.peer(), &mut origins, 0);
                self.whole_access(rank, get.src(), &mut origins)
            }
            _ => return None,
        };
        Some(Access { origins: origins.0, ..access })
    }

    /// The number of elements of the buffer a region invalidate's target
    /// is in (for [`covers`]).
    pub fn base_size_of(&self, op: OperationRef<'_, '_>) -> Option<i128> {
        let kind = self.names.kind(cclir_dialect::names::Name::of(op))?;
        match cclir_dialect::ods::CclOp::view(kind, op)? {
            cclir_dialect::ods::CclOp::CacheInvalid(invalidate) => {
                self.view(invalidate.target()?, &mut Origins::default(), 0).base_size
            }
            _ => None,
        }
    }

    fn whole_access(&self, rank: Affine, memref: Value<'_, '_>, origins: &mut Origins) -> Access {
        let view = self.view(memref, origins, 0);
        let (lo, span) = view.hull();
        Access { rank, base: view.base, lo, span, origins: SmallVec::new() }
    }

    fn element_access(
        &self,
        rank: Affine,
        memref: Value<'_, '_>,
        indices: &[Value<'_, '_>],
        lanes: Option<i128>,
        origins: &mut Origins,
    ) -> Access {
        let view = self.view(memref, origins, 0);
        let indices: Vec<Affine> = indices.iter().map(|index| self.affine(*index, origins, 0)).collect();
        let lo = view.at(&indices);
        // A tile moves consecutive positions of the view from its start:
        // consecutive elements when the view is contiguous.
        let span = match lanes {
            Some(1) => Some(0),
            Some(lanes) if view.contiguous() => Some(lanes - 1),
            _ => None,
        };
        match (lo, span) {
            (Some(lo), Some(span)) => {
                Access { rank, base: view.base, lo: Some(lo), span: Some(span), origins: SmallVec::new() }
            }
            _ => {
                let (lo, span) = view.hull();
                Access { rank, base: view.base, lo, span, origins: SmallVec::new() }
            }
        }
    }

    /// `value` as an affine expression of the values it is computed from.
    pub fn affine_of(&self, value: Value<'_, '_>) -> (Affine, SmallVec<[(ValueKey, Origin); 4]>) {
        let mut origins = Origins::default();
        let expression = self.affine(value, &mut origins, 0);
        (expression, origins.0)
    }

    fn affine(&self, value: Value<'_, '_>, origins: &mut Origins, depth: u32) -> Affine {
        let leaf = |origins: &mut Origins| {
            origins.add(self.names, value);
            Affine::sym(Sym::Value(ValueKey::of(value)))
        };
        if depth > MAX_DEPTH {
            return leaf(origins);
        }
        let Some(op) = ir::defining_op(value) else { return leaf(origins) };
        let name = ir::op_name(op);
        let operand = |i: usize| ir::operand(op, i);
        let affine = |i: usize, origins: &mut Origins| self.affine(operand(i), origins, depth + 1);
        match name {
            "arith.constant" => match ir::constant_int(self.names, value) {
                Some(c) => Affine::constant(c),
                None => leaf(origins),
            },
            "ccl.rank" => Affine::sym(Sym::Rank),
            "ccl.block_id" => Affine::sym(Sym::Block),
            "arith.addi" | "arith.subi" if op.operand_count() == 2 => {
                let k = if name == "arith.addi" { 1 } else { -1 };
                let (a, b) = (affine(0, origins), affine(1, origins));
                a.add_scaled(&b, k).unwrap_or_else(|| leaf(origins))
            }
            "arith.muli" if op.operand_count() == 2 => {
                let (a, b) = (affine(0, origins), affine(1, origins));
                let product = match (a.as_constant(), b.as_constant()) {
                    (Some(k), _) => b.scaled(k),
                    (_, Some(k)) => a.scaled(k),
                    _ => None,
                };
                product.unwrap_or_else(|| leaf(origins))
            }
            "arith.index_cast" | "arith.index_castui" | "arith.extsi" | "arith.extui" if op.operand_count() == 1 => {
                affine(0, origins)
            }
            _ => leaf(origins),
        }
    }

    fn view(&self, value: Value<'_, '_>, origins: &mut Origins, depth: u32) -> View {
        let typed = |base: Base| typed_view(base, value, Some(Affine::constant(0)));
        let Some(op) = ir::defining_op(value) else {
            // A function argument is a buffer of its own; another block
            // argument (a loop's iteration argument) may be any buffer.
            return match function_argument(value) {
                Some(index) => {
                    let mut view = typed(Base::Arg(index));
                    view.base_size = static_size(value);
                    view
                }
                None => View::opaque(),
            };
        };
        if depth > MAX_DEPTH {
            return View::opaque();
        }
        let name = cclir_dialect::names::Name::of(op);
        if name == self.names.memref_alloc || name == self.names.memref_alloca {
            let mut view = typed(Base::Alloc(OpKey::of(op)));
            view.base_size = static_size(value);
            return view;
        }
        if !self.names.is_view(name) || op.operand_count() == 0 {
            return View::opaque();
        }
        let source = self.view(ir::operand(op, 0), origins, depth + 1);
        let offset = if ir::op_name(op) == "memref.subview" {
            self.subview_offset(op, &source, origins, depth)
        } else {
            // A cast, collapse or expand keeps the first element.
            source.offset.clone()
        };
        let mut view = typed_view(source.base, value, offset);
        view.base_size = source.base_size;
        // The type's own offset, when static, is the flat offset already.
        view
    }

    /// The flat offset of a `memref.subview`'s result: the source's plus
    /// each offset times the source's stride in that dimension.
    fn subview_offset(
        &self,
        op: OperationRef<'_, '_>,
        source: &View,
        origins: &mut Origins,
        depth: u32,
    ) -> Option<Affine> {
        let statics = ir::attribute_by_name(op, "static_offsets")?;
        let statics = DenseI64ArrayAttribute::try_from(statics).ok()?;
        let dynamic = ir::operand_segment(op, 1)?;
        let mut dynamic = dynamic.map(|i| ir::operand(op, i));
        let mut offset = source.offset.clone()?;
        if statics.len() != source.strides.len() {
            return None;
        }
        for (d, stride) in source.strides.iter().enumerate() {
            let value = statics.element(d).ok()?;
            let index = if MemRefType::is_dynamic_stride_or_offset(value) {
                self.affine(dynamic.next()?, origins, depth + 1)
            } else {
                Affine::constant(value as i128)
            };
            offset = offset.add_scaled(&index, (*stride)?)?;
        }
        Some(offset)
    }
}

/// The view a memref value's type describes, on `base` at `offset` (the
/// type's static offset wins over it when the type has one).
fn typed_view(base: Base, value: Value<'_, '_>, offset: Option<Affine>) -> View {
    if !value.r#type().is_mem_ref() {
        return View::opaque();
    }
    let Ok(ty) = MemRefType::try_from(value.r#type()) else { return View::opaque() };
    let (strides, type_offset) = ty.strides_and_offset();
    let known = |v: i64| (!MemRefType::is_dynamic_stride_or_offset(v)).then_some(v as i128);
    let sizes = (0..ty.rank())
        .map(|d| match ty.dim_size(d) {
            Ok(melior::ir::r#type::DimSize::Static(size)) => Some(size as i128),
            _ => None,
        })
        .collect();
    let offset = match known(type_offset) {
        Some(static_offset) if !matches!(base, Base::Opaque) => Some(Affine::constant(static_offset)),
        _ => offset,
    };
    View { base, offset, strides: strides.into_iter().map(known).collect(), sizes, base_size: None }
}

/// The number of elements of a statically shaped memref value.
fn static_size(value: Value<'_, '_>) -> Option<i128> {
    if !value.r#type().is_mem_ref() {
        return None;
    }
    let ty = MemRefType::try_from(value.r#type()).ok()?;
    let mut size = 1i128;
    for d in 0..ty.rank() {
        match ty.dim_size(d).ok()? {
            melior::ir::r#type::DimSize::Static(n) => size = size.checked_mul(n as i128)?,
            melior::ir::r#type::DimSize::Dynamic => return None,
        }
    }
    Some(size)
}

/// The lanes of a vector type, 1 for a scalar, `None` for anything else.
fn lanes(ty: melior::ir::Type<'_>) -> Option<i128> {
    use melior::ir::TypeLike;
    if let Some(shape) = ir::vector_shape(ty) {
        let mut lanes = 1i128;
        for n in shape {
            if ir::is_dynamic_size(n) || n < 0 {
                return None;
            }
            lanes = lanes.checked_mul(n as i128)?;
        }
        return Some(lanes);
    }
    (ty.is_integer() || ty.is_index() || ty.is_float()).then_some(1)
}

/// The index of `value` among its function's arguments, when it is one
/// (an argument of the entry block of a `func.func`).
pub fn function_argument(value: Value<'_, '_>) -> Option<u32> {
    // Not through melior's `BlockArgument::try_from` alone: on an op result
    // it prints the value into its error, and printing verifies the
    // enclosing module (a data race with the passes changing its other
    // functions on other threads).
    if ir::defining_op(value).is_some() {
        return None;
    }
    let block = ir::owner_block(value)?;
    let region = block.parent_region()?;
    let owner = block.parent_operation()?;
    if ir::op_name(owner) != "func.func" || region.first_block() != Some(block) {
        return None;
    }
    let argument = melior::ir::block::BlockArgument::try_from(value).ok()?;
    Some(argument.argument_number() as u32)
}

/// The origins of the value symbols met while reading one access.
#[derive(Default)]
struct Origins(SmallVec<[(ValueKey, Origin); 4]>);

impl Origins {
    fn add(&mut self, names: &cclir_dialect::names::Interned, value: Value<'_, '_>) {
        let key = ValueKey::of(value);
        if !self.0.iter().any(|(k, _)| *k == key) {
            self.0.push((key, origin(names, value)));
        }
    }
}

/// Where `value` is defined: the constructs around it that may run again
/// (innermost first), and its loop when it is an induction variable.
pub fn origin(names: &cclir_dialect::names::Interned, value: Value<'_, '_>) -> Origin {
    let Some(block) = ir::owner_block(value) else { return Origin::default() };
    let mut out = Origin { enclosing: enclosing(names, block), iv: None };
    if ir::defining_op(value).is_none() {
        out.iv = induction_variable(names, value, block);
    }
    out
}

/// The ops around `block` whose regions may run again, innermost first:
/// loops, `scf.while`, any op with regions the walk does not know, and
/// the owner of a region of several blocks when `block` is not its entry.
/// The function's own body counts only for its non-entry blocks.
fn enclosing<'c, 'a>(names: &cclir_dialect::names::Interned, mut block: BlockRef<'c, 'a>) -> SmallVec<[OpKey; 4]> {
    let mut out = SmallVec::new();
    for _ in 0..4096 {
        let (Some(region), Some(owner)) = (block.parent_region(), block.parent_operation()) else { break };
        let several = region.first_block().is_some_and(|first| first.next_in_region().is_some());
        let entry = region.first_block() == Some(block);
        let name = cclir_dialect::names::Name::of(owner);
        let once = name == names.scf_if
            || name == names.scf_index_switch
            || name == names.scf_execute_region
            || name == names.func
            || name == names.module;
        if !once || (several && !entry) {
            out.push(OpKey::of(owner));
        }
        if name == names.func || name == names.module {
            break;
        }
        match owner.block() {
            Some(parent) => block = parent,
            None => break,
        }
    }
    out
}

/// `value` (an argument of `block`) as the induction variable of a loop
/// with a constant step: argument 0 of the body of an `scf.for`, or of a
/// one-dimensional `scf.parallel`.
fn induction_variable(
    names: &cclir_dialect::names::Interned,
    value: Value<'_, '_>,
    block: BlockRef<'_, '_>,
) -> Option<Iv> {
    let owner = block.parent_operation()?;
    if ir::defining_op(value).is_some() {
        return None;
    }
    let argument = melior::ir::block::BlockArgument::try_from(value).ok()?;
    if argument.argument_number() != 0 {
        return None;
    }
    let name = cclir_dialect::names::Name::of(owner);
    let (step, ordered) = if name == names.scf_for && owner.operand_count() >= 3 {
        (ir::constant_int(names, ir::operand(owner, 2))?, true)
    } else if name == names.scf_parallel {
        let steps = ir::operand_segment(owner, 2)?;
        if steps.len() != 1 {
            return None;
        }
        (ir::constant_int(names, ir::operand(owner, steps.start))?, false)
    } else {
        return None;
    };
    (step > 0).then_some(Iv { of: OpKey::of(owner), step, ordered })
}
