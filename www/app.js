// The web console: connect, list tools, run them, follow their tasks, answer their
// questions. It talks to the server only through the wasm bindings (docs/js-api.md).

import { el, describeError, taskFacts } from './js/dom.js';
import { buildFields } from './js/schema-form.js';
import { TaskBoard } from './js/task-board.js';
import { askElicitation, askSampling, answerRoots } from './js/input-requests.js';
import { store, isTerminal } from './js/store.js';

const $ = (id) => document.getElementById(id);
const CLIENT_INFO = { name: 'mcp-tasks-console', version: '0.1.0' };
const CANCELLED = -32800;
/**
 * Sign-in when a server answers 401 (docs/console.md): the console is the public OAuth
 * client `mcp-tasks-console` whose redirect URI is `signed-in` beside this page (Workers
 * static assets serve signed-in.html there); the tokens stay in this tab's sessionStorage.
 * Register that client at your authorization server, or change the client id here.
 */
const SIGN_IN = { clientId: 'mcp-tasks-console', storage: 'session', mode: 'popup',
  redirectUri: new URL('signed-in', location.href).href };

const ui = {
  connectForm: $('connect-form'), url: $('server-url'), token: $('bearer-token'), connectButton: $('connect-button'),
  signInButton: $('sign-in-button'), signOutButton: $('sign-out-button'),
  status: $('connection-status'), info: $('server-info'), toolList: $('tool-list'), toolCount: $('tool-count'),
  filter: $('tool-filter'), toolForm: $('tool-form'), toolTitle: $('tool-form-title'),
  toolDescription: $('tool-form-description'), toolFields: $('tool-form-fields'), runButton: $('run-button'),
};
const board = new TaskBoard({ list: $('task-board'), empty: $('board-empty'), count: $('task-count') });

let bindings = null;   // the module www/pkg/mcp_tasks_edge.js, once loaded
let client = null;     // McpClient
let serverUrl = null;  // the URL `client` is connected to (the key of stored tasks)
let tools = [];
let selected = null;   // { tool, reader }

