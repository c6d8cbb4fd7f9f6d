//! Drives one tool call with the decisions of `flow.rs`: MRTR rounds until the call is
//! complete or a task exists (`start`), then the task until it is terminal (`follow`).
//! Also the JS `ToolCallHandle`.

use super::client::Inner;
use super::error::ClientError;
use super::flow::{self, AnsweredKeys, CallStep, InputKind, StatusWatch, TaskState};
use super::hub::Hub;
use super::js::{self, Abort, JsResult, to_js, to_js_error};
use super::sse::bare_task;
use js_sys::{Function, Promise};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// `CallOptions`, read once.
#[derive(Clone, Default)]
pub struct CallOptions {
    pub abort: Option<Abort>,
    on_task_created: Option<Function>,
    on_task_status: Option<Function>,
    on_elicitation: Option<Function>,
    on_sampling: Option<Function>,
    on_roots: Option<Function>,
}

impl CallOptions {
    pub fn from_js(options: &JsValue) -> Self {
        let signal = js::get(options, "signal");
        CallOptions {
            abort: signal
                .dyn_into::<web_sys::AbortSignal>()
                .ok()
                .map(Abort::new),
            on_task_created: js::get_function(options, "onTaskCreated"),
            on_task_status: js::get_function(options, "onTaskStatus"),
            on_elicitation: js::get_function(options, "onElicitation"),
            on_sampling: js::get_function(options, "onSampling"),
            on_roots: js::get_function(options, "onRoots"),
        }
    }
}

/// What the handle shows while the call runs.
pub struct Shared {
    pub task_id: Option<String>,
    pub status: String,
}

pub struct Call {
    hub: Rc<Hub>,
    inner: Rc<Inner>,
    options: CallOptions,
    shared: Rc<RefCell<Shared>>,
    answered: AnsweredKeys,
    watch: StatusWatch,
}

/// Notification callbacks must not break the call: a throw is reported, not propagated.
fn notify(callback: &Option<Function>, task: &Value) {
    if let Some(callback) = callback
        && let Err(thrown) = callback.call1(&JsValue::UNDEFINED, &to_js(task))
    {
        web_sys::console::error_2(&"McpClient: a task callback threw".into(), &thrown);
    }
}

impl Call {
    pub fn new(hub: Rc<Hub>, options: CallOptions) -> Self {
        let inner = hub.inner().clone();
        let shared = Rc::new(RefCell::new(Shared {
            task_id: None,
            status: "working".into(),
        }));
        Call {
            hub,
            inner,
            options,
            shared,
            answered: AnsweredKeys::default(),
            watch: StatusWatch::default(),
        }
    }

    fn abort(&self) -> Option<&Abort> {
        self.options.abort.as_ref()
    }

    /// Answers one input request with the matching handler (which may be async).
    async fn answer(&self, key: &str, request: &Value) -> JsResult<Value> {
        let (kind, params) = flow::input_kind(key, request).map_err(to_js_error)?;
        let handler = match kind {
            InputKind::Elicitation => &self.options.on_elicitation,
            InputKind::Sampling => &self.options.on_sampling,
            InputKind::Roots => &self.options.on_roots,
        };
        let handler = handler
            .as_ref()
            .ok_or_else(|| to_js_error(flow::no_handler(key, kind)))?;
        let args = match kind {
            InputKind::Roots => vec![JsValue::from_str(key)],
            _ => vec![to_js(&params), JsValue::from_str(key)],
        };
        let answer = js::from_js(&js::call_user(handler, &args, self.abort()).await?)?;
        if !answer.is_object() {
            return Err(to_js_error(ClientError::new(
                ClientError::INVALID_PARAMS,
                format!(
                    "The {} handler returned something that is not an object for input {key:?}",
                    kind.handler_name()
                ),
                None,
            )));
        }
        Ok(answer)
    }

    async fn answer_all(&self, requests: Vec<(String, Value)>) -> JsResult<Map<String, Value>> {
        let mut responses = Map::new();
        for (key, request) in requests {
            let answer = self.answer(&key, &request).await?;
            responses.insert(key, answer);
        }
        Ok(responses)
    }

    /// `tools/call` and its MRTR rounds; ends with the result or the created task.
    pub async fn start(&mut self, name: &str, arguments: &Value) -> JsResult<CallStep> {
        let mut schema = self.inner.tool_schema(name, false).await;
        let (mut responses, mut state, mut relisted) = (None, None, false);
        for _ in 0..flow::MAX_ROUNDS {
            let params = flow::call_params(name, arguments, responses.take(), state.take());
            let result = match self
                .inner
                .rpc("tools/call", params.clone(), schema.as_ref(), self.abort())
                .await
            {
                // streamable-http "Client Behavior": after a HeaderMismatch, re-list and retry once.
                Err(e)
                    if !relisted
                        && js::get(&e, "code").as_f64()
                            == Some(ClientError::HEADER_MISMATCH as f64) =>
                {
                    relisted = true;
                    schema = self.inner.tool_schema(name, true).await;
                    self.inner
                        .rpc("tools/call", params, schema.as_ref(), self.abort())
                        .await?
                }
                other => other?,
            };
            match flow::call_step(result).map_err(to_js_error)? {
                CallStep::InputRequired {
                    requests,
                    request_state,
                } => {
                    let requests: Vec<(String, Value)> = requests.into_iter().collect();
                    responses = Some(self.answer_all(requests).await?);
                    state = request_state;
                }
                done => return Ok(done),
            }
        }
        Err(to_js_error(ClientError::new(
            ClientError::INTERNAL_ERROR,
            format!(
                "tools/call {name} needed more than {} input rounds",
                flow::MAX_ROUNDS
            ),
            None,
        )))
    }

