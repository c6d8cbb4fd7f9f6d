//! # Browser client (feature `browser`)
//!
//! `McpClient` for JavaScript, built by `make client` (`wasm-pack build --target web`)
//! into `www/pkg/`. The contract is docs/js-api.md; the web console uses only it.
//!
//! | file | what |
//! |---|---|
//! | `error.rs` | plain Rust: `ClientError`, what every failure becomes |
//! | `wire.rs` | plain Rust: request headers + `_meta`, reading answers |
//! | `challenge.rs` | plain Rust: `WWW-Authenticate` challenges, the 401/403 error |
//! | `flow.rs` | plain Rust: what a call/task result means, input dedup, poll delays |
//! | `sse.rs` | plain Rust: the SSE parser and `subscriptions/listen` events |
//! | `hub_state.rs` | plain Rust: what the shared listen stream knows and decides |
//! | `urls.rs` | plain Rust: splitting URLs, query parameters, form bodies |
//! | `oauth.rs` | plain Rust: sign-in discovery (resource and authorization server metadata) |
//! | `grant.rs` | plain Rust: the sign-in grant (PKCE, callback, token requests and answers) |
//! | `js.rs` | fetch, timers, `AbortSignal`, storage, JSON ⇄ JS, the `McpError` class |
//! | `client.rs` | one client's requests: credentials, sign-in retry, the JSON-RPC round trip |
//! | `token_store.rs` | where sign-in tokens live: memory or `sessionStorage` |
//! | `sign_in.rs` | `ConnectOptions.signIn`: discovery, popup or redirect, refresh, retry |
//! | `hub.rs` | the I/O of the one `subscriptions/listen` stream every followed task shares |
//! | `driver.rs` | drives `tools/call` through MRTR rounds and tasks; `ToolCallHandle` |
//! | `subscribe.rs` | `listen()` over the hub; `Subscription` |
//! | `my_tasks.rs` | plain Rust: the listings of `watchMyTasks` (pages, bounds) |
//! | `board.rs` | plain Rust: the merged view of `myTasks()` (listings + live states) |
//! | `watch.rs` | `watchMyTasks()` over the hub; `MyTasksWatch` |
//! | `store.rs` | `myTasks()`: `MyTasksStore`, a watch as a subscribable snapshot |
//! | `handles.js` | `free()` twice and `close()` after `free()` made harmless |
//! | `types.rs` | the TypeScript declarations of options and results |
//!
//! The `wasm_bindgen` layer (this file, the handles) only converts values and hands work
//! to the plain-Rust decisions, which `cargo test --features browser` checks natively.
//! Layers, each using only those above it: `error` → `sse` → `wire`/`challenge`/`flow`/`hub_state`/`urls`/`oauth`/`grant` →
//! `js` → `token_store` → `sign_in` → `client` → `hub` → `driver`/`subscribe`/`watch` →
//! `store` → this file (`my_tasks` and `board` beside `hub_state`).

mod board;
mod challenge;
mod client;
mod driver;
pub mod error;
pub mod flow;
pub mod grant;
mod hub;
mod hub_state;
mod js;
mod my_tasks;
pub mod oauth;
mod sign_in;
pub mod sse;
mod store;
mod subscribe;
mod token_store;
mod types;
pub mod urls;
mod watch;
pub mod wire;

#[cfg(test)]
mod board_tests;
#[cfg(test)]
mod grant_tests;
#[cfg(test)]
mod hub_tests;
#[cfg(test)]
mod oauth_tests;
#[cfg(test)]
mod server_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod watch_tests;

use driver::{Call, CallOptions, ToolCallHandle};
use error::ClientError;
use flow::CallStep;
use hub::Hub;
use js::{JsResult, to_js, to_js_error};
use js_sys::{Function, Promise};
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// An MCP 2026-07-28 client for one server URL. Create it with `McpClient.connect`.
#[wasm_bindgen]
pub struct McpClient {
    hub: Rc<Hub>,
    discovery: Value,
}

