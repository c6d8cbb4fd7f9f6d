//! The watcher of one upstream (`gateway::watch`), as a Durable Object runs it: it loads
//! its one row, lets the pure functions below decide, and writes once; the adapter
//! (`cloudflare::upstream_object`) only stores.

use crate::error::McpError;
use crate::gateway::Settings;
use crate::gateway::watch::{Ask, Heard, Held, Record, hold};
use crate::host::Host;
use crate::objects::Write;
use crate::tasks::protocol::ObjectReply;

/// The watcher's one storage row.
pub const WATCH_KEY: &str = "watch";
/// Unasked this long, a watcher stops and erases itself.
pub const IDLE_MS: u64 = 10 * 60_000;
/// The longest one hold of the stream (an alarm may run 15 minutes on Cloudflare).
pub const HOLD_MS: u64 = 5 * 60_000;
/// How stale the stored time of the last ask may be (asks are not each a write).
const ASKED_WRITE_MS: u64 = 60_000;
/// A stream that ends sooner than this after it opened counts as a failure, so an
/// upstream that closes it at once is not reconnected to in a loop.
const SHORT_MS: u64 = 30_000;
/// The first retry after a failure, doubled at each one after it, up to the most.
const RETRY_MS: u64 = 1_000;
const MAX_RETRY_MS: u64 = 5 * 60_000;
/// An alarm this late was lost: an ask sets it again.
const LOST_MS: u64 = 60_000;
/// How long after `UPSTREAM_WATCH_CHECK_MS` a change is announced to the sessions.
const ANNOUNCE_MARGIN_MS: u64 = 250;

/// What the alarm does.
#[derive(Debug, Clone, PartialEq)]
pub enum Wake {
    /// Issue `write` (the hold's end noted as due), then hold the upstream's stream until
    /// `until_ms`.
    Hold {
        upstream: String,
        until_ms: u64,
        write: Write,
    },
    /// Nothing to hold: issue this write (the watcher's erasure) and end.
    Stop(Write),
}

/// The answer to an ask at `now_ms`, and the write it needs: a stopped watcher starts
/// (its record, and the alarm now); a running one notes the ask at most every
/// `ASKED_WRITE_MS`, and sets its alarm again if it was lost.
pub fn ask(stored: Option<Record>, upstream: &str, now_ms: u64) -> (Heard, Option<Write>) {
    match stored {
        Some(mut record) if record.upstream == upstream => {
            let heard = record.heard;
            let lost = now_ms > record.due_ms.saturating_add(LOST_MS);
            if !lost && now_ms.saturating_sub(record.asked_at_ms) < ASKED_WRITE_MS {
                return (heard, None);
            }
            record.asked_at_ms = now_ms;
            if lost {
                record.due_ms = now_ms;
            }
            (heard, Some(put(&record, lost.then_some(now_ms))))
        }
        // None, or a record of another name (never: the object is named by it).
        _ => {
            let record = Record {
                upstream: upstream.to_owned(),
                heard: Heard {
                    since_ms: now_ms,
                    changes: 0,
                },
                asked_at_ms: now_ms,
                failures: 0,
                due_ms: now_ms,
            };
            (record.heard, Some(put(&record, Some(now_ms))))
        }
    }
}

/// What the alarm at `now_ms` does: hold the stream while the watcher is asked, else stop.
pub fn wake(stored: Option<Record>, now_ms: u64) -> Wake {
    match stored {
        Some(mut record) if now_ms.saturating_sub(record.asked_at_ms) < IDLE_MS => {
            let until_ms = now_ms + HOLD_MS;
            record.due_ms = until_ms;
            Wake::Hold {
                write: put(&record, None),
                upstream: record.upstream,
                until_ms,
            }
        }
        _ => Wake::Stop(Write::erase()),
    }
}

/// The write when the stream carried a `notifications/tools/list_changed`.
pub fn changed(stored: Option<Record>) -> Option<Write> {
    let mut record = stored?;
    record.heard.changes += 1;
    Some(put(&record, None))
}

