// The esbuild entry: esbuild leaves `new URL('…wasm', import.meta.url)` in the glue alone
// (the bundle would look for the wasm beside itself), so the wasm is imported as a file
// (`--loader:.wasm=file`) and passed to init, resolved against this bundle's own URL.
import init from 'mcp-tasks-edge';
import wasmUrl from 'mcp-tasks-edge/mcp_tasks_edge_bg.wasm';
import { run } from './scenarios.js';

run(() => init({ module_or_path: new URL(wasmUrl, import.meta.url) }));
