// Builds form fields from a JSON Schema object (a tool's inputSchema or an elicitation's
// requestedSchema) and reads them back as typed values.
//
// Supported per property: string (with format email/uri/date/date-time), number, integer,
// boolean, enum / oneOf-const (select), arrays of enums (checkboxes); `required`,
// `default`, `title`, `description`, min/max and length limits. Anything else (objects,
// $ref, unions) becomes a JSON text area, so every schema stays usable.

import { el } from './dom.js';

let formCounter = 0;

/** Options of an enum-like schema: [{value, label}] or null. */
function enumOptions(prop) {
  if (Array.isArray(prop.enum)) {
    const names = Array.isArray(prop.enumNames) ? prop.enumNames : [];
    return prop.enum.map((value, i) => ({ value, label: names[i] ?? String(value) }));
  }
  const alts = prop.oneOf ?? prop.anyOf;
  if (Array.isArray(alts) && alts.length && alts.every((a) => a && 'const' in a)) {
    return alts.map((a) => ({ value: a.const, label: a.title ?? String(a.const) }));
  }
  return null;
}

function typeOf(prop) {
  const t = Array.isArray(prop.type) ? prop.type.find((x) => x !== 'null') : prop.type;
  if (t) return t;
  if (enumOptions(prop)) return 'string';
  return 'json';
}

function inputTypeFor(prop) {
  switch (prop.format) {
    case 'email': return 'email';
    case 'uri': case 'url': return 'url';
    case 'date': return 'date';
    case 'date-time': return 'datetime-local';
    default: return 'text';
  }
}

/**
 * Renders one field per property of `schema` into `container`.
 * Returns { read() → values | null (invalid; the first bad field gets focus), focus() }.
 */
