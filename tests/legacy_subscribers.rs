//! The subscription registry's writes (`src/legacy/subscribers.rs`): a resource's set of
//! subscribed sessions is bounded, and its object's storage is deleted when the last
//! subscriber leaves, so registries of URIs nobody listens to do not pile up.

mod common;
use common::yield_once;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::legacy::subscribers::{MAX_SUBSCRIBERS, Write, change};
use mcp_tasks_edge::pairs::SortedSet;

const URI: &str = "file:///a.txt";

fn set(ids: &[&str]) -> SortedSet<String> {
    ids.iter().map(|id| id.to_string()).collect()
}

#[test]
fn the_last_subscriber_leaving_deletes_the_registry() {
    assert_eq!(
        change(set(&[]), URI, "s1", true).unwrap(),
        Write::Store(set(&["s1"]))
    );
    assert_eq!(
        change(set(&["s1"]), URI, "s1", true).unwrap(),
        Write::Nothing
    );
    assert_eq!(
        change(set(&["s1", "s2"]), URI, "s1", false).unwrap(),
        Write::Store(set(&["s2"]))
    );
    assert_eq!(
        change(set(&["s2"]), URI, "s2", false).unwrap(),
        Write::Delete
    );
    // Unsubscribing from a registry that holds nothing (never subscribed, or already
    // empty) stores nothing: it deletes whatever is left.
    assert_eq!(change(set(&[]), URI, "s9", false).unwrap(), Write::Delete);
    assert_eq!(
        change(set(&["s1"]), URI, "s9", false).unwrap(),
        Write::Nothing
    );
}

#[test]
fn a_full_registry_refuses_a_new_session_naming_the_resource() {
    let full: SortedSet<String> = (0..MAX_SUBSCRIBERS).map(|i| format!("{i:032x}")).collect();
    let Err(McpError::InvalidParams(why)) = change(full.clone(), URI, "new", true) else {
        panic!("a full registry takes no new session")
    };
    assert!(
        why.contains(URI) && why.contains(&MAX_SUBSCRIBERS.to_string()),
        "{why}"
    );
    // Sessions already in it may subscribe again, and leave.
    let member = format!("{:032x}", 7);
    assert_eq!(
        change(full.clone(), URI, &member, true).unwrap(),
        Write::Nothing
    );
    assert!(
        matches!(change(full, URI, &member, false).unwrap(), Write::Store(s) if s.len() == MAX_SUBSCRIBERS - 1)
    );
}

// ── the registry object's runner, on a platform that decides nothing ──

use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::legacy::subscribers::{RegistryPlatform, RegistryRequest, TELL_AT_ONCE, run};
use std::cell::{Cell, RefCell};

/// What the runner asked of its platform, in order.
#[derive(Debug, Clone, PartialEq)]
enum Call {
    Subscribers,
    Write(Write),
    Tell(String),
    Updated(String),
    Untold(String),
}

#[derive(Default)]
struct Registry {
    stored: SortedSet<String>,
    /// Interior, as `tell` runs several at once on `&self`.
    calls: RefCell<Vec<Call>>,
    /// Sessions that cannot be told (ended).
    gone: Vec<&'static str>,
    broken: bool,
    /// Tells in flight now, and the most at once.
    telling: Cell<usize>,
    most: Cell<usize>,
}

impl Registry {
    fn record(&self, call: Call) {
        self.calls.borrow_mut().push(call);
    }
}

impl RegistryPlatform for Registry {
    async fn subscribers(&mut self) -> Result<SortedSet<String>, String> {
        self.record(Call::Subscribers);
        if self.broken {
            return Err("storage unavailable".into());
        }
        Ok(self.stored.clone())
    }

    async fn write(&mut self, write: Write) -> Result<(), String> {
        self.record(Call::Write(write.clone()));
        match write {
            Write::Store(set) => self.stored = set,
            Write::Delete => self.stored = SortedSet::new(),
            Write::Nothing => {}
        }
        Ok(())
    }

    async fn tell(&self, session: &str, uri: &str) -> Result<(), String> {
        assert_eq!(uri, URI);
        self.record(Call::Tell(session.into()));
        self.telling.set(self.telling.get() + 1);
        self.most.set(self.most.get().max(self.telling.get()));
        // An object round trip: the others may start meanwhile.
        yield_once().await;
        self.telling.set(self.telling.get() - 1);
        match self.gone.contains(&session) {
            true => Err("session not found".into()),
            false => Ok(()),
        }
    }

    async fn updated(&mut self, uri: &str) -> Result<(), String> {
        self.record(Call::Updated(uri.into()));
        Ok(())
    }

    fn untold(&mut self, session: &str, uri: &str, why: &str) {
        assert_eq!((uri, why), (URI, "session not found"));
        self.record(Call::Untold(session.into()));
    }
}

impl Registry {
    fn run(&mut self, request: RegistryRequest) -> (Result<(), McpError>, Vec<Call>) {
        self.calls.get_mut().clear();
        let done = block_on(run(self, request));
        (done, std::mem::take(self.calls.get_mut()))
    }
}

fn add(session: &str) -> RegistryRequest {
    RegistryRequest::Add {
        uri: URI.into(),
        session: session.into(),
    }
}

