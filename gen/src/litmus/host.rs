//! The host: the buffers every function takes, the launches and
//! collectives of the orchestration function, and the whole program's text.

use super::shape::{Buf, Collective, Gen, Plan};
use super::{Feature, Litmus};
use std::fmt::Write;

impl Gen {
    /// The buffers every function takes: name and type.
    fn buffers(&self) -> Vec<(String, String)> {
        let mut list = Vec::new();
        for (i, _) in self.windows.iter().enumerate() {
            list.push((self.buf_name(Buf::Win(i)), self.buf_ty(Buf::Win(i))));
        }
        for (i, _) in self.plains.iter().enumerate() {
            list.push((self.buf_name(Buf::Plain(i)), self.buf_ty(Buf::Plain(i))));
        }
        if self.sig_len > 0 {
            list.push(("%sig".to_string(), format!("memref<{}xi32, #ccl.window>", self.sig_len)));
        }
        for (c, cell) in self.cells.iter().enumerate() {
            if cell.is_none() {
                list.push((self.cell_name(c), self.cell_ty(c)));
            }
        }
        if self.has_collective() && self.collective == Collective::AllReduce {
            list.push(("%acc".to_string(), self.acc_ty()));
        }
        if self.has_collective() && self.collective == Collective::AllToAllV {
            let p = self.ranks;
            for name in ["%snd", "%scnt", "%rcv"] {
                list.push((name.to_string(), format!("memref<{p}xi32, #ccl.window>")));
            }
            list.push(("%rcnt".to_string(), format!("memref<{p}xi32>")));
        }
        list
    }

    pub(super) fn params(&self) -> String {
        self.buffers().iter().map(|(n, t)| format!("{n}: {t}")).collect::<Vec<_>>().join(", ")
    }

    fn args(&self) -> String {
        self.buffers().iter().map(|(n, _)| n.clone()).collect::<Vec<_>>().join(", ")
    }

    fn types(&self) -> String {
        self.buffers().iter().map(|(_, t)| t.clone()).collect::<Vec<_>>().join(", ")
    }

    fn launch(&mut self, out: &mut String, pad: &str, kernel: &str, round: &str) {
        let (args, types) = (self.args(), self.types());
        if self.submit {
            writeln!(out, "{pad}ccl.submit @{kernel}({args}, {round}) : ({types}, i32) -> ()").unwrap();
            self.feature(Feature::Submit);
        } else {
            let width = if !self.width_on_function && (self.width > 1 || self.rng.chance(30)) {
                format!(" {{ccl.launch_width = {} : i64}}", self.width)
            } else {
                String::new()
            };
            writeln!(out, "{pad}func.call @{kernel}({args}, {round}){width} : ({types}, i32) -> ()").unwrap();
        }
    }

    /// The collective's op (in a function that defines `%nblocks` first
    /// when it needs it).
    fn collective_op(&mut self) -> String {
        let p = self.ranks;
        match self.collective {
            Collective::Barrier => {
                self.feature(Feature::Barrier);
                "ccl.barrier".to_string()
            }
            Collective::AllReduce => {
                self.feature(Feature::AllReduce);
                let kind = self.rng.pick(&["sum", "max", "min"]).to_string();
                let src = self.buf_name(self.reduce_src);
                if matches!(self.reduce_src, Buf::Plain(_)) {
                    // Kernels write it with no marker that writes it back.
                    self.feature(Feature::PlainWriteReadElsewhere);
                    self.hazards.insert("a plain buffer read by a collective");
                }
                format!("ccl.all_reduce {kind} {src}, %acc : {}, {}", self.buf_ty(self.reduce_src), self.acc_ty())
            }
            Collective::AllToAllV => {
                self.feature(Feature::AllToAllV);
                let w = format!("memref<{p}xi32, #ccl.window>");
                format!(
                    "%nblocks = arith.constant {} : i32\n  ccl.all_to_all_v %snd, %scnt, %rcv, %rcnt, blocks %nblocks : {w}, {w}, {w}, memref<{p}xi32>, i32",
                    self.width
                )
            }
        }
    }

    /// The collective at the host (the op, or a call of the wrapper).
    fn collective(&mut self, out: &mut String, pad: &str) {
        if self.wrapper {
            writeln!(out, "{pad}func.call @sync({}) : ({}) -> ()", self.args(), self.types()).unwrap();
        } else {
            let op = self.collective_op().replace("\n  ", &format!("\n{pad}"));
            writeln!(out, "{pad}{op}").unwrap();
        }
    }

    pub(super) fn program(mut self, seed: u64) -> Litmus {
        self.shape_features();
        let kernels = self.kernels();
        let host = self.host();
        let text = self.text(seed, &kernels, &host);
        Litmus { ranks: self.ranks, text, features: self.features }
    }

