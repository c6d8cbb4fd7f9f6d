//! Operating the server: structured logs ([`log`]), the operator's view ([`admin`]) and a
//! bench build's ledger of billable operations ([`counters`]).
//! Pure, like the rest of the core: the adapters decide when something happened and only
//! print the lines this module renders, or perform the I/O an operator's request needs.
//! docs/operations.md is the operator's guide.

pub mod admin;
pub mod counters;
pub mod log;
