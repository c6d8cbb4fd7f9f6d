// The task board: one card per tool run. A card starts when Run is pressed, gets a taskId
// if the server makes the call a task, follows every status change, hosts the task's
// input requests, and ends with the result or the error.

import { el, describeError, formatDuration, parseProgress, taskFacts, taskProgress } from './dom.js';
import { renderResult, renderError } from './render-result.js';
import { isTerminal } from './store.js';

const LABELS = {
  starting: 'Starting',
  resuming: 'Resuming',
  working: 'Working',
  input_required: 'Needs input',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
  complete: 'Done',
  error: 'Error',
};
const FINAL = new Set(['completed', 'failed', 'cancelled', 'complete', 'error']);
const EVENTS = {
  created: 'Created', progressed: 'Progress', retried: 'Retried', input_requested: 'Asked for input',
  input_answered: 'Input answered', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled',
};

/** One entry of a task's timeline (McpClient.taskTimeline, docs/operations.md). */
function timelineItem(entry) {
  const at = new Date(entry.at);
  const detail = [entry.attempt ? `attempt ${entry.attempt}` : '', entry.message ?? '', entry.error?.message ?? '']
    .filter(Boolean).join(' · ');
  return el('li', { 'data-event': entry.event },
    el('time', { datetime: entry.at }, Number.isNaN(at.getTime()) ? entry.at : at.toLocaleTimeString()), ' ',
    el('strong', {}, EVENTS[entry.event] ?? entry.event), detail ? ` — ${detail}` : '');
}

