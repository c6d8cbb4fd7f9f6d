// Reads a text/event-stream body as JSON-RPC messages (the `data:` lines of each event;
// comments and events without data are skipped).
//
// The body is locked here, at the call, not on the first read: Node's fetch (undici)
// cancels the body of a Response that is garbage collected while its body is neither
// locked nor read (its FinalizationRegistry in lib/web/fetch/response.js). A caller that
// keeps only the messages (a GET stream read later, `listen()` in legacy.mjs) would then
// see the stream end, with nothing delivered, after any GC before its first read.
// tests/e2e/harness.test.mjs attacks it.
export function readSse(body) {
  return messages(body.pipeThrough(new TextDecoderStream()).getReader());
}

async function* messages(reader) {
  let buffer = '';
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch {
        return; // aborted or broken: the stream is over
      }
      if (chunk.done) return;
      buffer += chunk.value.replaceAll('\r\n', '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
        if (data) yield JSON.parse(data);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
