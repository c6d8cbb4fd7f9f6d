//! What a step sees: [`Call`].

use super::ToolError;
use crate::host::BoxFuture;
use crate::jsonrpc::{self, ErrorObject, OneEntry};
use crate::mcp::meta::ClientCapabilities;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// The marker in `data` of the error a checkpoint that does not decode produces; the
/// tool's name is added to its message when the step returns it (`Tool::step`).
pub const CHECKPOINT_MISMATCH: &str = "checkpointMismatch";

fn checkpoint_mismatch<T>(why: &str) -> ToolError {
    ToolError::Rpc(ErrorObject {
        code: crate::jsonrpc::ErrorCode::INTERNAL_ERROR,
        message: format!(
            "its stored checkpoint does not decode as {}: {why}. It was stored by an earlier step (perhaps before a deploy changed the checkpoint type); the step was not run again, so nothing it did is repeated",
            std::any::type_name::<T>()
        ),
        data: Some(jsonrpc::payload(&OneEntry(CHECKPOINT_MISMATCH, true))),
    })
}

/// One progress report (basic/patterns/progress): `progress` of `total`, with a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

impl Report {
    /// A one-line summary, e.g. `50/100: copying`, for a task's `statusMessage`.
    pub fn summary(&self) -> String {
        let amount = match self.total {
            Some(total) => format!("{}/{}", self.progress, total),
            None => format!("{}", self.progress),
        };
        match &self.message {
            Some(message) => format!("{amount}: {message}"),
            None => amount,
        }
    }
}

type Listener = Rc<dyn Fn(&Report)>;
type LogListener = Rc<dyn Fn(&str, &Value)>;
/// Where [`Call::ask_now`] goes: the runner of the task object running the step.
pub type AskSink =
    Rc<dyn Fn(Map<String, Value>) -> BoxFuture<'static, Result<Map<String, Value>, ToolError>>>;

#[derive(Default)]
struct Sinks {
    last: Option<Report>,
    progress: Option<Listener>,
    log: Option<LogListener>,
    disconnect: Option<Rc<dyn Fn()>>,
    ask: Option<AskSink>,
}

/// Where a step's progress reports and log messages go: `notifications/progress` and
/// `notifications/message` on the response stream of an inline call that asked for them,
/// a task's `statusMessage`, or nowhere. Clones share the sinks.
#[derive(Clone, Default)]
pub struct Progress(Rc<RefCell<Sinks>>);

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Progress")
            .field(&self.0.borrow().last)
            .finish()
    }
}

impl Progress {
    /// A sink that hands every report to `listener` as it is made.
    pub fn to(listener: impl Fn(&Report) + 'static) -> Progress {
        let progress = Progress::default();
        progress.0.borrow_mut().progress = Some(Rc::new(listener));
        progress
    }

    /// Also hands every log message (level, data) to `listener`.
    pub fn logging_to(self, listener: impl Fn(&str, &Value) + 'static) -> Progress {
        self.0.borrow_mut().log = Some(Rc::new(listener));
        self
    }

    /// What ends the client's connection on request ([`Call::close_stream`]).
    pub fn disconnecting_to(self, f: impl Fn() + 'static) -> Progress {
        self.0.borrow_mut().disconnect = Some(Rc::new(f));
        self
    }

    /// Where [`Call::ask_now`] asks (a task object's runner, while the step runs).
    pub fn asking_to(self, sink: AskSink) -> Progress {
        self.0.borrow_mut().ask = Some(sink);
        self
    }

    fn asker(&self) -> Option<AskSink> {
        self.0.borrow().ask.clone()
    }

    /// Ends the client's connection to the response stream, if it can be resumed.
    pub fn disconnect(&self) {
        let f = self.0.borrow().disconnect.clone();
        if let Some(f) = f {
            f();
        }
    }

    pub fn report(&self, report: Report) {
        let listener = self.0.borrow().progress.clone();
        if let Some(listener) = listener {
            listener(&report);
        }
        self.0.borrow_mut().last = Some(report);
    }

    /// A log message at `level` (RFC 5424 names: debug, info, notice, warning, error, …).
    pub fn log(&self, level: &str, data: &Value) {
        let listener = self.0.borrow().log.clone();
        if let Some(listener) = listener {
            listener(level, data);
        }
    }

    /// The latest report, if any.
    pub fn last(&self) -> Option<Report> {
        self.0.borrow().last.clone()
    }
}

