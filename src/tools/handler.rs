//! A step function, erased: what tools and prompts run, whatever their argument and
//! result types.

use super::{Call, Step, StepResult, ToolError};
use crate::host::{BoxFuture, Host};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::Future;
use std::rc::Rc;

pub(crate) type StepFn = Rc<dyn Fn(Call, Host) -> BoxFuture<'static, Result<Step, ToolError>>>;
pub(crate) type CancelFn = Rc<dyn Fn(Call, Host) -> BoxFuture<'static, ()>>;

/// A step function, erased: what tools and prompts run.
#[derive(Clone, Default)]
pub(crate) struct Handler(Option<StepFn>);

impl Handler {
    /// Decodes the arguments into `A` (-32602 if they do not fit) and runs `step`.
    pub(crate) fn typed<A, R, F, Fut>(step: F) -> Handler
    where
        A: DeserializeOwned + 'static,
        R: StepResult + 'static,
        F: Fn(Call<A>, Host) -> Fut + 'static,
        Fut: Future<Output = R> + 'static,
    {
        Handler(Some(Rc::new(
            move |call: Call, host| match crate::jsonrpc::from_value::<A>(Value::Object(
                call.arguments.clone(),
            )) {
                Ok(args) => {
                    let step = step(call.with_args(args), host);
                    Box::pin(async move { Ok(step.await.into_step()) })
                }
                Err(e) => Box::pin(std::future::ready(Err(ToolError::invalid_params(format!(
                    "Invalid arguments: {e}"
                ))))),
            },
        )))
    }

    pub(crate) fn json<F, Fut>(step: F) -> Handler
    where
        F: Fn(Call, Host) -> Fut + 'static,
        Fut: Future<Output = Result<Step, ToolError>> + 'static,
    {
        Handler(Some(Rc::new(move |call, host| Box::pin(step(call, host)))))
    }

    pub(crate) fn sync(step: fn(&Call) -> Step) -> Handler {
        Handler(Some(Rc::new(move |call, _host| {
            Box::pin(std::future::ready(Ok(step(&call))))
        })))
    }

    pub(crate) fn is_set(&self) -> bool {
        self.0.is_some()
    }

    /// Runs one step; a [`ToolError`] becomes the step it stands for.
    pub(crate) async fn run(&self, what: &str, call: Call, host: Host) -> Step {
        match &self.0 {
            Some(step) => step(call, host).await.unwrap_or_else(ToolError::into_step),
            None => Step::Fail(super::internal_error(format!(
                "{what} has no step function"
            ))),
        }
    }
}
