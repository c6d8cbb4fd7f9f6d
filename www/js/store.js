// What survives a reload: the server URL and the task list in localStorage (per server
// URL), the bearer token in sessionStorage only (never written to disk by the console).

const KEY = 'mcp-tasks-console/v1';
const TOKEN_KEY = 'mcp-tasks-console/token';
const MAX_FINISHED = 30;
const MAX_DISMISSED = 200;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

function load() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    return {
      serverUrl: data.serverUrl ?? null,
      tasks: Array.isArray(data.tasks) ? data.tasks : [],
      dismissed: Array.isArray(data.dismissed) ? data.dismissed : [],
    };
  } catch {
    return { serverUrl: null, tasks: [], dismissed: [] };
  }
}

function save(data) {
  try { localStorage.setItem(KEY, JSON.stringify(data)); } catch { /* quota or privacy mode */ }
}

export const isTerminal = (status) => TERMINAL.has(status);

export const store = {
  serverUrl() { return load().serverUrl; },
  setServerUrl(url) { const d = load(); d.serverUrl = url; save(d); },

  token() { try { return sessionStorage.getItem(TOKEN_KEY) ?? ''; } catch { return ''; } },
  setToken(token) {
    try { if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY); } catch { /* ignore */ }
  },

  /** Tasks recorded for `serverUrl`, oldest first: {taskId, tool, args, startedAt, status}. */
  tasks(serverUrl) { return load().tasks.filter((t) => t.serverUrl === serverUrl); },

  /** Inserts or updates one task record (matched by serverUrl + taskId). */
  upsert(record) {
    const d = load();
    const i = d.tasks.findIndex((t) => t.taskId === record.taskId && t.serverUrl === record.serverUrl);
    if (i >= 0) d.tasks[i] = { ...d.tasks[i], ...record };
    else d.tasks.push(record);
    // Keep every unfinished task, and only the newest finished ones.
    const finished = d.tasks.filter((t) => isTerminal(t.status));
    const drop = new Set(finished.slice(0, Math.max(0, finished.length - MAX_FINISHED)));
    d.tasks = d.tasks.filter((t) => !drop.has(t));
    save(d);
  },

  /** Dismissing a card also keeps the server's task list from bringing it back here. */
  remove(serverUrl, taskId) {
    const d = load();
    d.tasks = d.tasks.filter((t) => !(t.taskId === taskId && t.serverUrl === serverUrl));
    d.dismissed = [...d.dismissed.filter((x) => x !== `${serverUrl} ${taskId}`), `${serverUrl} ${taskId}`].slice(-MAX_DISMISSED);
    save(d);
  },

  /** Whether the user dismissed `taskId` of `serverUrl` in this browser. */
  dismissed(serverUrl, taskId) { return load().dismissed.includes(`${serverUrl} ${taskId}`); },
};
