// The bench build's count of calls across the wasm boundary (src/cloudflare/bench.rs),
// bundled by wasm-bindgen as a snippet of this crate in that build only (src/cloudflare/
// bench/on.rs imports it). It is evaluated before the bundle instantiates the wasm (a
// module's imports are evaluated first), and wraps the runtime's `WebAssembly.Instance`
// so that every function the instance imports (a runtime API the Rust side calls: a
// call out) and every function it exports (a handler, the JS glue's `malloc`, a promise's
// callback: a call in) counts itself. The wrappers cost time: this build counts, it is
// never timed.

const counts = { in: 0, out: 0 };

function countCalls(functions, key) {
  const wrapped = {};
  for (const [name, value] of Object.entries(functions)) {
    wrapped[name] = typeof value !== 'function' ? value : function (...args) {
      counts[key]++;
      return value.apply(this, args);
    };
  }
  return wrapped;
}

const Instance = WebAssembly.Instance;
WebAssembly.Instance = function (module, imports) {
  const counted = {};
  for (const [namespace, functions] of Object.entries(imports ?? {})) {
    counted[namespace] = countCalls(functions, 'out');
  }
  const instance = new Instance(module, counted);
  return { exports: countCalls(instance.exports, 'in') };
};

/** [calls into the instance, calls out of it] since it started. */
export function boundaryCalls() {
  return [counts.in, counts.out];
}
