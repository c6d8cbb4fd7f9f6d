// The Vite entry: Vite turns the glue's `new URL('…wasm', import.meta.url)` into an
// emitted asset by itself, so `init()` needs no argument.
import init from 'mcp-tasks-edge';
import { run } from './scenarios.js';

run(() => init());
