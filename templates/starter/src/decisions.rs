//! `decisions`: reads back what `approve` recorded in the D1 database bound as `DB` (the
//! table `migrations/0001_decisions.sql` creates), newest first. Shows `host.d1(..)` with
//! a typed read: each row decoded into [`Row`], then turned into the tool's output.

use mcp_tasks_edge::prelude::*;

/// The binding both tools use (`[[d1_databases]] binding = "DB"` in wrangler.toml).
pub const DB: &str = "DB";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Only the decisions about this subject (default: every subject)
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub subject: Option<String>,
    /// How many decisions at most, newest first (default 10)
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

/// One recorded decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub id: i64,
    /// What was decided on
    pub subject: String,
    pub approved: bool,
    /// Why, if the user said
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When, in Unix milliseconds
    pub decided_at: u64,
}

/// The result: the decisions found, newest first.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decisions {
    pub decisions: Vec<Decision>,
}

/// A row as D1 answers it: SQLite has no boolean, so `approved` is 0 or 1.
#[derive(Deserialize)]
struct Row {
    id: i64,
    subject: String,
    approved: i64,
    reason: Option<String>,
    decided_at: u64,
}

impl From<Row> for Decision {
    fn from(row: Row) -> Self {
        Decision {
            id: row.id,
            subject: row.subject,
            approved: row.approved != 0,
            reason: row.reason,
            decided_at: row.decided_at,
        }
    }
}

pub fn tool() -> Tool {
    Tool::new(
        "decisions",
        "Lists the decisions the approve tool recorded, newest first, optionally about one subject.",
    )
    .title("Decisions")
    .annotations(Annotations::new().read_only().open_world(false))
    .run(decisions)
}

pub async fn decisions(call: Call<Args>, host: Host) -> Result<Decisions, ToolError> {
    let limit = call.args.limit.unwrap_or(10);
    // ?1 is NULL when no subject is given: every subject.
    let rows: Vec<Row> = host
        .d1(DB)
        .query_as(
            "SELECT id, subject, approved, reason, decided_at FROM decisions \
             WHERE ?1 IS NULL OR subject = ?1 ORDER BY id DESC LIMIT ?2",
            vec![json!(call.args.subject), json!(limit)],
        )
        .await?;
    Ok(Decisions {
        decisions: rows.into_iter().map(Decision::from).collect(),
    })
}