function summarizeArgs(args) {
  const entries = Object.entries(args ?? {});
  if (!entries.length) return 'no arguments';
  const text = entries.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ');
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

export class TaskCard {
  constructor(board, { tool, args, startedAt = Date.now(), taskId, status = 'starting' }) {
    this.board = board;
    this.tool = tool;
    this.args = args ?? {};
    this.startedAt = startedAt;
    this.endedAt = null;
    this.taskId = undefined;
    this.status = status;
    this.onCancel = null;
    this.onDismiss = null;
    this.loadTimeline = null; // () => Promise<TaskTimeline>, set by the console

    this.heading = el('h3', {}, el('code', {}, tool));
    this.badge = el('span', { class: 'status-badge' });
    this.elapsed = el('span', { class: 'elapsed', 'aria-hidden': 'true', title: 'Elapsed time' });
    this.idLine = el('p', { class: 'task-id', hidden: true });
    this.mode = el('span', { class: 'live-mode', hidden: true });
    this.message = el('p', { class: 'status-message', hidden: true });
    this.progress = el('progress', { class: 'progress', hidden: true, 'aria-label': `Progress of ${tool}` });
    this.inputs = el('div', { class: 'inputs' });
    this.notes = el('div', { class: 'notes' }); // kept after the end, unlike `inputs`
    this.outcome = el('div', { class: 'outcome' });
    this.timelineList = el('ol', { class: 'timeline-list' });
    this.timeline = el('details', { class: 'timeline', hidden: true },
      el('summary', {}, 'Timeline'), this.timelineList);
    this.timeline.addEventListener('toggle', () => this.refreshTimeline());
    this.cancelButton = el('button', { type: 'button', class: 'danger small', onclick: () => this.requestCancel() }, 'Cancel task');
    this.dismissButton = el('button', { type: 'button', class: 'ghost small', hidden: true,
      onclick: () => this.dismiss() }, 'Dismiss');
    this.root = el('li', { class: 'task-card', 'data-tool': tool },
      el('div', { class: 'card-head' },
        this.heading, this.badge, this.elapsed),
      el('p', { class: 'args muted' }, summarizeArgs(this.args)),
      el('div', { class: 'meta-row' }, this.idLine, this.mode),
      this.message, this.progress, this.inputs, this.notes, this.outcome, this.timeline,
      el('div', { class: 'card-actions' }, this.cancelButton, this.dismissButton));
    if (taskId) this.setTaskId(taskId);
    this.setStatus(status);
    this.tick();
  }

  setTaskId(taskId) {
    if (!taskId || this.taskId === taskId) return;
    this.taskId = taskId;
    this.root.dataset.taskId = taskId;
    this.idLine.hidden = false;
    this.idLine.replaceChildren('Task ', el('code', { title: taskId }, taskId));
    this.timeline.hidden = false;
  }

  /** Reads the task's timeline into the card while it is open. */
  async refreshTimeline() {
    if (!this.timeline.open || !this.taskId || !this.loadTimeline) return;
    try {
      const { timeline, omittedEntries } = await this.loadTimeline();
      const items = timeline.map(timelineItem);
      if (omittedEntries) items.splice(1, 0, el('li', { class: 'muted' }, `… ${omittedEntries} earlier entries not kept`));
      this.timelineList.replaceChildren(...items);
    } catch (error) {
      this.timelineList.replaceChildren(el('li', { class: 'muted' }, `No timeline: ${describeError(error)}`));
    }
  }

  setMode(mode) {
    this.mode.dataset.mode = mode ?? '';
    this.mode.hidden = !mode;
    this.mode.textContent = mode === 'stream' ? '● live' : mode === 'polling' ? '○ polling' : '';
    this.mode.title = mode === 'stream' ? 'Updated by notifications/tasks' : 'Updated by polling tasks/get';
  }

  setStatus(status) {
    this.status = status;
    this.root.dataset.status = status;
    this.badge.textContent = LABELS[status] ?? status;
    this.badge.dataset.status = status;
    const final = FINAL.has(status);
    if (final && !this.endedAt) this.endedAt = Date.now();
    this.cancelButton.hidden = final;
    this.dismissButton.hidden = !final;
    if (final) {
      this.inputs.replaceChildren();
      this.setMode(null);
    }
    this.tick();
    this.refreshTimeline();
    this.board.changed(this);
  }

  /** A DetailedTask from onTaskStatus / listen / getTask. */
  update(task) {
    if (!task || this.isFinal()) return;
    this.setTaskId(task.taskId);
    if (task.createdAt && !this.resumedCreatedAt) {
      const created = Date.parse(task.createdAt);
      if (Number.isFinite(created) && created < this.startedAt) this.startedAt = created;
      this.resumedCreatedAt = true;
    }
    this.setTitle(taskFacts(task)?.title);
    this.setMessage(task.statusMessage, taskProgress(task));
    // A notification may carry the end before the call's own driver sees it.
    if (task.status === 'completed' && task.result) this.showResult(task.result, { task: true });
    else if (task.status === 'failed' && task.error) this.showError(task.error, 'failed');
    else if (task.status && task.status !== this.status) this.setStatus(task.status);
  }

  /** The tool's title beside its name, once the task says it. */
  setTitle(title) {
    if (!title || this.titleShown === title) return;
    this.titleShown = title;
    this.heading.replaceChildren(title, ' ', el('code', {}, this.tool));
  }

  /** The status message, and the bar: `progress` in numbers (the task's facts), else
   *  read from the text. */
  setMessage(text, progress = parseProgress(text)) {
    this.message.hidden = !text;
    this.message.textContent = text ?? '';
    const p = progress;
    this.progress.hidden = !p || this.isFinal();
    if (p) {
      this.progress.max = p.total;
      this.progress.value = p.done;
      this.progress.setAttribute('aria-valuetext', `${p.done} of ${p.total}`);
    }
  }

  isFinal() { return FINAL.has(this.status); }

  /** The final CallToolResult (a task's or an inline one). */
  showResult(result, { task = Boolean(this.taskId) } = {}) {
    if (this.status === 'completed' && this.outcome.hasChildNodes()) return; // already shown
    if (this.progress.max && !this.progress.hidden) this.progress.value = this.progress.max;
    this.progress.hidden = true;
    this.outcome.replaceChildren(renderResult(result));
    this.setStatus(task ? 'completed' : 'complete');
  }

  showError(error, status) {
    if (this.status === status && this.outcome.hasChildNodes()) return; // already shown
    this.progress.hidden = true;
    if (status === 'cancelled') {
      this.outcome.replaceChildren(el('p', { class: 'muted' }, 'The task was cancelled.'));
    } else {
      this.outcome.replaceChildren(renderError(error));
    }
    this.setStatus(status);
  }

  async requestCancel() {
    if (!this.onCancel || this.isFinal()) return;
    this.cancelButton.disabled = true;
    this.cancelButton.textContent = 'Cancelling…';
    try {
      await this.onCancel();
    } catch (error) {
      this.outcome.replaceChildren(renderError(error));
    } finally {
      this.cancelButton.disabled = false;
      this.cancelButton.textContent = 'Cancel task';
    }
  }

  dismiss() {
    const next = this.root.nextElementSibling ?? this.root.previousElementSibling;
    this.onDismiss?.();
    this.board.remove(this);
    (next?.querySelector('button:not([hidden])') ?? document.getElementById('tools-heading'))?.focus();
  }

  tick() {
    // A broken stream falls back to polling: show what `listen` does now.
    const mode = typeof this.subscription === 'object' ? this.subscription?.mode : null;
    if (mode && !this.isFinal() && this.mode.dataset.mode !== mode) this.setMode(mode);
    const end = this.endedAt ?? Date.now();
    this.elapsed.textContent = formatDuration(end - this.startedAt);
  }
}

export class TaskBoard {
  constructor({ list, empty, count }) {
    this.list = list;
    this.empty = empty;
    this.count = count;
    this.cards = new Set();
    this.onChange = null;
    setInterval(() => { for (const c of this.cards) if (!c.isFinal()) c.tick(); }, 250);
  }

  /** Adds a card at the top of the board (newest first). */
  add(options) {
    const card = new TaskCard(this, options);
    this.cards.add(card);
    this.list.prepend(card.root);
    this.changed(card);
    return card;
  }

  remove(card) {
    this.cards.delete(card);
    card.root.remove();
    this.changed(card);
  }

  finished() { return [...this.cards].filter((c) => c.isFinal()); }

  changed(card) {
    if (!this.cards) return; // a card reports its first status from its constructor
    const running = [...this.cards].filter((c) => !c.isFinal()).length;
    this.empty.hidden = this.cards.size > 0;
    this.count.textContent = this.cards.size ? `${running} running · ${this.cards.size} total` : '';
    this.onChange?.(card);
  }
}

export { isTerminal };
