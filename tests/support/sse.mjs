// Reads a text/event-stream body as JSON-RPC messages (the `data:` lines of each event;
// comments and events without data are skipped).
export async function* readSse(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
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