/// One step's input. `A` is the tool's argument type (the raw JSON object for tools
/// registered with [`Tool::run_json`](super::Tool::run_json) or
/// [`Tool::sync`](super::Tool::sync)). Answers are keyed by the keys the tool chose
/// in `NeedInput`, whichever flow (MRTR or task) delivered them.
#[derive(Debug, Clone)]
pub struct Call<A = Map<String, Value>> {
    /// The arguments, decoded.
    pub args: A,
    /// The arguments as sent (already validated against the input schema).
    pub arguments: Map<String, Value>,
    pub answers: Map<String, Value>,
    /// The last checkpoint (`Null` before the first `Continue` set one): read it typed
    /// with [`Call::checkpoint`], raw with [`Call::checkpoint_value`].
    pub(crate) checkpoint: Value,
    pub capabilities: ClientCapabilities,
    /// Input rounds completed so far (verified `requestState` rounds, or task rounds).
    pub round: u32,
    /// Unix milliseconds, read by the adapter.
    pub now_ms: u64,
    /// The task this step belongs to, once the call became one: a natural idempotency key.
    pub task_id: Option<String>,
    /// 1 for the first attempt at this step, more when an interrupted attempt is re-run.
    pub attempt: u32,
    /// Who called: the principal the server authenticated (an API key's name, a token's
    /// subject; `None` in a unit test's call). What a step keeps between calls must not
    /// cross it.
    pub principal: Option<String>,
    /// Where [`Call::progress`] reports go.
    pub progress: Progress,
}

impl Call {
    /// A first call with these arguments (a JSON object; anything else counts as `{}`),
    /// no answers, no checkpoint and no declared capabilities: the starting point for
    /// unit tests of a step function.
    ///
    /// ```
    /// use mcp_tasks_edge::prelude::*;
    /// let call = Call::new(json!({ "city": "Oslo" })).checkpoint_at(json!({ "page": 2 }));
    /// assert_eq!(call.str_arg("city"), Some("Oslo"));
    /// assert_eq!(call.checkpoint::<Value>().unwrap(), Some(json!({ "page": 2 })));
    /// ```
    pub fn new(arguments: Value) -> Call {
        let arguments = match arguments {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Call {
            args: arguments.clone(),
            arguments,
            answers: Map::new(),
            checkpoint: Value::Null,
            capabilities: ClientCapabilities::default(),
            round: 0,
            now_ms: 0,
            task_id: None,
            attempt: 1,
            principal: None,
            progress: Progress::default(),
        }
    }

    /// This call resumed from `checkpoint`.
    pub fn checkpoint_at(mut self, checkpoint: Value) -> Call {
        self.checkpoint = checkpoint;
        self
    }

    /// This call with answers (keyed by the tool's input keys).
    pub fn answered(mut self, answers: Value) -> Call {
        if let Value::Object(map) = answers {
            self.answers = map;
        }
        self
    }

    /// This call from a client that declared `capabilities`.
    pub fn declaring(mut self, capabilities: Value) -> Call {
        if let Value::Object(map) = capabilities {
            self.capabilities = ClientCapabilities(map);
        }
        self
    }

    /// The same call made by `principal` (see [`Call::principal`]).
    pub fn by(mut self, principal: &str) -> Call {
        self.principal = Some(principal.to_owned());
        self
    }
}

impl<A> Call<A> {
    /// The same call with other arguments (used to decode typed arguments).
    pub fn with_args<B>(self, args: B) -> Call<B> {
        Call {
            args,
            arguments: self.arguments,
            answers: self.answers,
            checkpoint: self.checkpoint,
            capabilities: self.capabilities,
            round: self.round,
            now_ms: self.now_ms,
            task_id: self.task_id,
            attempt: self.attempt,
            principal: self.principal,
            progress: self.progress,
        }
    }

    /// Ends the client's connection to this call's response stream now, where streams are
    /// resumable (2025-11-25 sessions, SEP-1699): the client reconnects with
    /// `Last-Event-ID` and receives the rest. A long step can use it so no connection is
    /// held open while it works. No effect elsewhere.
    pub fn close_stream(&self) {
        self.progress.disconnect();
    }

    /// Logs `data` at `level` (`notifications/message` to clients of a 2025-11-25 session
    /// that set a level at or below it; dropped otherwise).
    pub fn log(&self, level: &str, data: impl Into<Value>) {
        self.progress.log(level, &data.into());
    }

