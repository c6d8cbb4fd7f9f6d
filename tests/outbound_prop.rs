//! Property tests of the parsers added for the open internet: the `Accept` header's media
//! ranges (`http::accepts`, RFC 9110 §12.5.1), the redirect a `Location` asks for
//! (`host::policy::redirect`, RFC 9110 §15.4) and which `OAUTH_ISSUER` is acceptable.
// Native only: proptest is a native dev-dependency.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::host::policy::redirect;
use mcp_tasks_edge::host::{AllowList, Inbound, Outbound};
use mcp_tasks_edge::http::{Headers, accepts};
use mcp_tasks_edge::server::Config;
use proptest::prelude::*;

fn accept(value: Option<&str>) -> Headers {
    let mut headers = Headers::new();
    if let Some(value) = value {
        headers.push("accept", value);
    }
    headers
}

/// A media type, as a server asks about it.
fn media_type() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("text/event-stream".to_string()),
        Just("application/json".to_string()),
        "[a-z]{1,8}/[a-z.+-]{1,10}",
    ]
}

/// `name` in a random mix of upper and lower case.
fn any_case(name: &'static str) -> impl Strategy<Value = String> {
    prop::collection::vec(any::<bool>(), name.len()).prop_map(move |upper| {
        name.chars()
            .zip(upper)
            .map(|(c, u)| if u { c.to_ascii_uppercase() } else { c })
            .collect()
    })
}

/// One of `choices`.
fn one_of(choices: &[&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(choices.to_vec())
        .prop_map(String::from)
        .boxed()
}

fn origin(url: &str) -> Option<url::Origin> {
    url::Url::parse(url).ok().map(|u| u.origin())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn accept_never_panics_and_absent_or_any_accepts_everything(
        value in "\\PC{0,60}",
        media in media_type(),
        q in prop_oneof![Just(String::new()), "; ?q=0?\\.[1-9]", "; ?level=[0-9]"],
    ) {
        let _ = accepts(&accept(Some(&value)), &media);
        prop_assert!(accepts(&accept(None), &media));
        let any = format!("*/*{q}");
        prop_assert!(accepts(&accept(Some(&any)), &media), "{}", any);
    }

    #[test]
    fn a_range_with_q_zero_refuses_its_media_type(
        others in prop::collection::vec("[a-z]{1,8}/([a-z]{1,8}|\\*)(;q=0?\\.[0-9])?", 0..4),
        media in media_type(),
        zero in prop_oneof![Just("q=0"), Just("Q=0"), Just("q=0.0"), Just("q=0.000"), Just(" q=0 ")],
        first in any::<bool>(),
    ) {
        let mut ranges: Vec<String> = others
            .into_iter()
            .filter(|r| !r.split(';').next().unwrap().eq_ignore_ascii_case(&media))
            .collect();
        let refusal = format!("{};{zero}", media.to_uppercase());
        if first { ranges.insert(0, refusal) } else { ranges.push(refusal) }
        ranges.push("*/*".into());
        let value = ranges.join(", ");
        prop_assert!(!accepts(&accept(Some(&value)), &media), "{value}");
    }

    #[test]
    fn a_redirect_keeps_no_credentials_across_origins_and_no_odd_scheme_passes(
        status in prop_oneof![Just(301u16), Just(302), Just(303), Just(307), Just(308), 100u16..600],
        location in prop_oneof![
            "\\PC{0,40}",
            "(https?|ftp|file|data|javascript|gopher)://[a-z0-9.:@\\[\\]-]{0,20}/[a-z?#]{0,6}",
            "//[a-z0-9.:-]{1,16}/[a-z]{0,4}",
            "/[a-z/.]{0,10}",
            "[a-z]{1,8}:[a-z/]{0,10}",
        ],
        from in prop_oneof![Just("https://a.test/x"), Just("http://a.test:8080/y/z"), Just("https://[::1]/")],
        method in prop_oneof![Just("GET"), Just("POST"), Just("PUT"), Just("HEAD")],
        credential in prop_oneof![any_case("authorization"), any_case("cookie"), any_case("proxy-authorization")],
        list in prop_oneof![Just("*"), Just("a.test:*, *.test"), Just("*, [::1]:*, 127.0.0.1:*")],
    ) {
        let mut request = Outbound::new(method, from);
        request.headers.push((credential.clone(), "secret".into()));
        request.headers.push(("accept".into(), "*/*".into()));
        request.body = b"body".to_vec();
        let answer = Inbound {
            status,
            headers: vec![("location".into(), location.clone())],
            body: Vec::new(),
            url: from.into(),
        };
        let Some(Ok(next)) = redirect(&request, &answer) else { return Ok(()) };
        if origin(&next.url) != origin(from) || origin(from).is_none_or(|o| !o.is_tuple()) {
            prop_assert!(
                next.headers.iter().all(|(name, _)| !name.eq_ignore_ascii_case(&credential)),
                "{from} → {}: {:?} kept", next.url, next.headers
            );
        }
        if AllowList::parse(list).unwrap().check(&next.url).is_ok() {
            let scheme = url::Url::parse(&next.url).unwrap().scheme().to_string();
            prop_assert!(scheme == "http" || scheme == "https", "{} passed {list}", next.url);
        }
    }

    #[test]
    fn an_issuer_is_https_or_plain_http_on_loopback_only(
        scheme in prop_oneof![one_of(&["https", "http", "HTTP", "ftp"]), "[a-z]{1,5}".boxed()],
        host in prop_oneof![
            one_of(&[
                "localhost", "LocalHost", "127.0.0.1", "127.9.9.9", "[::1]", "localhost.evil.test",
                "evil.test", "10.0.0.1", "[::ffff:7f00:1]", "0.0.0.0", "192.168.1.1", "127.0.0.1.nip.io",
            ]),
            "[a-z0-9.-]{0,12}".boxed(),
        ],
        port in prop_oneof![Just(String::new()), ":[0-9]{1,5}"],
        path in "(/[a-z]{0,6}){0,2}",
    ) {
        let issuer = format!("{scheme}://{host}{port}{path}");
        let result = Config::from_vars(|name| (name == "OAUTH_ISSUER").then(|| issuer.clone()));
        let parsed = url::Url::parse(&issuer);
        let loopback = parsed.as_ref().ok().and_then(|u| u.host()).is_some_and(|h| match h {
            url::Host::Domain(d) => d == "localhost",
            url::Host::Ipv4(ip) => ip.is_loopback(),
            url::Host::Ipv6(ip) => ip.is_loopback(),
        });
        match result {
            Ok(config) => {
                let url = parsed.expect("an accepted issuer is a URL");
                prop_assert_eq!(config.auth.issuer.as_deref(), Some(issuer.as_str()));
                prop_assert!(url.scheme() == "https" || (url.scheme() == "http" && loopback), "{issuer} accepted");
            }
            Err(why) => {
                prop_assert_eq!(why.variable, "OAUTH_ISSUER", "{}", why);
                if let Ok(url) = parsed {
                    prop_assert!(!(url.scheme() == "https" && url.has_host()), "{issuer} refused: {why}");
                }
            }
        }
    }
}
