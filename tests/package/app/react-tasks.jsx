// "My tasks" in React (StrictMode): every task of the caller, finished ones included, from
// one MyTasksStore: tool, numeric progress, questions answered with a form built from the
// spec's schema, Cancel. docs/web-apps.md shows the hook.
import { StrictMode, useState, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import init, { McpClient } from 'mcp-tasks-edge';
import wasmUrl from 'mcp-tasks-edge/mcp_tasks_edge_bg.wasm';

const q = new URLSearchParams(location.search);
await init({ module_or_path: new URL(wasmUrl, import.meta.url) });
const client = await McpClient.connect(q.get('mcp'), { bearerToken: q.get('token') });
const store = client.myTasks({ relistIntervalMs: 2000 }); // one store for the page: StrictMode lists nothing twice
const useMyTasks = () => useSyncExternalStore(store.subscribe, store.getSnapshot);
const setProblem = (error) => { document.querySelector('#problem').textContent = error.message; }; // outside React's root

/** One input for one PrimitiveSchemaDefinition. */
function Field({ name, schema, value, set }) {
  if (schema.type === 'boolean') return <input type="checkbox" name={name} checked={!!value} onChange={(e) => set(e.target.checked)} />;
  const choices = (s) => s.oneOf?.map((o) => [o.const, o.title]) ?? s.anyOf?.map((o) => [o.const, o.title])
    ?? s.enum?.map((v, i) => [v, s.enumNames?.[i] ?? v]);
  const multi = schema.type === 'array';
  const options = choices(multi ? schema.items : schema);
  if (options) {
    const pick = (e) => set(multi ? [...e.target.selectedOptions].map((o) => o.value) : e.target.value);
    return (<select name={name} multiple={multi} value={value ?? (multi ? [] : '')} onChange={pick}>
      {!multi && <option value="" />}{options.map(([v, t]) => <option key={v} value={v}>{t}</option>)}</select>);
  }
  const number = schema.type === 'number' || schema.type === 'integer';
  return <input name={name} type={number ? 'number' : 'text'} value={value ?? ''} onChange={(e) => set(number ? Number(e.target.value) : e.target.value)} />;
}

/** An elicitation's form; answered with tasks/update. */
function Question({ taskId, inputKey, params }) {
  const { properties, required = [] } = params.requestedSchema;
  const [content, setContent] = useState(() => Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, s.default])));
  const submit = (e) => {
    e.preventDefault();
    const answer = Object.fromEntries(Object.entries(content).filter(([k, v]) => v !== undefined && (v !== '' || required.includes(k))));
    client.updateTask(taskId, { [inputKey]: { action: 'accept', content: answer } }).catch(setProblem);
  };
  return (<form className="question" onSubmit={submit}><p>{params.message}</p>
    {Object.entries(properties).map(([name, schema]) => (<label key={name}>{schema.title ?? schema.description ?? name}
      <Field name={name} schema={schema} value={content[name]} set={(v) => setContent((c) => ({ ...c, [name]: v }))} /></label>))}
    <button type="submit">Answer</button></form>);
}

function Task({ task }) {
  const unfinished = task.status === 'working' || task.status === 'input_required';
  return (<li data-task-id={task.taskId} data-tool={task.tool} data-status={task.status}>
    <span className="tool">{task.title ?? task.tool}</span>
    <progress max={task.total ?? 1} value={task.progress} data-value={task.progress ?? ''} data-max={task.total ?? ''} />
    <span className="status">{task.statusMessage ?? task.status}</span>
    {unfinished && <button className="cancel" onClick={() => client.cancelTask(task.taskId).catch(setProblem)}>Cancel</button>}
    {Object.entries(task.inputRequests).map(([key, request]) => request.method === 'elicitation/create' && request.params.mode !== 'url'
      && <Question key={key} taskId={task.taskId} inputKey={key} params={request.params} />)}
  </li>);
}

function App() {
  const { tasks, connection, loading, error } = useMyTasks();
  const start = () => client.startToolCall('process_batch', { items: 5, delayMs: 600 }).catch(setProblem);
  return (<><h1>My tasks <small id="connection">{connection}</small></h1>
    <button id="start" disabled={loading} onClick={start}>Start a batch</button>
    <p id="error" role="alert">{error ? `${error.code}: ${error.message}` : ''}</p>
    <ul id="tasks">{tasks.map((task) => <Task key={task.taskId} task={task} />)}</ul></>);
}

createRoot(document.querySelector('#root')).render(<StrictMode><App /></StrictMode>);
