//! A request's admission (`server::admit`): the metadata without credentials, a stranger
//! refused (and logged) before any of the body is read, a body declared too large never
//! read, a JWT's signature checked by the platform before its claims are granted.

mod common;

use common::auth::{ISSUER, claims, config, digest, jwt};
use common::{NOW, post};
use mcp_tasks_edge::auth::{self, AuthConfig, jwt::Token};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::http::HttpRequest;
use mcp_tasks_edge::ops::log::{Line, LogSettings};
use mcp_tasks_edge::server::admit::{Admitted, Door};
use mcp_tasks_edge::server::{Context, Server};
use serde_json::{Value, json};
use std::cell::RefCell;

const ORIGIN: &str = "https://mcp.example";
const TRACE: &str = "trace-1";

/// A platform whose request carries `wire` as its body, recording what admission asked.
struct Recorded {
    wire: Vec<u8>,
    /// The JWT check's answer.
    signature: Result<(), McpError>,
    reads: RefCell<Vec<(Option<usize>, usize)>>,
    verified: RefCell<u32>,
    printed: RefCell<Vec<Value>>,
}

impl Recorded {
    fn new(wire: Vec<u8>) -> Recorded {
        Recorded {
            wire,
            signature: Ok(()),
            reads: RefCell::default(),
            verified: RefCell::default(),
            printed: RefCell::default(),
        }
    }
}

impl Door for Recorded {
    async fn verify(&self, _: &AuthConfig, _: &Token, now_ms: u64) -> Result<(), McpError> {
        assert_eq!(now_ms, NOW);
        *self.verified.borrow_mut() += 1;
        self.signature.clone()
    }

    async fn body(&self, declared: Option<usize>, limit: usize) -> Result<Vec<u8>, String> {
        self.reads.borrow_mut().push((declared, limit));
        Ok(self.wire.clone())
    }

    fn now_ms(&self) -> u64 {
        NOW
    }

    fn print(&self, line: &Line) {
        let text = line.render(&LogSettings::default()).unwrap();
        self.printed
            .borrow_mut()
            .push(serde_json::from_str(&text).unwrap());
    }
}

/// A `tools/list` as it arrives: headers only, `door` holding its body.
fn arriving(headers: &[(&str, &str)]) -> (HttpRequest, Recorded) {
    let mut request = post("tools/list", json!({}));
    for (name, value) in headers {
        request.headers.push(name, value);
    }
    let wire = std::mem::take(&mut request.body);
    (request, Recorded::new(wire))
}

fn admit(server: &Server, request: HttpRequest, door: &Recorded) -> Admitted {
    block_on(server.admit(request, ORIGIN, TRACE, door)).unwrap()
}

fn keyed() -> Server {
    Server::new(config(&[("API_KEYS", &digest("k"))]).unwrap())
}

#[test]
fn a_stranger_is_refused_and_logged_before_the_body_is_read() {
    let server = keyed();
    for credentials in [None, Some("Bearer wrong")] {
        let headers: Vec<_> = credentials
            .map(|c| ("authorization", c))
            .into_iter()
            .collect();
        let (request, door) = arriving(&headers);
        let Admitted::Answer(refusal) = admit(&server, request, &door) else {
            panic!("admitted without a key")
        };
        assert_eq!(refusal.status, 401);
        assert!(
            refusal
                .headers
                .iter()
                .any(|(n, _)| *n == "www-authenticate")
        );
        assert!(
            door.reads.borrow().is_empty(),
            "the stranger's body was read"
        );
        let printed = door.printed.borrow();
        assert_eq!(printed.len(), 1);
        assert_eq!(printed[0]["event"], "auth.refused");
        assert_eq!(printed[0]["requestId"], TRACE);
    }
}

#[test]
fn a_caller_with_a_key_is_admitted_with_its_body_read_once() {
    let server = keyed();
    let length = post("tools/list", json!({})).body.len().to_string();
    let (request, door) = arriving(&[("authorization", "Bearer k"), ("content-length", &length)]);
    let Admitted::Caller(request, Context { principal, now_ms }) = admit(&server, request, &door)
    else {
        panic!("refused")
    };
    assert!(principal.starts_with("key:"), "{principal}");
    assert_eq!(now_ms, NOW);
    assert_eq!(request.body, door.wire);
    let limit = server.config.max_body_bytes;
    assert_eq!(*door.reads.borrow(), [(Some(door.wire.len()), limit)]);
    assert!(door.printed.borrow().is_empty());
    // Without a length, the platform reads at most one byte past the limit.
    let (request, door) = arriving(&[("authorization", "Bearer k")]);
    admit(&server, request, &door);
    assert_eq!(*door.reads.borrow(), [(None, limit)]);
}

#[test]
fn a_body_declared_too_large_is_never_read_and_answered_413() {
    let server = keyed();
    let too_large = (server.config.max_body_bytes + 1).to_string();
    let (request, door) = arriving(&[
        ("authorization", "Bearer k"),
        ("content-length", &too_large),
    ]);
    let Admitted::Caller(request, ctx) = admit(&server, request, &door) else {
        panic!("refused")
    };
    assert!(
        door.reads.borrow().is_empty(),
        "a body declared too large was read"
    );
    assert!(request.body.is_empty());
    let answer = common::run_action_at(&server, server.handle(&request, &ctx), &ctx);
    let mcp_tasks_edge::server::Action::Respond(response) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(response.status, 413);
}

#[test]
fn the_metadata_is_public_and_other_methods_are_not_read() {
    let server = keyed();
    let (mut request, door) = arriving(&[]);
    request.method = "GET".into();
    request.path = auth::PRM_PATHS[0].into();
    let Admitted::Answer(metadata) = admit(&server, request, &door) else {
        panic!("not answered at the door")
    };
    assert_eq!(metadata.status, 200);
    // A GET to the endpoint with a key is admitted, and has no body to read.
    let (mut request, door) = arriving(&[("authorization", "Bearer k")]);
    request.method = "GET".into();
    assert!(matches!(
        admit(&server, request, &door),
        Admitted::Caller(..)
    ));
    assert!(door.reads.borrow().is_empty());
}

#[test]
fn a_jwt_is_granted_only_once_its_signature_is_checked() {
    let server = Server::new(config(&[("OAUTH_ISSUER", ISSUER)]).unwrap());
    let token = jwt(
        json!({ "alg": "RS256", "kid": "k1", "typ": "JWT" }),
        claims(),
    );
    let bearer = format!("Bearer {token}");
    let (request, mut door) = arriving(&[("authorization", &bearer)]);
    door.signature = Err(McpError::Unauthorized {
        error: Some("invalid_token"),
        message: "bad signature".into(),
    });
    let Admitted::Answer(refusal) = admit(&server, request, &door) else {
        panic!("a bad signature was granted")
    };
    assert_eq!((refusal.status, *door.verified.borrow()), (401, 1));
    assert!(door.reads.borrow().is_empty());
    assert_eq!(door.printed.borrow()[0]["event"], "auth.refused");
    let (request, door) = arriving(&[("authorization", &bearer)]);
    let Admitted::Caller(_, ctx) = admit(&server, request, &door) else {
        panic!("a good token was refused")
    };
    assert_eq!(*door.verified.borrow(), 1);
    assert!(ctx.principal.starts_with("oauth:"), "{}", ctx.principal);
}
