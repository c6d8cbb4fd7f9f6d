//! Server-sent events, as much as MCP uses (streamable-http "Sending Messages"): the
//! `data:` lines of each `message` event joined into one payload, `:` comments
//! (keep-alives) skipped, events of another type skipped, other fields ignored. The
//! browser client reads listen streams with it, the gateway an upstream's answers.
//!
//! ```text
//! event: message                       (optional; other event types are skipped)
//! id: 7                                (optional)
//! data: {"jsonrpc":"2.0","method":"notifications/progress","params":{…}}
//!                                      (a blank line ends an event; data lines join with \n)
//! ```
//!
//! Bytes arrive in arbitrary chunks; lines are split on bytes, so a UTF-8 character cut
//! by a chunk boundary is whole again before it is decoded.

/// One `message` event carrying a JSON-RPC message (what a server sends).
pub fn event(json: &[u8]) -> Vec<u8> {
    let mut frame = b"event: message\ndata: ".to_vec();
    frame.extend_from_slice(json);
    frame.extend_from_slice(b"\n\n");
    frame
}

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line not yet ended.
    line: Vec<u8>,
    /// `data:` lines of the event not yet dispatched.
    data: Option<String>,
    /// Its `event:` type, if it named one.
    kind: Option<String>,
}

impl SseParser {
    /// Feeds a chunk; returns the payloads of the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &byte in chunk {
            if byte != b'\n' {
                self.line.push(byte);
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                events.extend(self.dispatch());
            } else if let Some(value) = line.strip_prefix("data:") {
                let value = value.strip_prefix(' ').unwrap_or(value);
                match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                }
            } else if let Some(value) = line.strip_prefix("event:") {
                self.kind = Some(value.trim_start().to_owned());
            }
            // `:` comments, `id:` and `retry:` carry nothing MCP needs.
        }
        events
    }

    /// The end of the stream: an event without its blank line still counts.
    pub fn finish(&mut self) -> Option<String> {
        if !self.line.is_empty() {
            self.push(b"\n");
        }
        self.dispatch()
    }

    fn dispatch(&mut self) -> Option<String> {
        let kind = self.kind.take();
        self.data
            .take()
            .filter(|_| kind.as_deref().is_none_or(|k| k == "message"))
    }
}
