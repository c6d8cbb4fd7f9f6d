//! `ConnectOptions.signIn`: the I/O of signing a page in (the decisions are `oauth.rs` and
//! `grant.rs`).
//! The client asks [`SignIn::token`] before each request and [`SignIn::recover`] after a
//! 401 (or a 403 `insufficient_scope`); one recovery runs at a time and the requests that
//! meet it wait for its tokens.
//!
//! Tokens live in memory or in `sessionStorage`, as the page chose (`token_store.rs`).
//! A popup is watched until it comes back to the redirect URI's origin (ours, so its
//! address becomes readable) with this sign-in's `state`, then closed; a redirect leaves
//! the page, and `connect` on the page it comes back to finishes the exchange.

use super::challenge::challenge_params;
use super::error::ClientError;
use super::grant::{self, Pending};
use super::js::{self, JsResult, to_js_error};
use super::oauth::{self, AuthorizationServer};
use super::token_store::TokenStore;
use super::urls;
use js_sys::{Function, Promise};
use serde_json::Value;
use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};

/// The name of the sign-in window: a page loaded in it never signs in itself.
const POPUP_NAME: &str = "mcp-tasks-edge-sign-in";
/// How long a sign-in window may stay open.
const POPUP_TIMEOUT_MS: f64 = 10.0 * 60.0 * 1000.0;

fn invalid(message: &str) -> JsValue {
    to_js_error(ClientError::new(ClientError::INVALID_PARAMS, message, None))
}

/// One client's sign-in (see the module docs).
pub struct SignIn {
    client_id: String,
    redirect_uri: String,
    popup: bool,
    scope: Option<String>,
    interactive: bool,
    /// The absolute MCP URL: the `resource` of every request (RFC 8707).
    resource: String,
    store: TokenStore,
    fetch: Option<Function>,
    /// The recovery or refresh in flight, if any.
    busy: RefCell<Option<Promise>>,
}

impl SignIn {
    /// Reads `options.signIn` for the server at `resource`; `None` without it.
    pub fn from_js(
        options: &JsValue,
        resource: &str,
        fetch: Option<Function>,
    ) -> JsResult<Option<Rc<SignIn>>> {
        let sign_in = js::get(options, "signIn");
        if sign_in.is_undefined() || sign_in.is_null() {
            return Ok(None);
        }
        let text = |key: &str| js::get(&sign_in, key).as_string().filter(|s| !s.is_empty());
        let client_id = text("clientId")
            .ok_or_else(|| invalid("options.signIn.clientId must be a non-empty string"))?;
        let popup = match text("mode").as_deref() {
            None | Some("popup") => true,
            Some("redirect") => false,
            Some(other) => {
                return Err(invalid(&format!(
                    "options.signIn.mode must be \"popup\" or \"redirect\", not {other:?}"
                )));
            }
        };
        let session = match text("storage").as_deref() {
            None | Some("memory") => false,
            Some("session") => true,
            Some(other) => {
                return Err(invalid(&format!(
                    "options.signIn.storage must be \"memory\" or \"session\", not {other:?}"
                )));
            }
        };
        let page = js::page_href().unwrap_or_default();
        let redirect_uri = match text("redirectUri") {
            Some(uri) => js::absolute_url(&uri),
            // This page, without its query and fragment.
            None => page.split(['?', '#']).next().unwrap_or_default().to_owned(),
        };
        if urls::split(&redirect_uri).is_none() {
            return Err(invalid(
                "options.signIn.redirectUri must be a URL (a page has a default: itself)",
            ));
        }
        // A page loaded in the sign-in window itself must not start another sign-in.
        let global = js::global();
        let in_popup = js::get(&global, "name").as_string().as_deref() == Some(POPUP_NAME)
            && js::get(&global, "opener").is_object();
        Ok(Some(Rc::new(SignIn {
            store: TokenStore::new(grant::storage_key(&client_id, resource), session),
            client_id,
            redirect_uri,
            popup,
            scope: text("scope"),
            interactive: js::get(&sign_in, "interactive").as_bool().unwrap_or(true) && !in_popup,
            resource: resource.to_owned(),
            fetch,
            busy: RefCell::new(None),
        })))
    }

    /// Forgets this client's tokens (`signOut()`).
    pub fn forget(&self) {
        self.store.forget();
    }

    pub fn signed_in(&self) -> bool {
        self.store.load().is_some()
    }

