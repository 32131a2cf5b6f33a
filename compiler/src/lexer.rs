//! PLACEHOLDER (being written): the logos lexer.
