// `make test-docs`: the docs compile and agree with the build.
//
//  1. every ```ts block of README.md and docs/*.md is an example: all of them type-check
//     together (TypeScript, pinned in package.json, strict) against the package `make
//     client` built, resolved by name as an installed package (`mcp-tasks-edge`);
//  2. the ```ts api block of docs/js-api.md is the contract: it and the generated
//     mcp_tasks_edge.d.ts must declare the same things — every exported class, interface,
//     type alias, enum and function (`init`, the default export, and `initSync`) on both
//     sides, member for member (same names, same types; comments aside), functions with the
//     same signature — save the members ALLOWED below lists with its reason;
//  3. the output line of `make client` quoted in the docs ("mcp_tasks_edge_bg.wasm N bytes,
//     M bytes gzipped") is within 5 % of this build's (a figure may lag a small change,
//     not a large one).
//
// Prints PASS/FAIL per check; exits non-zero on failure.
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import ts from 'typescript';
import { ROOT } from '../support/server.mjs';

const PKG = join(ROOT, 'www', 'pkg');
const WORK = join(ROOT, 'target', 'docs-check');
const results = [];

function check(name, ok, detail = '') {
  results.push({ name, ok: Boolean(ok) });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? `\n${detail}` : ''}`);
}

const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The fenced blocks of a markdown file whose info string is `info`, with their line. */
function blocks(file, info) {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```' + info) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    found.push({ file, line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return found;
}

const OPTIONS = {
  strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts', 'lib.esnext.disposable.d.ts'],
  types: [], skipLibCheck: true, noUnusedLocals: false, allowImportingTsExtensions: false,
};

function typeCheckExamples() {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(join(WORK, 'node_modules'), { recursive: true });
  // Resolved as an installed package would be: package.json `exports` and `types`.
  symlinkSync(PKG, join(WORK, 'node_modules', 'mcp-tasks-edge'), 'dir');
  const examples = docs.flatMap((f) => blocks(f, 'ts'));
  const files = examples.map((ex, i) => {
    const path = join(WORK, `example-${i}.ts`);
    // A block without import/export is a script: its top-level await needs a module.
    const module = /^\s*(import|export)\s/m.test(ex.code) || /declare module/.test(ex.code) ? '' : '\nexport {};';
    writeFileSync(path, ex.code + module + '\n');
    return { path, ...ex };
  });
  const program = ts.createProgram(files.map((f) => f.path), OPTIONS);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const where = (d) => {
    if (!d.file) return '';
    const ex = files.find((f) => f.path === d.file.fileName);
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return ex ? `${ex.file}:${ex.line + line}` : relative(ROOT, d.file.fileName);
  };
  const text = diagnostics.map((d) => `  ${where(d)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n    ')}`).join('\n');
  check(`${examples.length} TypeScript examples of README.md and docs/*.md type-check (TypeScript ${ts.version}, strict)`,
    examples.length > 0 && diagnostics.length === 0, text);
}

/**
 * What the contract may leave out, each with its reason: declaration name → a test of the
 * member names the doc need not list. The declaration itself must still be in the doc, and
 * every member it does list is compared.
 */
const ALLOWED = {
  // `init()`'s result: the wasm module's raw exports (`memory`, then one shim per exported
  // method, wasm-bindgen's allocator and closure trampolines whose names carry a hash that
  // changes with every build). A page has no use for them; the doc lists `memory` only.
  InitOutput: (member) => member !== 'memory',
};

const hasModifier = (node, kind) => Boolean(node.modifiers?.some((m) => m.kind === kind));

/**
 * The declarations of a source, by name (`default` for the default export): a class,
 * interface or enum as its members (name → normalized text), a type alias or function as its
 * text. `unknown` lists the statements of a kind this check cannot compare (it would
 * otherwise pass over them silently).
 */
function declarations(fileName, code) {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true);
  const printer = ts.createPrinter({ removeComments: true });
  const print = (node) => printer.printNode(ts.EmitHint.Unspecified, node, source).replace(/\s+/g, ' ').replace(/;$/, '').trim();
  const memberName = (m) => {
    if (ts.isConstructorDeclaration(m)) return 'constructor';
    return `${hasModifier(m, ts.SyntaxKind.StaticKeyword) ? 'static ' : ''}${m.name ? m.name.getText(source) : print(m)}`;
  };
  // A function's signature: type parameters, parameters, return type (not its local name:
  // the default export's `__wbg_init` is `init` or anything else to its importer).
  const signature = (f) => `${f.typeParameters ? `<${f.typeParameters.map(print).join(', ')}>` : ''}(${f.parameters.map(print).join(', ')}): ${f.type ? print(f.type) : 'void'}`;
  const found = new Map();
  const unknown = [];
  for (const st of source.statements) {
    const exported = hasModifier(st, ts.SyntaxKind.ExportKeyword);
    const isDefault = hasModifier(st, ts.SyntaxKind.DefaultKeyword);
    if (ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isEnumDeclaration(st)) {
      const members = new Map();
      for (const m of st.members) {
        // `private constructor()`: nothing to call (wasm-bindgen classes come from methods).
        if (ts.isConstructorDeclaration(m) && hasModifier(m, ts.SyntaxKind.PrivateKeyword)) continue;
        members.set(memberName(m), print(m));
      }
      const heritage = (st.heritageClauses ?? []).map(print).join(' ');
      const kind = ts.isClassDeclaration(st) ? 'class' : ts.isInterfaceDeclaration(st) ? 'interface' : 'enum';
      found.set(st.name.text, { kind, exported, heritage, members });
    } else if (ts.isTypeAliasDeclaration(st)) {
      found.set(st.name.text, { kind: 'type', exported, text: print(st.type) });
    } else if (ts.isFunctionDeclaration(st)) {
      const name = isDefault ? 'default' : st.name.text;
      const previous = found.get(name);
      // Overloads: every signature, in order.
      const text = previous ? `${previous.text} & ${signature(st)}` : signature(st);
      found.set(name, { kind: 'function', exported, text, label: isDefault ? `export default function (${st.name?.text ?? 'anonymous'})` : `function ${name}` });
    } else if (!ts.isImportDeclaration(st)) {
      unknown.push(print(st).slice(0, 80));
    }
  }
  return { found, unknown };
}

