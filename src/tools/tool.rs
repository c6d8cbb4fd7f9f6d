//! Registering a tool: [`Tool`] (the set of them a server offers is `Registry`).

use super::{Call, Step, StepResult, ToolError};
use crate::host::{AllowList, Host};
use crate::mcp::schema::Schema;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::any::TypeId;
use std::fmt;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

mod checks;

/// Whether a tool may, must, or must not run as a task. Server-side registration only:
/// nothing of it is on the wire in SEP-2663.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answers inline (a `Continue` is run to the end inline).
    Forbidden,
    /// Becomes a task when the client declared the extension, else runs inline.
    Optional,
    /// Needs a task: clients without the extension get a job instead
    /// (`server::jobs`), or -32021 for a tool that is [`Tool::never_detached`].
    Required,
}

use super::handler::{CancelFn, Handler};

/// A tool: its `tools/list` definition, how it may run, and its step function.
///
/// ```
/// use mcp_tasks_edge::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Args { city: String }
///
/// async fn weather(call: Call<Args>, host: Host) -> Result<Step, ToolError> {
///     let key = host.secret("WEATHER_KEY")?;
///     let url = format!("https://weather.example/v1?q={}&key={key}", call.args.city);
///     let answer = host.fetch(get(url)).await?;
///     Ok(Step::text(answer.text()?))
/// }
///
/// let tool = Tool::new("weather", "Current weather for a city").run(weather);
/// assert_eq!(tool.name(), "weather");
/// assert_eq!(tool.input_schema()["required"], json!(["city"]));
/// ```
#[derive(Clone)]
pub struct Tool {
    definition: Map<String, Value>,
    task_support: TaskSupport,
    ttl_ms: Option<u64>,
    /// Runs as a job for clients without the Tasks extension ([`Tool::never_detached`]).
    detaches: bool,
    schema_given: bool,
    output_given: bool,
    /// The input schema compiled by [`Registry::new`] (once per server, not per call);
    /// `Err` says why it cannot be used.
    compiled: Option<Result<Schema, String>>,
    step: Handler,
    cancel: Option<CancelFn>,
    /// Hosts this tool may reach beyond the deployment's `FETCH_ALLOWED_HOSTS`
    /// ([`Tool::allow_hosts`]); `Err` is a definition problem.
    allow: Result<AllowList, String>,
    /// Questions go into the task for clients with the Tasks extension ([`Tool::ask_in_task`]).
    asks_in_task: bool,
    /// It may ask the user while it runs ([`Tool::asks`]).
    asks: bool,
    /// The upstream server this tool is a tool of (`crate::gateway`), for the log.
    upstream: Option<std::rc::Rc<str>>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("definition", &self.definition)
            .field("task_support", &self.task_support)
            .field("ttl_ms", &self.ttl_ms)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool named `name` (1–128 characters of `A-Z a-z 0-9 _ - .`). Until a schema is
    /// given or derived, it takes any object.
    pub fn new(name: &str, description: &str) -> Tool {
        let mut definition = Map::new();
        definition.insert("name".into(), name.into());
        definition.insert("description".into(), description.into());
        definition.insert("inputSchema".into(), json!({ "type": "object" }));
        Tool {
            definition,
            task_support: TaskSupport::Forbidden,
            ttl_ms: None,
            detaches: true,
            schema_given: false,
            output_given: false,
            compiled: None,
            step: Handler::default(),
            cancel: None,
            allow: Ok(AllowList::default()),
            asks_in_task: false,
            asks: false,
            upstream: None,
        }
    }

    pub fn title(self, title: &str) -> Tool {
        self.field("title", title.into())
    }

    /// A hand-written input schema (a JSON Schema object with `"type": "object"`); it
    /// wins over the one [`Tool::run`] derives.
    pub fn schema(mut self, schema: Value) -> Tool {
        self.schema_given = true;
        self.field("inputSchema", schema)
    }

    /// A hand-written output schema (a JSON Schema object with `"type": "object"`); it
    /// wins over the one a typed output derives. A tool with one must return
    /// `structuredContent` that conforms to it.
    pub fn output_schema(mut self, schema: Value) -> Tool {
        self.output_given = true;
        self.field("outputSchema", schema)
    }

    /// The tool's behaviour hints ([`Annotations`](super::Annotations)).
    pub fn annotations(self, annotations: super::Annotations) -> Tool {
        self.field("annotations", annotations.to_value())
    }

    /// Any other field of the `Tool` definition (`icons`, `_meta`, …).
    pub fn field(mut self, name: &str, value: Value) -> Tool {
        self.definition.insert(name.into(), value);
        self
    }

    pub fn task(mut self, support: TaskSupport) -> Tool {
        self.task_support = support;
        self
    }

