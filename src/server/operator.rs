//! An operator's request (`crate::ops::admin`), once for every platform: performed on the
//! task objects and the principal's index, logged (event `admin`, whatever the outcome),
//! answered.

use super::creation::Creating;
use super::my_tasks::{Index, TaskFilter, index_page, page_result};
use super::{Envelope, Server, error_response, result_response};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::RequestId;
use crate::ops::admin::AdminRequest;
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::Value;

/// Performs `request` for `operator` (authenticated as one: `ops::admin::is_operator`),
/// logs it and answers it.
pub async fn perform<P: Creating + Index>(
    server: &Server,
    p: &P,
    operator: &str,
    request_id: &RequestId,
    request: AdminRequest,
    envelope: &Envelope,
) -> HttpResponse {
    let (response, outcome) = match &request {
        AdminRequest::List { principal, cursor } => {
            match list(p, principal, cursor.as_deref(), operator).await {
                Ok(result) => (
                    result_response(request_id, &result, envelope),
                    "ok".to_owned(),
                ),
                Err(e) => (
                    error_response(Some(request_id), &e, envelope),
                    e.to_wire().message,
                ),
            }
        }
        AdminRequest::Get { task_id } => {
            let inspect = ObjectRequest::Inspect {
                task_id: task_id.clone(),
            };
            on_object(server, p, operator, &inspect, request_id, envelope).await
        }
        AdminRequest::Cancel { task_id } => {
            let cancel = ObjectRequest::OperatorCancel {
                task_id: task_id.clone(),
            };
            on_object(server, p, operator, &cancel, request_id, envelope).await
        }
    };
    p.print(request.log_line(operator, None, &outcome));
    response
}

/// `request` to its task's object as `operator`: the answer, and how it ended for the log
/// (`ok`, `not_found`, or why not).
async fn on_object<P: Creating>(
    server: &Server,
    p: &P,
    operator: &str,
    request: &ObjectRequest,
    request_id: &RequestId,
    envelope: &Envelope,
) -> (HttpResponse, String) {
    let reply = p.forward(operator, request).await;
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
        Ok((status, body)) => server.object_response(request_id, status, &body, envelope),
        Err(why) => server.object_unreachable(request_id, &why, envelope),
    };
    (response, outcome)
}

/// A page of `principal`'s tasks as the operator sees them, newest first (a listed task
/// that expired meanwhile is skipped, as in the owner's list).
async fn list<P: Creating + Index>(
    p: &P,
    principal: &str,
    cursor: Option<&str>,
    operator: &str,
) -> Result<Value, McpError> {
    let (ids, next) = index_page(p, principal, cursor).await?;
    let mut tasks = Vec::new();
    for task_id in ids {
        let request = ObjectRequest::Inspect { task_id };
        if let Ok(mut result) = ObjectReply::outcome(p.forward(operator, &request).await) {
            tasks.push(result["task"].take());
        }
    }
    Ok(page_result(tasks, next, &TaskFilter::default()))
}