    /// Runs `work` unless a recovery is in flight, whose end is awaited instead: either
    /// way the tokens are then as fresh as they get.
    /// (Boxed: one `future_to_promise` in the wasm rather than one per kind of work.)
    async fn exclusive(
        &self,
        work: Pin<Box<dyn Future<Output = JsResult<JsValue>>>>,
    ) -> JsResult<JsValue> {
        let running = self.busy.borrow().clone();
        if let Some(running) = running {
            return JsFuture::from(running).await;
        }
        let promise = future_to_promise(work);
        js::mark_handled(&promise);
        *self.busy.borrow_mut() = Some(promise.clone());
        let outcome = JsFuture::from(promise).await;
        *self.busy.borrow_mut() = None;
        outcome
    }

    /// The access token to send, refreshed first when it is about to expire.
    pub async fn token(self: &Rc<Self>) -> Option<String> {
        let running = self.busy.borrow().clone();
        if let Some(running) = running {
            let _ = JsFuture::from(running).await;
        }
        let tokens = self.store.load()?;
        if tokens.stale(js_sys::Date::now()) && tokens.refresh_token.is_some() {
            let this = self.clone();
            if self
                .exclusive(Box::pin(async move { this.refresh().await }))
                .await
                .is_err()
            {
                self.store.forget();
                return None;
            }
        }
        self.store.load().map(|t| t.access_token)
    }

    /// After a 401/403 to a request sent with `sent`: whether to send it again (the
    /// tokens changed meanwhile, a refresh worked, or the user signed in). `Ok(false)`
    /// when nothing can be done without the user and the page said not to ask.
    pub async fn recover(
        self: &Rc<Self>,
        status: u16,
        challenge: &str,
        sent: Option<&str>,
    ) -> JsResult<bool> {
        let running = self.busy.borrow().clone();
        if let Some(running) = running {
            let _ = JsFuture::from(running).await;
        }
        let current = self.store.load().map(|t| t.access_token);
        if current.is_some() && current.as_deref() != sent {
            return Ok(true);
        }
        let params = challenge_params(challenge);
        if status == 403
            && params.get("error").and_then(Value::as_str) != Some("insufficient_scope")
        {
            return Ok(false);
        }
        let this = self.clone();
        let challenge = challenge.to_owned();
        let outcome = self
            .exclusive(Box::pin(async move {
                this.recover_now(status, &challenge)
                    .await
                    .map(JsValue::from)
            }))
            .await?;
        Ok(outcome.is_truthy())
    }

    async fn recover_now(self: Rc<Self>, status: u16, challenge: &str) -> JsResult<bool> {
        if status == 401 && self.store.load().is_some_and(|t| t.refresh_token.is_some()) {
            if self.refresh().await.is_ok() {
                return Ok(true);
            }
            self.store.forget();
        }
        if !self.interactive {
            return Ok(false);
        }
        self.sign_in(challenge).await?;
        Ok(true)
    }

    /// The refresh_token grant; the new tokens are saved.
    async fn refresh(&self) -> JsResult<JsValue> {
        let tokens = self.store.load().ok_or(JsValue::UNDEFINED)?;
        let body = tokens
            .refresh_grant(&self.client_id, &self.resource)
            .ok_or(JsValue::UNDEFINED)?;
        let (status, text) =
            js::post_form(self.fetch.as_ref(), &tokens.server.token_endpoint, &body).await?;
        let now = js_sys::Date::now();
        let fresh = grant::read_token_response(
            status,
            &text,
            now,
            &tokens.server,
            tokens.refresh_token.as_deref(),
        )
        .map_err(to_js_error)?;
        self.store.save(&fresh);
        Ok(JsValue::TRUE)
    }

    /// The first document of `urls` that reads as JSON.
    async fn first_json(&self, urls: &[String]) -> Option<Value> {
        for url in urls {
            if let Some(doc) = js::get_json(self.fetch.as_ref(), url).await {
                return Some(doc);
            }
        }
        None
    }

    /// Discovery, then the authorization code flow with PKCE in a popup or a redirect.
    async fn sign_in(&self, challenge: &str) -> JsResult<()> {
        let params = challenge_params(challenge);
        let param = |n: &str| params.get(n).and_then(Value::as_str);
        let urls = oauth::protected_resource_urls(&self.resource, param("resource_metadata"))
            .map_err(to_js_error)?;
        let doc = self.first_json(&urls).await.ok_or_else(|| {
            to_js_error(oauth::failure(
                "discovery",
                format!(
                    "no Protected Resource Metadata could be read at {}",
                    urls.join(", ")
                ),
                oauth::SignInDetails {
                    urls: Some(&urls),
                    ..oauth::SignInDetails::default()
                },
            ))
        })?;
        let protected =
            oauth::read_protected_resource(&doc, &self.resource).map_err(to_js_error)?;
        let issuer = &protected.authorization_servers[0];
        let server = self.authorization_server(issuer).await?;
        let scope = oauth::choose_scope(
            self.scope.as_deref(),
            param("scope"),
            &protected.scopes_supported,
        );
        let pending = Pending {
            server,
            client_id: self.client_id.clone(),
            redirect_uri: self.redirect_uri.clone(),
            resource: self.resource.clone(),
            scope,
            state: grant::random_string(&js::random_bytes(16)?),
            verifier: grant::random_string(&js::random_bytes(32)?),
        };
        let url = pending.authorization_url();
        if !self.popup {
            js::session_set(grant::PENDING_KEY, &pending.to_json().to_string());
            js::call_method(&js::get(&js::global(), "location"), "assign", &[url.into()])?;
            // The page is leaving; `connect` on the page it comes back to goes on.
            JsFuture::from(Promise::new(&mut |_, _| {})).await?;
            return Ok(());
        }
        let href = self.popup_flow(&url, &pending).await?;
        self.exchange(&pending, &href).await
    }