fn invalid_argument(message: &str) -> JsValue {
    to_js_error(ClientError::new(ClientError::INVALID_PARAMS, message, None))
}

/// Tool arguments: an object, or nothing (`{}`).
fn arguments(args: &JsValue) -> JsResult<Value> {
    match js::from_js(args)? {
        Value::Null => Ok(Value::Object(Default::default())),
        object @ Value::Object(_) => Ok(object),
        _ => Err(invalid_argument("tool arguments must be an object")),
    }
}

impl McpClient {
    /// Runs a call up to "complete or a task exists" and wraps it in a handle.
    async fn start(
        hub: Rc<Hub>,
        name: String,
        args: Value,
        options: CallOptions,
    ) -> JsResult<ToolCallHandle> {
        let inner = hub.inner().clone();
        let mut call = Call::new(hub, options);
        match call.start(&name, &args).await? {
            CallStep::Task(task) => {
                call.created(&task);
                Ok(ToolCallHandle::follow(inner, call, task))
            }
            CallStep::Complete(result) => Ok(ToolCallHandle::complete(inner, &result)),
            CallStep::InputRequired { .. } => unreachable!("Call::start answers every input round"),
        }
    }
}

#[wasm_bindgen]
impl McpClient {
    /// Calls `server/discover`; rejects with `McpError` if the server is not a
    /// 2026-07-28 MCP server.
    #[wasm_bindgen(unchecked_return_type = "McpClient")]
    pub async fn connect(
        url: String,
        #[wasm_bindgen(unchecked_optional_param_type = "ConnectOptions")] options: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let inner = Rc::new(client::from_options(&url, &options)?);
        if let Some(sign_in) = &inner.sign_in {
            // Back from a sign-in that left the page (mode "redirect").
            sign_in.complete_redirect().await?;
        }
        let result = inner
            .rpc("server/discover", Default::default(), None, None)
            .await?;
        wire::check_discovery(&result).map_err(to_js_error)?;
        let client = McpClient {
            hub: Hub::new(inner),
            discovery: Value::Object(result),
        };
        Ok(js::harden(client.into()))
    }

    /// The `server/discover` result.
    #[wasm_bindgen(getter, unchecked_return_type = "DiscoverResult")]
    pub fn discovery(&self) -> JsValue {
        to_js(&self.discovery)
    }

    /// `_meta["io.modelcontextprotocol/serverInfo"]` of the discover result, if any.
    #[wasm_bindgen(getter, js_name = serverInfo, unchecked_return_type = "Implementation | undefined")]
    pub fn server_info(&self) -> JsValue {
        match self
            .discovery
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
        {
            Some(info) => to_js(info),
            None => JsValue::UNDEFINED,
        }
    }

    /// `tools/list` (every page the server has: this server sends one).
    #[wasm_bindgen(js_name = listTools, unchecked_return_type = "Promise<Tool[]>")]
    pub fn list_tools(&self) -> Promise {
        let inner = self.hub.inner().clone();
        future_to_promise(async move { Ok(to_js(&Value::Array(inner.list_tools().await?))) })
    }

