// The runtime's HTTP values on the hot paths, built in JavaScript, bundled by wasm-bindgen
// as a snippet of this crate (src/cloudflare/http.rs and rpc.rs call it): built from Rust,
// a `Headers`, a request's options or a `Response` cost one crossing of the wasm boundary
// and one string decoding per name, value and option, and reading an object's reply one
// more promise awaited in Rust; here each is one crossing.
//
// Header fields cross as one string of "name,value" lines, written by `http::lines`
// (src/http.rs), which refuses a name that is not a token and a value that is not made of
// field-value characters: a name never holds a comma, and a value never a line break.

function pairs(lines) {
  if (!lines) return [];
  return lines.split('\n').map((line) => {
    const comma = line.indexOf(',');
    return [line.slice(0, comma), line.slice(comma + 1)];
  });
}

/**
 * A response of `status` with `headers`, its body `stream` if there is one, else `bytes`:
 * a view of the wasm memory, copied here (that memory may move once Rust runs again); an
 * empty one sends no body.
 */
export function response(status, headers, bytes, stream) {
  const body = stream ?? (bytes.length ? bytes.slice() : null);
  return new Response(body, { status, headers: pairs(headers) });
}

/**
 * The options of a request to send with `fetch(url, init)`: `body` a view of the wasm
 * memory, copied here; an empty one sends no body.
 */
export function init(method, headers, body) {
  return { method, headers: pairs(headers), body: body.length ? body.slice() : undefined };
}

/**
 * POSTs `body` with `headers` to `url` on a Durable Object's `stub`; resolves to its
 * reply's status and whole body, `[status, Uint8Array]`.
 */
export async function post(stub, url, headers, body) {
  const reply = await stub.fetch(url, init('POST', headers, body));
  return [reply.status, new Uint8Array(await reply.arrayBuffer())];
}

/**
 * Sends a request on to a Durable Object's `stub` and answers its reply as it comes, the
 * body streamed, with `extra` headers added to its own (a subrequest's are immutable).
 */
export async function relay(stub, url, method, headers, body, extra) {
  const reply = await stub.fetch(url, init(method, headers, body));
  const all = new Headers(reply.headers);
  for (const [name, value] of pairs(extra)) all.append(name, value);
  return new Response(reply.body, { status: reply.status, headers: all });
}

/** The value a Durable Object's `storage` holds at `key` (`undefined` when none). */
export function read(storage, key) {
  return storage.get(key);
}

/**
 * A Durable Object's `storage` written as one transaction: the keys of `puts` ([key, value,
 * key, value, ...]) put, `deletes` deleted, and the alarm set `at` (ms since the epoch) or
 * deleted (`clear`); nothing awaited in between, so the runtime coalesces them. Resolves
 * once all are done; rejects with the first failure.
 */
export function write(storage, puts, deletes, at, clear) {
  const pending = [];
  if (puts.length) {
    const entries = {};
    for (let i = 0; i < puts.length; i += 2) entries[puts[i]] = puts[i + 1];
    pending.push(storage.put(entries));
  }
  if (deletes.length) pending.push(storage.delete(deletes));
  if (at !== undefined) pending.push(storage.setAlarm(at));
  else if (clear) pending.push(storage.deleteAlarm());
  return Promise.all(pending);
}
