// `make bench`'s tables (tests/bench/run.mjs): the report of a run, as last-run.json holds it,
// printed on stdout.

import { ROUTES } from './lifecycles.mjs';

const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d));

/** Prints every table of `report` (run with `settings`, run.mjs's SETTINGS). */
export function printTables(report, settings) {
  const line = (cells, widths) => cells.map((c, i) => (i === 0 || i === 4 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  const W = [26, 7, 7, 7, 28, 8, 6];
  // Straight to workerd first: what a deployment's requests meet (no proxy in front).
  const modes = Object.entries(report.hotPaths).sort(([a], [b]) => (a === 'direct' ? -1 : b === 'direct' ? 1 : 0));
  for (const [mode, rows] of modes) {
    const s = report.servers;
    const key = mode === 'wrangler' ? 'wranglerPort' : 'directPort';
    const portsNote = `${mode === 'wrangler' ? 'wrangler' : 'workerd'} ports: project ${s.project[key]}, JS ${s.js[key]}, Rust ${s.rust[key]}`
      + (s.agents ? `, agents peer ${s.agents[key]}, project without [assets] ${s.noAssets[key]}` : '');
    console.log(`\n${mode === 'wrangler' ? "Via wrangler's port" : 'Direct to workerd'} (${settings.connections} connections, ${settings.seconds} s each after ${settings.warmupSeconds} s warm-up; medians of ${settings.rounds ?? 1} rounds, the ratio the median of the rounds' ratios; ${portsNote})`);
    console.log(line(['hot path', 'req/s', 'p50 ms', 'p99 ms', 'baseline', 'req/s', 'ratio'], W) + '  rounds');
    for (const r of rows) {
      console.log(line([r.path, fmt(r.rps), fmt(r.p50, 1), fmt(r.p99, 1), r.baseline, fmt(r.baselineRps), `${fmt(r.ratio, 2)}×`], W)
        + `  ${(r.rounds ?? []).map((x) => fmt(x, 2)).join(' ')}` + (r.errors ? `  ${r.errors} ERRORS` : ''));
    }
    const b = report.baselines[mode];
    const agents = b.agentsList ? `, agents tools/list ${fmt(b.agentsList.p50, 1)}/${fmt(b.agentsList.p99, 1)}, agents echo ${fmt(b.agentsEcho.p50, 1)}/${fmt(b.agentsEcho.p99, 1)}` : '';
    console.log(`  baselines p50/p99 ms: JS no-op ${fmt(b.jsNoop.p50, 1)}/${fmt(b.jsNoop.p99, 1)}, Rust no-op ${fmt(b.rustNoop.p50, 1)}/${fmt(b.rustNoop.p99, 1)}${b.rustExchange ? `, Rust same exchange ${fmt(b.rustExchange.p50, 1)}/${fmt(b.rustExchange.p99, 1)}` : ''}${b.rustObject ? `, Rust + object ${fmt(b.rustObject.p50, 1)}/${fmt(b.rustObject.p99, 1)}` : ''}, DO read ${fmt(b.doRead.p50, 1)}/${fmt(b.doRead.p99, 1)}, DO write ${fmt(b.doWrite.p50, 1)}/${fmt(b.doWrite.p99, 1)}, new object ${fmt(b.doNew.p50, 1)}/${fmt(b.doNew.p99, 1)}${agents}`);
  }
  const ratio = (x) => (x === null || x === undefined ? '-' : `${fmt(x, 2)}×`);
  const cells = (cols, widths) => cols.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  // Each route's lifecycles (tests/bench/lifecycles.mjs), straight to workerd first.
  // A run from before the routes has rows without one: they were through wrangler's port.
  const routeOf = (r) => r.route ?? 'wrangler';
  const routes = [...new Set([...report.lifecycles, ...report.listeningLifecycles].map(routeOf))];
  for (const route of routes) {
    const via = ROUTES[route];
    const polled = report.lifecycles.filter((r) => routeOf(r) === route);
    const listening = report.listeningLifecycles.filter((r) => routeOf(r) === route);
    if (polled.length) {
      const withPeer = polled.some((r) => r.peer);
      console.log(`\nFull task lifecycles ${via} (slow_compute 0.2 s, tasks/get every pollIntervalMs = ${report.serverPollIntervalMs ?? `(none given) ${settings.pollIntervalMs}`} ms until completed; ${settings.lifecycleSeconds} s each)`);
      console.log(`each after the ceiling, ${via} too: the same loop on bare Durable Objects (JS baseline: create = one write + an alarm at 0.2 s that writes the result, get = one read; polled every ${settings.pollIntervalMs} ms); ÷ceiling = project per s ÷ ceiling per s`);
      if (withPeer) console.log(`and followed by the rmcp peer (rmcp 3.11 native, tasks in memory, its own port; pollIntervalMs = ${report.peerPollIntervalMs ?? '(none given)'} ms); ÷peer = project per s ÷ peer per s`);
      const W = [11, 10, 6, 6, 7, 6, 6, 10, 6, 8, 7, 6, 6, 6];
      const three = (r) => [fmt(r?.perSecond, 1), fmt(r?.p50), fmt(r?.p99)];
      console.log(cells(['concurrency', 'ceiling/s', 'p50', 'p99', 'per s', 'p50', 'p99', 'lifecycles', 'polls', '÷ceiling', ...(withPeer ? ['peer/s', 'p50', 'p99', '÷peer'] : [])], W) + '   (p50/p99 in ms)');
      for (const r of polled) {
        const errors = [r.errors ? `${r.errors} ERRORS` : '', r.ceiling?.errors ? `ceiling: ${r.ceiling.errors} ERRORS` : '', r.peer?.errors ? `peer: ${r.peer.errors} ERRORS` : ''].filter(Boolean).join(', ');
        console.log(cells([r.concurrency, ...three(r.ceiling), ...three(r), r.lifecycles, r.polls, ratio(r.ratioToCeiling),
          ...(withPeer ? [...three(r.peer), ratio(r.ratioToPeer)] : [])], W) + (errors ? `  ${errors}` : ''));
      }
    }
    if (listening.length) {
      console.log(`\nFull task lifecycles with pushed notifications ${via} (slow_compute 0.2 s; one subscriptions/listen stream per task, read to its end: the completed notification, which carries the result, then the listen result; ${settings.lifecycleSeconds} s each); ÷ceiling = per s ÷ the ceiling's per s above, ÷peer = per s ÷ the rmcp peer's polling per s`);
      const W = [11, 7, 6, 6, 10, 8, 6];
      console.log(cells(['concurrency', 'per s', 'p50', 'p99', 'lifecycles', '÷ceiling', '÷peer'], W));
      for (const r of listening) {
        console.log(cells([r.concurrency, fmt(r.perSecond, 1), fmt(r.p50), fmt(r.p99), r.lifecycles, ratio(r.ratioToCeiling), ratio(r.ratioToPeer)], W)
          + (r.errors ? `  ${r.errors} ERRORS` : ''));
      }
    }
  }
  if (report.coldStarts) {
    const c = report.coldStarts;
    console.log(`\nCold starts (a fresh workerd process holding only that Worker, from its spawn to the first good response on a new connection; ${settings.coldStartRounds} rounds; then the same request once more, warm)`);
    const W = [30, 9, 7, 19];
    console.log(cells(['Worker (first request)', 'median ms', 'max ms', 'next request p50 ms'], W));
    for (const [k, label] of [['js', 'JS no-op'], ['rust', 'Rust no-op'], ['project', 'project']]) console.log(cells([`${label} (${c.firstRequest[k]})`, fmt(c[k].median), fmt(c[k].max), fmt(c[k].nextMedian, 1)], W));
    console.log(`project ÷ JS no-op ${ratio(c.ratioToJs)}, project ÷ Rust no-op ${ratio(c.ratioToRust)} (medians); project − JS no-op ${fmt(c.projectMinusJsMs)} ms, project − Rust no-op ${fmt(c.projectMinusRustMs)} ms`);
  }
  for (const [name, s] of Object.entries(report.sizes)) {
    console.log(`\n${name === 'project' ? 'Worker bundle' : 'Rust no-op baseline bundle'}: ${s.bytes} bytes, ${s.gzip} gzipped (gzip -9)`);
    for (const f of s.files) console.log(`  ${f.file.padEnd(52)} ${String(f.bytes).padStart(9)} bytes  ${String(f.gzip).padStart(8)} gzipped`);
  }
  for (const m of report.directPortMoves ?? []) console.log(`\nnote: the ${m.server} server's workerd moved from port ${m.from} to ${m.to} at +${m.at.toFixed(0)} s (wrangler restarted it); measurements after that used the new port`);
  console.log(`\nload average ${report.machine.loadavgAtStart.map((x) => x.toFixed(2)).join(' ')} at start, ${report.loadavgAtEnd.map((x) => x.toFixed(2)).join(' ')} at end; ${report.machine.cpus} CPUs shared by the client and workerd`
    + `; other workerd processes: ${report.machine.otherWorkerdAtStart} at start, ${report.machine.otherWorkerdAtEnd ?? '?'} at end; ${report.wallSeconds.toFixed(0)} s; JSON in tests/bench/last-run.json`);
}
