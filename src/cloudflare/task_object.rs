//! `TaskObject`: one Durable Object per task, named by the task id. It loads the task
//! record, lets the pure core (`tasks::object`) decide, and applies the storage effects.
//! Replies leave only after the write: the runtime's output gate holds them until the
//! storage write is durable, which is what makes task creation strongly consistent.

use super::{now_ms, with_server};
use crate::tasks::object::{self, AlarmPlan, Effects};
use crate::tasks::protocol::{ObjectReply, ObjectRequest, PRINCIPAL_HEADER};
use crate::tasks::record::TaskRecord;
use worker::{DurableObject, Env, Request, Response, Result, ScheduledTime, State, durable_object};

/// The storage key holding the whole record (one key: one read, one write per request).
const RECORD_KEY: &str = "task";

#[durable_object]
pub struct TaskObject {
    state: State,
    env: Env,
}

impl TaskObject {
    async fn load(&self) -> Result<Option<TaskRecord>> {
        match self.state.storage().get::<String>(RECORD_KEY).await? {
            None => Ok(None),
            Some(json) => serde_json::from_str(&json)
                .map(Some)
                .map_err(|e| worker::Error::RustError(format!("corrupt task record: {e}"))),
        }
    }

    async fn apply(&self, effects: Effects) -> Result<()> {
        let storage = self.state.storage();
        if effects.delete_all {
            storage.delete_alarm().await?;
            storage.delete_all().await?;
            return Ok(());
        }
        if let Some(record) = &effects.store {
            let json = serde_json::to_string(record)
                .map_err(|e| worker::Error::RustError(e.to_string()))?;
            storage.put(RECORD_KEY, json).await?;
        }
        match effects.alarm {
            None => {}
            Some(None) => storage.delete_alarm().await?,
            Some(Some(at_ms)) => {
                let at = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at_ms as f64));
                storage.set_alarm(ScheduledTime::new(at)).await?
            }
        }
        Ok(())
    }
}

impl DurableObject for TaskObject {
    fn new(state: State, env: Env) -> Self {
        TaskObject { state, env }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        // Set by the Worker on every call; a Durable Object is not reachable from outside.
        let principal = req.headers().get(PRINCIPAL_HEADER)?.unwrap_or_default();
        let request: ObjectRequest = match req.json().await {
            Ok(request) => request,
            Err(e) => return Response::error(format!("bad object request: {e}"), 400),
        };
        let stored = self.load().await?;
        let (reply, effects): (ObjectReply, Effects) =
            object::handle(stored, request, &principal, now_ms());
        self.apply(effects).await?;
        let (status, body) = reply.encode();
        Ok(Response::from_bytes(body)?.with_status(status))
    }

    async fn alarm(&self) -> Result<Response> {
        let stored = self.load().await?;
        match object::alarm(stored, now_ms()) {
            AlarmPlan::Done(effects) => self.apply(effects).await?,
            AlarmPlan::RunStep { mark, running } => {
                // The mark is durable before the step runs: a crash inside the step
                // cannot leave the task silently stuck (see `object::AlarmPlan`).
                self.apply(mark).await?;
                let effects = with_server(&self.env, |s| {
                    object::run_step(running, &s.registry, now_ms())
                })?;
                self.apply(effects).await?;
            }
        }
        Response::empty()
    }
}
