// Renders a CallToolResult by content type, and errors plainly.

import { el, json, describeError } from './dom.js';

function safeUrl(uri) {
  try {
    const url = new URL(uri, location.href);
    return ['http:', 'https:'].includes(url.protocol) ? url.href : null;
  } catch { return null; }
}

function renderBlock(block) {
  switch (block?.type) {
    case 'text':
      return el('pre', { class: 'result-text' }, block.text ?? '');
    case 'image':
      return el('img', { class: 'result-image', alt: block.alt ?? 'Image returned by the tool',
        src: `data:${block.mimeType ?? 'image/png'};base64,${block.data ?? ''}` });
    case 'audio':
      return el('audio', { controls: true, src: `data:${block.mimeType ?? 'audio/wav'};base64,${block.data ?? ''}` });
    case 'resource_link': {
      const href = safeUrl(block.uri);
      const label = block.title ?? block.name ?? block.uri;
      return el('p', { class: 'result-link' }, '🔗 ',
        href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, label) : el('code', {}, block.uri),
        block.description ? el('span', { class: 'muted' }, ` — ${block.description}`) : null);
    }
    case 'resource': {
      const r = block.resource ?? {};
      return el('figure', { class: 'result-resource' },
        el('figcaption', {}, el('code', {}, r.uri ?? 'resource'), r.mimeType ? ` (${r.mimeType})` : ''),
        'text' in r ? el('pre', { class: 'result-text' }, r.text)
          : el('p', { class: 'muted' }, `Binary resource, ${(r.blob ?? '').length} base64 characters.`));
    }
    default:
      return el('pre', { class: 'result-json' }, json(block));
  }
}

/** A CallToolResult → a DOM fragment (content blocks, then structured JSON). */
export function renderResult(result) {
  const wrap = el('div', { class: `result${result?.isError ? ' is-error' : ''}` });
  if (result?.isError) wrap.append(el('p', { class: 'result-label error-text' }, 'The tool reported an error:'));
  const content = Array.isArray(result?.content) ? result.content : [];
  for (const block of content) wrap.append(renderBlock(block));
  if (result?.structuredContent !== undefined) {
    wrap.append(el('details', { class: 'structured', open: content.length === 0 },
      el('summary', {}, 'Structured result (JSON)'),
      el('pre', { class: 'result-json' }, json(result.structuredContent))));
  }
  if (!content.length && result?.structuredContent === undefined) {
    wrap.append(el('p', { class: 'muted' }, 'The tool returned no content.'));
  }
  return wrap;
}

/** An error (McpError, task error object, network failure) → a plain message box. */
export function renderError(error) {
  const box = el('div', { class: 'result is-error', role: 'alert' },
    el('p', { class: 'error-text' }, describeError(error)));
  const data = error?.data;
  if (data !== undefined && data !== null) {
    box.append(el('details', {}, el('summary', {}, 'Details'), el('pre', { class: 'result-json' }, json(data))));
  }
  return box;
}
