// An MCP server no one here wrote the protocol of: the official TypeScript SDK 1.x
// (`@modelcontextprotocol/sdk`, McpServer + StreamableHTTPServerTransport with sessions),
// synchronous, without tasks, as nearly every server that exists is. The gateway tests put
// this server behind the gateway (docs/gateway.md). It records what reached it: each call
// (tool, arguments, when it started and how it ended), every notifications/cancelled, and
// every Authorization header.
//
// Tools:
//   report {seconds, label?}   works `seconds` s, a progress notification each second; not
//                              idempotent (no hints); structuredContent {pages, label}
//   lookup {key}               answers at once; readOnlyHint; structuredContent {key, value}
//   slow_lookup {seconds, key} like lookup after `seconds` s; idempotentHint
//   fails {}                   an isError result
//   survey {seconds, label?}   like report, and after its first second asks one question
//                              ("Which colour?", elicitation/create on the call's own stream);
//                              not idempotent; structuredContent {label, answer, pages}, answer
//                              the colour chosen, or the action when declined or cancelled
//                              (the tool then ends at once, saying so); the call's record
//                              entry keeps the answer (`answer`); a client that cannot be
//                              asked gets the SDK's isError result (outcome 'failed')
//
// `addTool(name)` registers one more tool (answering "added") on every session's server and
// on the sessions opened after it: the SDK then sends notifications/tools/list_changed on
// each session's standalone GET stream (the servers declare tools.listChanged, as the SDK's
// McpServer does). `record.streams` counts the GET streams opened, `record.deletes` the
// sessions' DELETEs. `forgetSessions()` makes
// every session id unknown (HTTP 404), as a restart of the server would.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('cancelled')); }, { once: true });
});

function define(record) {
  const server = new McpServer({ name: 'ts-upstream', version: '1.0.0' });
  const call = (tool, args) => {
    const entry = { tool, args, startedAt: Date.now(), outcome: 'running' };
    record.calls.push(entry);
    return entry;
  };
  server.registerTool('report', {
    title: 'Render a report',
    description: 'Renders a report page by page (slow).',
    inputSchema: { seconds: z.number().int().min(1).max(600), label: z.string().optional() },
    outputSchema: { pages: z.number(), label: z.string() },
  }, async ({ seconds, label = '' }, extra) => {
    const entry = call('report', { seconds, label });
    const token = extra._meta?.progressToken;
    try {
      for (let i = 1; i <= seconds; i += 1) {
        await sleep(1000, extra.signal);
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: seconds, message: `page ${i}` } });
        }
      }
    } catch (e) {
      entry.outcome = 'cancelled';
      throw e;
    }
    entry.outcome = 'completed';
    return { content: [{ type: 'text', text: `Rendered ${seconds} pages${label ? ` for ${label}` : ''}` }],
      structuredContent: { pages: seconds, label } };
  });
  server.registerTool('lookup', {
    description: 'Looks a key up.',
    inputSchema: { key: z.string() },
    outputSchema: { key: z.string(), value: z.string() },
    annotations: { readOnlyHint: true },
  }, async ({ key }) => {
    call('lookup', { key }).outcome = 'completed';
    return { content: [{ type: 'text', text: `${key}=value-of-${key}` }], structuredContent: { key, value: `value-of-${key}` } };
  });
  server.registerTool('slow_lookup', {
    description: 'Looks a key up, slowly.',
    inputSchema: { key: z.string(), seconds: z.number().int().min(1).max(600) },
    annotations: { idempotentHint: true },
  }, async ({ key, seconds }, extra) => {
    const entry = call('slow_lookup', { key, seconds });
    try { await sleep(seconds * 1000, extra.signal); } catch (e) { entry.outcome = 'cancelled'; throw e; }
    entry.outcome = 'completed';
    return { content: [{ type: 'text', text: `${key}=slow-value` }] };
  });
  server.registerTool('survey', {
    description: 'Renders a survey page by page (slow), asking a colour after the first page.',
    inputSchema: { seconds: z.number().int().min(1).max(600), label: z.string().optional() },
    outputSchema: { label: z.string(), answer: z.string(), pages: z.number() },
  }, async ({ seconds, label = '' }, extra) => {
    const entry = call('survey', { seconds, label });
    const token = extra._meta?.progressToken;
    const page = async (i) => {
      await sleep(1000, extra.signal);
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: seconds, message: `page ${i}` } });
      }
    };
    let answer;
    try {
      for (let i = 1; i <= seconds; i += 1) {
        await page(i);
        if (i !== 1) continue;
        // As an SDK 1.x server asks mid-call: a request related to the call, so it goes on
        // the call's own response stream, aborted with the call.
        const asked = await server.server.elicitInput({ message: 'Which colour?', requestedSchema: {
          type: 'object', properties: { colour: { type: 'string', enum: ['red', 'green', 'blue'] } }, required: ['colour'] } },
        { relatedRequestId: extra.requestId, signal: extra.signal });
        answer = asked.action === 'accept' ? asked.content.colour : asked.action;
        entry.answer = answer;
        if (asked.action !== 'accept') {
          entry.outcome = 'completed';
          return { content: [{ type: 'text', text: `The colour question was ${asked.action === 'decline' ? 'declined' : 'cancelled'}: survey stopped after page 1` }],
            structuredContent: { label, answer, pages: 1 } };
        }
      }
    } catch (e) {
      entry.outcome = extra.signal.aborted ? 'cancelled' : 'failed';
      entry.error = String(e?.message ?? e);
      throw e;
    }
    entry.outcome = 'completed';
    return { content: [{ type: 'text', text: `Surveyed ${seconds} pages${label ? ` for ${label}` : ''}: ${answer}` }],
      structuredContent: { label, answer, pages: seconds } };
  });
  server.registerTool('fails', { description: 'Always fails.', inputSchema: {} }, async () => {
    call('fails', {}).outcome = 'completed';
    return { content: [{ type: 'text', text: 'it went wrong' }], isError: true };
  });
  return server;
}

