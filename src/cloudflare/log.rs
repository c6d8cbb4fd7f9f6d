//! Printing the core's log lines (`crate::ops::log`): one JSON object per `console.log`,
//! which Workers Logs indexes field by field and `wrangler tail` shows as it happens. The
//! adapter decides when something happened; what is printed, and whether, is the core's.

use crate::http::Headers;
use crate::ops::log::{Line, LogSettings};
use crate::server::Server;
use worker::Env;

/// Prints `line` if `settings` let it through.
pub(crate) fn print(line: &Line, settings: &LogSettings) {
    if let Some(text) = line.render(settings) {
        worker::console_log!("{text}");
        super::bench::log_line();
    }
}

/// Prints `line` at the level the deployment's variables set (the default level while
/// its configuration is broken), for work that has no request's server at hand: an
/// object's alarm, a listen stream's body, a registry's announcement.
pub(crate) fn print_configured(line: &Line, env: &Env, build: fn() -> Server) {
    let settings = super::built(env, build).map(|server| server.config.log);
    print(line, &settings.unwrap_or_default());
}

/// Prints every line of `lines`.
pub(crate) fn print_all(lines: impl IntoIterator<Item = Line>, settings: &LogSettings) {
    for line in lines {
        print(&line, settings);
    }
}

/// The request's id for the logs: Cloudflare's `cf-ray` when there is one (it is also in
/// the platform's own request logs), else 16 random hex digits.
pub(crate) fn request_id(headers: &Headers) -> String {
    // Sent on to the objects in a header: only a value the runtime can send.
    if let Some(ray) = headers.get("cf-ray")
        && crate::http::is_valid_field_value(&ray)
    {
        return ray;
    }
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        return "unknown".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
