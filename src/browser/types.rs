//! The TypeScript types of the JS API (docs/js-api.md), emitted verbatim into
//! `mcp_tasks_edge.d.ts`. Method signatures refer to these names through
//! `unchecked_param_type` / `unchecked_return_type`; nothing is `any`.
//! The shapes follow schema 2026-07-28 and the Tasks extension's draft schema, trimmed to
//! what a client reads; open objects are `[key: string]: unknown`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The error every McpClient promise rejects with (an aborted call rejects with the
 *  AbortSignal's reason instead). `code` is the JSON-RPC error code. */
export class McpError extends Error {
  constructor(code: number, message: string, data?: unknown);
  readonly name: "McpError";
  readonly code: number;
  readonly data: unknown;
}

export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };
export type JSONObject = { [key: string]: JSONValue };
export type MetaObject = { [key: string]: unknown };

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  [key: string]: unknown;
}

export interface ClientCapabilities {
  experimental?: { [key: string]: JSONObject };
  roots?: JSONObject;
  sampling?: { context?: JSONObject; tools?: JSONObject };
  elicitation?: { form?: JSONObject; url?: JSONObject };
  extensions?: { [key: string]: JSONObject };
}

export interface ServerCapabilities {
  experimental?: { [key: string]: JSONObject };
  logging?: JSONObject;
  completions?: JSONObject;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  extensions?: { [key: string]: JSONObject };
}

export type ResultType = "complete" | "input_required" | "task" | (string & {});

export interface DiscoverResult {
  resultType: ResultType;
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  ttlMs?: number | null;
  cacheScope?: string;
  _meta?: MetaObject;
  [key: string]: unknown;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { $schema?: string; type: "object"; [key: string]: unknown };
  outputSchema?: { $schema?: string; [key: string]: unknown };
  annotations?: ToolAnnotations;
  _meta?: MetaObject;
  [key: string]: unknown;
}

export interface TextContent { type: "text"; text: string; annotations?: JSONObject; _meta?: MetaObject }
export interface ImageContent { type: "image"; data: string; mimeType: string; annotations?: JSONObject; _meta?: MetaObject }
export interface AudioContent { type: "audio"; data: string; mimeType: string; annotations?: JSONObject; _meta?: MetaObject }
export interface ResourceLink { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string; _meta?: MetaObject }
export interface EmbeddedResource {
  type: "resource";
  resource: { uri: string; mimeType?: string; text?: string; blob?: string };
  annotations?: JSONObject;
  _meta?: MetaObject;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  resultType?: ResultType;
  _meta?: MetaObject;
  [key: string]: unknown;
}

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as tools/call creates it (CreateTaskResult without resultType). */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601 */
  createdAt: string;
  /** ISO 8601 */
  lastUpdatedAt: string;
  /** null means unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  _meta?: TaskMeta;
}

export interface JSONRPCErrorObject { code: number; message: string; data?: unknown }

/** `listTasks()`: a page of the caller's tasks, newest first. */
export interface TaskPage { tasks: DetailedTask[]; nextCursor?: string }

/** `listTasks(cursor, filter)`: keep the tasks of this status and/or this tool. */
export interface TaskFilter { status?: TaskStatus; tool?: string }

/** What this server says of a task beyond the spec's fields, for its owner
 *  (`task._meta["mcp-tasks-edge/task"]`): the tool that made it and its title, and the
 *  progress in numbers its steps last reported (`progress` of `total`, either absent
 *  until a step reports; dropped when the task completes). */
export interface TaskFacts { tool: string; title?: string; progress?: number; total?: number }

/** A task's `_meta`: this server's facts under its own key, beside any other member. */
export type TaskMeta = MetaObject & { "mcp-tasks-edge/task"?: TaskFacts };

/** One transition of a task (docs/operations.md "A task's timeline"). */
export interface TimelineEntry {
  /** ISO 8601 */
  at: string;
  event: "created" | "progressed" | "retried" | "input_requested" | "input_answered" | "completed" | "failed" | "cancelled";
  /** The status after the transition. */
  status: TaskStatus;
  /** The attempt at the step that caused it. */
  attempt?: number;
  /** The task's statusMessage after the transition. */
  message?: string;
  error?: JSONRPCErrorObject;
}

