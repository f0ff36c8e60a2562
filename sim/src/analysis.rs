//! Static facts about a program that the machine's reductions rest on
//! (docs/ccl-sim.md, "Reductions and why each is sound"): which buffers a
//! `ccl.notify` may write. An over-approximation: where it cannot tell, it
//! says "may".

use crate::program::{CclOp, FuncId, Instr, Program, Reg, SiteId};
use std::collections::{BTreeMap, BTreeSet};

/// Where a memref value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Root {
    /// The entry's argument at this position.
    Entry(usize),
    /// A `memref.alloc` (every buffer it makes).
    Alloc(SiteId),
    /// Something the analysis does not follow (a call's memref result).
    Unknown,
}

/// What the reductions may assume of a program.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The buffers a notify may write (`Root::Unknown` among them: any).
    pub signal_roots: BTreeSet<Root>,
}

impl Facts {
    /// Whether buffers from `root` may be written by a notify.
    pub fn may_signal(&self, root: Root) -> bool {
        self.signal_roots.contains(&root) || self.signal_roots.contains(&Root::Unknown)
    }
}

/// The registers an instruction writes.
pub fn defs(instr: &Instr) -> Vec<Reg> {
    match instr {
        Instr::Const { dst, .. }
        | Instr::Binary { dst, .. }
        | Instr::Cast { dst, .. }
        | Instr::Cmp { dst, .. }
        | Instr::Select { dst, .. }
        | Instr::View { dst, .. }
        | Instr::Alloc { dst, .. }
        | Instr::Query { dst, .. }
        | Instr::CalBlocks { dst, .. } => vec![*dst],
        Instr::Move { moves } => moves.iter().map(|(dst, _)| *dst).collect(),
        Instr::Call { results, .. } => results.clone(),
        Instr::Ccl { op, .. } => match op {
            CclOp::RemoteLoad { result, .. } | CclOp::TileLoad { result, .. } | CclOp::Read { result, .. } => {
                vec![*result]
            }
            _ => Vec::new(),
        },
        Instr::Jump { .. }
        | Instr::Branch { .. }
        | Instr::Switch { .. }
        | Instr::Return { .. }
        | Instr::Dealloc { .. }
        | Instr::CheckStep { .. } => Vec::new(),
    }
}

/// The facts of `program`.
pub fn facts(program: &Program) -> Facts {
    Facts { signal_roots: signal_roots(program) }
}

/// A root as seen inside one function: its own parameter, or a root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Local {
    Param(usize),
    Root(Root),
}

/// Per register of `func`, where its memref may come from, in the
/// function's own terms.
fn local_roots(program: &Program, func: FuncId) -> BTreeMap<Reg, BTreeSet<Local>> {
    let f = &program.funcs[func as usize];
    let mut roots: BTreeMap<Reg, BTreeSet<Local>> = BTreeMap::new();
    for (i, param) in f.params.iter().enumerate() {
        roots.entry(*param).or_default().insert(Local::Param(i));
    }
    loop {
        let mut grew = false;
        let mut flow = |roots: &mut BTreeMap<Reg, BTreeSet<Local>>, dst: Reg, from: BTreeSet<Local>| {
            let entry = roots.entry(dst).or_default();
            let before = entry.len();
            entry.extend(from);
            grew |= entry.len() != before;
        };
        for instr in &f.code {
            let of = |roots: &BTreeMap<Reg, BTreeSet<Local>>, r: &Reg| roots.get(r).cloned().unwrap_or_default();
            match instr {
                Instr::View { dst, src, .. } => {
                    let from = of(&roots, src);
                    flow(&mut roots, *dst, from)
                }
                Instr::Move { moves } => {
                    for (dst, src) in moves {
                        let from = of(&roots, src);
                        flow(&mut roots, *dst, from);
                    }
                }
                Instr::Select { dst, on_true, on_false, .. } => {
                    let mut from = of(&roots, on_true);
                    from.extend(of(&roots, on_false));
                    flow(&mut roots, *dst, from)
                }
                Instr::Alloc { dst, site, .. } => flow(&mut roots, *dst, [Local::Root(Root::Alloc(*site))].into()),
                Instr::Call { results, .. } => {
                    for dst in results {
                        flow(&mut roots, *dst, [Local::Root(Root::Unknown)].into());
                    }
                }
                _ => {}
            }
        }
        if !grew {
            return roots;
        }
    }
}

fn signal_roots(program: &Program) -> BTreeSet<Root> {
    let locals: Vec<BTreeMap<Reg, BTreeSet<Local>>> =
        (0..program.funcs.len() as FuncId).map(|f| local_roots(program, f)).collect();
    // Per function and parameter, the roots its argument may have.
    let mut params: BTreeMap<(FuncId, usize), BTreeSet<Root>> = BTreeMap::new();
    let entry = &program.funcs[program.entry as usize];
    for i in 0..entry.params.len() {
        params.entry((program.entry, i)).or_default().insert(Root::Entry(i));
    }
    let resolve = |params: &BTreeMap<(FuncId, usize), BTreeSet<Root>>, func: FuncId, local: &BTreeSet<Local>| {
        let mut roots = BTreeSet::new();
        for l in local {
            match l {
                Local::Root(root) => {
                    roots.insert(*root);
                }
                Local::Param(i) => roots.extend(params.get(&(func, *i)).cloned().unwrap_or_default()),
            }
        }
        roots
    };
    loop {
        let mut grew = false;
        for (f, func) in program.funcs.iter().enumerate() {
            for instr in &func.code {
                let Instr::Call { callee, args, .. } = instr else { continue };
                for (i, arg) in args.iter().enumerate() {
                    let from = resolve(&params, f as FuncId, &locals[f].get(arg).cloned().unwrap_or_default());
                    let entry = params.entry((*callee, i)).or_default();
                    let before = entry.len();
                    entry.extend(from);
                    grew |= entry.len() != before;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let mut signals = BTreeSet::new();
    for (f, func) in program.funcs.iter().enumerate() {
        for instr in &func.code {
            if let Instr::Ccl { op: CclOp::Notify { signal, .. }, .. } = instr {
                let roots = resolve(&params, f as FuncId, &locals[f].get(signal).cloned().unwrap_or_default());
                // A signal view from nowhere the analysis follows: any.
                if roots.is_empty() {
                    signals.insert(Root::Unknown);
                }
                signals.extend(roots);
            }
        }
    }
    signals
}
