//! `http::lines`: the Worker hands a response's or a request's header fields to the runtime
//! as one string of "name,value" lines (src/cloudflare/wire.js splits each line at its first
//! comma). Any fields it accepts read back exactly as given; a name that could hold a comma
//! or a value that could hold a line break is refused, never passed on split wrongly.
// Native only: proptest is a native dev-dependency.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::http::{from_lines, lines};
use proptest::prelude::*;

proptest! {
    #[test]
    fn accepted_fields_read_back_as_given(
        fields in proptest::collection::vec(
            ("[a-zA-Z0-9!#$%&'*+.^_`|~-]{1,12}", "[ -~\t]{0,24}"),
            0..6,
        ),
    ) {
        let pairs = fields.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        let joined = lines(pairs).expect("tokens and field values are accepted");
        prop_assert_eq!(from_lines(&joined), fields);
    }

    #[test]
    fn any_name_or_value_is_accepted_only_if_it_reads_back(
        name in "\\PC{0,8}|[a-z,\n: ]{0,8}",
        value in "\\PC{0,8}|[a-z,\n\r\0]{0,8}",
    ) {
        if let Ok(joined) = lines([("x-first", "1"), (name.as_str(), value.as_str())]) {
            let expected = vec![
                ("x-first".to_owned(), "1".to_owned()),
                (name.clone(), value.clone()),
            ];
            prop_assert_eq!(from_lines(&joined), expected);
        }
    }
}

#[test]
fn a_name_with_a_comma_or_a_space_is_refused() {
    for name in ["a,b", "a b", "", "x\ny", "ü"] {
        let refused = lines([(name, "v")]).expect_err(name);
        assert!(refused.contains("invalid header name"), "{refused}");
    }
}

#[test]
fn a_value_with_a_line_break_nul_or_non_ascii_is_refused() {
    for value in ["a\nb", "a\rb", "a\0b", "caf\u{e9}", "\u{20ac}"] {
        let refused = lines([("x-test", value)]).expect_err(value);
        assert_eq!(refused, "invalid value of header x-test");
    }
}

#[test]
fn commas_in_a_value_stay_in_it() {
    let joined = lines([("vary", "Origin, Accept"), ("x-empty", "")]).unwrap();
    assert_eq!(joined, "vary,Origin, Accept\nx-empty,");
    assert_eq!(
        from_lines(&joined),
        [
            ("vary".into(), "Origin, Accept".into()),
            ("x-empty".into(), String::new())
        ]
    );
}