    /// Drives MRTR rounds and tasks to the end; resolves to the final `CallToolResult`.
    #[wasm_bindgen(js_name = callTool, unchecked_return_type = "Promise<CallToolResult>")]
    pub fn call_tool(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_optional_param_type = "Record<string, unknown>")] args: Option<
            JsValue,
        >,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<JsValue>,
    ) -> Promise {
        let hub = self.hub.clone();
        let options = CallOptions::from_js(&options.unwrap_or(JsValue::UNDEFINED));
        let args = arguments(&args.unwrap_or(JsValue::UNDEFINED));
        future_to_promise(async move {
            let handle = Self::start(hub, name, args?, options).await?;
            wasm_bindgen_futures::JsFuture::from(handle.result()).await
        })
    }

    /// Starts a call; resolves once it is complete or a task exists.
    #[wasm_bindgen(js_name = startToolCall, unchecked_return_type = "Promise<ToolCallHandle>")]
    pub fn start_tool_call(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_optional_param_type = "Record<string, unknown>")] args: Option<
            JsValue,
        >,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<JsValue>,
    ) -> Promise {
        let hub = self.hub.clone();
        let options = CallOptions::from_js(&options.unwrap_or(JsValue::UNDEFINED));
        let args = arguments(&args.unwrap_or(JsValue::UNDEFINED));
        future_to_promise(async move {
            Ok(js::harden(
                Self::start(hub, name, args?, options).await?.into(),
            ))
        })
    }

    /// Picks up an existing task (e.g. after a page reload) and drives it like
    /// `startToolCall`: outstanding input requests go to the handlers again.
    #[wasm_bindgen(js_name = resumeTask, unchecked_return_type = "Promise<ToolCallHandle>")]
    pub fn resume_task(
        &self,
        #[wasm_bindgen(js_name = taskId)] task_id: String,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<JsValue>,
    ) -> Promise {
        let hub = self.hub.clone();
        let options = CallOptions::from_js(&options.unwrap_or(JsValue::UNDEFINED));
        future_to_promise(async move {
            let inner = hub.inner().clone();
            let task = inner.get_task(&task_id, options.abort.as_ref()).await?;
            let call = Call::new(hub, options);
            Ok(js::harden(ToolCallHandle::follow(inner, call, task).into()))
        })
    }

    /// The caller's tasks, newest first, whichever device or protocol era created them
    /// (this server's `mcp-tasks-edge/tasks/list`); `cursor` is a previous page's
    /// `nextCursor`; `filter` keeps those of one status and/or one tool (a filtered page
    /// may hold fewer tasks, none even, and still have a `nextCursor`).
    #[wasm_bindgen(js_name = listTasks, unchecked_return_type = "Promise<TaskPage>")]
    pub fn list_tasks(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] cursor: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "TaskFilter")] filter: Option<
            js_sys::Object,
        >,
    ) -> Promise {
        let inner = self.hub.inner().clone();
        let filter: JsValue = filter.map_or(JsValue::UNDEFINED, Into::into);
        future_to_promise(async move {
            let mut params = match js::from_js(&filter)? {
                Value::Object(filter) => filter,
                Value::Null => serde_json::Map::new(),
                _ => {
                    return Err(invalid_argument(
                        "filter must be an object: { status?, tool? }",
                    ));
                }
            };
            if let Some(cursor) = cursor {
                params.insert("cursor".into(), cursor.into());
            }
            let page = inner
                .rpc(crate::server::LIST_TASKS, params, None, None)
                .await?;
            Ok(to_js(&Value::Object(page)))
        })
    }

    /// A task's timeline, for its owner (this server's `mcp-tasks-edge/tasks/timeline`,
    /// docs/operations.md): its transitions, oldest first.
    #[wasm_bindgen(js_name = taskTimeline, unchecked_return_type = "Promise<TaskTimeline>")]
    pub fn task_timeline(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        let inner = self.hub.inner().clone();
        future_to_promise(async move {
            let mut params = serde_json::Map::new();
            params.insert("taskId".into(), task_id.into());
            let timeline = inner
                .rpc(crate::server::TASK_TIMELINE, params, None, None)
                .await?;
            Ok(to_js(&Value::Object(timeline)))
        })
    }

    /// `tasks/get`.
    #[wasm_bindgen(js_name = getTask, unchecked_return_type = "Promise<DetailedTask>")]
    pub fn get_task(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        let inner = self.hub.inner().clone();
        future_to_promise(async move { Ok(to_js(&inner.get_task(&task_id, None).await?)) })
    }

    /// `tasks/update` with answers keyed like the task's `inputRequests`.
    #[wasm_bindgen(js_name = updateTask, unchecked_return_type = "Promise<void>")]
    pub fn update_task(
        &self,
        #[wasm_bindgen(js_name = taskId)] task_id: String,
        #[wasm_bindgen(js_name = inputResponses, unchecked_param_type = "InputResponses")]
        input_responses: JsValue,
    ) -> Promise {
        let inner = self.hub.inner().clone();
        future_to_promise(async move {
            let Value::Object(responses) = js::from_js(&input_responses)? else {
                return Err(invalid_argument(
                    "inputResponses must be an object keyed by input request key",
                ));
            };
            inner.update_task(&task_id, responses, None).await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `tasks/cancel`.
    #[wasm_bindgen(js_name = cancelTask, unchecked_return_type = "Promise<void>")]
    pub fn cancel_task(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        let inner = self.hub.inner().clone();
        future_to_promise(async move {
            inner.cancel_task(&task_id).await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `notifications/tasks` via `subscriptions/listen`, falling back to polling
    /// `tasks/get`; the callback gets every new `DetailedTask`. `options.signal` closes it.
    #[wasm_bindgen(unchecked_return_type = "Promise<Subscription>")]
    pub fn listen(
        &self,
        #[wasm_bindgen(js_name = taskIds)] task_ids: Vec<String>,
        #[wasm_bindgen(unchecked_param_type = "(task: DetailedTask) => void")] callback: Function,
        #[wasm_bindgen(unchecked_optional_param_type = "ListenOptions")] options: Option<JsValue>,
    ) -> Promise {
        let hub = self.hub.clone();
        let signal = js::signal(&options.unwrap_or(JsValue::UNDEFINED));
        future_to_promise(async move {
            let subscription = subscribe::listen(hub, task_ids, callback, signal).await?;
            Ok(js::harden(subscription.into()))
        })
    }

    /// Every task of the caller as one merged, observable view (`MyTasksStore`): its
    /// watch starts now and runs until `close()` or `options.signal`.
    #[wasm_bindgen(js_name = myTasks, unchecked_return_type = "MyTasksStore")]
    pub fn my_tasks(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "MyTasksOptions")] options: Option<JsValue>,
    ) -> JsValue {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        js::harden(store::my_tasks(self.hub.clone(), &options).into())
    }

    /// Follows every unfinished task of the caller on the shared stream, new ones
    /// included: the callback gets each one's current state, then each change up to the
    /// terminal one. Tasks this client starts join at once; tasks started elsewhere are
    /// found by listing "my tasks" again (at each reconnect and every `relistIntervalMs`).
    #[wasm_bindgen(js_name = watchMyTasks, unchecked_return_type = "Promise<MyTasksWatch>")]
    pub fn watch_my_tasks(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(task: DetailedTask) => void")] callback: Function,
        #[wasm_bindgen(unchecked_optional_param_type = "WatchMyTasksOptions")] options: Option<
            JsValue,
        >,
    ) -> Promise {
        let hub = self.hub.clone();
        let options = options.unwrap_or(JsValue::UNDEFINED);
        future_to_promise(async move {
            let watch = watch::watch_my_tasks(hub, callback, options).await?;
            Ok(js::harden(watch.into()))
        })
    }

    /// Replaces the bearer token of `ConnectOptions.bearerToken` (`null`: send none) on
    /// this live client: every request from now on carries the new one, the shared listen
    /// stream's next reopen included; a request already sent keeps the old. A `signIn`'s
    /// token still wins when there is one.
    #[wasm_bindgen(js_name = setBearerToken)]
    pub fn set_bearer_token(&self, token: Option<String>) {
        self.hub.inner().set_bearer_token(token);
    }

    /// Whether `signIn` holds a token for this server (`false` without `signIn`).
    #[wasm_bindgen(getter, js_name = signedIn)]
    pub fn signed_in(&self) -> bool {
        self.hub
            .inner()
            .sign_in
            .as_ref()
            .is_some_and(|s| s.signed_in())
    }

    /// Forgets the tokens `signIn` holds for this server (memory and `sessionStorage`);
    /// the next request that needs one signs in again. Nothing without `signIn`.
    #[wasm_bindgen(js_name = signOut)]
    pub fn sign_out(&self) {
        if let Some(sign_in) = &self.hub.inner().sign_in {
            sign_in.forget();
        }
    }
}