    async fn authorization_server(&self, issuer: &str) -> JsResult<AuthorizationServer> {
        let urls = oauth::authorization_server_urls(issuer).map_err(to_js_error)?;
        let doc = self.first_json(&urls).await.ok_or_else(|| {
            to_js_error(oauth::failure(
                "discovery",
                format!(
                    "no metadata of the authorization server {issuer} could be read at {}",
                    urls.join(", ")
                ),
                oauth::SignInDetails {
                    urls: Some(&urls),
                    ..oauth::SignInDetails::default()
                },
            ))
        })?;
        oauth::read_authorization_server(&doc, issuer).map_err(to_js_error)
    }

    /// Opens the authorization URL in a small window and waits until it comes back to
    /// the redirect URI; returns that address.
    async fn popup_flow(&self, url: &str, pending: &Pending) -> JsResult<String> {
        let global = js::global();
        let features = "popup,width=520,height=680";
        let popup = js::call_method(&global, "open", &[url.into(), POPUP_NAME.into(), features.into()])
            .ok()
            .filter(JsValue::is_object)
            .ok_or_else(|| {
                to_js_error(oauth::failure(
                    "popup",
                    "the browser blocked the sign-in window: sign in from a click (connect in its handler) or use mode: \"redirect\"",
                    oauth::SignInDetails::default(),
                ))
            })?;
        let started = js_sys::Date::now();
        loop {
            js::wait(js::sleep(100), None).await?;
            if js::get(&popup, "closed").is_truthy() {
                return Err(to_js_error(oauth::failure(
                    "popup",
                    "the sign-in window was closed before sign-in finished",
                    oauth::SignInDetails::default(),
                )));
            }
            // Reading another origin's address throws: the window is still at the
            // authorization server.
            let href = js_sys::Reflect::get(&js::get(&popup, "location"), &"href".into())
                .ok()
                .and_then(|h| h.as_string());
            if let Some(href) = href.filter(|h| pending.is_callback(h)) {
                let _ = js::call_method(&popup, "close", &[]);
                return Ok(href);
            }
            if js_sys::Date::now() - started > POPUP_TIMEOUT_MS {
                let _ = js::call_method(&popup, "close", &[]);
                return Err(to_js_error(oauth::failure(
                    "popup",
                    "sign-in took more than 10 minutes",
                    oauth::SignInDetails::default(),
                )));
            }
        }
    }

    /// Reads callback `href` and exchanges its code for tokens, which are saved.
    async fn exchange(&self, pending: &Pending, href: &str) -> JsResult<()> {
        let code = pending.read_callback(href).map_err(to_js_error)?;
        let (status, text) = js::post_form(
            self.fetch.as_ref(),
            &pending.server.token_endpoint,
            &pending.code_grant(&code),
        )
        .await?;
        let tokens =
            grant::read_token_response(status, &text, js_sys::Date::now(), &pending.server, None)
                .map_err(to_js_error)?;
        self.store.save(&tokens);
        Ok(())
    }

    /// On the page a redirect came back to: finishes that sign-in (when it is this
    /// client's) and takes the callback's parameters out of the address bar.
    pub async fn complete_redirect(&self) -> JsResult<()> {
        let Some(pending) = js::session_get(grant::PENDING_KEY)
            .and_then(|p| serde_json::from_str(&p).ok())
            .and_then(|doc| Pending::from_json(&doc))
        else {
            return Ok(());
        };
        let href = js::page_href().unwrap_or_default();
        if !pending.is_callback(&href)
            || pending.client_id != self.client_id
            || pending.resource != self.resource
        {
            return Ok(());
        }
        js::session_remove(grant::PENDING_KEY);
        let clean = grant::without_callback_params(&href);
        let history = js::get(&js::global(), "history");
        let _ = js::call_method(
            &history,
            "replaceState",
            &[JsValue::NULL, "".into(), clean.into()],
        );
        self.exchange(&pending, &href).await
    }
}
