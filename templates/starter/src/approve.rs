//! `approve`: asks the user to approve something, then records the decision in the D1
//! database bound as `DB`; `decisions` reads it back. Shows a typed question
//! (`call.ask::<Approval>`: the form is derived from [`Approval`], the answer decoded into
//! it) and a write with `host.d1(..)`.
//!
//! With the Tasks extension the question makes the call a task (`.ask_in_task()`), which
//! waits in `input_required` for as long as the user takes; other clients are asked by an
//! MRTR round. Either way the step runs again with the answer, and only then writes.

use crate::decisions::{DB, Decision};
use mcp_tasks_edge::prelude::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// What to approve, e.g. "deploying v2"
    #[schemars(length(min = 1, max = 200))]
    pub subject: String,
}

/// The form the user fills in.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Approval {
    /// Approve it?
    pub approve: bool,
    /// Why (optional)
    #[serde(default)]
    pub reason: Option<String>,
}

pub fn tool() -> Tool {
    Tool::new(
        "approve",
        "Asks the user to approve or reject something (e.g. \"deploying v2\") and records the decision; the decisions tool lists them.",
    )
    .title("Approve")
    .task(TaskSupport::Optional)
    .ask_in_task()
    .run(approve)
}

pub async fn approve(call: Call<Args>, host: Host) -> Result<Decision, ToolError> {
    let subject = &call.args.subject;
    // Until the answer is there, `?` returns the question.
    let approval = match call.ask::<Approval>("approval", &format!("Approve {subject}?"))? {
        Answer::Accept(approval) => approval,
        Answer::Decline | Answer::Cancel => {
            return Err(ToolError::message(format!(
                "No decision on {subject}: the user did not answer."
            )));
        }
    };
    let decided_at = host.now_ms();
    // One statement writes the row and answers its id. The step runs again only if its
    // instance died after the write (a task's retry), so a decision may be recorded twice
    // then; a tool whose effect must happen once keys it on `call.task_id`.
    let rows = host
        .d1(DB)
        .query(
            "INSERT INTO decisions (subject, approved, reason, decided_at) \
             VALUES (?1, ?2, ?3, ?4) RETURNING id",
            vec![
                json!(subject),
                json!(approval.approve),
                json!(approval.reason),
                json!(decided_at),
            ],
        )
        .await?;
    let id = rows
        .first()
        .and_then(|row| row.get("id"))
        .and_then(Value::as_i64)
        .ok_or_else(|| ToolError::internal("D1 answered the insert without the new row's id"))?;
    Ok(Decision {
        id,
        subject: subject.clone(),
        approved: approval.approve,
        reason: approval.reason,
        decided_at,
    })
}
