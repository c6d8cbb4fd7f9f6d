//! MCP 2026-07-28 protocol pieces: per-request `_meta`, request headers, input requests
//! (MRTR), `requestState`, the catalog of prompts/resources, and schema validation.

pub mod catalog;
pub mod headers;
pub mod input;
pub mod meta;
pub mod request_state;
pub mod schema;
