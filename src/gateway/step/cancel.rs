//! Cancelling an upstream call or task (the cancel hook of an upstream tool, and the
//! Worker's inline call the task object takes over).

use super::{Checkpoint, UpstreamTool};
use crate::gateway::client::params::CancelledParams;
use crate::gateway::client::{self, Session};
use crate::host::Host;
use crate::jsonrpc;
use crate::tools::Call;
use std::rc::Rc;

/// Tells the upstream a call is cancelled (`notifications/cancelled`) and ends its
/// session (2025-11-25; at 2026-07-28 a call is cancelled by closing its connection).
pub(super) async fn cancel_call(tool: &UpstreamTool, session: &Session, request: u64, close: bool) {
    if !session.is_modern() {
        let params = jsonrpc::payload(&CancelledParams {
            request_id: request,
            reason: "cancelled by the gateway's caller",
        });
        let _ = session
            .notify("notifications/cancelled", params, tool.quick())
            .await;
        if close {
            session.close(tool.quick()).await;
        }
    }
}

/// The cancel hook: the upstream's call or task is cancelled too, best effort.
pub async fn cancelled(tool: Rc<UpstreamTool>, call: Call, host: Host) {
    match call.checkpoint::<Checkpoint>() {
        Ok(Some(Checkpoint::Calling {
            session,
            version,
            request,
        })) => {
            if let Ok(session) = tool.resumed(&call, &host, session, &version) {
                cancel_call(&tool, &session, request, true).await;
            }
        }
        Ok(Some(Checkpoint::Following {
            session,
            version,
            task,
            ..
        })) => {
            if let Ok(mut session) = tool.resumed(&call, &host, session, &version) {
                let _ = session
                    .request(
                        "tasks/cancel",
                        client::task_params(&task, None),
                        tool.quick(),
                    )
                    .await;
            }
        }
        _ => {}
    }
}
