//! The shared state of one `McpClient` and its JSON-RPC round trip. Everything that talks
//! to the server goes through [`Inner::send`] (credentials, sign-in and one retry).

use super::error::{ClientError, Details};
use super::js::{self, Abort, JsResult, to_js_error};
use super::sign_in::SignIn;
use super::sse::bare_task;
use super::wire::{Session, read_response};
use js_sys::Function;
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub struct Inner {
    /// Where, who and what: read for every request, so a new bearer token
    /// ([`Inner::set_bearer_token`]) applies from the next one on.
    session: RefCell<Session>,
    /// The `fetch` override of `ConnectOptions`, if any.
    pub fetch: Option<Function>,
    /// `ConnectOptions.signIn`, if the page asked for it.
    pub sign_in: Option<Rc<SignIn>>,
    next_id: Cell<u64>,
    /// The last `tools/list`, for the `x-mcp-header` annotations of `tools/call`.
    tools: RefCell<Option<Vec<Value>>>,
}

impl Inner {
    pub fn new(session: Session, fetch: Option<Function>, sign_in: Option<Rc<SignIn>>) -> Self {
        Inner {
            session: RefCell::new(session),
            fetch,
            sign_in,
            next_id: Cell::new(1),
            tools: RefCell::new(None),
        }
    }

    /// The bearer token of the requests sent from now on (`None`: none). A request or a
    /// stream already sent keeps the one it went with.
    pub fn set_bearer_token(&self, token: Option<String>) {
        self.session.borrow_mut().bearer_token = token;
    }

    /// A fresh JSON-RPC request id.
    fn next_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    /// POSTs request `method` with the current credentials: the sign-in's token when there
    /// is one, else `bearerToken`. On a 401 (or a 403 for a missing scope) that the sign-in
    /// can fix (refresh, or the user signs in), sends it again: at most twice, so that a
    /// fresh sign-in whose token is refused still gets its refresh. Returns the request id
    /// and the response, whatever its status.
    pub async fn send(
        &self,
        method: &str,
        params: Map<String, Value>,
        input_schema: Option<&Value>,
        abort: Option<&Abort>,
    ) -> JsResult<(u64, web_sys::Response)> {
        let Some(sign_in) = &self.sign_in else {
            return self
                .post_once(method, params, input_schema, None, abort)
                .await;
        };
        let mut recoveries = 0;
        loop {
            let token = sign_in.token().await;
            let sent = self
                .post_once(
                    method,
                    params.clone(),
                    input_schema,
                    token.as_deref(),
                    abort,
                )
                .await?;
            let status = sent.1.status();
            if !matches!(status, 401 | 403) || recoveries == 2 {
                return Ok(sent);
            }
            recoveries += 1;
            let challenge = www_authenticate(&sent.1);
            if !sign_in
                .recover(status, &challenge, token.as_deref())
                .await?
            {
                return Ok(sent);
            }
        }
    }

    async fn post_once(
        &self,
        method: &str,
        params: Map<String, Value>,
        input_schema: Option<&Value>,
        token: Option<&str>,
        abort: Option<&Abort>,
    ) -> JsResult<(u64, web_sys::Response)> {
        let id = self.next_id();
        let (mut outgoing, url) = {
            let session = self.session.borrow();
            (
                session.request(id, method, params, input_schema),
                session.url.clone(),
            )
        };
        if let Some(token) = token {
            outgoing.set_bearer(token);
        }
        let response = js::post(self.fetch.as_ref(), &url, &outgoing, abort).await?;
        Ok((id, response))
    }

    /// One request and its answer: the `result` object, or a rejection (`McpError`, or
    /// the abort reason).
    pub async fn rpc(
        &self,
        method: &str,
        params: Map<String, Value>,
        input_schema: Option<&Value>,
        abort: Option<&Abort>,
    ) -> JsResult<Map<String, Value>> {
        let (id, response) = self.send(method, params, input_schema, abort).await?;
        let body = js::text(&response, abort).await?;
        let status = response.status();
        let read = read_response(status, &js::content_type(&response), &body, id);
        if matches!(status, 401 | 403) {
            // Name the authorization server from the Protected Resource Metadata.
            let challenge = www_authenticate(&response);
            let metadata = match super::challenge::challenge_params(&challenge)
                .get("resource_metadata")
                .and_then(Value::as_str)
            {
                Some(url) => js::get_json(self.fetch.as_ref(), url).await,
                None => None,
            };
            let error = read.err();
            return Err(js::to_js_error(super::challenge::auth_error(
                status,
                &challenge,
                metadata.as_ref(),
                error,
            )));
        }
        read.map_err(to_js_error)
    }

