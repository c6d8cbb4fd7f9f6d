// Tiny DOM helpers: no framework, no innerHTML with server data.

/**
 * el('button', { class: 'primary', onclick: fn }, 'Run') → HTMLButtonElement.
 * Attributes: `class`, `on*` (listeners), booleans (true → present, false/null → absent),
 * anything else via setAttribute. Children: nodes, strings, null/false (skipped), arrays.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'hidden') node.hidden = Boolean(value);
    else if (value === true) node.setAttribute(key, '');
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

/** "4.2 s", "1 min 05 s", "2 h 03 min". */
export function formatDuration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Pretty JSON for display. */
export function json(value) {
  try { return JSON.stringify(value, null, 2); } catch { return String(value); }
}

/** "Processed 3/10 items" → { done: 3, total: 10 } (the progress convention of docs/js-api.md). */
/** This server's facts about a task (`_meta["mcp-tasks-edge/task"]`: tool, title,
 *  progress, total), if the task carries them. */
export function taskFacts(task) {
  return task?._meta?.['mcp-tasks-edge/task'];
}

/** A task's progress as numbers: from its facts when a step reported them, else read
 *  from a status message such as "Processed 4/15 items". */
export function taskProgress(task) {
  const facts = taskFacts(task);
  if (Number.isFinite(facts?.progress) && Number.isFinite(facts?.total) && facts.total > 0) {
    return { done: Math.min(facts.progress, facts.total), total: facts.total };
  }
  return parseProgress(task?.statusMessage);
}

export function parseProgress(message) {
  const m = /(\d+)\s*\/\s*(\d+)/.exec(message ?? '');
  if (!m) return null;
  const done = Number(m[1]);
  const total = Number(m[2]);
  return total > 0 && done <= total ? { done, total } : null;
}

/** Plain-language text of any error (McpError has code/message/data). */
export function describeError(error) {
  if (error === null || error === undefined) return 'Unknown error';
  if (typeof error === 'string') return error;
  const message = error.message ?? String(error);
  return typeof error.code === 'number' ? `${message} (code ${error.code})` : message;
}
