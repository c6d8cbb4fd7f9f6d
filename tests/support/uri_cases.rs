//! One table of URLs for `mcp_tasks_edge::uri`, run natively (tests/uri.rs: the `url`
//! crate) and in Chromium and Firefox (tests/browser/uri.rs: the runtime's `URL`), so the
//! two parsers the library uses must read every case alike: what a URL is, how references
//! resolve, and which hosts the outbound policy's `*` lets through, in every spelling.
//!
//! Two cases of the standard are not here, where one browser departs from it: a space in a
//! host (`https://ho st/`), which Chromium's `URL` percent-encodes into the name where the
//! `url` crate, Firefox, Node and workerd refuse it (tests/uri.rs and
//! tests/e2e/outbound.test.mjs check it), and a `file:` URL's host, which Firefox drops
//! (tests/uri.rs). Neither reaches anything: the outbound policy takes http(s) only.

use mcp_tasks_edge::host::AllowList;
use mcp_tasks_edge::uri::Uri;

/// Everything the library reads off a URL, on one line.
fn shown(input: &str) -> String {
    match Uri::parse(input) {
        Ok(u) => format!(
            "{u} host={:?} port={:?}/{:?} path={} fragment={:?} origin={:?} credentials={}",
            u.host(),
            u.port(),
            u.port_or_known_default(),
            u.path(),
            u.fragment(),
            u.origin(),
            u.has_credentials()
        ),
        Err(e) => format!("error: {e}"),
    }
}

pub fn urls_parse_as_the_url_standard_says() {
    let table = [
        (
            "HTTPS://Example.COM:443/a/../b?q#f",
            r#"https://example.com/b?q#f host=Some(Domain("example.com")) port=None/Some(443) path=/b fragment=Some("f") origin=Some("https://example.com") credentials=false"#,
        ),
        (
            "http://h:8080/p#",
            r#"http://h:8080/p# host=Some(Domain("h")) port=Some(8080)/Some(8080) path=/p fragment=Some("") origin=Some("http://h:8080") credentials=false"#,
        ),
        (
            "ws://h:443/",
            r#"ws://h:443/ host=Some(Domain("h")) port=Some(443)/Some(443) path=/ fragment=None origin=Some("ws://h:443") credentials=false"#,
        ),
        (
            "http://0x7f.1/",
            r#"http://127.0.0.1/ host=Some(Ipv4(127.0.0.1)) port=None/Some(80) path=/ fragment=None origin=Some("http://127.0.0.1") credentials=false"#,
        ),
        (
            "http://[0:0:0:0:0:ffff:127.0.0.1]:81/x",
            r#"http://[::ffff:7f00:1]:81/x host=Some(Ipv6(::ffff:127.0.0.1)) port=Some(81)/Some(81) path=/x fragment=None origin=Some("http://[::ffff:7f00:1]:81") credentials=false"#,
        ),
        (
            "http://us%40er:pw@h/",
            r#"http://us%40er:pw@h/ host=Some(Domain("h")) port=None/Some(80) path=/ fragment=None origin=Some("http://h") credentials=true"#,
        ),
        (
            "https://h/a@b?c@d#e@f",
            r#"https://h/a@b?c@d#e@f host=Some(Domain("h")) port=None/Some(443) path=/a@b fragment=Some("e@f") origin=Some("https://h") credentials=false"#,
        ),
        (
            "https://h/a#b#c",
            r#"https://h/a#b#c host=Some(Domain("h")) port=None/Some(443) path=/a fragment=Some("b#c") origin=Some("https://h") credentials=false"#,
        ),
        (
            "http://b\u{fc}cher.example/",
            r#"http://xn--bcher-kva.example/ host=Some(Domain("xn--bcher-kva.example")) port=None/Some(80) path=/ fragment=None origin=Some("http://xn--bcher-kva.example") credentials=false"#,
        ),
        (
            "urn:example:A",
            r#"urn:example:A host=None port=None/None path=example:A fragment=None origin=None credentials=false"#,
        ),
        (
            "file:///etc/passwd",
            r#"file:///etc/passwd host=None port=None/None path=/etc/passwd fragment=None origin=None credentials=false"#,
        ),
        (
            "foo://1.2.3.4/p",
            r#"foo://1.2.3.4/p host=Some(Domain("1.2.3.4")) port=None/None path=/p fragment=None origin=None credentials=false"#,
        ),
        (
            "foo://Host:1/p",
            r#"foo://Host:1/p host=Some(Domain("Host")) port=Some(1)/Some(1) path=/p fragment=None origin=None credentials=false"#,
        ),
        (
            "https://h/\tp\n",
            r#"https://h/p host=Some(Domain("h")) port=None/Some(443) path=/p fragment=None origin=Some("https://h") credentials=false"#,
        ),
    ];
    for (input, expected) in table {
        assert_eq!(shown(input), expected, "{input:?}");
    }
    for bad in [
        "",
        "not a url",
        "/relative",
        "http://",
        "http://[::1/",
        "http://h:65536/",
        "http://1.2.3.4.5/",
        "http://256.0.0.1/",
        "http://a<b/",
        "http://a%00b/",
    ] {
        assert_eq!(shown(bad), "error: not a valid URL", "{bad:?}");
    }
}

