// The harness's own helpers, attacked where a bug of theirs would look like a server's:
// no wrangler here, a plain loopback server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readSse } from '../support/sse.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('readSse: a stream read later survives a garbage collection of its Response', async () => {
  // An SSE stream that sends its first message only once the client has had time to GC.
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    setTimeout(() => res.write('event: message\ndata: {"jsonrpc":"2.0","method":"late"}\n\n'), 300);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    // Like listen() in tests/support/legacy.mjs: only the messages are kept, the
    // Response is garbage; the first read comes later (after a task starts, say).
    const open = async () => readSse((await fetch(`http://127.0.0.1:${server.address().port}/`)).body)[Symbol.asyncIterator]();
    const messages = await open();
    for (let i = 0; i < 3; i++) {
      gc();
      await sleep(20); // the FinalizationRegistry's callbacks run between tasks
    }
    const first = await messages.next();
    assert.equal(first.done, false, 'the stream ended with nothing delivered: its body was cancelled by a GC');
    assert.equal(first.value.method, 'late');
    await messages.return();
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