fn remove(session: &str) -> RegistryRequest {
    RegistryRequest::Remove {
        uri: URI.into(),
        session: session.into(),
    }
}

#[test]
fn the_registry_reads_its_set_then_writes_once_and_only_a_change() {
    let mut registry = Registry::default();
    let (done, calls) = registry.run(add("s1"));
    assert_eq!(done, Ok(()));
    assert_eq!(
        calls,
        [Call::Subscribers, Call::Write(Write::Store(set(&["s1"])))]
    );
    assert_eq!(registry.run(add("s1")).1, [Call::Subscribers]);
    let (_, calls) = registry.run(remove("s1"));
    assert_eq!(calls, [Call::Subscribers, Call::Write(Write::Delete)]);
    assert!(registry.stored.is_empty());
}

#[test]
fn a_full_registry_refuses_and_writes_nothing() {
    let mut registry = Registry {
        stored: (0..MAX_SUBSCRIBERS).map(|n| format!("s{n}")).collect(),
        ..Registry::default()
    };
    let (done, calls) = registry.run(add("late"));
    assert!(matches!(done, Err(McpError::InvalidParams(_))), "{done:?}");
    assert_eq!(calls, [Call::Subscribers]);
}

#[test]
fn an_announcement_tells_every_subscriber_even_past_one_that_ended() {
    let mut registry = Registry {
        stored: set(&["s1", "s2", "s3"]),
        gone: vec!["s2"],
        ..Registry::default()
    };
    let (done, calls) = registry.run(RegistryRequest::Announce { uri: URI.into() });
    assert_eq!(done, Ok(()));
    assert_eq!(
        calls,
        [
            Call::Subscribers,
            Call::Tell("s1".into()),
            Call::Tell("s2".into()),
            Call::Tell("s3".into()),
            Call::Untold("s2".into()),
        ]
    );
    assert_eq!(registry.most.get(), 3, "told at once");
    // A session told of an update only sends it on: no storage of the registry's.
    let (_, calls) = registry.run(RegistryRequest::Updated { uri: URI.into() });
    assert_eq!(calls, [Call::Updated(URI.into())]);
}

#[test]
fn an_announcement_tells_a_full_set_at_most_tell_at_once_sessions_at_a_time() {
    let mut registry = Registry {
        stored: (0..MAX_SUBSCRIBERS).map(|n| format!("s{n:05}")).collect(),
        gone: vec!["s00040", "s09999"],
        ..Registry::default()
    };
    let (done, calls) = registry.run(RegistryRequest::Announce { uri: URI.into() });
    assert_eq!(done, Ok(()));
    assert_eq!(registry.most.get(), TELL_AT_ONCE);
    let told = calls.iter().filter(|c| matches!(c, Call::Tell(_))).count();
    assert_eq!(told, MAX_SUBSCRIBERS, "every subscriber told once");
    // The second batch's failure is logged before the third batch starts.
    let at = |call: &Call| calls.iter().position(|c| c == call).unwrap();
    let untold = at(&Call::Untold("s00040".into()));
    assert!(at(&Call::Tell("s00063".into())) < untold);
    assert!(untold < at(&Call::Tell("s00064".into())));
    assert_eq!(calls.last(), Some(&Call::Untold("s09999".into())));
}

#[test]
fn a_registry_whose_storage_fails_answers_an_internal_error() {
    let mut registry = Registry {
        broken: true,
        ..Registry::default()
    };
    let (done, calls) = registry.run(add("s1"));
    assert!(matches!(done, Err(McpError::Internal(_))), "{done:?}");
    assert_eq!(calls, [Call::Subscribers]);
}

#[test]
fn registry_requests_round_trip_and_malformed_ones_are_refused() {
    for request in [
        add("s1"),
        remove("s1"),
        RegistryRequest::Announce { uri: URI.into() },
        RegistryRequest::Updated { uri: URI.into() },
    ] {
        let decoded = RegistryRequest::decode(request.op(), request.body().as_bytes());
        assert_eq!(decoded, Ok(request));
    }
    for (op, body) in [
        ("add", r#"{"uri":"file:///a.txt"}"#),
        ("announce", r#"{"uri":"file:///a.txt","session":"s1"}"#),
        ("drop", r#"{"uri":"file:///a.txt"}"#),
        ("add", "not json"),
    ] {
        let refused = RegistryRequest::decode(op, body.as_bytes());
        assert!(
            matches!(refused, Err(McpError::InvalidRequest(_))),
            "{op} {body}: {refused:?}"
        );
    }
}

#[test]
fn a_registry_answers_as_every_object_answers() {
    use mcp_tasks_edge::host::block_on;
    use mcp_tasks_edge::legacy::subscribers::serve;
    use mcp_tasks_edge::tasks::protocol::ObjectReply;
    let mut registry = Registry::default();
    let body = add("s1").body();
    let added = block_on(serve(&mut registry, "add", body.as_bytes()));
    assert_eq!(added, ObjectReply::Result(serde_json::json!({})));
    let ObjectReply::Error(refused) = block_on(serve(&mut registry, "drop", body.as_bytes()))
    else {
        panic!("an unknown op is refused");
    };
    assert_eq!(refused.code.0, -32600);
}
