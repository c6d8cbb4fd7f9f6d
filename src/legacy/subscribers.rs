//! Who subscribed to one resource (2025-11-25 `resources/subscribe`): what the subscription
//! registry object stores after an `add` or a `remove`, decided here (pure). The object
//! (`cloudflare::session_object::registry`) loads the set, asks [`change`] and performs the
//! [`Write`]: a set is bounded by [`MAX_SUBSCRIBERS`], and the object's storage is deleted
//! when its last subscriber leaves, so a URI nobody listens to costs nothing.

use crate::error::McpError;
use crate::pairs::SortedSet;

/// Sessions that may subscribe to one resource at once (each id is 32 hex digits: the
/// stored set stays far below a storage value's limit).
pub const MAX_SUBSCRIBERS: usize = 10_000;

/// What the registry object writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// Nothing changed.
    Nothing,
    /// Store this set.
    Store(SortedSet<String>),
    /// Nobody is subscribed any more: delete the object's storage.
    Delete,
}

/// The write that subscribing `session` to `uri` (`subscribed`), or unsubscribing it, makes
/// to `subscribers`; a full set refuses a new session with an error naming the URI.
pub fn change(
    mut subscribers: SortedSet<String>,
    uri: &str,
    session: &str,
    subscribed: bool,
) -> Result<Write, McpError> {
    if subscribed {
        if subscribers.contains(session) {
            return Ok(Write::Nothing);
        }
        if subscribers.len() >= MAX_SUBSCRIBERS {
            return Err(McpError::InvalidParams(format!(
                "At most {MAX_SUBSCRIBERS} sessions may subscribe to {uri} at once; try again later"
            )));
        }
        subscribers.insert(session.to_owned());
        return Ok(Write::Store(subscribers));
    }
    let removed = subscribers.remove(session);
    Ok(if subscribers.is_empty() {
        Write::Delete
    } else if removed {
        Write::Store(subscribers)
    } else {
        Write::Nothing
    })
}
