// A small HTTP server on 127.0.0.1 for the fetch_url / http_job end-to-end tests: an
// asynchronous request-reply job API (POST → 202 + Location, GET status, DELETE cancel) whose
// behaviour each job chooses in its POST body, plus a few static pages. It records every
// request so tests can assert what the Worker sent.
//
// POST /jobs (or /jobs/) with a JSON body, every field optional:
//   steps            number of status GETs answered "running" (message "step i/n") before the
//                    final answer (default 2)
//   outcome          "succeeded" | "failed" | "cancelled" (default "succeeded")
//   result           the final `result` (default { answer: 42 }); omitted when outcome ≠ succeeded
//   message          the final `message` (default: none on success, "job <outcome>" otherwise)
//   retryAfter       Retry-After (seconds) on the 202 and on every running answer (default 1;
//                    null: no header)
//   statusDelayMs    how long each status GET is held before it is answered (default 0)
//   flaky            "5xx" (503, text body) | "nonjson" (200 text/html) for status GETs
//   flakyCount       how many status GETs are flaky before normal answers (default: all)
//   flakyAt          instead: which status GETs (1-based) are flaky, e.g. [1, 2, 4, 5]
//   relativeLocation true: Location "/jobs/<id>"; "path": Location "<id>" (relative to the
//                    POST URL, so POST to /jobs/ to get /jobs/<id>); default: absolute URL
//   refusedLocation  true: Location "http://refused.invalid/jobs/<id>"
//   inline           true: answer the POST with 200 and the final body at once
//   tag              any value; lets a test find its job (jobByTag) and POSTs (postsFor)
// GET /jobs/:id     status: {status, message?, result?}
// DELETE /jobs/:id  marks the job cancelled (204); later GETs answer "cancelled"
//   statusRedirect   a URL: every status GET answers 302 with Location: it
//   deleteRedirect   a URL: DELETE answers 307 with Location: it
// GET /page         an HTML page with a <title> (PAGE_TITLE); GET /plain text/plain, no title
// ANY /redirect/:status?to=URL   answers :status (301, 302, 303, 307, 308) with Location: URL
// GET /endless?chunk=N&everyMs=M a chunked body that never ends: N bytes every M ms (default
//                  64 KiB every 5 ms) until the client goes away; records how much it sent
//
// startCanary() is a server that must receive nothing: it records every request it gets.
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';

