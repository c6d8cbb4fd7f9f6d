// The runtime's HTTP values on the hot paths, built in JavaScript, bundled by wasm-bindgen
// as a snippet of this crate (src/cloudflare/http.rs and rpc.rs call it): built from Rust,
// a `Headers`, a request's options or a `Response` cost one crossing of the wasm boundary
// and one string decoding per name, value and option, and reading an object's reply one
// more promise awaited in Rust; here each is one crossing.
//
// Headers cross as one string of "name,value" lines (the format http.rs's `header_pairs`
// reads them in): a name never holds a comma, and a value never a line break.

function pairs(lines) {
  if (!lines) return [];
  return lines.split('\n').map((line) => {
    const comma = line.indexOf(',');
    return [line.slice(0, comma), line.slice(comma + 1)];
  });
}

/**
 * A response of `status` with `headers` and `body`: a stream, or a view of the wasm memory,
 * copied here (that memory may move once Rust runs again); an empty view sends no body.
 */
export function response(status, headers, body) {
  const sent = body instanceof Uint8Array ? (body.length ? body.slice() : null) : body;
  return new Response(sent, { status, headers: pairs(headers) });
}

/**
 * POSTs `body` (a view of the wasm memory, copied before anything is awaited) with
 * `headers` to `url` on a Durable Object's `stub`; resolves to its reply's status and
 * whole body, `[status, Uint8Array]`.
 */
export async function post(stub, url, headers, body) {
  const sent = { method: 'POST', headers: pairs(headers), body: body.slice() };
  const reply = await stub.fetch(url, sent);
  return [reply.status, new Uint8Array(await reply.arrayBuffer())];
}

/**
 * Sends a request on to a Durable Object's `stub` (`body`: a view of the wasm memory,
 * copied before anything is awaited; empty: none) and answers its reply as it comes, the
 * body streamed, with `extra` headers added to its own (a subrequest's are immutable).
 */
export async function relay(stub, url, method, headers, body, extra) {
  const sent = { method, headers: pairs(headers), body: body.length ? body.slice() : undefined };
  const reply = await stub.fetch(url, sent);
  const all = new Headers(reply.headers);
  for (const [name, value] of pairs(extra)) all.append(name, value);
  return new Response(reply.body, { status: reply.status, headers: all });
}