    /// Never runs as a job (`server::jobs`): a client without the Tasks extension gets
    /// what the specification alone gives it, -32021 for a `Required` tool, and an
    /// `Optional` one runs inline within `INLINE_BUDGET_MS`, then fails with -32021.
    /// For a tool whose result is only useful inside the call that asked for it.
    pub fn never_detached(mut self) -> Tool {
        self.detaches = false;
        self
    }

    /// For a client with the Tasks extension, a question this tool asks (any step's,
    /// the first one's included) makes the call a task that asks it: `input_required`
    /// from the start, answered with `tasks/update`, kept durably however long the user
    /// takes (an approval, say). Otherwise the questions of the steps before the task are
    /// asked by MRTR, which keeps no state on the server until the work starts. Clients
    /// without the extension are asked by MRTR either way.
    pub fn ask_in_task(mut self) -> Tool {
        self.asks_in_task = true;
        self
    }

    /// Marks this tool as a tool of the upstream server `name` (`crate::gateway`): its
    /// steps' log lines name it.
    pub fn of_upstream(mut self, name: &str) -> Tool {
        self.upstream = Some(name.into());
        self
    }

    /// The upstream server this tool is a tool of, if it is one ([`Tool::of_upstream`]).
    pub fn upstream(&self) -> Option<&str> {
        self.upstream.as_deref()
    }

    /// Declares that this tool may ask the user (elicitation) while it runs, after some
    /// work perhaps: a call that would become a task of a client that did not declare
    /// elicitation is refused at once (-32021 naming it), before any step runs, instead of
    /// failing at the question with its work thrown away. A client without the Tasks
    /// extension still gets a job, whose question `job_answer` answers. Say in the
    /// description when it asks only sometimes. [`Tool::ask_in_task`] implies it.
    pub fn asks(mut self) -> Tool {
        self.asks = true;
        self
    }

    /// Whether the tool may ask the user while it runs ([`Tool::asks`],
    /// [`Tool::ask_in_task`]).
    pub fn may_ask(&self) -> bool {
        self.asks || self.asks_in_task
    }

    /// Whether questions make the call a task ([`Tool::ask_in_task`]).
    pub fn asks_in_task(&self) -> bool {
        self.asks_in_task
    }

    /// Whether a client without the Tasks extension gets a job for it (see
    /// [`Tool::never_detached`]).
    pub fn detaches(&self) -> bool {
        self.detaches
    }

    /// How long the task's result is kept (capped by the server's `TASK_MAX_TTL_MS`).
    pub fn ttl(mut self, ttl: Duration) -> Tool {
        self.ttl_ms = Some(ttl.as_millis().min(u64::MAX as u128) as u64);
        self
    }

    /// The step function, with arguments decoded into `A`; the input schema is derived
    /// from `A` unless [`Tool::schema`] gave one. It returns `Result<R, ToolError>`
    /// where `R` is a [`Step`], a typed output (the `outputSchema` is then derived from
    /// it unless [`Tool::output_schema`] gave one) or an [`Output`](super::Output) (see
    /// [`StepResult`]).
    pub fn run<A, R, F, Fut>(self, step: F) -> Tool
    where
        A: DeserializeOwned + JsonSchema + 'static,
        R: StepResult + 'static,
        F: Fn(Call<A>, Host) -> Fut + 'static,
        Fut: Future<Output = R> + 'static,
    {
        let mut tool = self.schemas::<A, R>();
        tool.step = Handler::typed(step);
        tool
    }

