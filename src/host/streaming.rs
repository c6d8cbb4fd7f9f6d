//! An answer whose body is read as it arrives ([`super::Host::open`]): a long answer, such
//! as a server's `text/event-stream`, read piece by piece while the exchange still runs.
//! The bounds are the request's: [`Streaming`] counts the bytes against `max_bytes`, the
//! adapter's reader ([`Chunks`]) keeps the deadline (the core has no clock).

use super::{BoxFuture, HostError, Inbound};

/// The body of an answer, piece by piece (an adapter's reader). It fails with
/// [`HostError::Timeout`] once the request's deadline passed; dropping it before its end
/// stops the request (the connection is closed, a service binding's body cancelled).
pub trait Chunks {
    /// The next piece; `Ok(None)` at the end.
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, HostError>>;
}

/// A body already read whole (one piece), or one with nothing left.
struct Whole(Option<Vec<u8>>);

impl Chunks for Whole {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, HostError>> {
        let piece = self.0.take();
        Box::pin(async move { Ok(piece) })
    }
}

/// An answer whose body is read as it arrives (`Host::open`). Dropping it before the end
/// stops the request (the connection is closed; a service binding's body is cancelled).
pub struct Streaming {
    pub status: u16,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    /// The URL that answered.
    pub url: String,
    body: Box<dyn Chunks>,
    /// The most of the body read before [`HostError::TooLarge`].
    max_bytes: usize,
    /// How much of the body came so far.
    read: usize,
    /// The body passed `max_bytes` (and was dropped): every later read says so again.
    too_large: bool,
}

impl std::fmt::Debug for Streaming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streaming")
            .field("status", &self.status)
            .field("url", &self.url)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

impl Streaming {
    /// An answer with `body` still to read, unbounded in size until [`Streaming::max_bytes`].
    pub fn new(
        status: u16,
        headers: Vec<(String, String)>,
        url: String,
        body: Box<dyn Chunks>,
    ) -> Self {
        Streaming {
            status,
            headers,
            url,
            body,
            max_bytes: usize::MAX,
            read: 0,
            too_large: false,
        }
    }

    /// A whole answer as a stream of one piece (the default `Platform::open`).
    pub fn whole(inbound: Inbound) -> Self {
        let body = (!inbound.body.is_empty()).then_some(inbound.body);
        Streaming::new(
            inbound.status,
            inbound.headers,
            inbound.url,
            Box::new(Whole(body)),
        )
    }

    /// The same answer whose reads fail with [`HostError::TooLarge`] as soon as more than
    /// `max` bytes of its body came in total (what a `Platform::open` sets from its limits).
    pub fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = max;
        self
    }

    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        super::outbound::header(&self.headers, name)
    }

    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The next piece of the body, `Ok(None)` at its end. Errors: [`HostError::Timeout`]
    /// when the request's deadline (its `timeout_ms` from when it was opened, covering the
    /// whole body) passes; [`HostError::TooLarge`] as soon as more than its `max_bytes` came
    /// in total (the request is stopped then); [`HostError::Network`].
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, HostError> {
        if self.too_large {
            return Err(self.too_large());
        }
        let piece = self.body.next().await?;
        if let Some(piece) = &piece {
            self.read = self.read.saturating_add(piece.len());
            if self.read > self.max_bytes {
                self.too_large = true;
                // Dropping the reader stops the request: the rest is not wanted.
                self.body = Box::new(Whole(None));
                return Err(self.too_large());
            }
        }
        Ok(piece)
    }

    /// The rest of the body read whole (same bounds) as an [`Inbound`].
    pub async fn into_inbound(mut self) -> Result<Inbound, HostError> {
        let mut body = Vec::new();
        while let Some(piece) = self.next_chunk().await? {
            if body.is_empty() {
                body = piece;
            } else {
                body.extend_from_slice(&piece);
            }
        }
        Ok(Inbound {
            status: self.status,
            headers: self.headers,
            body,
            url: self.url,
        })
    }

    fn too_large(&self) -> HostError {
        HostError::TooLarge {
            url: self.url.clone(),
            limit: self.max_bytes,
        }
    }
}
