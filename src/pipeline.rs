//! Pipelines for the library API: MLIR's textual form, parsed by MLIR's own
//! pipeline parser (every Rust pass is in MLIR's registry), or built in
//! code with [`PipelineSpec`].

/// A pipeline assembled in code rather than written as text:
/// `PipelineSpec::module(|m| m.pass("ccl-insert-comm-fence").nest("func.func", |f| f.pass("cse")))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineSpec {
    anchor: String,
    elements: Vec<Element>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Element {
    Pass { name: String, options: Option<String> },
    Nested { anchor: String, elements: Vec<Element> },
}

/// The elements of one nesting level of a `PipelineSpec`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NestSpec {
    elements: Vec<Element>,
}

impl NestSpec {
    pub fn pass(mut self, name: &str) -> Self {
        self.elements.push(Element::Pass { name: name.to_string(), options: None });
        self
    }

    /// A pass with options, as written inside `{...}` (`max-blocks=32`).
    pub fn pass_with_options(mut self, name: &str, options: &str) -> Self {
        self.elements.push(Element::Pass { name: name.to_string(), options: Some(options.to_string()) });
        self
    }

    pub fn nest(mut self, anchor: &str, body: impl FnOnce(NestSpec) -> NestSpec) -> Self {
        let inner = body(NestSpec::default());
        self.elements.push(Element::Nested { anchor: anchor.to_string(), elements: inner.elements });
        self
    }
}

impl PipelineSpec {
    /// A pipeline anchored on `builtin.module`.
    pub fn module(body: impl FnOnce(NestSpec) -> NestSpec) -> Self {
        Self::anchored("builtin.module", body)
    }

    pub fn anchored(anchor: &str, body: impl FnOnce(NestSpec) -> NestSpec) -> Self {
        PipelineSpec { anchor: anchor.to_string(), elements: body(NestSpec::default()).elements }
    }

    /// MLIR's textual form (`builtin.module(func.func(cse))`).
    pub fn to_text(&self) -> String {
        format!("{}({})", self.anchor, elements_text(&self.elements))
    }
}

fn elements_text(elements: &[Element]) -> String {
    elements
        .iter()
        .map(|element| match element {
            Element::Pass { name, options: None } => name.clone(),
            Element::Pass { name, options: Some(options) } => format!("{name}{{{options}}}"),
            Element::Nested { anchor, elements } => format!("{anchor}({})", elements_text(elements)),
        })
        .collect::<Vec<_>>()
        .join(",")
}