    /// The schemas derived from the step function's argument and return types, where
    /// none was given. Raw JSON arguments (`Call` with no type) keep the given schema,
    /// or any object.
    fn schemas<A: JsonSchema + 'static, R: StepResult>(mut self) -> Tool {
        if !self.schema_given && TypeId::of::<A>() != TypeId::of::<Map<String, Value>>() {
            self.definition
                .insert("inputSchema".into(), derived_schema::<A>());
        }
        if let Some(schema) = R::output_schema().filter(|_| !self.output_given) {
            self.definition.insert("outputSchema".into(), schema);
        }
        self
    }

    /// The step function on the raw JSON arguments (give the schema with [`Tool::schema`]).
    pub fn run_json<F, Fut>(mut self, step: F) -> Tool
    where
        F: Fn(Call, Host) -> Fut + 'static,
        Fut: Future<Output = Result<Step, ToolError>> + 'static,
    {
        self.step = Handler::json(step);
        self
    }

    /// A synchronous step function on the raw arguments, with no platform access (give
    /// the schema with [`Tool::schema`]). Typed: [`Tool::run_sync`].
    pub fn sync(mut self, step: fn(&Call) -> Step) -> Tool {
        self.step = Handler::sync(step);
        self
    }

    /// A synchronous step function with typed arguments and result, with no platform
    /// access: `fn(&Call<Args>) -> Result<Out, ToolError>`. The schemas are derived as for
    /// [`Tool::run`].
    pub fn run_sync<A, R, F>(self, step: F) -> Tool
    where
        A: DeserializeOwned + JsonSchema + 'static,
        R: StepResult + 'static,
        F: Fn(&Call<A>) -> R + 'static,
    {
        let mut tool = self.schemas::<A, R>();
        tool.step = Handler::typed(move |call: Call<A>, _host| std::future::ready(step(&call)));
        tool
    }

    /// Lets this tool's requests reach `hosts` too (the format of `FETCH_ALLOWED_HOSTS`,
    /// e.g. `"api.github.com, *.githubusercontent.com"`), whatever the deployment allows:
    /// the explicit way to widen the outbound policy for one tool. A malformed list is a
    /// definition problem ([`crate::server::Server::problems`]).
    pub fn allow_hosts(mut self, hosts: &str) -> Tool {
        self.allow = AllowList::parse(hosts);
        self
    }

    /// Runs when a task of this tool is cancelled, best effort (e.g. tell an external
    /// job to stop). It sees the last checkpoint; its failure does not change the task.
    pub fn on_cancel<F, Fut>(mut self, hook: F) -> Tool
    where
        F: Fn(Call, Host) -> Fut + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        self.cancel = Some(Rc::new(move |call, host| Box::pin(hook(call, host))));
        self
    }

    pub fn name(&self) -> &str {
        self.definition["name"].as_str().unwrap_or_default()
    }

    /// The title a person sees, if the tool has one: its `title`, else its annotations'
    /// (the order the spec gives for a tool's display name).
    pub fn given_title(&self) -> Option<&str> {
        self.definition
            .get("title")
            .or_else(|| self.definition.get("annotations")?.get("title"))
            .and_then(Value::as_str)
    }

    pub fn input_schema(&self) -> &Value {
        &self.definition["inputSchema"]
    }

    pub fn definition(&self) -> Value {
        Value::Object(self.definition.clone())
    }

    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    pub fn ttl_ms(&self) -> Option<u64> {
        self.ttl_ms
    }

    pub fn has_cancel_hook(&self) -> bool {
        self.cancel.is_some()
    }

    /// Runs one step; a [`ToolError`] becomes the step it stands for. Its requests go
    /// through `host`'s outbound policy, widened by [`Tool::allow_hosts`]. A result
    /// always says whether it is an error: `isError: false` where the step left it out.
    pub async fn step(&self, call: Call, host: Host) -> Step {
        let what = format!("the tool {}", self.name());
        match self.step.run(&what, call, self.host(&host)).await {
            Step::Complete(Value::Object(mut result)) => {
                result.entry("isError").or_insert(Value::Bool(false));
                Step::Complete(Value::Object(result))
            }
            // A checkpoint that no longer decodes names the tool (docs/operations.md).
            Step::Fail(mut error)
                if error
                    .data
                    .as_ref()
                    .is_some_and(|d| d.get(super::CHECKPOINT_MISMATCH).is_some()) =>
            {
                error.message = format!(
                    "The tool {:?} cannot resume: {}",
                    self.name(),
                    error.message
                );
                Step::Fail(error)
            }
            step => step,
        }
    }

    /// Runs the cancel hook, if any.
    pub async fn cancelled(&self, call: Call, host: Host) {
        if let Some(hook) = &self.cancel {
            hook(call, self.host(&host)).await
        }
    }

    fn host(&self, host: &Host) -> Host {
        match &self.allow {
            Ok(extra) => host.widened(extra),
            Err(_) => host.clone(),
        }
    }
}

/// The JSON Schema of `A`, as MCP wants it in `inputSchema` and `outputSchema`.
pub(super) fn derived_schema<A: JsonSchema>() -> Value {
    let mut schema = schemars::SchemaGenerator::default()
        .into_root_schema_for::<A>()
        .to_value();
    if let Some(object) = schema.as_object_mut() {
        // 2020-12 is MCP's default dialect; the Rust type name says nothing to a client.
        object.remove("$schema");
        object.remove("title");
    }
    without_number_formats(&mut schema);
    schema
}

/// Removes schemars' `format` of numbers (`uint64`, `int32`, `double`…) from `schema` and
/// its subschemas. They name how Rust stores the value, which the bounds schemars derives
/// beside them already say; every format JSON Schema defines is one of strings (2020-12
/// Validation §7.3), and clients that validate with Ajv print "unknown format" for each.
fn without_number_formats(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            // `"integer"`, or `["integer", "null"]` for an `Option`.
            let types = match object.get("type") {
                Some(Value::Array(types)) => types.as_slice(),
                Some(one) => std::slice::from_ref(one),
                None => &[],
            };
            let number = types
                .iter()
                .any(|t| matches!(t.as_str(), Some("integer" | "number")))
                && !types.iter().any(|t| t == "string");
            if number && object.get("format").is_some_and(Value::is_string) {
                object.remove("format");
            }
            object.values_mut().for_each(without_number_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(without_number_formats),
        _ => {}
    }
}