/** `taskTimeline()`: the first transition and the latest ones, oldest first. */
export interface TaskTimeline {
  taskId: string;
  status: TaskStatus;
  timeline: TimelineEntry[];
  /** How many entries between the first and the kept ones were dropped. */
  omittedEntries: number;
}

/** tasks/get and notifications/tasks: the task with its status payload. */
export type DetailedTask =
  | (Task & { status: "working" | "cancelled" })
  | (Task & { status: "input_required"; inputRequests: InputRequests })
  | (Task & { status: "completed"; result: CallToolResult })
  | (Task & { status: "failed"; error: JSONRPCErrorObject });

/** A form to fill: `requestedSchema` is the spec's restricted JSON Schema, one level of
 *  primitive properties (https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation). */
export interface ElicitRequestFormParams {
  mode?: "form";
  message: string;
  requestedSchema: {
    $schema?: string;
    type: "object";
    properties: { [key: string]: PrimitiveSchemaDefinition };
    required?: string[];
  };
}

/** One field of a form: narrow on `type`, then on `enum` / `oneOf` / `items`. */
export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;
export interface StringSchema {
  type: "string";
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  format?: "email" | "uri" | "date" | "date-time";
  default?: string;
}
export interface NumberSchema {
  type: "number" | "integer";
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
}
export interface BooleanSchema { type: "boolean"; title?: string; description?: string; default?: boolean }
/** One of `enum`'s values. */
export interface UntitledSingleSelectEnumSchema { type: "string"; title?: string; description?: string; enum: string[]; default?: string }
/** One of `oneOf`'s `const`s, shown by their `title`s. */
export interface TitledSingleSelectEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  oneOf: Array<{ const: string; title: string }>;
  default?: string;
}
export type SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema;
/** Some of `items.enum`'s values. */
export interface UntitledMultiSelectEnumSchema {
  type: "array";
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: "string"; enum: string[] };
  default?: string[];
}
/** Some of `items.anyOf`'s `const`s, shown by their `title`s. */
export interface TitledMultiSelectEnumSchema {
  type: "array";
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: Array<{ const: string; title: string }> };
  default?: string[];
}
export type MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema;
/** Deprecated by the spec (use TitledSingleSelectEnumSchema): `enumNames` titles `enum`. */
export interface LegacyTitledEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  default?: string;
}
export type EnumSchema = SingleSelectEnumSchema | MultiSelectEnumSchema | LegacyTitledEnumSchema;
export interface ElicitRequestURLParams { mode: "url"; message: string; url: string; elicitationId?: string }
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: { [key: string]: string | number | boolean | string[] };
}

export interface SamplingMessage {
  role: "user" | "assistant";
  content: JSONObject | JSONObject[];
  _meta?: MetaObject;
}
export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: JSONObject;
  includeContext?: "none" | "thisServer" | "allServers";
  metadata?: JSONObject;
  [key: string]: unknown;
}
export interface CreateMessageResult extends SamplingMessage {
  model: string;
  stopReason?: string;
}

export interface Root { uri: string; name?: string; _meta?: MetaObject }
export interface ListRootsResult { roots: Root[] }

export type InputRequest =
  | { method: "elicitation/create"; params: ElicitRequestParams }
  | { method: "sampling/createMessage"; params: CreateMessageRequestParams }
  | { method: "roots/list"; params?: JSONObject };
export type InputRequests = { [key: string]: InputRequest };
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;
export type InputResponses = { [key: string]: InputResponse };

/** `ConnectOptions.signIn`: sign in with the server's authorization server (OAuth 2.1
 *  authorization code + PKCE, found through the server's Protected Resource Metadata) when
 *  a request is refused with 401; refresh the token before it expires; retry the request. */
export interface SignInOptions {
  /** This page's client id at the authorization server (a public client: no secret). */
  clientId: string;
  /** Where the authorization server sends the browser back; registered with it.
   *  Default: this page's address without query and fragment. */
  redirectUri?: string;
  /** "popup" (default): a small window, this page stays; "redirect": this page leaves and
   *  comes back to `redirectUri`, where `connect` with the same `signIn` finishes. */
  mode?: "popup" | "redirect";
  /** Where the tokens live: "memory" (default; until the page unloads) or "session"
   *  (`sessionStorage`: this tab, across reloads). */
  storage?: "memory" | "session";
  /** The scope to ask for. Default: the 401's `scope`, else the server's `scopes_supported`. */
  scope?: string;
  /** `false`: use and refresh tokens already held, never open a window or leave the page
   *  (a request that needs the user rejects with the 401). Default `true`. */
  interactive?: boolean;
}

