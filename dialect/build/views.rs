//! The Rust typed views of the ccl ops, from the same records mlir-tblgen
//! reads.
//!
//! `llvm-tblgen --dump-json` resolves the TableGen records; this module
//! turns each op into a `Copy` view over a borrowed `OperationRef` with one
//! accessor per operand, result and attribute, named as in the .td, plus a
//! builder taking the same arguments in order. melior's `dialect!` macro
//! reads ODS too, but its wrappers own the operation (so viewing an op of a
//! walk drops it when the view goes), and it reads variadic segments from
//! the attribute name MLIR used before properties; these views are borrows,
//! cost one pointer, and fetch operands by position.
//!
//! What the views assume the .td keeps true: at most one variadic or
//! optional operand group per op (so no segment sizes are needed), and
//! attribute kinds among enum, optional i64 and flat symbol reference.
use super::fail;
use serde_json::Value;
use std::{fmt::Write, fs, path::Path, process::Command};

/// Writes the views of the ops of `td` to `out`.
pub fn generate(prefix: &Path, td: &Path, out: &Path) {
    let tblgen = prefix.join("bin/llvm-tblgen");
    let output = Command::new(&tblgen)
        .arg("--dump-json")
        .arg(format!("-I{}", prefix.join("include").display()))
        .arg(td)
        .output();
    let json = match output {
        Ok(output) if output.status.success() => output.stdout,
        Ok(output) => {
            fail(&format!("llvm-tblgen failed on {}: {}", td.display(), String::from_utf8_lossy(&output.stderr)))
        }
        Err(_) => {
            fail(&format!("{} is missing (package llvm-22-dev); run `bash scripts/install-deps.sh`", tblgen.display()))
        }
    };
    let records: Value = serde_json::from_slice(&json).unwrap_or_else(|e| fail(&format!("bad tblgen JSON: {e}")));
    let dialect = Dialect::read(&records);
    fs::write(out, dialect.render()).unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", out.display())));
}

/// How often an operand or result occurs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arity {
    One,
    Optional,
    Variadic,
}

struct Element {
    name: String,
    arity: Arity,
}

enum AttrKind {
    /// An enum attribute: the Rust enum's name.
    Enum {
        ty: String,
    },
    OptionalI64,
    FlatSymbol,
}

struct Attr {
    name: String,
    kind: AttrKind,
}

struct Op {
    name: String,
    rust: String,
    summary: String,
    pure: bool,
    operands: Vec<Element>,
    results: Vec<Element>,
    attrs: Vec<Attr>,
}

struct EnumDef {
    rust: String,
    summary: String,
    mnemonic: String,
    /// (keyword, Rust variant)
    cases: Vec<(String, String)>,
}

struct Dialect {
    name: String,
    ops: Vec<Op>,
    enums: Vec<EnumDef>,
}

fn superclasses(records: &Value, def: &str) -> Vec<String> {
    records[def]["!superclasses"]
        .as_array()
        .map(|list| list.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn str_field<'v>(record: &'v Value, field: &str) -> &'v str {
    record[field].as_str().unwrap_or("")
}

fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// `(def, name)` pairs of a dag such as `(ins A:$a, B:$b)`.
fn dag_args(dag: &Value) -> Vec<(String, String)> {
    dag["args"]
        .as_array()
        .map(|args| {
            args.iter()
                .map(|arg| {
                    (arg[0]["def"].as_str().unwrap_or("").to_string(), arg[1].as_str().unwrap_or("").to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Dialect {
    fn read(records: &Value) -> Self {
        let ops_of_kind = records["!instanceof"]["Op"].as_array().cloned().unwrap_or_default();
        let mut ops = Vec::new();
        let mut enums: Vec<EnumDef> = Vec::new();
        let mut dialect_name = String::new();
        for op_def in ops_of_kind.iter().filter_map(|v| v.as_str()) {
            let record = &records[op_def];
            let dialect_def = record["opDialect"]["def"].as_str().unwrap_or("");
            let dialect = str_field(&records[dialect_def], "name");
            if dialect_def.is_empty() || !op_def.starts_with("Ccl_") {
                continue;
            }
            dialect_name = dialect.to_string();
            let mnemonic = str_field(record, "opName");
            let mut operands = Vec::new();
            let mut attrs = Vec::new();
            for (def, name) in dag_args(&record["arguments"]) {
                let classes = superclasses(records, &def);
                if classes.iter().any(|c| c == "Attr") {
                    let kind = if classes.iter().any(|c| c == "EnumAttr") {
                        let info = records[&def]["enum"]["def"].as_str().unwrap_or("");
                        let rust = str_field(&records[info], "className").to_string();
                        let mnemonic = str_field(&records[&def], "mnemonic").to_string();
                        if !enums.iter().any(|e| e.rust == rust) {
                            let cases = records[info]["enumerants"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .filter_map(|case| case["def"].as_str())
                                .map(|case| {
                                    let keyword = str_field(&records[case], "str").to_string();
                                    (keyword.clone(), pascal(&keyword))
                                })
                                .collect();
                            let summary = str_field(&records[info], "summary").to_string();
                            enums.push(EnumDef { rust: rust.clone(), summary, mnemonic: mnemonic.clone(), cases });
                        }
                        AttrKind::Enum { ty: rust }
                    } else if def == "FlatSymbolRefAttr" {
                        AttrKind::FlatSymbol
                    } else if classes.iter().any(|c| c == "OptionalAttr")
                        && str_field(&records[&def], "summary").contains("64-bit signless integer")
                    {
                        AttrKind::OptionalI64
                    } else {
                        fail(&format!(
                            "{op_def}: attribute {name} ({def}) has no Rust view kind; extend dialect/build/views.rs"
                        ))
                    };
                    attrs.push(Attr { name, kind });
                } else {
                    operands.push(Element { name, arity: arity(&classes) });
                }
            }
            let results = dag_args(&record["results"])
                .into_iter()
                .map(|(def, name)| Element { name, arity: arity(&superclasses(records, &def)) })
                .collect();
            let pure = record["traits"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["def"].as_str())
                .any(|t| t == "Pure");
            for (what, list) in [("operand", &operands), ("result", &results)] {
                if list.iter().filter(|e: &&Element| e.arity != Arity::One).count() > 1 {
                    fail(&format!("{op_def}: more than one variable {what} group needs segment sizes in the views"));
                }
            }
            ops.push(Op {
                name: format!("{dialect}.{mnemonic}"),
                // `Ccl_CacheInvalidOp` -> `CacheInvalid`: the .td's own casing.
                rust: op_def.trim_start_matches("Ccl_").trim_end_matches("Op").to_string(),
                summary: str_field(record, "summary").to_string(),
                pure,
                operands,
                results,
                attrs,
            });
        }
        ops.sort_by(|a, b| a.name.cmp(&b.name));
        Dialect { name: dialect_name, ops, enums }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        let w = &mut out;
        writeln!(w, "// @generated by dialect/build/views.rs from dialect/Ccl.td; do not edit.\n").unwrap();
        writeln!(w, "/// Every op of the `{}` dialect.", self.name).unwrap();
        writeln!(w, "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\npub enum OpKind {{").unwrap();
        for op in &self.ops {
            writeln!(w, "    /// `{}`: {}", op.name, op.summary).unwrap();
            writeln!(w, "    {},", op.rust).unwrap();
        }
        writeln!(w, "}}\n\nimpl OpKind {{").unwrap();
        writeln!(w, "    pub const ALL: [OpKind; {}] = [", self.ops.len()).unwrap();
        for op in &self.ops {
            writeln!(w, "        OpKind::{},", op.rust).unwrap();
        }
        writeln!(w, "    ];\n\n    /// The op's full name.\n    pub const fn name(self) -> &'static str {{\n        match self {{").unwrap();
        for op in &self.ops {
            writeln!(w, "            OpKind::{} => \"{}\",", op.rust, op.name).unwrap();
        }
        writeln!(w, "        }}\n    }}\n\n    /// Whether the op is `Pure` in the .td (no memory effect).").unwrap();
        writeln!(w, "    pub const fn is_pure(self) -> bool {{\n        matches!(self, {})\n    }}\n}}\n", {
            let pure: Vec<String> = self.ops.iter().filter(|o| o.pure).map(|o| format!("OpKind::{}", o.rust)).collect();
            if pure.is_empty() {
                "_ if false".to_string()
            } else {
                pure.join(" | ")
            }
        })
        .unwrap();

        for e in &self.enums {
            writeln!(w, "/// {}.", e.summary).unwrap();
            writeln!(w, "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum {} {{", e.rust).unwrap();
            for (keyword, variant) in &e.cases {
                writeln!(w, "    /// `{keyword}`\n    {variant},").unwrap();
            }
            writeln!(w, "}}\n\nimpl {} {{", e.rust).unwrap();
            writeln!(
                w,
                "    pub const ALL: [{}; {}] = [{}];",
                e.rust,
                e.cases.len(),
                e.cases.iter().map(|(_, v)| format!("{}::{v}", e.rust)).collect::<Vec<_>>().join(", ")
            )
            .unwrap();
            writeln!(w, "    /// The keyword of the custom syntax.\n    pub const fn keyword(self) -> &'static str {{\n        match self {{").unwrap();
            for (keyword, variant) in &e.cases {
                writeln!(w, "            {}::{variant} => \"{keyword}\",", e.rust).unwrap();
            }
            writeln!(w, "        }}\n    }}\n\n    /// The attribute as MLIR parses it.\n    pub const fn attribute_text(self) -> &'static str {{\n        match self {{").unwrap();
            for (keyword, variant) in &e.cases {
                writeln!(w, "            {}::{variant} => \"#{}<{} {keyword}>\",", e.rust, self.name, e.mnemonic)
                    .unwrap();
            }
            writeln!(w, "        }}\n    }}\n\n    pub fn from_keyword(keyword: &str) -> Option<Self> {{\n        Self::ALL.into_iter().find(|case| case.keyword() == keyword)\n    }}\n}}\n").unwrap();
        }

        writeln!(w, "/// A ccl op seen through its typed view.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub enum CclOp<'c, 'a> {{").unwrap();
        for op in &self.ops {
            writeln!(w, "    {0}({0}<'c, 'a>),", op.rust).unwrap();
        }
        writeln!(w, "}}\n\nimpl<'c, 'a> CclOp<'c, 'a> {{").unwrap();
        writeln!(w, "    /// The view of `op`, already known to be of `kind`; `None` if its operands do not fit (unverified IR).").unwrap();
        writeln!(
            w,
            "    pub fn view(kind: OpKind, op: OperationRef<'c, 'a>) -> Option<Self> {{\n        Some(match kind {{"
        )
        .unwrap();
        for op in &self.ops {
            writeln!(w, "            OpKind::{0} => CclOp::{0}({0}::of_kind(op)?),", op.rust).unwrap();
        }
        writeln!(
            w,
            "        }})\n    }}\n\n    pub fn operation(self) -> OperationRef<'c, 'a> {{\n        match self {{"
        )
        .unwrap();
        for op in &self.ops {
            writeln!(w, "            CclOp::{}(view) => view.operation(),", op.rust).unwrap();
        }
        writeln!(w, "        }}\n    }}\n}}\n").unwrap();

        for op in &self.ops {
            render_op(w, op);
        }
        out
    }
}

fn arity(classes: &[String]) -> Arity {
    if classes.iter().any(|c| c == "Variadic") {
        Arity::Variadic
    } else if classes.iter().any(|c| c == "Optional") {
        Arity::Optional
    } else {
        Arity::One
    }
}

/// Accessors for a list of operands or results: `(fixed count, code per element)`.
fn element_accessors(w: &mut String, elements: &[Element], what: &str, getter: &str, count: &str) {
    let fixed = elements.iter().filter(|e| e.arity == Arity::One).count();
    let mut before = 0usize;
    let mut seen_group = false;
    for (position, e) in elements.iter().enumerate() {
        let after = elements[position + 1..].iter().filter(|e| e.arity == Arity::One).count();
        match e.arity {
            Arity::One => {
                // The generated expressions leave out `- 0`, which clippy
                // flags in the including crate.
                let index = if seen_group { format!("{count}(self.0) - {}", after + 1) } else { before.to_string() };
                writeln!(w, "    /// {what} `{}`.", e.name).unwrap();
                writeln!(
                    w,
                    "    pub fn {}(self) -> Value<'c, 'a> {{\n        {getter}(self.0, {index})\n    }}\n",
                    ident(&e.name)
                )
                .unwrap();
                before += 1;
            }
            Arity::Optional => {
                seen_group = true;
                writeln!(w, "    /// {what} `{}` (optional).", e.name).unwrap();
                writeln!(w, "    pub fn {}(self) -> Option<Value<'c, 'a>> {{\n        ({count}(self.0) > {fixed}).then(|| {getter}(self.0, {before}))\n    }}\n", ident(&e.name)).unwrap();
            }
            Arity::Variadic => {
                seen_group = true;
                writeln!(w, "    /// {what}s `{}` (variadic).", e.name).unwrap();
                writeln!(w, "    pub fn {}(self) -> impl ExactSizeIterator<Item = Value<'c, 'a>> + Clone {{\n        let op = self.0;\n        ({before}..{count}(op){end}).map(move |i| {getter}(op, i))\n    }}\n", ident(&e.name), end = if after == 0 { String::new() } else { format!(" - {after}") }).unwrap();
            }
        }
    }
}

/// The fewest and most elements a list can have, as Rust source
/// (`None` for no upper bound).
fn count_bounds(elements: &[Element]) -> (usize, String) {
    let fixed = elements.iter().filter(|e| e.arity == Arity::One).count();
    let max = if elements.iter().any(|e| e.arity == Arity::Variadic) {
        "None".to_string()
    } else {
        format!("Some({})", fixed + elements.iter().filter(|e| e.arity == Arity::Optional).count())
    };
    (fixed, max)
}

fn ident(name: &str) -> String {
    match name {
        "type" | "match" | "ref" | "loop" | "move" | "op" => format!("r#{name}"),
        _ => name.to_string(),
    }
}

fn render_op(w: &mut String, op: &Op) {
    let (min_operands, max_operands) = count_bounds(&op.operands);
    let (min_results, max_results) = count_bounds(&op.results);
    writeln!(w, "/// `{}`: {}.", op.name, op.summary).unwrap();
    writeln!(
        w,
        "#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub struct {}<'c, 'a>(OperationRef<'c, 'a>);\n",
        op.rust
    )
    .unwrap();
    writeln!(w, "impl<'c, 'a> {}<'c, 'a> {{", op.rust).unwrap();
    writeln!(
        w,
        "    pub const NAME: &'static str = \"{}\";\n    pub const KIND: OpKind = OpKind::{};\n",
        op.name, op.rust
    )
    .unwrap();
    writeln!(w, "    /// `op` as this op, when it is one.\n    pub fn of(op: OperationRef<'c, 'a>) -> Option<Self> {{\n        if op_name(op) != Self::NAME {{\n            return None;\n        }}\n        Self::of_kind(op)\n    }}\n").unwrap();
    writeln!(w, "    /// `op`, known to be of this kind (by its interned name), as a view; `None` if its operands and results do not fit the definition.\n    pub fn of_kind(op: OperationRef<'c, 'a>) -> Option<Self> {{\n        (count_fits(operand_count(op), {min_operands}, {max_operands}) && count_fits(result_count(op), {min_results}, {max_results})).then_some(Self(op))\n    }}\n").unwrap();
    writeln!(w, "    pub fn operation(self) -> OperationRef<'c, 'a> {{\n        self.0\n    }}\n").unwrap();
    element_accessors(w, &op.operands, "Operand", "operand", "operand_count");
    element_accessors(w, &op.results, "Result", "result", "result_count");
    for attr in &op.attrs {
        match &attr.kind {
            AttrKind::Enum { ty } => writeln!(w, "    /// Attribute `{0}`.\n    pub fn {1}(self) -> Option<{ty}> {{\n        enum_keyword(self.0, \"{0}\").and_then(|keyword| {ty}::from_keyword(&keyword))\n    }}\n", attr.name, ident(&attr.name)).unwrap(),
            AttrKind::OptionalI64 => writeln!(w, "    /// Attribute `{0}` (optional i64).\n    pub fn {1}(self) -> Option<i64> {{\n        i64_attr(self.0, \"{0}\")\n    }}\n\n    /// Sets attribute `{0}`.\n    pub fn set_{0}(self, value: i64) {{\n        set_i64_attr(self.0, \"{0}\", value)\n    }}\n", attr.name, ident(&attr.name)).unwrap(),
            AttrKind::FlatSymbol => writeln!(w, "    /// Attribute `{0}` (a flat symbol).\n    pub fn {1}(self) -> Option<&'c str> {{\n        flat_symbol_attr(self.0, \"{0}\")\n    }}\n", attr.name, ident(&attr.name)).unwrap(),
        }
    }
    // The builder: every operand, result type and attribute, in .td order.
    let mut params = vec!["location: Location<'c>".to_string()];
    let mutable = if op.operands.is_empty() && op.results.is_empty() && op.attrs.is_empty() { "" } else { "mut " };
    let mut body = vec![format!("let {mutable}builder = OpBuilder::new(Self::NAME, location);")];
    for e in &op.operands {
        let name = ident(&e.name);
        match e.arity {
            Arity::One => {
                params.push(format!("{name}: Value<'c, '_>"));
                body.push(format!("builder.operand({name});"));
            }
            Arity::Optional => {
                params.push(format!("{name}: Option<Value<'c, '_>>"));
                body.push(format!("if let Some(value) = {name} {{\n            builder.operand(value);\n        }}"));
            }
            Arity::Variadic => {
                params.push(format!("{name}: &[Value<'c, '_>]"));
                body.push(format!("builder.operands({name});"));
            }
        }
    }
    for e in &op.results {
        let name = format!("{}_type", e.name);
        match e.arity {
            Arity::One => {
                params.push(format!("{name}: Type<'c>"));
                body.push(format!("builder.result({name});"));
            }
            Arity::Optional => {
                params.push(format!("{name}: Option<Type<'c>>"));
                body.push(format!("if let Some(ty) = {name} {{\n            builder.result(ty);\n        }}"));
            }
            Arity::Variadic => {
                params.push(format!("{name}: &[Type<'c>]"));
                body.push(format!("builder.results({name});"));
            }
        }
    }
    for attr in &op.attrs {
        let name = ident(&attr.name);
        match &attr.kind {
            AttrKind::Enum { ty } => {
                params.push(format!("{name}: {ty}"));
                body.push(format!("builder.parsed_attribute(\"{}\", {name}.attribute_text());", attr.name));
            }
            AttrKind::OptionalI64 => {
                params.push(format!("{name}: Option<i64>"));
                body.push(format!(
                    "if let Some(value) = {name} {{\n            builder.i64_attribute(\"{}\", value);\n        }}",
                    attr.name
                ));
            }
            AttrKind::FlatSymbol => {
                params.push(format!("{name}: &str"));
                body.push(format!("builder.flat_symbol_attribute(\"{}\", {name});", attr.name));
            }
        }
    }
    writeln!(w, "    /// A new `{}` at `location`, not yet inserted.\n    #[allow(clippy::too_many_arguments)]\n    pub fn build({}) -> Operation<'c> {{\n        {}\n        builder.build()\n    }}\n}}\n", op.name, params.join(", "), body.join("\n        ")).unwrap();
}
