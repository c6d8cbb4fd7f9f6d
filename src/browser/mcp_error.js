// The error every McpClient promise rejects with (except an AbortSignal's own reason).
// Re-exported from the package entry (`import { McpError } from "./pkg/mcp_tasks_edge.js"`)
// by `#[wasm_bindgen(reexport)]` in src/browser/js.rs.
export class McpError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = "McpError";
    /** The JSON-RPC error code (server errors pass through; docs/js-api.md lists the client's own). */
    this.code = code;
    /** The JSON-RPC error `data`, or undefined. */
    this.data = data;
  }
}
