//! `make bench` baseline: the smallest workers-rs Worker, an empty 200 for every request.
use worker::{Context, Env, Request, Response, Result, event};

#[event(fetch)]
async fn fetch(_req: Request, _env: Env, _ctx: Context) -> Result<Response> {
    Response::empty()
}