    /// The features the program's shape has whatever its code.
    fn shape_features(&mut self) {
        if self.ranks == 3 {
            self.feature(Feature::ThreeRanks);
        }
        if self.width > 1 {
            self.feature(Feature::TwoBlocks);
        }
        for cell in &self.cells {
            self.features.insert(if cell.is_some() { Feature::CellSubview } else { Feature::CellBuffer });
        }
    }

    /// The kernels the plan launches: `k0`, and `k1` after it for
    /// `Plan::Then`.
    fn kernels(&mut self) -> String {
        let plan = self.plan;
        let (rounds, stages, after) = match plan {
            Plan::Once => (1, false, false),
            Plan::OnceThenCollective => (1, true, false),
            Plan::TwiceBare => (2, false, false),
            Plan::Twice | Plan::Loop => (2, true, true),
            Plan::Then => (1, true, false),
            Plan::CollectiveFirst => (1, false, true),
        };
        let mut kernels = self.kernel("k0", rounds, stages, after, None);
        self.settle_cells();
        if plan == Plan::Then {
            let published = std::mem::take(&mut self.k.published);
            kernels.push_str(&self.kernel("k1", 1, false, true, Some((published, rounds))));
            self.settle_cells();
        }
        if rounds > 1 {
            self.feature(Feature::TwoLaunches);
        }
        if after || plan == Plan::Then {
            self.feature(Feature::LaunchAfterCollective);
        }
        kernels
    }

    /// The orchestration function `@main`: the plan's launches and
    /// collectives.
    fn host(&mut self) -> String {
        let mut host = String::new();
        let kind = self.rng.pick(&[
            "ccl.kind = \"orchestration\"",
            "ccl.kind = \"orchestration\"",
            "ccl.kind = \"graph\"",
            "ccl.level = \"host\", ccl.role = \"orchestrator\"",
        ]);
        writeln!(host, "func.func @main({}) attributes {{{kind}}} {{", self.params()).unwrap();
        writeln!(host, "  %r0 = arith.constant 0 : i32\n  %r1 = arith.constant 1 : i32").unwrap();
        match self.plan {
            Plan::Once => self.launch(&mut host, "  ", "k0", "%r0"),
            Plan::OnceThenCollective => {
                self.launch(&mut host, "  ", "k0", "%r0");
                self.collective(&mut host, "  ");
            }
            Plan::TwiceBare => {
                self.hazards.insert("two launches with no collective between them");
                self.launch(&mut host, "  ", "k0", "%r0");
                self.launch(&mut host, "  ", "k0", "%r1");
            }
            Plan::Twice => {
                self.launch(&mut host, "  ", "k0", "%r0");
                self.collective(&mut host, "  ");
                self.launch(&mut host, "  ", "k0", "%r1");
            }
            Plan::Loop => {
                writeln!(host, "  %lo = arith.constant 0 : index\n  %hi = arith.constant 2 : index\n  %step = arith.constant 1 : index").unwrap();
                writeln!(
                    host,
                    "  scf.for %r = %lo to %hi step %step {{\n    %round = arith.index_cast %r : index to i32"
                )
                .unwrap();
                self.launch(&mut host, "    ", "k0", "%round");
                self.collective(&mut host, "    ");
                writeln!(host, "  }}").unwrap();
                self.feature(Feature::LaunchInHostLoop);
            }
            Plan::Then => {
                self.launch(&mut host, "  ", "k0", "%r0");
                self.collective(&mut host, "  ");
                self.launch(&mut host, "  ", "k1", "%r0");
            }
            Plan::CollectiveFirst => {
                self.collective(&mut host, "  ");
                self.launch(&mut host, "  ", "k0", "%r0");
            }
        }
        writeln!(host, "  return\n}}").unwrap();
        host
    }

    /// The program's text: its header, the helpers, the kernels, the
    /// collective's wrapper and the host.
    fn text(&mut self, seed: u64, kernels: &str, host: &str) -> String {
        let mut text = String::new();
        writeln!(text, "// ccl-gen --litmus {seed}: run with ccl-sim --ranks {}", self.ranks).unwrap();
        if !self.hazards.is_empty() {
            let hazards: Vec<&str> = self.hazards.iter().copied().collect();
            writeln!(text, "// may race or deadlock whatever the markers: {}", hazards.join("; ")).unwrap();
        }
        for helper in &self.helpers {
            text.push_str(helper);
        }
        text.push_str(kernels);
        if self.wrapper && self.has_collective() {
            let op = self.collective_op();
            writeln!(
                text,
                "func.func @sync({}) attributes {{ccl.kind = \"orchestration\"}} {{\n  {op}\n  return\n}}",
                self.params()
            )
            .unwrap();
            self.feature(Feature::CollectiveInWrapper);
        }
        text.push_str(host);
        text
    }
}
