//! The params reader (src/mcp/params.rs, `params/fields.rs`): every refusal names the
//! member's path in serde's words, as the derived decoder behind a path tracker did, and
//! what serde accepted is still accepted. wire_errors.rs covers the methods end to end.

use mcp_tasks_edge::mcp::params::{
    self, CarriedResponses, CompleteParams, CursorParams, ListenParams, Params, PromptGetParams,
    SetLevelParams, TaskIdParams,
};
use serde_json::{Value, json};

fn refusal<T: Params + std::fmt::Debug>(params: Value) -> String {
    params::parse::<T>(params.as_object().unwrap())
        .unwrap_err()
        .to_wire()
        .message
}

#[test]
fn each_json_type_is_named_as_serde_names_it() {
    for (value, named) in [
        (json!(null), "null"),
        (json!(true), "boolean `true`"),
        (json!(3), "integer `3`"),
        (json!(-3), "integer `-3`"),
        (json!(1.5), "floating point `1.5`"),
        (json!(2.0), "floating point `2.0`"),
        (json!("x"), "string \"x\""),
        (json!([1]), "sequence"),
        (json!({}), "map"),
    ] {
        let expected = if value.is_string() {
            None
        } else {
            Some(format!(
                "params.taskId: invalid type: {named}, expected a string"
            ))
        };
        let got = params::parse::<TaskIdParams>(json!({ "taskId": value }).as_object().unwrap())
            .err()
            .map(|e| e.to_wire().message);
        assert_eq!(got, expected, "{value}");
    }
}

#[test]
fn nested_members_and_list_items_carry_their_path() {
    assert_eq!(
        refusal::<ListenParams>(json!({ "notifications": { "taskIds": ["a", 7] } })),
        "params.notifications.taskIds[1]: invalid type: integer `7`, expected a string"
    );
    assert_eq!(
        refusal::<ListenParams>(json!({ "notifications": { "taskIds": "a" } })),
        "params.notifications.taskIds: invalid type: string \"a\", expected a sequence"
    );
    assert_eq!(
        refusal::<CompleteParams>(json!({ "ref": {}, "argument": { "name": "n" } })),
        "params.argument: missing field `value`"
    );
    assert_eq!(
        refusal::<CarriedResponses>(json!({ "inputResponses": { "a": {}, "b": [] } })),
        "params.inputResponses.b: an answer must be an object (an ElicitResult, CreateMessageResult or ListRootsResult), not an array"
    );
}

#[test]
fn a_filter_must_be_an_object_not_a_list_read_as_an_empty_one() {
    // A derived struct would take `[]` as a struct with no fields given.
    assert_eq!(
        refusal::<ListenParams>(json!({ "notifications": [] })),
        "params.notifications: invalid type: sequence, expected a map"
    );
    let empty = params::parse::<ListenParams>(json!({ "notifications": {} }).as_object().unwrap());
    assert_eq!(empty.unwrap().notifications.task_ids, None);
}

#[test]
fn optional_members_take_absent_and_null_alike() {
    for params in [json!({}), json!({ "cursor": null })] {
        let read = params::parse::<CursorParams>(params.as_object().unwrap()).unwrap();
        assert_eq!(read.cursor, None);
    }
    let read = params::parse::<PromptGetParams>(
        json!({ "name": "p", "arguments": null, "other": 1 })
            .as_object()
            .unwrap(),
    )
    .unwrap();
    assert_eq!((read.name.as_str(), read.arguments), ("p", None));
    let none =
        params::parse::<CarriedResponses>(json!({ "inputResponses": null }).as_object().unwrap());
    assert_eq!(none.unwrap().input_responses, None);
}

#[test]
fn the_level_names_its_variants() {
    assert_eq!(
        refusal::<SetLevelParams>(json!({ "level": "loud" })),
        "params.level: unknown variant `loud`, expected one of `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`, `emergency`"
    );
    assert_eq!(
        refusal::<SetLevelParams>(json!({})),
        "params: missing field `level`"
    );
}
