//! An operator's request (`crate::ops::admin`): performed on the task objects and the
//! principal's index, logged (event `admin`, whatever the outcome), answered.

use super::log;
use super::my_tasks::index_page;
use super::rpc::call_object_traced;
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::RequestId;
use crate::ops::admin::AdminRequest;
use crate::server::my_tasks::{TaskFilter, page_result};
use crate::server::{self, Cors, Server};
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::Value;
use worker::Env;

/// Performs `request` for `operator` (authenticated as one: `ops::admin::is_operator`)
/// and answers it; `trace` is the Worker's request id.
pub(crate) async fn perform(
    server: &Server,
    env: &Env,
    operator: &str,
    trace: &str,
    request_id: &RequestId,
    request: AdminRequest,
    cors: &Cors,
) -> HttpResponse {
    let (response, outcome) = match (&request, request.object_request()) {
        (AdminRequest::List { principal, cursor }, _) => {
            match list(env, principal, cursor.as_deref(), operator, trace).await {
                Ok(result) => (
                    server::result_response(request_id, &result, cors),
                    "ok".to_owned(),
                ),
                Err(e) => (
                    server::error_response(Some(request_id), &e, cors),
                    e.to_wire().message,
                ),
            }
        }
        (_, Some(object_request)) => {
            let reply = call_object_traced(env, &object_request, operator, Some(trace)).await;
            let outcome = match &reply {
                Ok((status, body)) => match ObjectReply::decode(*status, body) {
                    Ok(ObjectReply::Result(_)) => "ok".to_owned(),
                    Ok(ObjectReply::Error(e)) if e == McpError::TaskNotFound.to_wire() => {
                        "not_found".to_owned()
                    }
                    Ok(ObjectReply::Error(e)) => e.message,
                    Err(why) => why,
                },
                Err(why) => why.clone(),
            };
            let response = match reply {
                Ok((status, body)) => server.object_response(request_id, status, &body, cors),
                Err(why) => server.object_unreachable(request_id, &why, cors),
            };
            (response, outcome)
        }
        (_, None) => unreachable!("only List has no object request"),
    };
    log::print(
        &request.log_line(operator, Some(trace), &outcome),
        &server.config.log,
    );
    response
}

/// A page of `principal`'s tasks as the operator sees them, newest first.
async fn list(
    env: &Env,
    principal: &str,
    cursor: Option<&str>,
    operator: &str,
    trace: &str,
) -> Result<Value, McpError> {
    let (ids, next) = index_page(env, principal, cursor).await?;
    let mut tasks = Vec::new();
    for task_id in ids {
        let request = ObjectRequest::Inspect { task_id };
        let reply = call_object_traced(env, &request, operator, Some(trace)).await;
        // A listed task that expired meanwhile is skipped, as in the owner's list.
        if let Ok(mut result) = ObjectReply::outcome(reply) {
            tasks.push(result["task"].take());
        }
    }
    Ok(page_result(tasks, next, &TaskFilter::default()))
}
