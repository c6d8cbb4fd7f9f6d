//! The items [`export_worker!`](crate::export_worker) writes into the author's crate:
//! `#[wasm_bindgen]` exports that hand their arguments to [`super::export`].

/// The exports of [`export_worker!`](crate::export_worker) (wasm32 builds only).
#[doc(hidden)]
#[macro_export]
macro_rules! __export_worker_items {
    ($server:path) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::cloudflare::export as __mte;
            // The path wasm-bindgen's expansion names its crate by (the author's crate
            // need not depend on it).
            use $crate::cloudflare::export::bindgen as wasm_bindgen;
            use $crate::cloudflare::export::bindgen::prelude::wasm_bindgen;

            #[wasm_bindgen(wasm_bindgen = wasm_bindgen)]
            pub fn fetch(
                req: __mte::JsRequest,
                env: __mte::JsEnv,
                ctx: __mte::JsContext,
            ) -> __mte::Promise {
                __mte::fetch(req, env, ctx, $server)
            }

            #[wasm_bindgen(wasm_bindgen = wasm_bindgen)]
            pub struct TaskObject(__mte::TaskExport);

            #[wasm_bindgen(wasm_bindgen = wasm_bindgen)]
            impl TaskObject {
                #[wasm_bindgen(constructor)]
                pub fn new(state: __mte::JsState, env: __mte::JsEnv) -> TaskObject {
                    TaskObject(__mte::TaskExport::new(state, env, $server))
                }
                pub fn fetch(&self, req: __mte::JsRequest) -> __mte::Promise {
                    self.0.fetch(req)
                }
                pub fn alarm(&self) -> __mte::Promise {
                    self.0.alarm()
                }
                #[wasm_bindgen(js_name = webSocketMessage)]
                pub fn websocket_message(
                    &self,
                    ws: __mte::JsWebSocket,
                    message: __mte::bindgen::JsValue,
                ) -> __mte::Promise {
                    self.0.websocket_message(ws, message)
                }
                #[wasm_bindgen(js_name = webSocketClose)]
                pub fn websocket_close(
                    &self,
                    ws: __mte::JsWebSocket,
                    code: usize,
                    reason: String,
                    was_clean: bool,
                ) -> __mte::Promise {
                    self.0.websocket_close(ws, code, reason, was_clean)
                }
                #[wasm_bindgen(js_name = webSocketError)]
                pub fn websocket_error(
                    &self,
                    ws: __mte::JsWebSocket,
                    error: __mte::bindgen::JsValue,
                ) -> __mte::Promise {
                    self.0.websocket_error(ws, error)
                }
            }

            $crate::__export_object!(SessionObject, SessionExport, $server);
            $crate::__export_object!(PrincipalObject, PrincipalExport, $server);
            $crate::__export_gateway_items!($server);
        };
    };
}

/// The `UpstreamObject` class, in a build with the `gateway` feature (the library's: the
/// author's crate need not name it).
#[cfg(feature = "gateway")]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_gateway_items {
    ($server:path) => {
        $crate::__export_object!(UpstreamObject, UpstreamExport, $server);
    };
}

/// Without the `gateway` feature there is no upstream to watch.
#[cfg(not(feature = "gateway"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_gateway_items {
    ($server:path) => {};
}

/// One object class without WebSockets (session, principal, upstream): its constructor,
/// `fetch` and `alarm`, handed to `$export` (written inside [`__export_worker_items`]'s
/// block, whose `use`s name `__mte` and `wasm_bindgen`).
#[doc(hidden)]
#[macro_export]
macro_rules! __export_object {
    ($class:ident, $export:ident, $server:path) => {
        #[wasm_bindgen(wasm_bindgen = wasm_bindgen)]
        pub struct $class(__mte::$export);

        #[wasm_bindgen(wasm_bindgen = wasm_bindgen)]
        impl $class {
            #[wasm_bindgen(constructor)]
            pub fn new(state: __mte::JsState, env: __mte::JsEnv) -> $class {
                $class(__mte::$export::new(state, env, $server))
            }
            pub fn fetch(&self, req: __mte::JsRequest) -> __mte::Promise {
                self.0.fetch(req)
            }
            pub fn alarm(&self) -> __mte::Promise {
                self.0.alarm()
            }
        }
    };
}
