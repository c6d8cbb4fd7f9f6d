// Input requests (elicitation, sampling, roots) rendered inside a task card. Each `ask*`
// function appends a small form to `container` and returns a Promise that resolves with
// the answer the client sends back (ElicitResult, CreateMessageResult, ListRootsResult).

import { el } from './dom.js';
import { buildFields } from './schema-form.js';

let counter = 0;

function safeHttpUrl(uri) {
  try {
    const url = new URL(uri);
    return ['http:', 'https:'].includes(url.protocol) ? url.href : null;
  } catch { return null; }
}

/** Wraps a form: resolves once, then shows what was answered instead of the form. */
function requestBox(container, kind, key, build) {
  const id = `input-${++counter}`;
  return new Promise((resolve) => {
    const box = el('section', { class: `input-request kind-${kind}`, 'aria-labelledby': `${id}-title`, 'data-key': key });
    const done = (answer, summary) => {
      box.classList.add('answered');
      box.replaceChildren(el('p', { class: 'answered-note' }, '✓ ', summary));
      resolve(answer);
      setTimeout(() => box.remove(), 4000);
    };
    build(box, id, done);
    container.append(box);
    box.querySelector('input, textarea, select, button')?.focus({ preventScroll: false });
  });
}

/** elicitation/create, form or URL mode. */
export function askElicitation(container, params = {}, key = '') {
  if (params.mode === 'url' || (params.url && !params.requestedSchema)) return askUrl(container, params, key);
  return requestBox(container, 'elicitation', key, (box, id, done) => {
    const fields = el('div', { class: 'fields' });
    const form = el('form', { novalidate: true });
    const reader = buildFields(fields, params.requestedSchema ?? {});
    const button = (label, cls, action) => el('button', { type: action === 'accept' ? 'submit' : 'button', class: cls,
      onclick: action === 'accept' ? null : () => done({ action }, action === 'decline' ? 'Declined.' : 'Cancelled.') }, label);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const content = reader.read();
      if (content) done({ action: 'accept', content }, 'Answer sent.');
    });
    form.append(fields, el('div', { class: 'actions' },
      button('Accept', 'primary', 'accept'), button('Decline', 'secondary', 'decline'), button('Cancel', 'ghost', 'cancel')));
    box.append(el('h4', { id: `${id}-title` }, 'The server asks'),
      el('p', { class: 'request-message' }, params.message ?? 'Please answer.'), form);
  });
}

function askUrl(container, params, key) {
  return requestBox(container, 'url', key, (box, id, done) => {
    const href = safeHttpUrl(params.url);
    box.append(el('h4', { id: `${id}-title` }, 'The server asks you to open a page'),
      el('p', { class: 'request-message' }, params.message ?? ''),
      href ? el('p', {}, el('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'url-link' }, href, ' ↗'))
        : el('p', { class: 'error-text' }, `Unsafe or invalid URL: ${params.url ?? '(none)'}`),
      el('p', { class: 'hint' }, 'Open the link, finish there, then tell the server you are done.'),
      el('div', { class: 'actions' },
        el('button', { type: 'button', class: 'primary', disabled: !href, onclick: () => done({ action: 'accept' }, 'Marked as done.') }, 'I have done it'),
        el('button', { type: 'button', class: 'secondary', onclick: () => done({ action: 'decline' }, 'Declined.') }, 'Decline'),
        el('button', { type: 'button', class: 'ghost', onclick: () => done({ action: 'cancel' }, 'Cancelled.') }, 'Cancel')));
  });
}

function messageText(message) {
  const c = message?.content;
  const blocks = Array.isArray(c) ? c : [c];
  return blocks.map((b) => (b?.type === 'text' ? b.text : `[${b?.type ?? 'content'}]`)).join('\n');
}

/** sampling/createMessage: a person writes the model's reply. */
export function askSampling(container, params = {}, key = '') {
  return requestBox(container, 'sampling', key, (box, id, done) => {
    const replyId = `${id}-reply`;
    const reply = el('textarea', { id: replyId, rows: 3, required: true, 'aria-describedby': `${id}-hint` });
    const error = el('p', { class: 'field-error', hidden: true }, 'Write a reply first.');
    const form = el('form', { novalidate: true, onsubmit: (event) => {
      event.preventDefault();
      const text = reply.value.trim();
      error.hidden = Boolean(text);
      if (!text) { reply.focus(); return; }
      done({ role: 'assistant', content: { type: 'text', text }, model: 'human', stopReason: 'endTurn' }, 'Reply sent.');
    } });
    const messages = (params.messages ?? []).map((m) => el('li', { class: `msg role-${m.role}` },
      el('span', { class: 'role' }, m.role), el('span', { class: 'msg-text' }, messageText(m))));
    form.append(el('div', { class: 'field' }, el('label', { for: replyId }, 'Your reply (you are the model)'), reply, error),
      el('p', { class: 'hint', id: `${id}-hint` }, `Up to ${params.maxTokens ?? '?'} tokens requested.`),
      el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Send reply')));
    box.append(el('h4', { id: `${id}-title` }, 'The server asks for a model reply'),
      ...(params.systemPrompt ? [el('p', { class: 'hint' }, 'System prompt: ', params.systemPrompt)] : []),
      el('ol', { class: 'messages' }, messages), form);
  });
}

/** roots/list: a browser shares no file system; answer with no roots and say so. */
export function answerRoots(container) {
  if (container.querySelector('.roots-note')) return { roots: [] };
  container.append(el('p', { class: 'hint roots-note' },
    'The server asked for the client’s roots; the console shared none (a browser has no file system).'));
  return { roots: [] };
}
