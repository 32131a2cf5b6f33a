//! PLACEHOLDER (being written): the lalrpop parser and syntax-error messages.
use crate::{ast, SyntaxError};

/// Parses a chunk.
pub fn parse(_source: &[u8], chunkname: &[u8]) -> Result<ast::Chunk, SyntaxError> {
    Err(SyntaxError {
        message: format!("{}: parser not written yet", crate::chunkid(chunkname)),
        incomplete: false,
    })
}