export interface ConnectOptions {
  /** Sent as `Authorization: Bearer …` on every request (until `signIn` holds a token). */
  bearerToken?: string;
  /** Sign in when the server asks for it (see `SignInOptions`). */
  signIn?: SignInOptions;
  /** `_meta["io.modelcontextprotocol/clientInfo"]`. */
  clientInfo?: Implementation;
  /** Default: the tasks extension, elicitation (form + url), sampling and roots. */
  capabilities?: ClientCapabilities;
  /** Used instead of the global fetch (tests, proxies). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/** `watchMyTasks(callback, options)`. */
export interface WatchMyTasksOptions {
  /** How often "my tasks" is listed again, for tasks started elsewhere (another tab or
   *  device), in ms: default 10000, at least 1000. A reconnect of the stream lists too. */
  relistIntervalMs?: number;
  /** A listing after the first failed (the first one rejects the promise instead).
   *  Default: `console.error`. */
  onError?: (error: McpError) => void;
  /** Each change of `connection` ("live", "reconnecting", "polling", "offline"). */
  onConnection?: (connection: Connection) => void;
  /** Aborting closes the watch (before its promise resolves too: it then rejects with
   *  the signal's reason, and the callback gets nothing more). */
  signal?: AbortSignal;
}

/** `listen(taskIds, callback, options)`. */
export interface ListenOptions {
  /** Aborting closes the subscription. */
  signal?: AbortSignal;
}

/** How a watch's changes come: "live" (the listen stream, or nothing to stream),
 *  "reconnecting" (the stream broke and is being reopened), "polling" (no stream:
 *  tasks/get), "offline" (the last listing of "my tasks" could not reach the server). */
export type Connection = "live" | "reconnecting" | "polling" | "offline";

/** `myTasks(options)`. */
export interface MyTasksOptions {
  /** How often "my tasks" is listed again, in ms: default 10000, at least 1000. */
  relistIntervalMs?: number;
  /** The most tasks kept (default 100, 1 … 500): beyond it the oldest finished ones go;
   *  unfinished tasks are always kept. */
  limit?: number;
  /** Aborting closes the store (as `close()`). */
  signal?: AbortSignal;
}

/** One task of the store: the merge of its listed and live states (docs/web-apps.md). */
export interface MyTask {
  taskId: string;
  /** The tool that made it ("" if the server did not say). */
  tool: string;
  title?: string;
  status: TaskStatus;
  statusMessage?: string;
  /** `progress` of `total`, once a step reported them; a completed task's is its total. */
  progress?: number;
  total?: number;
  /** The pending input requests (none unless `input_required`): answer with updateTask. */
  inputRequests: InputRequests;
  /** ISO 8601 */
  createdAt: string;
  /** ISO 8601 */
  lastUpdatedAt: string;
  ttlMs: number | null;
  result?: CallToolResult;
  error?: JSONRPCErrorObject;
}

/** `getSnapshot()`: the same (frozen) object until something changes. */
export interface MyTasksSnapshot {
  /** Every task of the caller, newest first. */
  readonly tasks: readonly MyTask[];
  readonly connection: Connection;
  /** True until the first listing succeeded. */
  readonly loading: boolean;
  /** The last listing's error; null once one succeeds. */
  readonly error: McpError | null;
}

export interface CallOptions {
  /** Aborting rejects the call with the signal's reason and sends tasks/cancel when a task exists. */
  signal?: AbortSignal;
  onTaskCreated?: (task: Task) => void;
  /** Every change of status or statusMessage. */
  onTaskStatus?: (task: DetailedTask) => void;
  onElicitation?: (params: ElicitRequestParams, key: string) => ElicitResult | Promise<ElicitResult>;
  onSampling?: (params: CreateMessageRequestParams, key: string) => CreateMessageResult | Promise<CreateMessageResult>;
  onRoots?: (key: string) => ListRootsResult | Promise<ListRootsResult>;
}
"#;
