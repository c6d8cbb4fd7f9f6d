// `make bench`'s agents peer (tests/bench/run.mjs, BENCH_AGENTS=1): the packages it runs on,
// for the report, and the project's own build served without `[assets]` beside it; and the
// gateway's `agents` upstream (tests/bench/gateway.mjs, `PROFILE_PATH=gateway`).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../support/server.mjs';
import { directPort, mcpRequest, startWrangler } from './servers.mjs';

const HERE = join(ROOT, 'tests', 'bench');

/** The agents peer's packages as installed (name → version), for the report. */
export function peerAgentsPackages() {
  const lock = JSON.parse(readFileSync(join(HERE, 'peer-agents', 'package-lock.json'), 'utf8'));
  return Object.fromEntries(['agents', '@modelcontextprotocol/server', 'zod'].map((n) => [n, lock.packages[`node_modules/${n}`]?.version]));
}

/**
 * A copy of the project's wrangler.toml without its `[assets]` section, in a directory of
 * its own (./.no-assets, paths made relative to it): the same build, the same bindings and
 * vars, no assets router in front of the Worker. Returns the directory.
 */
export function writeNoAssetsConfig() {
  const dir = join(HERE, '.no-assets');
  const up = relative(dir, ROOT);
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8')
    .replace(/^\[assets\]\n(?:(?!\[)[^\n]*\n)*/m, '')
    .replace(/^main = "([^"]+)"/m, (_, main) => `main = "${up}/${main}"`)
    .replace(/^command = "sh ([^"]+)"/m, (_, script) => `command = "sh ${up}/${script}"\nwatch_dir = "${up}/src"`);
  if (/^\[assets\]/m.test(toml)) throw new Error('the [assets] section of wrangler.toml was not removed');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'wrangler.toml'), toml);
  return dir;
}

/**
 * A probe (see `directPort`): `url` answers a 2026-07-28 `tools/list` naming `tool`. Of the
 * ports a `wrangler dev` listens on, workerd's own is the one whose list has the tool.
 */
export const listsTool = (tool) => async (url) => {
  const { headers, body } = mcpRequest('bench-probe', 'tools/list');
  const r = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...headers, accept: 'application/json, text/event-stream' }, body });
  return r.status === 200 && (await r.text()).includes(`"${tool}"`);
};

/**
 * The gateway's `agents` upstream (peer-agents/gateway-upstream.js, its packages installed
 * first) under its own `wrangler dev`: { server, port }, `port` its workerd's own.
 */
export async function startAgentsUpstream() {
  const install = spawnSync('sh', [join(HERE, 'peer-agents', 'install.sh')], { stdio: 'inherit', timeout: 600_000 });
  if (install.status !== 0) throw new Error('the agents peer did not install');
  const server = await startWrangler({ configDir: join(HERE, 'peer-agents'), config: 'gateway-upstream.toml',
    probe: async (url) => (await fetch(`${url}/mcp`, { method: 'OPTIONS' })).status < 500 });
  return { server, port: (await directPort(server.port, listsTool('greet'))).port };
}
