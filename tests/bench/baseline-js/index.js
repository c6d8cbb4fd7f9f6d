// `make bench` baselines (tests/bench/run.mjs measures them beside the project, same run):
//   GET  /noop   the no-op Worker: an empty 200, nothing else
//   GET  /read   storage.get of one key in an existing object (the object named "existing")
//   POST /write  storage.put of that key in the same existing object
//   POST /new    one storage.put in a brand-new object (a fresh random name per request)
//   POST /new-alarm  the same with an alarm set an hour ahead: the least a task's creation
//                writes (its record and its alarm, tests/bench/cost.mjs's floor)
//   POST /mcp    the request passed on as it came to FORWARD_URL (a var), its answer back
//                as it comes: the least any gateway on this runtime costs a call
//                (tests/bench/gateway.mjs)
//   POST /mcp-held  the same, held by a brand-new Durable Object (a fresh random name per
//                request, as a task's object) that stores a checkpoint before the call
//                leaves and the answer the moment it arrives: the least a gateway that
//                never makes a call twice and keeps its result costs on this runtime
// and the lifecycle ceiling, the least a task lifecycle can cost on bare Durable Objects
// (the bench drives it with the same loop as the project's polling lifecycles):
//   POST /task        a fresh task id, its object (named by that id, as the project names a
//                     task's object) writes { status: working } once and sets an alarm
//                     ALARM_MS later; answers { taskId, status }
//   GET  /task/<id>   one storage read in that object: { taskId, status } (+ result once
//                     completed); 404 for an id never created
// The alarm fires after the same 0.2 s as the project's slow_compute and writes the result.
// Every route answers 200 only when the storage call did what it says, so the benchmark
// can check each response instead of counting errors as throughput.
import { DurableObject } from 'cloudflare:workers';

const ALARM_MS = 200;

export class Bare extends DurableObject {
  async fetch(request) {
    if (request.method === 'GET') {
      const value = await this.ctx.storage.get('k');
      return new Response(null, { status: value === undefined ? 404 : 200 });
    }
    await this.ctx.storage.put('k', Date.now());
    if (request.url.endsWith('/alarm')) await this.ctx.storage.setAlarm(Date.now() + 3_600_000);
    return new Response(null);
  }

  /** The alarm of `/new-alarm`: set, never awaited by the bench. */
  async alarm() {}
}

export class Held extends DurableObject {
  async fetch(request) {
    const body = await request.text();
    // Durable before the call leaves: the output gate holds the outgoing fetch until
    // this write is confirmed, as it holds a task object's.
    this.ctx.storage.put('call', { phase: 'calling', body });
    const answer = await fetch(this.env.FORWARD_URL, { method: 'POST', headers: request.headers, body });
    const text = await answer.text();
    this.ctx.storage.put('result', text);
    // The answer leaves once the result is stored (output gate). Its headers as they
    // came: the runtime encodes the text again as their Content-Encoding says.
    return new Response(text, { status: answer.status, headers: answer.headers });
  }
}

export class CeilingTask extends DurableObject {
  async fetch(request) {
    const taskId = new URL(request.url).searchParams.get('id');
    if (request.method === 'POST') {
      this.ctx.storage.put('task', { status: 'working' });
      this.ctx.storage.setAlarm(Date.now() + ALARM_MS);
      // Both writes are confirmed together before the answer leaves (output gate).
      return Response.json({ taskId, status: 'working' });
    }
    const task = await this.ctx.storage.get('task');
    return task === undefined ? new Response('no such task', { status: 404 }) : Response.json({ taskId, ...task });
  }

  async alarm() {
    await this.ctx.storage.put('task', { status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
  }
}

const task = (env, taskId, method) =>
  env.CEILING.get(env.CEILING.idFromName(taskId)).fetch(`http://task/?id=${encodeURIComponent(taskId)}`, { method });

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    switch (pathname) {
      case '/noop':
        return new Response(null);
      case '/read':
        return env.BARE.get(env.BARE.idFromName('existing')).fetch('http://bare/', { method: 'GET' });
      case '/write':
        return env.BARE.get(env.BARE.idFromName('existing')).fetch('http://bare/', { method: 'POST' });
      case '/mcp':
        if (!env.FORWARD_URL) return new Response('FORWARD_URL is not set', { status: 500 });
        return fetch(env.FORWARD_URL, request);
      case '/mcp-held':
        if (!env.FORWARD_URL) return new Response('FORWARD_URL is not set', { status: 500 });
        return env.HELD.get(env.HELD.idFromName(crypto.randomUUID())).fetch(request);
      case '/new':
        return env.BARE.get(env.BARE.idFromName(crypto.randomUUID())).fetch('http://bare/', { method: 'POST' });
      case '/new-alarm':
        return env.BARE.get(env.BARE.idFromName(crypto.randomUUID())).fetch('http://bare/alarm', { method: 'POST' });
      case '/task':
        if (request.method !== 'POST') return new Response('POST creates a task', { status: 405 });
        return task(env, crypto.randomUUID(), 'POST');
      default:
        if (pathname.startsWith('/task/') && request.method === 'GET') return task(env, decodeURIComponent(pathname.slice('/task/'.length)), 'GET');
        return new Response('not found', { status: 404 });
    }
  },
};
