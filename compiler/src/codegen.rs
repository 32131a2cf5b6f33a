//! PLACEHOLDER (being written): code generation.
use crate::{ast, Proto, SyntaxError};

/// Generates the main function of a chunk.
pub fn generate(_chunk: &ast::Chunk, chunkname: &[u8]) -> Result<Proto, SyntaxError> {
    Err(SyntaxError {
        message: format!("{}: codegen not written yet", crate::chunkid(chunkname)),
        incomplete: false,
    })
}