/**
 * The variables of this server as a gateway in front of `upstream` (its tools as `ts_…`,
 * reached with the gateway's own `secret`), answering with a job after `waitMs`, and
 * calling a repeatable tool in the Worker for 1 s at most. The deployment's own allow-list
 * has nothing of the upstream: its host is allowed for its tools alone.
 */
export function gatewayVars(upstream, secret, waitMs) {
  return {
    UPSTREAMS: JSON.stringify([{ name: 'ts', url: upstream.url, prefix: 'ts_', token: 'TS_UPSTREAM_TOKEN' }]),
    TS_UPSTREAM_TOKEN: secret,
    INLINE_BUDGET_MS: String(waitMs),
    UPSTREAM_INLINE_MS: '1000',
    FETCH_ALLOWED_HOSTS: 'nothing.invalid',
  };
}

/** Starts the upstream on loopback (`port`, default a free one); resolves to { url, record, close }. */
export async function startUpstream(port = 0) {
  const record = { calls: [], cancelled: [], authorizations: [], methods: [], streams: 0, deletes: 0 };
  const transports = new Map();
  const servers = new Set();
  const added = [];
  const addTo = (server, name) => server.registerTool(name, { description: 'Added while running.', inputSchema: {} },
    async () => ({ content: [{ type: 'text', text: 'added' }] }));
  const http = createServer(async (req, res) => {
    record.authorizations.push(req.headers.authorization ?? null);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = raw ? JSON.parse(raw) : undefined;
    if (body?.method) record.methods.push(body.method);
    if (body?.method === 'notifications/cancelled') record.cancelled.push(body.params);
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'GET') record.streams += 1;
    if (req.method === 'DELETE') record.deletes += 1;
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid || !isInitializeRequest(body)) {
        res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session' } }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      const server = define(record);
      for (const name of added) addTo(server, name);
      servers.add(server);
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
        servers.delete(server);
      };
      await server.connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => http.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${http.address().port}/mcp`;
  return {
    url,
    record,
    addTool: (name) => {
      added.push(name);
      for (const server of servers) addTo(server, name);
    },
    // Forgets every session, as a restarted server would: their ids answer 404 from now on.
    forgetSessions: () => transports.clear(),
    close: () => new Promise((resolve) => { http.closeAllConnections(); http.close(() => resolve()); }),
  };
}

// `node tests/support/upstream.mjs [port]` (`make example-upstream`): serves it until stopped.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const { url } = await startUpstream(Number(process.argv[2] ?? 9100));
  console.log(`a TypeScript SDK 1.x server without tasks at ${url} (tools: report, lookup, slow_lookup, fails, survey)`);
}
