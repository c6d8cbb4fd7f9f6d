//! What a step sees: [`Call`].

use super::{Answer, Step, ToolError, one_request};
use crate::jsonrpc::ErrorObject;
use crate::mcp::input::{self, Elicited};
use crate::mcp::meta::ClientCapabilities;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
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
        data: Some(json!({ CHECKPOINT_MISMATCH: true })),
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

#[derive(Default)]
struct Sinks {
    last: Option<Report>,
    progress: Option<Listener>,
    log: Option<LogListener>,
    disconnect: Option<Rc<dyn Fn()>>,
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

    /// The answer to elicitation `key`, if it has arrived; `Err` if it is malformed.
    pub fn elicited(&self, key: &str) -> Result<Option<Elicited>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_elicit_result(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }

    /// Asks the user a typed question by form elicitation under `key`: the form's
    /// `requestedSchema` is derived from `T` ([`form_schema`](super::form_schema): a
    /// flat struct of strings, numbers, booleans and string enums; `Option` fields are
    /// optional), and the answer comes back decoded as `T`. Until it has arrived this is
    /// `Err(ToolError::NeedInput(..))`: return it with `?` and the step re-runs with the
    /// answer, inline by MRTR or inside the call's task, whichever the client gets. A
    /// content that does not match the schema never reaches the step: the server refuses
    /// it where it arrives (-32602 naming the field).
    ///
    /// ```
    /// use mcp_tasks_edge::prelude::*;
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Approval { approve: bool, reason: Option<String> }
    ///
    /// fn decide(call: &Call) -> Result<Step, ToolError> {
    ///     Ok(match call.ask::<Approval>("approval", "Deploy v2?")? {
    ///         Answer::Accept(a) if a.approve => Step::text("Deploying."),
    ///         Answer::Accept(a) => Step::text(format!("Not deployed: {}", a.reason.unwrap_or_default())),
    ///         Answer::Decline | Answer::Cancel => Step::text("Nothing was decided."),
    ///     })
    /// }
    /// let asked = decide(&Call::new(json!({})));
    /// assert!(matches!(asked, Err(ToolError::NeedInput(_))));
    /// let answered = Call::new(json!({}))
    ///     .answered(json!({ "approval": { "action": "accept", "content": { "approve": true } } }));
    /// assert_eq!(decide(&answered), Ok(Step::text("Deploying.")));
    /// ```
    pub fn ask<T: DeserializeOwned + JsonSchema>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Answer<T>, ToolError> {
        match self.elicited(key).map_err(ToolError::Rpc)? {
            None => {
                let schema = super::form_schema::<T>().map_err(|why| {
                    ToolError::internal(format!(
                        "question {key:?} cannot be a form: {} {why}",
                        std::any::type_name::<T>()
                    ))
                })?;
                Err(ToolError::NeedInput(one_request(
                    key,
                    input::elicit_form(message, schema),
                )))
            }
            Some(Elicited::Accept(content)) => crate::jsonrpc::from_value(Value::Object(content))
                .map(Answer::Accept)
                .map_err(|e| {
                    ToolError::invalid_params(format!(
                        "the answer to {key:?} is not a {}: {e}",
                        std::any::type_name::<T>()
                    ))
                }),
            Some(Elicited::Decline) => Ok(Answer::Decline),
            Some(Elicited::Cancel) => Ok(Answer::Cancel),
        }
    }

    /// Asks for one required text `field` by form elicitation under `key` and gives back
    /// the answer: `Ok(Some(text))` once accepted, `Ok(None)` if the user declined or
    /// cancelled, and until then `Err(step)`, the step to return (the question, or a
    /// failure for a malformed answer):
    ///
    /// ```
    /// # use mcp_tasks_edge::tools::{Call, Step};
    /// fn greet(call: &Call) -> Step {
    ///     let name = match call.ask_text("name", "Your name?", "name") {
    ///         Ok(name) => name.unwrap_or_else(|| "stranger".into()),
    ///         Err(step) => return step,
    ///     };
    ///     Step::text(format!("Hello, {name}!"))
    /// }
    /// ```
    pub fn ask_text(&self, key: &str, message: &str, field: &str) -> Result<Option<String>, Step> {
        match self.elicited(key) {
            Err(error) => Err(Step::Fail(error)),
            Ok(None) => {
                let schema = json!({ "type": "object", "properties": { field: { "type": "string" } }, "required": [field] });
                Err(Step::NeedInput(one_request(
                    key,
                    input::elicit_form(message, schema),
                )))
            }
            Ok(Some(Elicited::Accept(content))) => Ok(Some(
                content
                    .get(field)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            )),
            Ok(Some(Elicited::Decline | Elicited::Cancel)) => Ok(None),
        }
    }

    /// The text of sampling answer `key`, if it has arrived.
    pub fn sampled(&self, key: &str) -> Result<Option<String>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_sampled_text(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }

    /// The root URIs of `roots/list` answer `key`, if it has arrived.
    pub fn roots(&self, key: &str) -> Result<Option<Vec<String>>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_root_uris(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }
}