/// The write after a hold that began at `began_ms` ended as `held` at `now_ms`: the next
/// hold's alarm, at once after a full hold, after `RETRY_MS` when the upstream ended a
/// long stream, later after each failure in a row (or none: the watcher was erased
/// meanwhile).
pub fn held(stored: Option<Record>, held: &Held, began_ms: u64, now_ms: u64) -> Option<Write> {
    let mut record = stored?;
    let short = now_ms.saturating_sub(began_ms) < SHORT_MS;
    let next_ms = match held {
        Held::Deadline => {
            record.failures = 0;
            now_ms
        }
        Held::Ended if !short => {
            record.failures = 0;
            now_ms + RETRY_MS
        }
        Held::Ended | Held::Failed(_) => {
            record.failures = record.failures.saturating_add(1);
            let doubled = RETRY_MS.saturating_mul(1 << record.failures.min(20));
            now_ms + doubled.min(MAX_RETRY_MS)
        }
    };
    record.due_ms = next_ms;
    Some(put(&record, Some(next_ms)))
}

fn put(record: &Record, alarm_ms: Option<u64>) -> Write {
    let value = serde_json::to_string(record).expect("a watch record serializes");
    Write {
        put: vec![(WATCH_KEY.to_owned(), value)],
        alarm: alarm_ms.map(Some),
        ..Write::default()
    }
}

/// A watcher's storage and clock, as the adapter gives them.
#[allow(async_fn_in_trait)]
pub trait WatchPlatform {
    /// The [`WATCH_KEY`] row, if the watcher runs.
    async fn record(&self) -> Result<Option<String>, String>;
    /// Issues `write` as one transaction.
    async fn write(&self, write: Write) -> Result<(), String>;
    fn now_ms(&self) -> u64;
    /// Tells the gateway's 2025-11-25 sessions that a tool list changed (best effort: the
    /// platform logs a failure).
    async fn announce(&self);
}

async fn load<P: WatchPlatform>(p: &P) -> Result<Option<Record>, String> {
    match p.record().await? {
        None => Ok(None),
        Some(row) => crate::jsonrpc::read(row.as_bytes())
            .map(Some)
            .map_err(|e| format!("a watch record that does not decode: {e}")),
    }
}

async fn apply<P: WatchPlatform>(p: &P, write: Option<Write>) -> Result<(), String> {
    match write {
        Some(write) => p.write(write).await,
        None => Ok(()),
    }
}

/// One [`Ask`] as it arrived (JSON), answered as every object answers
/// (`tasks::protocol::ObjectReply`): its [`Heard`], or a -32603 saying why not.
pub async fn serve<P: WatchPlatform>(p: &P, body: Result<Vec<u8>, String>) -> ObjectReply {
    let answered = async {
        let body = body?;
        let request: Ask = crate::jsonrpc::read(&body)
            .map_err(|e| format!("a watch request that does not decode: {e}"))?;
        let (heard, write) = ask(load(p).await?, &request.upstream, p.now_ms());
        apply(p, write).await?;
        Ok::<_, String>(heard)
    };
    match answered.await {
        Ok(heard) => ObjectReply::Result(crate::jsonrpc::payload(&heard)),
        Err(e) => ObjectReply::Error(McpError::Internal(e).to_wire()),
    }
}

/// The watcher's alarm: while it is asked, one hold of `upstream`'s stream (found by name
/// in `settings`; an upstream no longer configured stops it), each change counted as it
/// is heard and announced to the sessions `UPSTREAM_WATCH_CHECK_MS` later, then the next
/// alarm. Answers how the hold ended, for the log (`None`: the watcher stopped).
pub async fn alarm<P: WatchPlatform>(
    p: &P,
    host: &Host,
    settings: &Settings,
) -> Result<Option<(String, Held)>, String> {
    let began_ms = p.now_ms();
    let (name, until_ms, write) = match wake(load(p).await?, began_ms) {
        Wake::Stop(write) => return p.write(write).await.map(|()| None),
        Wake::Hold {
            upstream,
            until_ms,
            write,
        } => (upstream, until_ms, write),
    };
    let Some(upstream) = settings.upstream(&name) else {
        return p.write(Write::erase()).await.map(|()| None);
    };
    p.write(write).await?;
    let timeout_ms = until_ms.saturating_sub(began_ms);
    let on_change = || async {
        apply(p, changed(load(p).await?)).await?;
        // The sessions are told once every isolate has asked the watcher since the change,
        // so the `tools/list` a client sends on hearing it gets the new list.
        if settings.watch_check_ms > 0 {
            host.sleep(settings.watch_check_ms + ANNOUNCE_MARGIN_MS)
                .await;
            p.announce().await;
        }
        Ok(())
    };
    let ended = hold(host, upstream, settings, timeout_ms, on_change).await;
    apply(p, held(load(p).await?, &ended, began_ms, p.now_ms())).await?;
    Ok(Some((name, ended)))
}
