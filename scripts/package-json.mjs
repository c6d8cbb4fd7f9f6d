// Part of `make client` (scripts/build-client.sh): turns wasm-pack's output in DIR into
// the npm package `mcp-tasks-edge`: its package.json and README.md, and the .d.ts line
// wasm-bindgen cannot type. Usage: node scripts/package-json.mjs DIR
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = process.argv[2];
const root = join(dir, '..', '..');
const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
const field = (name) => cargo.match(new RegExp(`^${name} = "(.*)"$`, 'm'))[1];

// McpError is re-exported from src/browser/mcp_error.js; wasm-bindgen can only type a
// re-exported import as `unknown`, so its line gives way to the class declared in
// src/browser/types.rs.
const dts = join(dir, 'mcp_tasks_edge.d.ts');
writeFileSync(dts, readFileSync(dts, 'utf8').replace(/^export (declare )?let McpError: unknown;\n/m, ''));

/** Every file under `at`, relative to the package. */
function walk(at) {
  return readdirSync(at).flatMap((name) => {
    const path = join(at, name);
    return statSync(path).isDirectory() ? walk(path) : [relative(dir, path)];
  });
}

const glue = readFileSync(join(dir, 'mcp_tasks_edge.js'), 'utf8');
const snippets = walk(join(dir, 'snippets')).sort();
// Every module the glue imports must ship (the snippets are easy to leave behind).
for (const [, path] of glue.matchAll(/^import .* from '\.\/(.*)';$/gm)) {
  if (!snippets.includes(path)) throw new Error(`the glue imports ${path}, which is not in ${dir}`);
}

const pkg = {
  name: 'mcp-tasks-edge',
  version: field('version'),
  description: 'A browser client for MCP 2026-07-28 servers with the Tasks extension (WebAssembly): '
    + 'tool calls, MRTR rounds, tasks followed live over subscriptions/listen, cancellation, OAuth sign-in.',
  license: field('license'),
  keywords: ['mcp', 'model-context-protocol', 'tasks', 'wasm', 'browser', 'oauth'],
  type: 'module',
  main: './mcp_tasks_edge.js',
  module: './mcp_tasks_edge.js',
  types: './mcp_tasks_edge.d.ts',
  exports: {
    '.': { types: './mcp_tasks_edge.d.ts', default: './mcp_tasks_edge.js' },
    // For bundlers that need the wasm imported as a URL (esbuild: docs/web-apps.md).
    './mcp_tasks_edge_bg.wasm': './mcp_tasks_edge_bg.wasm',
    './package.json': './package.json',
  },
  files: ['mcp_tasks_edge.js', 'mcp_tasks_edge.d.ts', 'mcp_tasks_edge_bg.wasm', 'mcp_tasks_edge_bg.wasm.d.ts',
    ...snippets, 'README.md'],
  // The glue only declares; the snippets define a class. Nothing runs on import.
  sideEffects: false,
};
writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

writeFileSync(join(dir, 'README.md'), `# mcp-tasks-edge

${pkg.description}

\`\`\`sh
npm install mcp-tasks-edge-${pkg.version}.tgz     # built by \`make client\` in target/npm/
\`\`\`

\`\`\`ts
import init, { McpClient } from "mcp-tasks-edge";
await init();   // fetches mcp_tasks_edge_bg.wasm beside the module (new URL(…, import.meta.url))
const client = await McpClient.connect("https://mcp.example.com/mcp");
\`\`\`

With esbuild, import the wasm as a file and pass it to \`init({ module_or_path })\`; Vite needs
nothing. Bundlers, CORS, CSP and sign-in: docs/web-apps.md of the mcp-tasks-edge repository;
every method: docs/js-api.md. License: ${pkg.license}.
`);
console.log(`client: ${dir}/package.json: ${pkg.name}@${pkg.version}, ${pkg.files.length} files`);
