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
 * A response of `status` with `headers` and `body`: a view of the wasm memory, copied here
 * (that memory may move once Rust runs again); an empty one sends no body.
 */
export function response(status, headers, body) {
  return new Response(body.length ? body.slice() : null, { status, headers: pairs(headers) });
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
