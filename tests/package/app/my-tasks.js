// "My tasks": every unfinished task of the caller, from this page or any other client,
// live on one stream: its tool and a progress bar from the server's numbers
// (`_meta["mcp-tasks-edge/task"]`). docs/web-apps.md shows the same page.
import init, { McpClient, McpError } from 'mcp-tasks-edge';

const q = new URLSearchParams(location.search);
const list = document.querySelector('#tasks');
const rows = new Map();

/** The task's row, made on first sight (newest on top). */
function row(taskId) {
  let li = rows.get(taskId);
  if (!li) {
    li = document.createElement('li');
    li.dataset.taskId = taskId;
    li.innerHTML = '<span class="tool"></span><progress></progress><span class="status"></span>';
    rows.set(taskId, li);
    list.prepend(li);
  }
  return li;
}

/** Draws one state of a task: the watch calls this for each change. */
function show(task) {
  const facts = task._meta?.['mcp-tasks-edge/task'];
  const li = row(task.taskId);
  li.dataset.status = task.status;
  li.dataset.tool = facts?.tool ?? '';
  li.querySelector('.tool').textContent = facts?.title ?? facts?.tool ?? 'a task';
  const bar = li.querySelector('progress');
  if (facts?.total) {
    bar.max = facts.total;
    bar.value = facts.progress ?? 0;
  }
  if (task.status === 'completed' && bar.hasAttribute('value')) bar.value = bar.max;
  li.querySelector('.status').textContent = task.statusMessage ?? task.status;
}

function fail(error) {
  document.querySelector('#error').textContent = error instanceof McpError ? `${error.code}: ${error.message}` : String(error);
}

try {
  await init();
  const client = await McpClient.connect(q.get('mcp'), { bearerToken: q.get('token') ?? undefined });
  const watch = await client.watchMyTasks(show, { relistIntervalMs: 2000, onError: fail });
  document.querySelector('#mode').textContent = watch.mode;
  const start = document.querySelector('#start');
  start.disabled = false;
  // A task started here joins the watch at once: the handle is not needed.
  start.onclick = () => client.startToolCall('process_batch', { items: 5, delayMs: 600 }).catch(fail);
} catch (error) {
  fail(error);
}