    pub async fn list_tools(&self) -> JsResult<Vec<Value>> {
        let result = self.rpc("tools/list", Map::new(), None, None).await?;
        let tools = match result.get("tools") {
            Some(Value::Array(tools)) => tools.clone(),
            _ => {
                return Err(to_js_error(ClientError::new(
                    ClientError::INVALID_REQUEST,
                    "Invalid response: tools/list without a tools array",
                    None,
                )));
            }
        };
        *self.tools.borrow_mut() = Some(tools.clone());
        Ok(tools)
    }

    /// The input schema of tool `name` from the cached list (listed once if needed).
    /// `refresh` re-lists (after a -32020 the tool may have changed).
    pub async fn tool_schema(&self, name: &str, refresh: bool) -> Option<Value> {
        if refresh || self.tools.borrow().is_none() {
            // Without the list the call still goes out, just without Mcp-Param headers.
            let _ = self.list_tools().await;
        }
        let tools = self.tools.borrow();
        tools
            .as_ref()?
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|t| t.get("inputSchema").cloned())
    }

    fn task_params(task_id: &str) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("taskId".into(), task_id.into());
        params
    }

    /// `tasks/get`: the `DetailedTask` (without `resultType`).
    pub async fn get_task(&self, task_id: &str, abort: Option<&Abort>) -> JsResult<Value> {
        let result = self
            .rpc("tasks/get", Self::task_params(task_id), None, abort)
            .await?;
        Ok(Value::Object(bare_task(&result)))
    }

    pub async fn update_task(
        &self,
        task_id: &str,
        responses: Map<String, Value>,
        abort: Option<&Abort>,
    ) -> JsResult<()> {
        let mut params = Self::task_params(task_id);
        params.insert("inputResponses".into(), Value::Object(responses));
        self.rpc("tasks/update", params, None, abort)
            .await
            .map(|_| ())
    }

    pub async fn cancel_task(&self, task_id: &str) -> JsResult<()> {
        self.rpc("tasks/cancel", Self::task_params(task_id), None, None)
            .await
            .map(|_| ())
    }
}

fn www_authenticate(response: &web_sys::Response) -> String {
    response
        .headers()
        .get("www-authenticate")
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Reads `ConnectOptions` into a client for `url`.
pub fn from_options(url: &str, options: &wasm_bindgen::JsValue) -> JsResult<Inner> {
    let mut session = Session::new(url);
    if let Some(token) = js::get(options, "bearerToken").as_string() {
        session.bearer_token = Some(token);
    }
    let info = js::get(options, "clientInfo");
    if !info.is_undefined() && !info.is_null() {
        let info = js::from_js(&info)?;
        if !info.get("name").is_some_and(Value::is_string) {
            return Err(to_js_error(ClientError::new(
                ClientError::INVALID_PARAMS,
                "options.clientInfo must be an object with a string name",
                Details {
                    client_info: Some(&info),
                    ..Details::default()
                }
                .data(),
            )));
        }
        session.client_info = info;
    }
    let capabilities = js::get(options, "capabilities");
    if !capabilities.is_undefined() && !capabilities.is_null() {
        let capabilities = js::from_js(&capabilities)?;
        if !capabilities.is_object() {
            return Err(to_js_error(ClientError::new(
                ClientError::INVALID_PARAMS,
                "options.capabilities must be an object",
                None,
            )));
        }
        session.capabilities = capabilities;
    }
    let fetch = js::get_function(options, "fetch");
    let sign_in = SignIn::from_js(options, &js::absolute_url(url), fetch.clone())?;
    Ok(Inner::new(session, fetch, sign_in))
}