export function buildFields(container, schema = {}) {
  const form = ++formCounter;
  const properties = schema && typeof schema === 'object' ? schema.properties ?? {} : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const readers = [];
  container.replaceChildren();

  for (const [name, prop0] of Object.entries(properties)) {
    const prop = prop0 && typeof prop0 === 'object' ? prop0 : {};
    const id = `f${form}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const isRequired = required.has(name);
    const type = typeOf(prop);
    const options = enumOptions(prop);
    const itemOptions = type === 'array' && prop.items ? enumOptions(prop.items) : null;
    const labelText = prop.title ?? name;
    const hint = prop.description ? el('p', { class: 'hint', id: `${id}-hint` }, prop.description) : null;
    const error = el('p', { class: 'field-error', id: `${id}-error`, hidden: true });
    const describedBy = [hint && `${id}-hint`, `${id}-error`].filter(Boolean).join(' ');
    const mark = isRequired ? el('span', { class: 'req', title: 'required' }, ' *') : null;
    let control;
    let read;
    let appended = false;

    if (type === 'boolean' && !options) {
      control = el('input', { type: 'checkbox', id, name, 'aria-describedby': describedBy });
      control.checked = prop.default === true;
      const row = el('div', { class: 'field checkbox' }, control,
        el('label', { for: id }, labelText, mark), hint, error);
      container.append(row);
      appended = true;
      read = () => ({ ok: true, value: control.checked, present: true });
    } else if (itemOptions) {
      const defaults = new Set(Array.isArray(prop.default) ? prop.default : []);
      const boxes = itemOptions.map((o, i) => {
        const box = el('input', { type: 'checkbox', id: `${id}-${i}`, value: String(o.value) });
        box.checked = defaults.has(o.value);
        return { box, o, row: el('div', { class: 'choice' }, box, el('label', { for: `${id}-${i}` }, o.label)) };
      });
      control = boxes[0]?.box;
      container.append(el('fieldset', { class: 'field', 'aria-describedby': describedBy },
        el('legend', {}, labelText, mark), ...boxes.map((b) => b.row), hint, error));
      appended = true;
      read = () => {
        const value = boxes.filter((b) => b.box.checked).map((b) => b.o.value);
        if (prop.minItems && value.length < prop.minItems) return { ok: false, msg: `Choose at least ${prop.minItems}.` };
        if (prop.maxItems && value.length > prop.maxItems) return { ok: false, msg: `Choose at most ${prop.maxItems}.` };
        return { ok: true, value, present: value.length > 0 || isRequired };
      };
    } else if (options) {
      control = el('select', { id, name, 'aria-describedby': describedBy, required: isRequired });
      control.append(el('option', { value: '' }, isRequired ? 'Choose…' : '(none)'));
      options.forEach((o, i) => control.append(el('option', { value: String(i) }, o.label)));
      const def = options.findIndex((o) => o.value === prop.default);
      if (def >= 0) control.value = String(def);
      read = () => (control.value === '' ? { ok: true, present: false }
        : { ok: true, present: true, value: options[Number(control.value)].value });
    } else if (type === 'number' || type === 'integer') {
      control = el('input', { type: 'number', id, name, inputmode: type === 'integer' ? 'numeric' : 'decimal',
        step: type === 'integer' ? '1' : 'any', 'aria-describedby': describedBy, required: isRequired });
      if (prop.minimum !== undefined) control.min = String(prop.minimum);
      if (prop.maximum !== undefined) control.max = String(prop.maximum);
      if (typeof prop.default === 'number') control.value = String(prop.default);
      read = () => {
        const raw = control.value.trim();
        if (raw === '') return { ok: true, present: false };
        const value = Number(raw);
        if (!Number.isFinite(value)) return { ok: false, msg: 'Enter a number.' };
        if (type === 'integer' && !Number.isInteger(value)) return { ok: false, msg: 'Enter a whole number.' };
        if (prop.minimum !== undefined && value < prop.minimum) return { ok: false, msg: `At least ${prop.minimum}.` };
        if (prop.maximum !== undefined && value > prop.maximum) return { ok: false, msg: `At most ${prop.maximum}.` };
        return { ok: true, present: true, value };
      };
    } else if (type === 'string') {
      control = el('input', { type: inputTypeFor(prop), id, name, spellcheck: 'false',
        'aria-describedby': describedBy, required: isRequired });
      if (prop.maxLength !== undefined) control.maxLength = prop.maxLength;
      if (typeof prop.default === 'string') control.value = prop.default;
      read = () => {
        const value = control.value;
        if (value === '') return { ok: true, present: false };
        if (prop.minLength && value.length < prop.minLength) return { ok: false, msg: `At least ${prop.minLength} characters.` };
        if (prop.pattern && !new RegExp(prop.pattern, 'u').test(value)) return { ok: false, msg: `Must match ${prop.pattern}.` };
        if (control.validity && control.validity.typeMismatch) return { ok: false, msg: `Enter a valid ${prop.format}.` };
        return { ok: true, present: true, value };
      };
    } else {
      control = el('textarea', { id, name, rows: 3, spellcheck: 'false', class: 'mono',
        placeholder: 'JSON value', 'aria-describedby': describedBy, required: isRequired });
      if (prop.default !== undefined) control.value = JSON.stringify(prop.default);
      read = () => {
        const raw = control.value.trim();
        if (raw === '') return { ok: true, present: false };
        try { return { ok: true, present: true, value: JSON.parse(raw) }; }
        catch { return { ok: false, msg: 'Enter valid JSON.' }; }
      };
    }

    if (!appended) {
      container.append(el('div', { class: 'field' },
        el('label', { for: id }, labelText, mark, type === 'json' ? el('span', { class: 'muted' }, ' (JSON)') : null),
        control, hint, error));
    }
    readers.push({ name, isRequired, control, error, read });
  }

  if (!readers.length) {
    container.append(el('p', { class: 'muted no-args' }, 'No arguments.'));
  }

  return {
    focus() { readers[0]?.control?.focus(); },
    read() {
      const values = {};
      let firstBad = null;
      for (const r of readers) {
        let res = r.read();
        if (res.ok && !res.present && r.isRequired) res = { ok: false, msg: 'Required.' };
        r.error.hidden = res.ok;
        r.error.textContent = res.ok ? '' : res.msg;
        r.control?.setAttribute('aria-invalid', res.ok ? 'false' : 'true');
        if (!res.ok) firstBad ??= r.control;
        else if (res.present) values[r.name] = res.value;
      }
      if (firstBad) { firstBad.focus(); return null; }
      return values;
    },
  };
}
