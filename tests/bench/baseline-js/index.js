// `make bench` baselines (tests/bench/run.mjs measures them beside the project, same run):
//   GET  /noop   the no-op Worker: an empty 200, nothing else
//   GET  /read   storage.get of one key in an existing object (the object named "existing")
//   POST /write  storage.put of that key in the same existing object
//   POST /new    one storage.put in a brand-new object (a fresh random name per request)
// Every route answers 200 only when the storage call did what it says, so the benchmark
// can check each response instead of counting errors as throughput.
import { DurableObject } from 'cloudflare:workers';

export class Bare extends DurableObject {
  async fetch(request) {
    if (request.method === 'GET') {
      const value = await this.ctx.storage.get('k');
      return new Response(null, { status: value === undefined ? 404 : 200 });
    }
    await this.ctx.storage.put('k', Date.now());
    return new Response(null);
  }
}

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
      case '/new':
        return env.BARE.get(env.BARE.idFromName(crypto.randomUUID())).fetch('http://bare/', { method: 'POST' });
      default:
        return new Response('not found', { status: 404 });
    }
  },
};
