//! One function's code: its parameters, its body's blocks in order, and
//! each op handed to the compiler of its family (`arith`, `control`, `scf`,
//! `memref`, `ccl`, in that order; `ccl` reports any op no family took).

use crate::code::{Exit, FunctionCode};
use crate::{arith, ccl, error_at, memref, types::ty_of};
use cclir_dialect::ffi::locations::{location_name, source_loc_of};
use cclir_dialect::{ir, names::FunctionKind};
use cclir_sim::program::{Func, FuncId, Kind, Reg, Scalar, Site, SiteId, Ty};
use cclir_sim::InputError;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, OperationRef, RegionRef, Value, ValueLike};
use rustc_hash::FxHashMap;

/// The functions of one program being compiled: the module's, the ids
/// given so far (in the order they were asked for, which is the order they
/// are compiled in), and the sites of every op compiled.
pub(crate) struct Compiler<'m, 'c, 'a> {
    pub(crate) functions: &'m FxHashMap<String, OperationRef<'c, 'a>>,
    ids: FxHashMap<String, FuncId>,
    queue: Vec<String>,
    sites: Vec<Site>,
}

/// An op being compiled: its name, and the registers of its operands and
/// results.
pub(crate) struct OpParts<'c, 'a> {
    pub(crate) op: OperationRef<'c, 'a>,
    pub(crate) name: &'c str,
    pub(crate) operands: Vec<Reg>,
    pub(crate) results: Vec<Reg>,
}

impl<'c, 'a> OpParts<'c, 'a> {
    fn of(code: &mut FunctionCode, op: OperationRef<'c, 'a>) -> Self {
        let operands = (0..ir::operand_count(op)).map(|i| code.reg(ir::operand(op, i))).collect();
        let results = (0..ir::result_count(op)).map(|i| code.reg(ir::result(op, i))).collect();
        Self { op, name: ir::op_name(op), operands, results }
    }

    /// A located error at the op.
    pub(crate) fn error(&self, message: impl Into<String>) -> InputError {
        error_at(self.op, message)
    }

    pub(crate) fn result_ty(&self, index: usize) -> Ty {
        ty_of(&ir::result(self.op, index).r#type().to_string())
    }

    /// The element type arithmetic works on: a scalar's, or a vector's lanes.
    pub(crate) fn element_of(&self, ty: Ty) -> Result<Scalar, InputError> {
        match ty {
            Ty::Scalar(s) => Ok(s),
            Ty::Vector { element, .. } => Ok(element),
            Ty::MemRef { .. } => Err(self.error(format!("'{}' on a memref, not a scalar or vector", self.name))),
            Ty::Other(text) => Err(self.error(crate::types::unsupported_type(self.name, &text))),
        }
    }

    pub(crate) fn result_scalar(&self, index: usize) -> Result<Scalar, InputError> {
        self.element_of(self.result_ty(index))
    }

    pub(crate) fn operand_scalar(&self, index: usize) -> Result<Scalar, InputError> {
        self.element_of(ty_of(&ir::operand(self.op, index).r#type().to_string()))
    }

    /// The registers of operand segment `index` (none if the op has no
    /// such segment).
    pub(crate) fn segment(&self, index: usize) -> Vec<Reg> {
        ir::operand_segment(self.op, index).map(|r| self.operands[r].to_vec()).unwrap_or_default()
    }
}

impl<'m, 'c, 'a> Compiler<'m, 'c, 'a> {
    pub(crate) fn new(functions: &'m FxHashMap<String, OperationRef<'c, 'a>>) -> Self {
        Self { functions, ids: FxHashMap::default(), queue: Vec::new(), sites: Vec::new() }
    }

    /// The id of function `name`, queued for compiling the first time.
    pub(crate) fn function_id(&mut self, name: &str) -> FuncId {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = self.queue.len() as FuncId;
        self.ids.insert(name.to_string(), id);
        self.queue.push(name.to_string());
        id
    }

    /// The name of the function with id `index`, once it is queued.
    pub(crate) fn queued(&self, index: usize) -> Option<String> {
        self.queue.get(index).cloned()
    }

    pub(crate) fn into_sites(self) -> Vec<Site> {
        self.sites
    }

    fn site(&mut self, op: OperationRef<'_, '_>) -> SiteId {
        let location = op.location();
        // The lowering names each op's protocol step (`barrier-b.wait`).
        let step =
            location_name(location).and_then(|name| name.strip_prefix("ccl-lower-all-to-all-v.").map(str::to_string));
        self.sites.push(Site { op: ir::op_name(op).to_string(), loc: source_loc_of(location), step });
        (self.sites.len() - 1) as SiteId
    }

    pub(crate) fn compile_function(&mut self, func: OperationRef<'c, 'a>) -> Result<Func, InputError> {
        let name = ir::symbol_name(func).unwrap_or_default().to_string();
        let kind = match ir::function_kind(func) {
            Ok(FunctionKind::InCore) => Kind::InCore,
            Ok(FunctionKind::Orchestration) => Kind::Orchestration,
            Ok(FunctionKind::Other) => Kind::Other,
            Err(unknown) => return Err(error_at(func, unknown.to_string())),
        };
        let launch_width = ir::i64_attr(func, "ccl.launch_width").map(|w| w.max(1) as u64);
        let Some(body) = ir::regions(func).next() else {
            return Err(error_at(func, format!("@{name} has no body to run")));
        };
        let Some(entry) = ir::blocks(body).next() else {
            return Err(error_at(func, format!("ccl-sim cannot run @{name}: it is a declaration without a body")));
        };
        let mut code = FunctionCode { current_site: self.site(func), ..FunctionCode::default() };
        let params = code.arguments(entry);
        let param_types = (0..entry.argument_count())
            .map(|i| ty_of(&Value::from(entry.argument(i).expect("an argument below the count")).r#type().to_string()))
            .collect();
        let site = code.current_site;
        self.region(&mut code, body, &Exit::Return)?;
        code.resolve();
        Ok(Func {
            name,
            site,
            kind,
            launch_width,
            params,
            param_types,
            registers: code.next_reg,
            code: code.code,
            sites: code.sites_of_code,
            loops: code.loops,
        })
    }

    /// Compiles the blocks of `region`; the caller has moved the entry
    /// block's arguments into their registers and falls into the region.
    pub(crate) fn region(
        &mut self,
        code: &mut FunctionCode,
        region: RegionRef<'c, 'a>,
        exit: &Exit,
    ) -> Result<(), InputError> {
        let blocks: Vec<BlockRef<'c, 'a>> = ir::blocks(region).collect();
        for block in &blocks {
            let label = code.new_label();
            code.block_labels.insert(ir::BlockKey::of(*block), label);
        }
        // What the caller emits after the region is its own op's code.
        let outer = code.current_site;
        for block in blocks {
            code.place(code.block_labels[&ir::BlockKey::of(block)]);
            for op in ir::ops(block) {
                code.current_site = self.site(op);
                self.op(code, op, exit)?;
            }
        }
        code.current_site = outer;
        Ok(())
    }

    /// One op, by the first family that takes it.
    fn op(&mut self, code: &mut FunctionCode, op: OperationRef<'c, 'a>, exit: &Exit) -> Result<(), InputError> {
        let parts = OpParts::of(code, op);
        if arith::compile(code, &parts)?
            || self.control(code, &parts, exit)?
            || self.scf(code, &parts, exit)?
            || memref::compile(code, &parts)?
        {
            return Ok(());
        }
        ccl::compile(code, parts)
    }
}
