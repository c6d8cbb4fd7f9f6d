// Makes a class of the bindings forgiving: `free()` twice, or `close()` after `free()`,
// does nothing instead of throwing. wasm-bindgen's generated methods pass the object's
// pointer to the wasm, and after `free()` that pointer is 0: the wasm throws "null pointer
// passed to rust". A page's cleanup may well run twice (a React effect under StrictMode,
// `using` plus an explicit free, a pagehide handler), so both must be harmless.
// src/browser/js.rs `harden` calls this on every object the client hands out; each class's
// prototype is patched once. `__wbg_ptr` is the glue's own field (wasm-bindgen is pinned in
// Cargo.toml; tests/browser checks the behaviour in Chromium and Firefox).
const patched = new WeakSet();

export function harden(object) {
  const proto = Object.getPrototypeOf(object);
  if (proto && !patched.has(proto)) {
    patched.add(proto);
    for (const name of ["free", "close"]) {
      const method = proto[name];
      if (typeof method === "function") {
        proto[name] = function () {
          if (this.__wbg_ptr) method.call(this);
        };
      }
    }
    if (typeof Symbol.dispose === "symbol" && proto[Symbol.dispose]) proto[Symbol.dispose] = proto.free;
  }
  return object;
}
