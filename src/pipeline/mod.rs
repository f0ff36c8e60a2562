//! Pipelines: the textual grammar (`grammar`), a typed builder for library
//! users (`PipelineSpec`), and turning either into MLIR pass managers
//! (`build`).

pub mod build;
pub mod grammar;

pub use build::{build, BuiltPipeline, PassRecord, PipelineError};
pub use grammar::{Element, GrammarError, PipelineAst};

/// A pipeline assembled in code rather than parsed:
/// `PipelineSpec::module().pass("ccl-insert-comm-fence").nest("func.func", |f| f.pass("cse"))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineSpec {
    ast: PipelineAst,
}

/// The elements of one nesting level of a `PipelineSpec`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NestSpec {
    elements: Vec<Element>,
}

impl NestSpec {
    pub fn pass(mut self, name: &str) -> Self {
        self.elements.push(Element::Pass { name: name.to_string(), options: None, offset: 0 });
        self
    }

    pub fn pass_with_options(mut self, name: &str, options: &str) -> Self {
        self.elements.push(Element::Pass { name: name.to_string(), options: Some(options.to_string()), offset: 0 });
        self
    }

    pub fn nest(mut self, anchor: &str, body: impl FnOnce(NestSpec) -> NestSpec) -> Self {
        let inner = body(NestSpec::default());
        self.elements.push(Element::Nested { anchor: anchor.to_string(), elements: inner.elements, offset: 0 });
        self
    }
}

impl PipelineSpec {
    /// A pipeline anchored on `builtin.module`.
    pub fn module(body: impl FnOnce(NestSpec) -> NestSpec) -> Self {
        Self::anchored("builtin.module", body)
    }

    pub fn anchored(anchor: &str, body: impl FnOnce(NestSpec) -> NestSpec) -> Self {
        let nest = body(NestSpec::default());
        let mut spec = PipelineSpec { ast: PipelineAst { anchor: anchor.to_string(), elements: nest.elements } };
        // Offsets point into the textual form, so errors can show a caret.
        spec.ast = grammar::parse(&spec.ast.to_text()).expect("a built pipeline is well-formed");
        spec
    }

    /// Parses MLIR's textual form.
    pub fn parse(text: &str) -> Result<Self, GrammarError> {
        Ok(PipelineSpec { ast: grammar::parse(text)? })
    }

    pub fn ast(&self) -> &PipelineAst {
        &self.ast
    }

    pub fn to_text(&self) -> String {
        self.ast.to_text()
    }
}
