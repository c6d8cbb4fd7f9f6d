// `make conformance`: runs the official MCP conformance suite (pinned in package.json)
// against a fresh local server, one scenario at a time, and prints a per-scenario summary.
// Exits non-zero if any check FAILED (warnings and skips are reported, not fatal).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';

export const SCENARIOS = [
  // Transport and base protocol (issue 2).
  'server-stateless', 'http-header-validation', 'http-custom-header-server-validation',
  'dns-rebinding-protection', 'tools-list', 'tools-call-simple-text', 'tools-call-error',
  'json-schema-2020-12', 'caching',
  // Tasks extension (issue 3).
  'tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-dispatch-and-envelope',
  'tasks-request-headers', 'tasks-mrtr-input', 'tasks-status-notifications',
  'tasks-request-state-removal', 'tasks-required-task-error', 'tasks-wire-fields',
  'tasks-mrtr-composition',
  // Multi round-trip requests (issue 4).
  'input-required-result-basic-elicitation', 'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots', 'input-required-result-request-state',
  'input-required-result-multiple-input-requests', 'input-required-result-multi-round',
  'input-required-result-missing-input-response', 'input-required-result-non-tool-request',
  'input-required-result-result-type', 'input-required-result-unsupported-methods',
  'input-required-result-tampered-state', 'input-required-result-capability-check',
  'input-required-result-ignore-extra-params', 'input-required-result-validate-input',
];

const only = process.argv.slice(2);
const scenarios = only.length ? SCENARIOS.filter((s) => only.includes(s)) : SCENARIOS;
const cli = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));

const server = await startServer();
let failedChecks = 0;
const rows = [];
try {
  for (const scenario of scenarios) {
    const dir = join(out, scenario);
    // Every scenario speaks 2026-07-28; --force keeps the extension scenarios from skipping.
    const run = spawnSync(process.execPath, [cli, 'server', '--url', server.mcpUrl.replace('127.0.0.1', 'localhost'),
      '--scenario', scenario, '-o', dir, '--spec-version', '2026-07-28', '--force'], { encoding: 'utf8', timeout: 120_000 });
    let checks = [];
    try {
      const [runDir] = readdirSync(dir);
      checks = JSON.parse(readFileSync(join(dir, runDir, 'checks.json'), 'utf8'));
    } catch {
      checks = [{ id: 'runner', status: 'FAILURE', errorMessage: `no checks.json; exit ${run.status}\n${run.stdout}\n${run.stderr}` }];
    }
    const count = (s) => checks.filter((c) => c.status === s).length;
    const failures = checks.filter((c) => c.status === 'FAILURE');
    failedChecks += failures.length;
    rows.push({ scenario, passed: count('SUCCESS'), failed: failures.length, warnings: count('WARNING'), skipped: count('SKIPPED') });
    for (const f of failures) console.log(`  FAIL ${scenario} ${f.id}: ${f.errorMessage ?? ''}`);
    for (const w of checks.filter((c) => c.status === 'WARNING')) console.log(`  warn ${scenario} ${w.id}: ${w.errorMessage ?? ''}`);
  }
} finally {
  await server.stop();
}
console.log('\nscenario'.padEnd(52) + 'passed failed warnings skipped');
for (const r of rows) {
  console.log(r.scenario.padEnd(51) + String(r.passed).padStart(6) + String(r.failed).padStart(7) + String(r.warnings).padStart(9) + String(r.skipped).padStart(8));
}
const scenariosFailed = rows.filter((r) => r.failed > 0).length;
console.log(`\nconformance: ${rows.length - scenariosFailed} passed, ${scenariosFailed} failed`);
process.exit(failedChecks > 0 ? 1 : 0);
