//! Where a sign-in keeps its tokens: this module's memory (until the page unloads) or
//! `sessionStorage` (this tab, across reloads), under a key naming the client id and the
//! MCP server (`grant::storage_key`).

use super::grant::Tokens;
use super::js;
use std::cell::RefCell;

thread_local! {
    /// `storage: "memory"`: tokens by storage key, for as long as the page lives.
    /// (A list: a page signs in to a server or two.)
    static MEMORY: RefCell<Vec<(String, Tokens)>> = RefCell::default();
}

pub struct TokenStore {
    key: String,
    session: bool,
}

impl TokenStore {
    pub fn new(key: String, session: bool) -> Self {
        TokenStore { key, session }
    }

    pub fn load(&self) -> Option<Tokens> {
        if self.session {
            Tokens::from_json(&serde_json::from_str(&js::session_get(&self.key)?).ok()?)
        } else {
            MEMORY.with(|m| {
                m.borrow()
                    .iter()
                    .find(|(k, _)| *k == self.key)
                    .map(|(_, t)| t.clone())
            })
        }
    }

    pub fn save(&self, tokens: &Tokens) {
        if self.session {
            js::session_set(&self.key, &tokens.to_json().to_string());
        } else {
            MEMORY.with(|m| {
                let mut memory = m.borrow_mut();
                memory.retain(|(k, _)| *k != self.key);
                memory.push((self.key.clone(), tokens.clone()));
            });
        }
    }

    /// Forgets the tokens, wherever they were.
    pub fn forget(&self) {
        js::session_remove(&self.key);
        MEMORY.with(|m| m.borrow_mut().retain(|(k, _)| *k != self.key));
    }
}