    pub fn shared(&self) -> Rc<RefCell<Shared>> {
        self.shared.clone()
    }

    pub fn set_task(&self, task: &Value) {
        let mut shared = self.shared.borrow_mut();
        shared.task_id = task
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        shared.status = task
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("working")
            .to_owned();
    }

    pub fn created(&self, task: &Value) {
        self.set_task(task);
        notify(&self.options.on_task_created, task);
    }

    /// Follows the task from snapshot `task` to its end. On abort, cancels the task and
    /// rejects with the signal's reason.
    pub async fn follow(mut self, task: Value) -> JsResult<JsValue> {
        let task_id = task
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // The task joins the client's shared listen stream while this call follows it.
        self.hub.add_driver(&task_id, &task);
        let outcome = self.follow_inner(&task_id, task).await;
        self.hub.remove_driver(&task_id);
        match outcome {
            Err(e) if self.abort().is_some_and(Abort::aborted) => {
                // Best effort: the abort reason is the answer whatever the cancel says.
                let _ = self.inner.cancel_task(&task_id).await;
                Err(e)
            }
            other => other,
        }
    }

    async fn follow_inner(&mut self, task_id: &str, mut task: Value) -> JsResult<JsValue> {
        loop {
            self.set_task(&task);
            if self.watch.changed(&task) {
                notify(&self.options.on_task_status, &task);
            }
            match flow::task_state(&task).map_err(to_js_error)? {
                TaskState::Working => {}
                TaskState::InputRequired(requests) => {
                    let fresh = self.answered.fresh(&requests);
                    if !fresh.is_empty() {
                        let responses = self.answer_all(fresh).await?;
                        for key in responses.keys() {
                            self.answered.mark(key);
                        }
                        self.inner
                            .update_task(task_id, responses, self.abort())
                            .await?;
                    }
                }
                TaskState::Completed(result) => return Ok(to_js(&result)),
                TaskState::Failed(error) => return Err(to_js_error(error)),
                TaskState::Cancelled => return Err(to_js_error(flow::cancelled(task_id))),
            }
            task = self.next_state(task_id, &task).await?;
        }
    }

    /// The task's next state: pushed by the shared stream while it covers the task (no
    /// polling then), else from `tasks/get` after the poll interval (or sooner, if a
    /// notification arrives first).
    async fn next_state(&self, task_id: &str, current: &Value) -> JsResult<Value> {
        let hub = &self.hub;
        let newer = |current: &Value| {
            let bare = current.as_object().map(|t| Value::Object(bare_task(t)));
            hub.last(task_id).filter(|last| Some(last) != bare.as_ref())
        };
        loop {
            if let Some(task) = newer(current) {
                return Ok(task);
            }
            if hub.covers(task_id) {
                js::wait(hub.changed(), self.abort()).await?;
                continue;
            }
            let pause = Promise::race(&js_sys::Array::of2(
                &js::sleep(flow::poll_delay(current)),
                &hub.changed(),
            ));
            js::wait(pause, self.abort()).await?;
            if let Some(task) = newer(current) {
                return Ok(task);
            }
            if hub.covers(task_id) {
                continue;
            }
            let task = self.inner.get_task(task_id, self.abort()).await?;
            if let Value::Object(map) = &task {
                hub.offer(map);
            }
            return Ok(task);
        }
    }
}

/// A call in progress: `taskId`, `status`, `result()`, `cancel()` (docs/js-api.md).
#[wasm_bindgen]
pub struct ToolCallHandle {
    inner: Rc<Inner>,
    shared: Rc<RefCell<Shared>>,
    result: Promise,
}

impl ToolCallHandle {
    /// A handle for a call that completed without a task.
    pub fn complete(inner: Rc<Inner>, result: &Value) -> Self {
        let shared = Rc::new(RefCell::new(Shared {
            task_id: None,
            status: "complete".into(),
        }));
        ToolCallHandle {
            inner,
            shared,
            result: Promise::resolve(&to_js(result)),
        }
    }

    /// A handle following `task` in the background from now on.
    pub fn follow(inner: Rc<Inner>, call: Call, task: Value) -> Self {
        call.set_task(&task);
        let shared = call.shared();
        let result = future_to_promise(call.follow(task));
        // The caller may never ask for the result: keep a rejection from being "unhandled".
        js::mark_handled(&result);
        ToolCallHandle {
            inner,
            shared,
            result,
        }
    }
}

#[wasm_bindgen]
impl ToolCallHandle {
    /// The task's id; `undefined` when the call completed without a task.
    #[wasm_bindgen(getter, js_name = taskId)]
    pub fn task_id(&self) -> Option<String> {
        self.shared.borrow().task_id.clone()
    }

    /// The last status seen, or `"complete"` for a call that needed no task.
    #[wasm_bindgen(getter, unchecked_return_type = "TaskStatus | \"complete\"")]
    pub fn status(&self) -> String {
        self.shared.borrow().status.clone()
    }

    /// Resolves and rejects like `callTool`.
    #[wasm_bindgen(unchecked_return_type = "Promise<CallToolResult>")]
    pub fn result(&self) -> Promise {
        self.result.clone()
    }

    /// `tasks/cancel` (a no-op without a task); `result()` then rejects with -32800
    /// unless the task finished first.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn cancel(&self) -> Promise {
        let inner = self.inner.clone();
        let task_id = self.shared.borrow().task_id.clone();
        future_to_promise(async move {
            if let Some(task_id) = task_id {
                inner.cancel_task(&task_id).await?;
            }
            Ok(JsValue::UNDEFINED)
        })
    }
}
