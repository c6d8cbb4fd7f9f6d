// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) against a fresh local server (startServer: fixtures on), reported honestly.
//
// Usage:
//   node tests/conformance/run.mjs                       the explicit scenario list below (`make conformance`)
//   node tests/conformance/run.mjs NAME [NAME...]        only those scenarios (of any name the suite knows)
//   node tests/conformance/run.mjs --requirements 2026-07-28
//   node tests/conformance/run.mjs --requirements 2025-11-25
//       the suite's own frozen requirement set, run as the suite defines it
//       (`conformance server --url URL --requirements REV -o DIR`: every scored server
//       scenario plus the ones it runs unscored, at that revision's wire), PLUS every
//       tasks-* scenario the suite has that the set did not run (at the 2026-07-28 wire).
//       Prints: scored N, passed P, failed F, skipped S; the tasks-* and the other unscored
//       scenarios apart; every failing scenario with its failed checks, one line each.
// Options (each also as an environment variable, for `make conformance`):
//   --requirements REV      CONFORMANCE_REQUIREMENTS=REV
//   --allow-fail a,b        CONFORMANCE_ALLOW_FAIL=a,b   known-failing scenarios: still run, printed
//                           and counted ("failed, known"), but they do not fail the exit code; one
//                           that passes is reported as a stale entry
//   --url URL               CONFORMANCE_URL=URL          test a server that is already running
//                                                        instead of starting one
//   --timeout MS            CONFORMANCE_TIMEOUT_MS=MS    per-scenario timeout (default 30000)
//
// Verdicts, per scenario:
//   FAILED   any check FAILURE, or no check at all (no checks.json, or an empty one), or
//            its process exited non-zero / timed out, or no check passed (only INFO/WARNING)
//   SKIPPED  the suite skipped it: every check it reported is SKIPPED (INFO aside), e.g. the
//            placeholder tasks-status-notifications in this suite version; or the suite
//            declared it not applicable. Never counted as passed.
//   PASSED   at least one SUCCESS and no FAILURE (WARNINGs are printed)
// Exit code: default mode, non-zero if any scenario FAILED; --requirements, non-zero if any
// scored scenario or any tasks-* scenario FAILED (unscored others are reported only). A
// scenario listed in --allow-fail never fails the exit code.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';

export const SCENARIOS = [
  // Transport and base protocol.
  'server-stateless', 'http-header-validation', 'http-custom-header-server-validation',
  'dns-rebinding-protection', 'tools-list', 'tools-call-simple-text', 'tools-call-error',
  'json-schema-2020-12', 'caching',
  // Tasks extension.
  'tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-dispatch-and-envelope',
  'tasks-request-headers', 'tasks-mrtr-input', 'tasks-status-notifications',
  'tasks-request-state-removal', 'tasks-required-task-error', 'tasks-wire-fields',
  'tasks-mrtr-composition',
  // Multi round-trip requests.
  'input-required-result-basic-elicitation', 'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots', 'input-required-result-request-state',
  'input-required-result-multiple-input-requests', 'input-required-result-multi-round',
  'input-required-result-missing-input-response', 'input-required-result-non-tool-request',
  'input-required-result-result-type', 'input-required-result-unsupported-methods',
  'input-required-result-tampered-state', 'input-required-result-capability-check',
  'input-required-result-ignore-extra-params', 'input-required-result-validate-input',
];

const PKG = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance');
const CLI = join(PKG, 'dist', 'index.js');

// ---------------------------------------------------------------- options

function parseArgs(argv) {
  const opts = {
    requirements: process.env.CONFORMANCE_REQUIREMENTS || undefined,
    allowFail: (process.env.CONFORMANCE_ALLOW_FAIL ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    url: process.env.CONFORMANCE_URL || undefined,
    timeoutMs: Number(process.env.CONFORMANCE_TIMEOUT_MS || 30_000),
    only: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const eq = a.indexOf('=');
      if (eq !== -1) return a.slice(eq + 1);
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--requirements' || a.startsWith('--requirements=')) opts.requirements = value();
    else if (a === '--allow-fail' || a.startsWith('--allow-fail=')) opts.allowFail.push(...value().split(',').map((s) => s.trim()).filter(Boolean));
    else if (a === '--url' || a.startsWith('--url=')) opts.url = value();
    else if (a === '--timeout' || a.startsWith('--timeout=')) opts.timeoutMs = Number(value());
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else opts.only.push(a);
  }
  if (opts.requirements && opts.only.length) usage('scenario names and --requirements do not combine: a requirement set fixes what runs');
  if (!(opts.timeoutMs > 0)) usage('--timeout needs a positive number of milliseconds');
  return opts;
}

function usage(error) {
  const lines = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  const text = lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.slice(3)).join('\n');
  if (error) console.error(`error: ${error}\n`);
  console.error(text);
  process.exit(error ? 2 : 0);
}

