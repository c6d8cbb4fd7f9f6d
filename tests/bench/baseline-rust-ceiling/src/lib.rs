//! `make bench`'s Rust lifecycle ceiling (tests/bench/rust-ceiling.mjs): the JS baseline's
//! `POST /new`, `POST /new-alarm` and lifecycle ceiling (`POST /task`, `GET /task/<id>`,
//! tests/bench/baseline-js/index.js) written with workers-rs, as an author would: what the
//! same bare objects cost on this runtime when the Worker and its objects are Rust. A
//! Worker of its own, so the Rust no-op (../baseline-rust) stays as small as it is.
use std::time::Duration;
use worker::{
    Context, DurableObject, Env, Method, Request, RequestInit, Response, Result, State,
    durable_object, event,
};

/// The task's alarm, as the JS ceiling's `ALARM_MS`.
const ALARM: Duration = Duration::from_millis(200);

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    let path = req.path();
    if let Some(id) = path.strip_prefix("/task/") {
        if req.method() != Method::Get {
            return Response::error("GET reads a task", 405);
        }
        return task(&env, id, Method::Get).await;
    }
    match (req.method(), path.as_str()) {
        (Method::Get, "/") => Response::empty(),
        (Method::Post, "/task") => task(&env, &fresh_name(), Method::Post).await,
        (Method::Post, "/new") => new_object(&env, "https://bare/new").await,
        (Method::Post, "/new-alarm") => new_object(&env, "https://bare/alarm").await,
        _ => Response::error("not found", 404),
    }
}

/// A `method` request to `url` on the object of `binding` named `name`.
async fn call(env: &Env, binding: &str, name: &str, method: Method, url: &str) -> Result<Response> {
    let stub = env.durable_object(binding)?.get_by_name(name)?;
    let mut init = RequestInit::new();
    init.with_method(method);
    stub.fetch_with_request(Request::new_with_init(url, &init)?)
        .await
}

/// A POST to `url` on a brand-new object.
async fn new_object(env: &Env, url: &str) -> Result<Response> {
    call(env, "BARE", &fresh_name(), Method::Post, url).await
}

/// A fresh object name (the JS baseline's `crypto.randomUUID()`): 106 random bits in hex.
fn fresh_name() -> String {
    let half = || (worker::js_sys::Math::random() * (1u64 << 53) as f64) as u64;
    format!("{:014x}{:014x}", half(), half())
}

/// Task `id` (its object named by it): created (POST) or read (GET).
async fn task(env: &Env, id: &str, method: Method) -> Result<Response> {
    call(
        env,
        "CEILING",
        id,
        method,
        &format!("https://task/?id={id}"),
    )
    .await
}

/// `text` answered as JSON.
fn json(text: String) -> Result<Response> {
    let mut response = Response::ok(text)?;
    response
        .headers_mut()
        .set("content-type", "application/json")?;
    Ok(response)
}

/// A brand-new object's one put (`POST /new`), and its alarm an hour ahead too
/// (`POST /new-alarm`: what a task's creation writes at least).
#[durable_object]
pub struct Bare {
    state: State,
}

impl DurableObject for Bare {
    fn new(state: State, _env: Env) -> Self {
        Bare { state }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let storage = self.state.storage();
        storage.put("k", worker::Date::now().as_millis()).await?;
        if req.path() == "/alarm" {
            storage.set_alarm(Duration::from_secs(3600)).await?;
        }
        Response::empty()
    }

    /// The alarm of `/new-alarm`: set, never awaited by the bench.
    async fn alarm(&self) -> Result<Response> {
        Response::empty()
    }
}

/// The lifecycle ceiling's task (the JS baseline's `CeilingTask`): a POST writes
/// `{"status":"working"}` and sets an alarm 0.2 s later, which writes the result; a GET
/// reads it. The state is stored as its JSON text, as the JS ceiling stores an object.
#[durable_object]
pub struct CeilingTask {
    state: State,
}

const WORKING: &str = r#"{"status":"working"}"#;
const COMPLETED: &str =
    r#"{"status":"completed","result":{"content":[{"type":"text","text":"done"}]}}"#;

impl DurableObject for CeilingTask {
    fn new(state: State, _env: Env) -> Self {
        CeilingTask { state }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        // The id is a hex name (`fresh_name`) or whatever a GET asked for: answered only
        // when it is plain, so the JSON below needs no escaping.
        let url = req.url()?;
        let id = url
            .query()
            .and_then(|q| q.strip_prefix("id="))
            .unwrap_or_default()
            .to_owned();
        if !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Response::error("not a task id", 400);
        }
        let storage = self.state.storage();
        let task = if req.method() == Method::Post {
            storage.put("task", WORKING).await?;
            storage.set_alarm(ALARM).await?;
            WORKING.to_owned()
        } else {
            match storage.get::<String>("task").await? {
                Some(task) => task,
                None => return Response::error("no such task", 404),
            }
        };
        json(format!(r#"{{"taskId":"{id}",{}"#, &task[1..]))
    }

    async fn alarm(&self) -> Result<Response> {
        self.state.storage().put("task", COMPLETED).await?;
        Response::empty()
    }
}