export const PAGE_TITLE = 'Job Server Test Page';
// Non-ASCII on purpose: the byte length differs from the character length.
export const PAGE_HTML = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${PAGE_TITLE}</title></head>` +
  '<body><p>Café au lait — a page for fetch_url.</p></body></html>\n';
export const PLAIN_TEXT = 'Just plain text, no title here. Ünïcödé.\n';

export async function startJobServer() {
  const jobs = new Map();
  const requests = [];
  const sockets = new Set();
  let base;

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = raw;
      if (raw.length > 0) { try { body = JSON.parse(raw); } catch { /* keep the text */ } } else body = undefined;
      const path = new URL(req.url, 'http://x').pathname;
      const record = { method: req.method, path, body, raw, headers: req.headers, at: performance.now(), doneAt: null };
      requests.push(record);
      // The client gave up before the answer was sent (an aborted request).
      res.on('close', () => { if (!res.writableFinished) record.abortedAt = performance.now(); });
      const send = (status, headers, payload) => {
        const data = payload === undefined ? '' : (typeof payload === 'string' ? payload : JSON.stringify(payload));
        const h = { ...headers };
        if (payload !== undefined && typeof payload !== 'string' && !h['content-type']) h['content-type'] = 'application/json';
        h['content-length'] = Buffer.byteLength(data);
        res.writeHead(status, h);
        res.end(data, () => { record.doneAt = performance.now(); });
      };
      try {
        if (special(req, res, record)) return;
        route(req.method, path, body, send);
      } catch (e) {
        send(500, { 'content-type': 'text/plain' }, `job server bug: ${e.stack}`);
      }
    });
  });

  /** /redirect and /endless, which need the query and the raw response. */
  function special(req, res, record) {
    const u = new URL(req.url, 'http://x');
    const redirect = /^\/redirect\/(\d{3})$/.exec(u.pathname);
    if (redirect) {
      res.writeHead(Number(redirect[1]), { location: u.searchParams.get('to') ?? '/page', 'content-length': 0 });
      res.end();
      return true;
    }
    if (req.method === 'GET' && u.pathname === '/endless') {
      const chunk = Buffer.alloc(Number(u.searchParams.get('chunk') ?? 65536), 'x');
      const everyMs = Number(u.searchParams.get('everyMs') ?? 5);
      record.sentBytes = 0;
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => {
        if (res.destroyed || res.writableEnded) return clearInterval(timer);
        res.write(chunk);
        record.sentBytes += chunk.length;
      }, everyMs);
      res.on('close', () => { clearInterval(timer); record.closedAt = performance.now(); });
      return true;
    }
    return false;
  }

  function finalBody(job) {
    if (job.cancelled) return { status: 'cancelled', message: 'cancelled by the client' };
    const out = { status: job.outcome };
    if (job.message !== undefined) out.message = job.message;
    if (job.outcome === 'succeeded') out.result = job.result;
    return out;
  }

  function route(method, path, body, send) {
    if (method === 'GET' && path === '/page') return send(200, { 'content-type': 'text/html; charset=utf-8' }, PAGE_HTML);
    if (method === 'GET' && path === '/plain') return send(200, { 'content-type': 'text/plain; charset=utf-8' }, PLAIN_TEXT);
    if (method === 'POST' && (path === '/jobs' || path === '/jobs/')) {
      const cfg = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
      const id = randomBytes(8).toString('hex');
      const outcome = cfg.outcome ?? 'succeeded';
      const job = {
        id, cfg, outcome,
        steps: cfg.steps ?? 2,
        result: 'result' in cfg ? cfg.result : { answer: 42 },
        message: cfg.message ?? (outcome === 'succeeded' ? undefined : `job ${outcome}`),
        retryAfter: cfg.retryAfter === undefined ? 1 : cfg.retryAfter,
        gets: 0, polls: 0, flakyServed: 0, cancelled: false, deleted: 0,
      };
      jobs.set(id, job);
      if (cfg.inline) return send(200, {}, finalBody(job));
      let location = `${base}/jobs/${id}`;
      if (cfg.relativeLocation === true) location = `/jobs/${id}`;
      else if (cfg.relativeLocation === 'path') location = id;
      if (cfg.refusedLocation) location = `http://refused.invalid/jobs/${id}`;
      const headers = { location };
      if (job.retryAfter !== null) headers['retry-after'] = String(job.retryAfter);
      return send(202, headers, { status: 'running', id });
    }
    const m = /^\/jobs\/([0-9a-f]+)$/.exec(path);
    if (m && jobs.has(m[1])) {
      const job = jobs.get(m[1]);
      if (method === 'DELETE' && job.cfg.deleteRedirect) {
        return send(307, { location: job.cfg.deleteRedirect });
      }
      if (method === 'GET' && job.cfg.statusRedirect) {
        job.gets += 1;
        return send(302, { location: job.cfg.statusRedirect });
      }
      if (method === 'DELETE') {
        job.cancelled = true;
        job.deleted += 1;
        return send(204, {});
      }
      if (method === 'GET') {
        const answer = () => {
          job.gets += 1;
          const flakyNow = Array.isArray(job.cfg.flakyAt) ? job.cfg.flakyAt.includes(job.gets)
            : job.cfg.flakyCount === undefined || job.flakyServed < job.cfg.flakyCount;
          if (job.cfg.flaky && flakyNow && !job.cancelled) {
            job.flakyServed += 1;
            if (job.cfg.flaky === '5xx') return send(503, { 'content-type': 'text/plain' }, 'service unavailable (test)');
            return send(200, { 'content-type': 'text/html' }, '<html><body>not json at all</body></html>');
          }
          job.polls += 1;
          if (!job.cancelled && job.polls <= job.steps) {
            const headers = job.retryAfter !== null ? { 'retry-after': String(job.retryAfter) } : {};
            return send(200, headers, { status: 'running', message: `step ${job.polls}/${job.steps}` });
          }
          return send(200, {}, finalBody(job));
        };
        const delay = job.cfg.statusDelayMs ?? 0;
        if (delay > 0) setTimeout(answer, delay); else answer();
        return undefined;
      }
    }
    return send(404, { 'content-type': 'text/plain' }, 'not found');
  }

  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    port,
    jobs,
    requests,
    /** The job id from a status URL or Location. */
    idOf: (location) => /\/jobs\/([0-9a-f]+)$/.exec(new URL(location, base).pathname)?.[1],
    /** Requests for one job's status URL (any method). */
    requestsFor: (id) => requests.filter((r) => r.path === `/jobs/${id}`),
    /** The job whose POST body carried `tag` (tests tag each job to find it). */
    jobByTag: (tag) => [...jobs.values()].find((j) => j.cfg.tag === tag),
    /** The POSTs whose body carried `tag`. */
    postsFor: (tag) => requests.filter((r) => r.method === 'POST' && r.body?.tag === tag),
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}

/** A server that must receive nothing: every request it gets is recorded (and answered 200). */
export async function startCanary() {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('canary');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