// ---------------------------------------------------------------- the suite

/** Every server scenario name this suite build knows (`conformance list --server`). */
function knownScenarios() {
  const r = spawnSync(process.execPath, [CLI, 'list', '--server'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`conformance list --server failed: ${r.stderr}`);
  return [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

/** The frozen requirement set, read from the suite's own file: { scored, unscored: [{scenario, reason}] }. */
function requirementSet(revision) {
  const file = join(PKG, 'requirements', `${revision}.yaml`);
  if (!existsSync(file)) {
    const have = readdirSync(join(PKG, 'requirements')).map((f) => f.replace(/\.yaml$/, ''));
    usage(`no requirement set ${revision} in this suite (available: ${have.join(', ')})`);
  }
  const YAML = createRequire(join(PKG, 'package.json'))('yaml');
  const doc = YAML.parse(readFileSync(file, 'utf8')) ?? {};
  return {
    scored: doc.server ?? [],
    unscored: (doc.not_scored ?? []).filter((e) => e.leg === 'server').map((e) => ({ scenario: e.scenario, reason: e.reason })),
  };
}

/** checks.json files under `dir`, by scenario (directories are named server-<scenario>-<timestamp>). */
function readResults(dir) {
  const out = new Map();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(name);
    if (!m) continue;
    const file = join(dir, name, 'checks.json');
    let checks = null;
    try { checks = JSON.parse(readFileSync(file, 'utf8')); } catch { /* missing or unreadable: no checks */ }
    out.set(m[1], Array.isArray(checks) ? checks : null);
  }
  return out;
}

/** One scenario in its own suite process (as `make conformance` always has). */
function runOne(url, scenario, outDir, timeoutMs) {
  const dir = join(outDir, 'single', scenario);
  // Every scenario speaks 2026-07-28; --force keeps the extension scenarios from skipping.
  const run = spawnSync(process.execPath, [CLI, 'server', '--url', url, '--scenario', scenario, '-o', dir,
    '--spec-version', '2026-07-28', '--force', '--timeout', String(timeoutMs)], { encoding: 'utf8', timeout: timeoutMs + 60_000 });
  const checks = readResults(dir).get(scenario) ?? null;
  const notApplicable = /SKIPPED: scenario '[^']+' is not applicable[^\n]*/.exec(run.stdout ?? '')?.[0];
  const exit = run.error ? `${run.error.code ?? run.error.message}` : run.signal ? `signal ${run.signal}` : run.status;
  return { scenario, checks, exit, notApplicable, output: `${run.stdout ?? ''}\n${run.stderr ?? ''}` };
}

/** The whole requirement set in one suite process, as the suite defines the run. */
function runRequirements(url, revision, outDir, timeoutMs) {
  const dir = join(outDir, 'requirements');
  const logFile = join(outDir, `requirements-${revision}.log`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'server', '--url', url, '--requirements', revision, '-o', dir,
      '--timeout', String(timeoutMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let pending = '';
    const onData = (d) => {
      output += d;
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const l of lines) {
        const m = /^=== Running scenario: (\S+) ===/.exec(l);
        if (m) process.stdout.write(`  running ${m[1]}\n`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    // The suite bounds each scenario by the timeout; this bounds the whole run.
    const killer = setTimeout(() => child.kill('SIGKILL'), 90 * 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      writeFileSync(logFile, output);
      resolve({ exit: signal ? `signal ${signal}` : code, results: readResults(dir), output, logFile });
    });
  });
}

// ---------------------------------------------------------------- verdicts

const firstLine = (s, n = 220) => {
  const line = String(s ?? '').split('\n').find((l) => l.trim()) ?? '';
  return line.length > n ? `${line.slice(0, n)}…` : line;
};

function verdict({ checks, exit, notApplicable, crashed }) {
  const counts = { passed: 0, failed: 0, warnings: 0, skipped: 0, info: 0 };
  if (checks === null || checks === undefined) {
    if (notApplicable) return { status: 'SKIPPED', reason: notApplicable, counts, failures: [] };
    return { status: 'FAILED', reason: `no checks.json (exit ${exit})${crashed ? `: ${crashed}` : ''}`, counts, failures: [] };
  }
  for (const c of checks) {
    const k = { SUCCESS: 'passed', FAILURE: 'failed', WARNING: 'warnings', SKIPPED: 'skipped', INFO: 'info' }[c.status];
    if (k) counts[k]++;
  }
  const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => ({ id: c.id, name: c.name, message: firstLine(c.errorMessage ?? c.description) }));
  const warnings = checks.filter((c) => c.status === 'WARNING').map((c) => ({ id: c.id, message: firstLine(c.errorMessage ?? c.description) }));
  if (failures.length) return { status: 'FAILED', reason: `${failures.length} failed check(s)`, counts, failures, warnings };
  if (checks.length === 0) return { status: 'FAILED', reason: 'zero checks', counts, failures, warnings };
  if (exit !== undefined && exit !== 0) return { status: 'FAILED', reason: `process exited ${exit} without a failed check`, counts, failures, warnings };
  if (counts.passed === 0) {
    if (counts.skipped > 0) {
      const why = checks.find((c) => c.status === 'SKIPPED');
      return { status: 'SKIPPED', reason: firstLine(why.errorMessage ?? why.description), counts, failures, warnings };
    }
    return { status: 'FAILED', reason: 'no check passed (only INFO/WARNING checks)', counts, failures, warnings };
  }
  return { status: 'PASSED', reason: '', counts, failures, warnings };
}

// ---------------------------------------------------------------- main

const opts = parseArgs(process.argv.slice(2));
const known = knownScenarios();
const allowFail = new Set(opts.allowFail);
for (const name of allowFail) if (!known.includes(name)) console.log(`warning: --allow-fail names ${name}, which this suite does not have`);

const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
const server = opts.url ? null : await startServer();
// localhost, not 127.0.0.1: the DNS-rebinding scenario sends its own Host/Origin variants.
const url = opts.url ?? server.mcpUrl.replace('127.0.0.1', 'localhost');
/** [{ scenario, group: 'scored'|'tasks'|'unscored'|'listed', note, ...verdict }] */
const rows = [];
let suiteNote = '';
try {
  if (!opts.requirements) {
    const unknown = opts.only.filter((s) => !known.includes(s));
    if (unknown.length) usage(`unknown scenario(s): ${unknown.join(', ')}`);
    const scenarios = opts.only.length ? opts.only : SCENARIOS;
    console.log(`conformance: ${scenarios.length} scenario(s), one process each, at the 2026-07-28 wire, against ${url}`);
    for (const scenario of scenarios) {
      const r = runOne(url, scenario, out, opts.timeoutMs);
      rows.push({ scenario, group: 'listed', ...verdict(r) });
      process.stdout.write(`  ${rows.at(-1).status.padEnd(7)} ${scenario}\n`);
    }
  } else {
    const rev = opts.requirements;
    const set = requirementSet(rev);
    console.log(`conformance: requirement set ${rev} (${set.scored.length} scored server scenarios, ${set.unscored.length} run unscored), against ${url}`);
    const run = await runRequirements(url, rev, out, opts.timeoutMs);
    const expected = [...set.scored.map((s) => ({ scenario: s, group: 'scored', note: '' })),
      ...set.unscored.map((e) => ({ scenario: e.scenario, group: e.scenario.startsWith('tasks-') ? 'tasks' : 'unscored', note: e.reason }))];
    for (const e of expected) {
      const crashed = new RegExp(`Failed to run scenario ${e.scenario}:[^\\n]*`).exec(run.output)?.[0];
      rows.push({ ...e, ...verdict({ checks: run.results.get(e.scenario) ?? null, crashed }) });
    }
    // The suite's exit code must agree with the scored verdicts.
    const scoredFailed = rows.some((r) => r.group === 'scored' && r.status === 'FAILED');
    if (run.exit !== 0 && !scoredFailed) suiteNote = `the suite exited ${run.exit} although no scored scenario failed here (log: ${run.logFile})`;
    if (run.exit === 0 && scoredFailed) suiteNote = `the suite exited 0 although a scored scenario failed here (zero checks or a crash; log: ${run.logFile})`;
    // Every tasks-* scenario the suite has, even when the set does not run it.
    const ran = new Set(expected.map((e) => e.scenario));
    const extraTasks = known.filter((s) => s.startsWith('tasks-') && !ran.has(s));
    if (extraTasks.length) console.log(`  and ${extraTasks.length} tasks-* scenario(s) the set does not run, one process each at the 2026-07-28 wire`);
    for (const scenario of extraTasks) {
      rows.push({ scenario, group: 'tasks', note: 'not in the set', ...verdict(runOne(url, scenario, out, opts.timeoutMs)) });
    }
  }
} finally {
  if (server) await server.stop();
}

// ---------------------------------------------------------------- report

for (const r of rows) r.known = allowFail.has(r.scenario);
const gating = (r) => (opts.requirements ? r.group === 'scored' || r.group === 'tasks' : true);
const sum = (list) => {
  const failed = list.filter((r) => r.status === 'FAILED');
  return { n: list.length, passed: list.filter((r) => r.status === 'PASSED').length, failed: failed.length,
    known: failed.filter((r) => r.known).length, skipped: list.filter((r) => r.status === 'SKIPPED').length };
};
const line = (label, s) => `${label}: ${s.n}, passed ${s.passed}, failed ${s.failed}${s.known ? ` (${s.known} known failing)` : ''}, skipped ${s.skipped}`;

console.log(`\n${'scenario'.padEnd(50)} ${'verdict'.padEnd(8)} passed failed warn skip  group`);
for (const r of rows) {
  const c = r.counts;
  console.log(`${r.scenario.padEnd(50)} ${(r.status + (r.status === 'FAILED' && r.known ? '*' : '')).padEnd(8)} ${String(c.passed).padStart(6)} ${String(c.failed).padStart(6)} ${String(c.warnings).padStart(4)} ${String(c.skipped).padStart(4)}  ${r.group}${r.note ? ` (${r.note})` : ''}`);
}
const warned = rows.filter((r) => r.warnings?.length);
if (warned.length) {
  console.log('\nWarnings:');
  for (const r of warned) for (const w of r.warnings) console.log(`  ${r.scenario} ${w.id}: ${w.message}`);
}
const skipped = rows.filter((r) => r.status === 'SKIPPED');
if (skipped.length) {
  console.log('\nSkipped (not passed):');
  for (const r of skipped) console.log(`  ${r.scenario}: ${r.reason}`);
}
const failing = rows.filter((r) => r.status === 'FAILED');
if (failing.length) {
  console.log('\nFailing:');
  for (const r of failing) {
    const tag = r.known ? ' [known failing]' : gating(r) ? '' : ' [unscored]';
    if (!r.failures.length) console.log(`  ${r.scenario}${tag}: ${r.reason}`);
    for (const f of r.failures) console.log(`  ${r.scenario}${tag} ${f.id}: ${f.message}`);
  }
}
const stale = rows.filter((r) => r.known && r.status === 'PASSED');
for (const r of stale) console.log(`\nnote: ${r.scenario} is listed in --allow-fail but PASSED: remove it from the list`);
if (suiteNote) console.log(`\nnote: ${suiteNote}`);

console.log('');
if (opts.requirements) {
  console.log(line(`requirements ${opts.requirements}: scored`, sum(rows.filter((r) => r.group === 'scored'))));
  console.log(line('tasks-* scenarios', sum(rows.filter((r) => r.group === 'tasks'))));
  const other = rows.filter((r) => r.group === 'unscored');
  if (other.length) console.log(`${line('other unscored (reported only)', sum(other))}`);
} else {
  console.log(line('conformance: scenarios', sum(rows)));
}
console.log(`results: ${out}`);
const blocking = rows.filter((r) => r.status === 'FAILED' && gating(r) && !r.known);
const suiteCrashed = suiteNote.includes('although no scored scenario failed');
if (blocking.length || suiteCrashed) {
  console.log(`conformance: FAILED (${blocking.map((r) => r.scenario).join(', ') || 'see the note above'})`);
  process.exit(1);
}
console.log('conformance: OK');