    /// Reports progress: `notifications/progress` while an inline call that asked for it
    /// runs, the `statusMessage` of a task. `total` may be unknown.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.progress.report(Report {
            progress,
            total,
            message: message.map(str::to_owned),
        });
    }

    /// Whether [`Call::ask_now`] can reach the client: in a step a task object runs, yes;
    /// in a step run inline in the Worker, no (ask with `Step::NeedInput` there).
    pub fn can_ask_now(&self) -> bool {
        self.progress.asker().is_some()
    }

    /// Asks the client while the step goes on running (a call held open to another
    /// server that asks mid-way, say): the task shows `requests` (keyed and shaped as in
    /// `Step::NeedInput`) as its input requests until they are answered, and this
    /// resolves with the answers, keyed the same. An error where the step cannot ask now
    /// ([`Call::can_ask_now`]), for questions the client declared no capability for, or
    /// for a question while another is pending. A task cancelled meanwhile drops the step.
    pub async fn ask_now(
        &self,
        requests: Map<String, Value>,
    ) -> Result<Map<String, Value>, ToolError> {
        match self.progress.asker() {
            Some(ask) => ask(requests).await,
            None => Err(ToolError::Rpc(ErrorObject {
                code: crate::jsonrpc::ErrorCode::INTERNAL_ERROR,
                message: "a step can ask while it runs only in a task object".into(),
                data: None,
            })),
        }
    }

    /// Whether an earlier step stored a checkpoint (no decoding: the type is not asked).
    pub fn has_checkpoint(&self) -> bool {
        !self.checkpoint.is_null()
    }

    /// The checkpoint as stored, raw JSON (`Null` before the first), for a tool that
    /// handles its own JSON. Reading it raw skips the check [`Call::checkpoint`] makes:
    /// a value that is not what the tool expects must be an error, never "start over".
    pub fn checkpoint_value(&self) -> &Value {
        &self.checkpoint
    }

    /// The checkpoint decoded as `T`; `Ok(None)` before the first one. A checkpoint that
    /// does not decode as `T` is an error, never "no checkpoint": it was stored by an
    /// earlier step, maybe by an earlier deploy whose checkpoint type differed, and
    /// starting over would repeat that step's side effects. With `?`, the task fails
    /// with a message naming the tool, the type and the mismatch (docs/operations.md
    /// "Redeploys"); [`Call::checkpoint_migrating`] converts an older form instead.
    pub fn checkpoint<T: DeserializeOwned>(&self) -> Result<Option<T>, ToolError> {
        if self.checkpoint.is_null() {
            return Ok(None);
        }
        crate::jsonrpc::from_value(self.checkpoint.clone())
            .map(Some)
            .map_err(|e| checkpoint_mismatch::<T>(&e.to_string()))
    }

    /// The checkpoint decoded as `T`, or, when it does not decode as `T`, as the older
    /// form `Old` converted by `migrate` (the author's migration after a deploy changed
    /// the checkpoint type). Return the migrated value in the next step's checkpoint so
    /// it is stored in the new form. Neither form: the error of [`Call::checkpoint`].
    ///
    /// ```
    /// use mcp_tasks_edge::prelude::*;
    /// #[derive(Deserialize)]
    /// struct Old { url: String }
    /// #[derive(Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Job { status_url: String, failures: u32 }
    ///
    /// let call = Call::new(json!({})).checkpoint_at(json!({ "url": "https://x/1" }));
    /// let job = call
    ///     .checkpoint_migrating(|old: Old| Job { status_url: old.url, failures: 0 })
    ///     .unwrap()
    ///     .unwrap();
    /// assert_eq!(job.status_url, "https://x/1");
    /// ```
    pub fn checkpoint_migrating<T: DeserializeOwned, Old: DeserializeOwned>(
        &self,
        migrate: impl FnOnce(Old) -> T,
    ) -> Result<Option<T>, ToolError> {
        if self.checkpoint.is_null() {
            return Ok(None);
        }
        match crate::jsonrpc::from_value::<T>(self.checkpoint.clone()) {
            Ok(current) => Ok(Some(current)),
            Err(new_error) => match crate::jsonrpc::from_value::<Old>(self.checkpoint.clone()) {
                Ok(old) => Ok(Some(migrate(old))),
                Err(old_error) => Err(checkpoint_mismatch::<T>(&format!(
                    "{new_error} (nor is it a {}: {old_error})",
                    std::any::type_name::<Old>()
                ))),
            },
        }
    }

    pub fn str_arg(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).and_then(Value::as_str)
    }

    pub fn f64_arg(&self, name: &str) -> Option<f64> {
        self.arguments.get(name).and_then(Value::as_f64)
    }
}
