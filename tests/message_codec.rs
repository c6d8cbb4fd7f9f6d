//! The internal messages between the Worker and its objects, read by hand
//! (src/jsonrpc/tagged.rs) and written by serde's derive: every variant reads back to the
//! very bytes the previous code wrote and read (an old Worker may talk to a new object
//! during a deploy), and a missing or mistyped tag or member is refused by name. Also the
//! request id, read without serde's untagged buffering.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::jsonrpc::RequestId;
use mcp_tasks_edge::quota::LedgerRequest;
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use mcp_tasks_edge::tasks::watch::WatchMessage;
use serde::Serialize;
use serde::de::DeserializeOwned;

const RECORD: &str = r#"{"taskId":"t1","owner":"alice","tool":"greet","arguments":{},"capabilities":{},"status":"completed","result":{"content":[]},"createdAtMs":1,"lastUpdatedAtMs":2,"ttlMs":null,"pollIntervalMs":1000,"checkpoint":null,"answers":{},"round":0,"version":0}"#;

const QUOTAS: &str = r#"{"tasksPerMinute":60,"liveTasks":null,"listenStreams":10,"sessions":20}"#;

fn object_requests() -> Vec<String> {
    let mut all = vec![format!(r#"{{"op":"create","record":{RECORD}}}"#)];
    for op in ["get", "cancel", "timeline", "inspect", "operator_cancel"] {
        all.push(format!(r#"{{"op":"{op}","taskId":"t1"}}"#));
    }
    all.push(
        r#"{"op":"update","taskId":"t1","inputResponses":{"name#1":{"action":"accept"}}}"#.into(),
    );
    all
}

fn ledger_requests() -> Vec<String> {
    let q = QUOTAS;
    vec![
        format!(r#"{{"op":"acquireRun","quotas":{q}}}"#),
        format!(
            r#"{{"op":"acquireTask","taskId":"t1","untilMs":5,"quotas":{q},"counted":true,"index":false}}"#
        ),
        format!(
            r#"{{"op":"acquireTask","taskId":"t1","untilMs":null,"quotas":{q},"counted":false,"index":true}}"#
        ),
        r#"{"op":"releaseTask","taskId":"t1"}"#.into(),
        format!(r#"{{"op":"acquireStream","streamId":"s1","quotas":{q}}}"#),
        r#"{"op":"releaseStream","streamId":"s1"}"#.into(),
        format!(r#"{{"op":"acquireSession","sessionId":"x","untilMs":9,"quotas":{q}}}"#),
        r#"{"op":"releaseSession","sessionId":"x"}"#.into(),
        r#"{"op":"listTasks"}"#.into(),
        r#"{"op":"listTasks","before":"index.123"}"#.into(),
    ]
}

fn watch_messages() -> Vec<String> {
    vec![
        r#"{"kind":"task","version":7,"task":{"status":"working","taskId":"t1"}}"#.into(),
        r#"{"kind":"changed","version":8}"#.into(),
        r#"{"kind":"gone"}"#.into(),
    ]
}

fn round_trip<T: Serialize + DeserializeOwned>(text: &str) {
    let decoded: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(serde_json::to_string(&decoded).unwrap(), text);
    // The objects read their requests from bytes, the Worker its watch messages from text.
    let decoded: T = serde_json::from_slice(text.as_bytes()).unwrap();
    assert_eq!(serde_json::to_string(&decoded).unwrap(), text);
}

#[test]
fn every_variant_reads_back_to_the_same_bytes() {
    object_requests()
        .iter()
        .for_each(|t| round_trip::<ObjectRequest>(t));
    ledger_requests()
        .iter()
        .for_each(|t| round_trip::<LedgerRequest>(t));
    watch_messages()
        .iter()
        .for_each(|t| round_trip::<WatchMessage>(t));
    assert_eq!(
        WatchMessage::decode(r#"{"kind":"gone"}"#),
        Ok(WatchMessage::Gone)
    );
}

#[test]
fn absent_defaults_read_as_the_previous_code_read_them() {
    let q = QUOTAS;
    let old = format!(r#"{{"op":"acquireTask","taskId":"t1","quotas":{q}}}"#);
    let request: LedgerRequest = serde_json::from_str(&old).unwrap();
    let LedgerRequest::AcquireTask {
        until_ms,
        counted,
        index,
        ..
    } = request
    else {
        panic!("{request:?}");
    };
    assert_eq!((until_ms, counted, index), (None, false, true));
    let request: LedgerRequest =
        serde_json::from_str(r#"{"op":"listTasks","before":null}"#).unwrap();
    assert_eq!(request, LedgerRequest::ListTasks { before: None });
    // Members the variant does not have are ignored, as before.
    let request: ObjectRequest =
        serde_json::from_str(r#"{"taskId":"t1","extra":1,"op":"get"}"#).unwrap();
    assert_eq!(request.task_id(), "t1");
}

fn error<T: DeserializeOwned + std::fmt::Debug>(text: &str) -> String {
    serde_json::from_str::<T>(text)
        .map(|v| panic!("{text} read as {v:?}"))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_missing_or_mistyped_tag_or_member_is_refused_by_name() {
    let q = QUOTAS;
    let object_cases = [
        (r#"{"taskId":"t1"}"#.to_owned(), r#""op" is missing"#),
        (
            r#"{"op":3,"taskId":"t1"}"#.into(),
            r#""op" must be a string"#,
        ),
        (
            r#"{"op":"Get","taskId":"t1"}"#.into(),
            r#"unknown op "Get""#,
        ),
        (
            r#"["get"]"#.into(),
            r#"a message tagged by "op" must be a JSON object"#,
        ),
        (r#"{"op":"get"}"#.into(), r#"op "get": taskId is missing"#),
        (
            r#"{"op":"get","taskId":7}"#.into(),
            r#"op "get": taskId must be a string"#,
        ),
        (
            r#"{"op":"update","taskId":"t1","inputResponses":[]}"#.into(),
            r#"op "update": inputResponses must be an object"#,
        ),
        (
            r#"{"op":"create","record":{"taskId":"t1"}}"#.into(),
            r#"op "create": record is invalid: missing field"#,
        ),
        (
            format!(
                r#"{{"op":"create","record":{}}}"#,
                RECORD.replace(r#""result":{"content":[]},"#, "")
            ),
            r#"op "create": record is invalid: task record t1: missing field `result` (status completed carries it)"#,
        ),
    ];
    for (text, words) in object_cases {
        let e = error::<ObjectRequest>(&text);
        assert!(e.contains(words), "{text}: {e}");
    }
    let ledger_cases = [
        (
            format!(r#"{{"op":"acquireTask","taskId":"t1","untilMs":-1,"quotas":{q}}}"#),
            r#"op "acquireTask": untilMs must be a non-negative integer or null"#,
        ),
        (
            format!(r#"{{"op":"acquireTask","taskId":"t1","quotas":{q},"counted":null}}"#),
            r#"op "acquireTask": counted must be a boolean"#,
        ),
        (
            r#"{"op":"acquireRun","quotas":{"liveTasks":"x"}}"#.into(),
            r#"op "acquireRun": quotas is invalid"#,
        ),
        (
            format!(r#"{{"op":"acquireSession","sessionId":"x","quotas":{q}}}"#),
            r#"op "acquireSession": untilMs is missing"#,
        ),
        (
            r#"{"op":"releaseStream","streamId":null}"#.into(),
            r#"op "releaseStream": streamId must be a string"#,
        ),
        (
            r#"{"op":"listTasks","before":1}"#.into(),
            r#"op "listTasks": before must be a string or null"#,
        ),
        (
            r#"{"op":"list_tasks"}"#.into(),
            r#"unknown op "list_tasks""#,
        ),
    ];
    for (text, words) in ledger_cases {
        let e = error::<LedgerRequest>(&text);
        assert!(e.contains(words), "{text}: {e}");
    }
    for (text, words) in [
        (r#"{"version":1}"#, r#""kind" is missing"#),
        (
            r#"{"kind":"task","version":1}"#,
            r#"kind "task": task is missing"#,
        ),
        (
            r#"{"kind":"changed","version":"1"}"#,
            r#"kind "changed": version must be a non-negative integer"#,
        ),
        (
            r#"{"kind":"changed"}"#,
            r#"kind "changed": version is missing"#,
        ),
        (r#"{"kind":"deleted"}"#, r#"unknown kind "deleted""#),
    ] {
        let e = WatchMessage::decode(text).unwrap_err();
        assert!(
            e.starts_with("unreadable watch message") && e.contains(words),
            "{text}: {e}"
        );
    }
}

#[test]
fn request_ids_read_as_a_string_or_an_integer() {
    for (text, id) in [
        ("7", RequestId::Number(7)),
        ("-3", RequestId::Number(-3)),
        (r#""a-1""#, RequestId::String("a-1".into())),
    ] {
        assert_eq!(serde_json::from_str::<RequestId>(text).unwrap(), id);
        assert_eq!(serde_json::to_string(&id).unwrap(), text);
    }
    for text in ["null", "1.5", "18446744073709551615", "[1]", "{}", "true"] {
        let e = error::<RequestId>(text);
        assert!(
            e.contains("a request id (a string or an integer)"),
            "{text}: {e}"
        );
    }
}