function checkContract() {
  const contract = blocks('docs/js-api.md', 'ts api');
  const dts = declarations('mcp_tasks_edge.d.ts', readFileSync(join(PKG, 'mcp_tasks_edge.d.ts'), 'utf8'));
  const doc = declarations('js-api.md', contract.map((b) => b.code).join('\n'));
  const label = (name, d) => d.label ?? `${d.kind} ${name}`;
  const article = (kind) => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
  const problems = [
    ...dts.unknown.map((s) => `the .d.ts has a statement this check cannot compare (teach declarations() its kind): ${s}`),
    ...doc.unknown.map((s) => `the doc has a statement this check cannot compare: ${s}`),
    ...Object.keys(ALLOWED).filter((name) => !dts.found.has(name)).map((name) => `ALLOWED.${name}: the .d.ts declares no ${name} (a stale allowance)`),
  ];
  for (const [name, d] of doc.found) {
    const real = dts.found.get(name);
    if (!real) { problems.push(`${label(name, d)}: documented, but the .d.ts declares no ${name}`); continue; }
    if (real.kind !== d.kind) { problems.push(`${name}: ${article(d.kind)} in the doc, ${article(real.kind)} in the .d.ts`); continue; }
    const exported = (x) => (x.exported ? 'exported' : 'not exported');
    if (d.exported !== real.exported) problems.push(`${label(name, d)}: ${exported(d)} in the doc, ${exported(real)} in the .d.ts`);
    if (d.kind === 'type' || d.kind === 'function') {
      if (real.text !== d.text) problems.push(`${label(name, d)}:\n    doc:   ${d.text}\n    .d.ts: ${real.text}`);
      continue;
    }
    if (d.heritage !== real.heritage) problems.push(`${name}: "${d.heritage}" in the doc, "${real.heritage}" in the .d.ts`);
    for (const [m, text] of d.members) {
      const actual = real.members.get(m);
      if (actual === undefined) problems.push(`${name}.${m}: documented, not in the .d.ts`);
      else if (actual !== text) problems.push(`${name}.${m}:\n    doc:   ${text}\n    .d.ts: ${actual}`);
    }
    const allowed = ALLOWED[name] ?? (() => false);
    for (const m of real.members.keys()) if (!d.members.has(m) && !allowed(m)) problems.push(`${name}.${m}: in the .d.ts, missing from the doc`);
  }
  for (const [name, real] of dts.found) {
    if (real.exported && !doc.found.has(name)) problems.push(`${label(name, real)}: exported by the .d.ts, missing from the doc`);
  }
  check(`docs/js-api.md's contract (${doc.found.size} declarations) matches www/pkg/mcp_tasks_edge.d.ts (${dts.found.size})`,
    contract.length > 0 && problems.length === 0, problems.map((p) => `  ${p}`).join('\n'));
}

function checkSizes() {
  const gz = gzipSync(readFileSync(join(PKG, 'mcp_tasks_edge_bg.wasm')), { level: 9 }).length;
  const quoted = docs.flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/mcp_tasks_edge_bg\.wasm \d+ bytes, (\d+) bytes gzipped/g)]
    .map((m) => ({ file: f, bytes: Number(m[1]) })));
  const stale = quoted.filter((q) => Math.abs(q.bytes - gz) / gz > 0.05);
  check(`the gzipped wasm size quoted in the docs is the build's (${gz.toLocaleString('en-US')} bytes, ±5 %)`,
    quoted.length > 0 && stale.length === 0,
    quoted.length === 0 ? '  no quoted `make client` line in the docs' : stale.map((q) => `  ${q.file}: ${q.bytes}`).join('\n'));
}

let crashed;
try {
  typeCheckExamples();
  checkContract();
  checkSizes();
} catch (e) {
  crashed = e;
  console.error(e);
}
const bad = results.filter((r) => !r.ok).length;
const failed = bad + (crashed ? 1 : 0);
console.log(`\n== docs summary ==\n${results.length - bad} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
