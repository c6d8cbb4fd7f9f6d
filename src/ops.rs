//! Operating the server: structured logs ([`log`]) and the operator's view ([`admin`]).
//! Pure, like the rest of the core: the adapters decide when something happened and only
//! print the lines this module renders, or perform the I/O an operator's request needs.
//! docs/operations.md is the operator's guide.

pub mod admin;
pub mod log;
