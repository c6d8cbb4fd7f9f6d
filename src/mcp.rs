//! MCP 2026-07-28 protocol pieces: per-request `_meta`, request headers, input requests
//! (MRTR), `requestState`, and schema validation.

pub mod headers;
pub mod input;
pub mod meta;
pub mod params;
pub mod request_state;
pub mod schema;
