//! The fake's streamed answers ([`super::FakeHost::stream`]): a body in pieces, some held
//! back until the test's code sent a given request (the answer a server waits for before it
//! goes on, say), and a count of the streams dropped before their end.

use super::{FakeHost, State};
use crate::host::{BoxFuture, Chunks, HostError, Limits, Outbound, Streaming};

impl FakeHost {
    /// Answers `method url` with `status`, content type `content_type`, and a body read in
    /// `pieces` through [`Platform::open`](crate::host::Platform::open) (`fetch` answers
    /// them joined, once none is held back), recording the request as `fetch` does. A
    /// [`Piece::After`] is released only once a request recorded by this fake matches its
    /// method and URL and its body contains its `contains`: until then `next_chunk` fails
    /// with [`HostError::Network`] ("the fake stream waits for …"), so a piece that never
    /// comes never hangs a test (native tests run on a busy-polling executor).
    pub fn stream(
        self,
        method: &str,
        url: &str,
        status: u16,
        content_type: &str,
        pieces: Vec<Piece>,
    ) -> Self {
        self.0.borrow_mut().streams.push(Route {
            method: method.to_ascii_uppercase(),
            url: url.to_owned(),
            when: None,
            status,
            content_type: content_type.to_owned(),
            pieces,
        });
        self
    }

    /// [`FakeHost::stream`] for the requests to `method url` whose body contains `when`
    /// only (a server's answer to one kind of message on an endpoint that takes several);
    /// the others go to the ordinary routes.
    pub fn stream_when(
        self,
        method: &str,
        url: &str,
        when: &str,
        status: u16,
        content_type: &str,
        pieces: Vec<Piece>,
    ) -> Self {
        let fake = self.stream(method, url, status, content_type, pieces);
        if let Some(route) = fake.0.borrow_mut().streams.last_mut() {
            route.when = Some(when.to_owned());
        }
        fake
    }

    /// How many streamed answers were dropped before their last piece was read (a request
    /// closed early).
    pub fn streams_dropped(&self) -> usize {
        self.0.borrow().streams_dropped
    }

    /// The answer to one request opened with [`Platform::open`](crate::host::Platform::open).
    pub(super) fn opened(
        &self,
        binding: Option<&str>,
        request: Outbound,
        limits: Limits,
    ) -> Result<Streaming, HostError> {
        if let Some(binding) = binding {
            self.bound(binding)?;
        }
        let route = self.0.borrow().stream_for(&request).map(|route| {
            let headers = vec![("content-type".into(), route.content_type.clone())];
            (route.status, headers, route.pieces.clone())
        });
        let Some((status, headers, pieces)) = route else {
            return Ok(
                Streaming::whole(self.exchange(request, limits)?).max_bytes(limits.max_bytes)
            );
        };
        self.record(&request, limits)?;
        let reader = Reader {
            fake: self.clone(),
            pieces,
            next: 0,
        };
        Ok(
            Streaming::new(status, headers, request.url, Box::new(reader))
                .max_bytes(limits.max_bytes),
        )
    }
}

/// One piece of a streamed body ([`super::FakeHost::stream`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Released at once.
    Data(String),
    /// Released only once a request this fake recorded matches `method` and `url` and its
    /// body contains `contains`.
    After {
        method: String,
        url: String,
        contains: String,
        data: String,
    },
}

/// A streamed route: `method url` answered with `status`, `content_type` and `pieces`.
pub(super) struct Route {
    pub method: String,
    pub url: String,
    /// Only for a request whose body contains this.
    pub when: Option<String>,
    pub status: u16,
    pub content_type: String,
    pub pieces: Vec<Piece>,
}

impl State {
    /// The streamed route for `request`, if any.
    pub(super) fn stream_for(&self, request: &Outbound) -> Option<&Route> {
        self.streams.iter().find(|r| {
            r.method == request.method
                && r.url == request.url
                && r.when.as_ref().is_none_or(|when| {
                    String::from_utf8_lossy(&request.body).contains(when.as_str())
                })
        })
    }

    /// The data of `piece`, or why it is held back.
    fn release(&self, piece: &Piece) -> Result<Vec<u8>, HostError> {
        match piece {
            Piece::Data(data) => Ok(data.as_bytes().to_vec()),
            Piece::After {
                method,
                url,
                contains,
                data,
            } => {
                let sent = self.requests.iter().any(|r| {
                    r.method.eq_ignore_ascii_case(method)
                        && r.url == *url
                        && String::from_utf8_lossy(&r.body).contains(contains.as_str())
                });
                match sent {
                    true => Ok(data.as_bytes().to_vec()),
                    false => Err(HostError::Network(format!(
                        "the fake stream waits for {method} {url} with {contains:?} in its body"
                    ))),
                }
            }
        }
    }

    /// Every piece joined (what `fetch` answers on a streamed route), or why one is held.
    pub(super) fn joined(&self, pieces: &[Piece]) -> Result<Vec<u8>, HostError> {
        let mut body = Vec::new();
        for piece in pieces {
            body.extend(self.release(piece)?);
        }
        Ok(body)
    }
}

/// The reader of one streamed answer.
pub(super) struct Reader {
    pub fake: FakeHost,
    pub pieces: Vec<Piece>,
    /// The index of the next piece.
    pub next: usize,
}

impl Chunks for Reader {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, HostError>> {
        let piece = match self.pieces.get(self.next) {
            None => Ok(None),
            Some(piece) => self.fake.0.borrow().release(piece).map(Some),
        };
        if let Ok(Some(_)) = piece {
            self.next += 1;
        }
        Box::pin(async move { piece })
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if self.next < self.pieces.len() {
            self.fake.0.borrow_mut().streams_dropped += 1;
        }
    }
}
