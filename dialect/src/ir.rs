//! The IR access this crate adds to melior, as one list: what [`crate::ffi`]
//! keeps by job (walking, operations, attributes, types, locations,
//! rewriting, keys, threads, contexts) and the function kinds of
//! [`crate::functions`]. Code over ccl IR names all of it as `ir::...`.

pub use crate::{
    ffi::{
        attributes::*,
        context::{of_location as context_of_location, of_operation as context_of, of_type as context},
        identifiers::name_bytes,
        keys::*,
        locations::*,
        operations::*,
        rewrite::*,
        threads::*,
        types::*,
        walk::*,
    },
    functions::*,
};
