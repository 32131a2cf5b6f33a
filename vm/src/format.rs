//! PLACEHOLDER (being written): C printf-compatible number formatting.