function setStatus(state, text) {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

async function loadBindings() {
  if (bindings) return bindings;
  try {
    const mod = await import('./pkg/mcp_tasks_edge.js');
    await mod.default();
    bindings = mod;
    return mod;
  } catch (error) {
    throw new Error(`The browser bindings could not be loaded (run \`make client\` to build www/pkg): ${describeError(error)}`);
  }
}

// ───────────────────────── connection ─────────────────────────

/**
 * Connects to `url`. With `interactive`, a 401 opens the sign-in window (call it from a
 * click: browsers block windows opened later); without, only a token this tab already holds
 * is used, and a server that needs sign-in gets the "Sign in" button.
 */
async function connect(url, token, { interactive = false } = {}) {
  ui.connectButton.disabled = true;
  ui.signInButton.disabled = true;
  setStatus('busy', interactive ? `Signing in to ${url}…` : `Connecting to ${url}…`);
  try {
    const { McpClient } = await loadBindings();
    const next = await McpClient.connect(url, {
      bearerToken: token || undefined, clientInfo: CLIENT_INFO, signIn: { ...SIGN_IN, interactive },
    });
    client = next;
    serverUrl = url;
    store.setServerUrl(url);
    store.setToken(token);
    showServerInfo(client);
    showSignIn({ needed: false, signedIn: client.signedIn });
    // Tools with a human title (the demos) first, then the rest in the server's order.
    const listed = await client.listTools();
    tools = [...listed.filter((t) => t.title), ...listed.filter((t) => !t.title)];
    selected = null;
    renderToolList();
    if (tools.length) selectTool(tools[0], { focus: false });
    const info = client.serverInfo;
    const who = client.signedIn ? ' (signed in)' : '';
    setStatus('ok', `Connected to ${info ? `${info.name} ${info.version ?? ''}`.trim() : url}${who}.`);
    resumeStoredTasks();
    showMyTasks();
  } catch (error) {
    const servers = error?.data?.authorizationServers;
    if (error?.data?.httpStatus === 401 && Array.isArray(servers) && servers.length) {
      showSignIn({ needed: true, signedIn: false });
      setStatus('error', `${url} needs you to sign in (with ${servers.join(', ')}): press Sign in.`);
    } else {
      showSignIn({ needed: Boolean(error?.data?.signIn), signedIn: false });
      setStatus('error', `Could not connect: ${describeError(error)}`);
    }
  } finally {
    ui.connectButton.disabled = false;
    ui.signInButton.disabled = false;
  }
}

function showSignIn({ needed, signedIn }) {
  ui.signInButton.hidden = !needed;
  ui.signOutButton.hidden = !signedIn;
}

/** Forgets this tab's token for the server and connects again (which then needs sign-in). */
function signOut() {
  client?.signOut();
  client = null;
  connect(ui.url.value.trim(), ui.token.value.trim());
}

function showServerInfo(c) {
  const d = c.discovery ?? {};
  const info = c.serverInfo;
  $('server-name').textContent = info ? `${info.title ?? info.name} ${info.version ?? ''}`.trim() : 'unnamed server';
  $('server-versions').textContent = (d.supportedVersions ?? []).join(', ') || 'unknown';
  const caps = [];
  for (const [name, value] of Object.entries(d.capabilities ?? {})) {
    if (name === 'extensions' && value && typeof value === 'object') {
      for (const ext of Object.keys(value)) caps.push(ext);
    } else caps.push(name);
  }
  $('server-capabilities').replaceChildren(...caps.map((c2) => el('span', { class: 'chip' }, c2)));
  $('server-instructions').textContent = d.instructions ?? '';
  $('server-instructions-box').hidden = !d.instructions;
  ui.info.hidden = false;
}

// ───────────────────────── tools ─────────────────────────

function renderToolList() {
  const q = ui.filter.value.trim().toLowerCase();
  const shown = tools.filter((t) => !q || `${t.name} ${t.title ?? ''} ${t.description ?? ''}`.toLowerCase().includes(q));
  ui.toolCount.textContent = tools.length ? `${shown.length}/${tools.length}` : '';
  ui.toolList.replaceChildren(...shown.map((tool) => {
    const current = selected?.tool.name === tool.name;
    return el('li', {}, el('button', {
      type: 'button', class: 'tool-item', 'aria-pressed': current ? 'true' : 'false', 'data-tool': tool.name,
      onclick: () => selectTool(tool),
    }, el('span', { class: 'tool-name' }, tool.name),
    tool.title ? el('span', { class: 'tool-title' }, tool.title) : null,
    tool.description ? el('span', { class: 'tool-desc' }, tool.description) : null));
  }));
  if (!shown.length) ui.toolList.append(el('li', { class: 'muted empty' }, tools.length ? 'No tool matches.' : 'No tools.'));
}

function selectTool(tool, { focus = true } = {}) {
  selected = { tool, reader: buildFields(ui.toolFields, tool.inputSchema ?? {}) };
  ui.toolTitle.replaceChildren(el('code', {}, tool.name), tool.title ? ` — ${tool.title}` : '');
  ui.toolDescription.textContent = tool.description ?? '';
  const support = tool.execution?.taskSupport;
  ui.runButton.textContent = `Run ${tool.name}`;
  ui.toolForm.hidden = false;
  ui.toolForm.dataset.tool = tool.name;
  for (const b of ui.toolList.querySelectorAll('.tool-item')) {
    b.setAttribute('aria-pressed', b.dataset.tool === tool.name ? 'true' : 'false');
  }
  if (support) ui.toolDescription.append(el('span', { class: 'chip' }, `tasks: ${support}`));
  if (!focus) return;
  selected.reader.focus();
  if (!ui.toolFields.querySelector('input, select, textarea')) ui.runButton.focus();
}

// ───────────────────────── runs and tasks ─────────────────────────

function persist(card) {
  if (!card.taskId || !serverUrl) return;
  const status = ['complete', 'error'].includes(card.status) ? 'failed' : card.status;
  store.upsert({ serverUrl, taskId: card.taskId, tool: card.tool, args: card.args, startedAt: card.startedAt, status });
}

/** CallOptions hooks that draw into `card` (docs/js-api.md). */
function hooksFor(card) {
  return {
    onTaskCreated: (task) => { card.update(task); persist(card); follow(card); },
    onTaskStatus: (task) => { card.update(task); persist(card); },
    onElicitation: (params, key) => askElicitation(card.inputs, params, key),
    onSampling: (params, key) => askSampling(card.inputs, params, key),
    onRoots: () => answerRoots(card.notes),
  };
}

/** Live updates for one task: notifications/tasks, or polling when no stream opens. */
async function follow(card) {
  if (card.subscription || !card.taskId || card.isFinal()) return;
  card.subscription = 'opening';
  try {
    const sub = await client.listen([card.taskId], (task) => { if (task.taskId === card.taskId) { card.update(task); persist(card); } });
    if (card.isFinal()) { sub.close(); return; }
    card.subscription = sub;
    card.setMode(sub.mode);
  } catch {
    card.subscription = null; // the call's own driver still polls
  }
}

function finalStatus(card, error) {
  if (error?.code === CANCELLED || error?.name === 'AbortError') return 'cancelled';
  if (['failed', 'cancelled'].includes(card.status)) return card.status;
  return card.taskId ? 'failed' : 'error';
}

/** Runs `start(hooks)` (startToolCall or resumeTask) and drives the card to its end. */
async function drive(card, start, controller) {
  let handle = null;
  card.onCancel = async () => {
    if (handle?.taskId) await handle.cancel();
    else controller?.abort(new DOMException('Cancelled by you.', 'AbortError'));
  };
  try {
    handle = await start(hooksFor(card));
    if (handle.taskId) {
      card.setTaskId(handle.taskId);
      if (['starting', 'resuming'].includes(card.status) && handle.status && handle.status !== 'complete') card.update({ taskId: handle.taskId, status: handle.status });
      persist(card);
      follow(card);
    }
    const result = await handle.result();
    card.showResult(result, { task: Boolean(handle.taskId) });
  } catch (error) {
    card.showError(error, finalStatus(card, error));
  } finally {
    persist(card);
    if (card.subscription?.close) card.subscription.close();
    card.subscription = null;
  }
}

function addCard(options) {
  const card = board.add(options);
  card.onDismiss = () => { if (card.taskId) store.remove(serverUrl, card.taskId); };
  card.loadTimeline = () => client.taskTimeline(card.taskId);
  return card;
}

function runSelected(event) {
  event.preventDefault();
  if (!client || !selected) return;
  const args = selected.reader.read();
  if (!args) return;
  const { name } = selected.tool;
  const card = addCard({ tool: name, args });
  const controller = new AbortController();
  drive(card, (hooks) => client.startToolCall(name, args, { ...hooks, signal: controller.signal }), controller);
  if (matchMedia('(max-width: 900px)').matches) card.root.scrollIntoView({ behavior: 'smooth', block: 'nearest' });
}

/** After a reload: resume unfinished tasks, show finished ones with their result. */
function resumeStoredTasks() {
  for (const card of [...board.cards]) board.remove(card);
  for (const rec of store.tasks(serverUrl)) {
    if (!isTerminal(rec.status)) {
      const card = addCard({ ...rec, status: 'resuming' });
      drive(card, (hooks) => client.resumeTask(rec.taskId, hooks));
    } else {
      const card = addCard({ ...rec, status: rec.status });
      card.endedAt = card.startedAt;
      card.tick();
      client.getTask(rec.taskId).then((task) => {
        card.endedAt = Date.parse(task.lastUpdatedAt) || card.endedAt;
        if (task.status === 'completed') card.showResult(task.result, { task: true });
        else card.showError(task.error, task.status);
      }).catch(() => card.outcome.replaceChildren(el('p', { class: 'muted' }, 'The result is no longer available on the server.')));
    }
  }
}

/**
 * The caller's tasks from the server's index ("my tasks": other devices, another browser,
 * cleared storage, the other protocol era): those the board does not show yet, oldest
 * first. Unfinished ones are followed, finished ones show their outcome.
 */
async function showMyTasks() {
  let page;
  try {
    page = await client.listTasks();
  } catch {
    return; // a server without the index: the board keeps what this browser stored
  }
  const shown = new Set([...board.cards].map((card) => card.taskId).filter(Boolean));
  for (const task of [...page.tasks].reverse()) {
    if (shown.has(task.taskId) || store.dismissed(serverUrl, task.taskId)) continue;
    // The task names its tool (this server's facts, `_meta["mcp-tasks-edge/task"]`).
    const facts = taskFacts(task);
    const rec = { taskId: task.taskId, tool: facts?.tool ?? 'task', args: {}, startedAt: Date.parse(task.createdAt) || Date.now() };
    if (!isTerminal(task.status)) {
      const card = addCard({ ...rec, status: 'resuming' });
      card.setTitle(facts?.title);
      drive(card, (hooks) => client.resumeTask(task.taskId, hooks));
    } else {
      const card = addCard({ ...rec, status: task.status });
      card.setTitle(facts?.title);
      card.endedAt = Date.parse(task.lastUpdatedAt) || card.startedAt;
      card.tick();
      if (task.status === 'completed') card.showResult(task.result, { task: true });
      else card.showError(task.error, task.status);
    }
  }
}

function clearFinished() {
  for (const card of board.finished()) {
    if (card.taskId) store.remove(serverUrl, card.taskId);
    board.remove(card);
  }
  $('tools-heading').focus();
}

// ───────────────────────── start ─────────────────────────

ui.connectForm.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!ui.connectForm.reportValidity()) return;
  connect(ui.url.value.trim(), ui.token.value.trim());
});
ui.signInButton.addEventListener('click', () => {
  if (!ui.connectForm.reportValidity()) return;
  connect(ui.url.value.trim(), ui.token.value.trim(), { interactive: true });
});
ui.signOutButton.addEventListener('click', signOut);
ui.filter.addEventListener('input', renderToolList);
ui.toolForm.addEventListener('submit', runSelected);
$('clear-finished').addEventListener('click', clearFinished);

ui.url.value = store.serverUrl() ?? `${location.origin}/mcp`;
ui.token.value = store.token();
connect(ui.url.value, ui.token.value);