pub fn references_resolve_as_rfc_3986_says() {
    let table = [
        (
            "https://schema.invalid/tool.json",
            "#/$defs/a",
            "https://schema.invalid/tool.json#/$defs/a",
        ),
        (
            "https://schema.invalid/tool.json#x",
            "",
            "https://schema.invalid/tool.json",
        ),
        (
            "https://schema.invalid/d/tool.json",
            "other.json#b",
            "https://schema.invalid/d/other.json#b",
        ),
        (
            "https://schema.invalid/d/e/t.json",
            "../../x",
            "https://schema.invalid/x",
        ),
        (
            "https://schema.invalid/t.json",
            "//other.example/p",
            "https://other.example/p",
        ),
        (
            "https://schema.invalid/t.json",
            "urn:uuid:1#a",
            "urn:uuid:1#a",
        ),
        ("urn:uuid:1", "#/$defs/a", "urn:uuid:1#/$defs/a"),
        ("http://a/b/c?q", "?y", "http://a/b/c?y"),
        ("http://a/b/c?q", "/d/../e", "http://a/e"),
        ("http://a/b", "http://c:80/d", "http://c/d"),
    ];
    for (base, reference, expected) in table {
        let joined = Uri::parse(base).unwrap().join(reference);
        assert_eq!(
            joined.map(|u| u.to_string()),
            Ok(expected.to_owned()),
            "{base} + {reference}"
        );
    }
    let base = Uri::parse("https://schema.invalid/t.json").unwrap();
    assert!(base.join("http://[::1").is_err());
    assert!(base.join("urn:uuid:1").unwrap().join("other").is_err());
    let with = Uri::parse("https://h/p#frag").unwrap();
    assert_eq!(with.without_fragment().to_string(), "https://h/p");
    assert_eq!(with.without_fragment().fragment(), None);
}

pub fn origins_are_tuples_or_opaque() {
    let same = |a: &str, b: &str| Uri::parse(a).unwrap().same_origin(&Uri::parse(b).unwrap());
    assert!(same("https://a/x", "https://A:443/y"));
    assert!(!same("https://a/", "http://a/"));
    assert!(!same("https://a/", "https://a:8443/"));
    assert!(!same("https://a/", "https://b.a/"));
    assert!(!same("urn:a", "urn:a"));
    assert!(!same("file:///x", "file:///x"));
    let serialized = |u: &str| Uri::parse(u).unwrap().serialized_origin();
    assert_eq!(serialized("HTTPS://A:443/x?y"), "https://a");
    assert_eq!(serialized("http://a:8080/"), "http://a:8080");
    assert_eq!(serialized("urn:a"), "null");
}

/// `*` never lets a tool reach this machine or a private network, however the host is
/// spelled: every spelling the standard turns into such an address is read as one.
pub fn no_spelling_of_a_private_host_passes_the_policy() {
    let every_public = AllowList::parse("*").unwrap();
    for url in [
        "http://localhost/",
        "http://LOCALHOST./",
        "http://%6c%6f%63%61%6c%68%6f%73%74/",
        "http://\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/",
        "http://app.localhost/",
        "http://0x7f.1/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://127\u{3002}0\u{3002}0\u{3002}1/",
        "http://%31%32%37.0.0.1/",
        "http://0/",
        "http://0251.0376.0251.0376/",
        "http://[::1]/",
        "http://[::]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[fd00::1]/",
        "http://[fe80::1]/",
        "http://10.0.0.1/",
        "http://192.168.0.1/",
        "http://100.64.0.1/",
        "http://user@127.0.0.1/",
    ] {
        assert!(every_public.check(url).is_err(), "{url} must be refused");
    }
    for url in [
        "https://example.com/",
        "http://93.184.216.34/",
        "http://[2606:4700::1]/",
    ] {
        assert!(every_public.check(url).is_ok(), "{url} must be allowed");
    }
}
