//! Regular expressions (`pattern`, `patternProperties`) and the formats draft 7 asserts.
//!
//! JSON Schema names ECMA-262 as the dialect of its regular expressions (Core 2020-12 §6.4).
//! They run on [`regex_lite`]: linear time whatever the pattern or the input (no
//! backtracking, so a pattern cannot be made to run for ever), and no Unicode tables in
//! the Worker. What that engine reads differently from ECMA-262 is refused when the schema
//! is compiled, never guessed: Unicode classes (`\p{..}`), lookaround and backreferences
//! are errors; `\d`, `\w`, `\s` and `\b` are ASCII (as `\d`, `\w` and `\b` are in
//! ECMA-262; its `\s` also matches non-ASCII spaces).

use regex_lite::Regex;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Longest pattern source a schema may use.
const MAX_PATTERN_CHARS: usize = 1000;

/// A compiled `pattern`, searched anywhere in the string (not anchored), as ECMA-262's
/// `RegExp.prototype.test` does.
pub(super) struct Pattern(Regex);

impl Pattern {
    pub(super) fn new(source: &str) -> Result<Pattern, String> {
        if source.chars().count() > MAX_PATTERN_CHARS {
            return Err(format!(
                "a pattern is at most {MAX_PATTERN_CHARS} characters"
            ));
        }
        Regex::new(source)
            .map(Pattern)
            .map_err(|e| format!("{source:?} is not a regular expression this server runs: {e}"))
    }

    pub(super) fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    pub(super) fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// Whether `text` is a valid `format` (draft 7 validation §7.3). Formats this validator
/// does not know are annotations and accept every string.
pub(super) fn format_ok(format: &str, text: &str) -> bool {
    match format {
        "ipv4" => ipv4(text),
        "ipv6" => text.parse::<Ipv6Addr>().is_ok(),
        "date" => date(text),
        "time" => time(text),
        "date-time" => text
            .split_once(['T', 't'])
            .is_some_and(|(d, t)| date(d) && time(t)),
        "email" => email(text),
        "hostname" => hostname(text),
        "uri" => crate::uri::Uri::parse(text).is_ok(),
        "json-pointer" => text.is_empty() || (text.starts_with('/') && escapes_ok(text)),
        "regex" => Pattern::new(text).is_ok(),
        "uuid" => uuid(text),
        _ => true,
    }
}

/// Four decimal octets without leading zeros (RFC 2673 §3.2).
fn ipv4(text: &str) -> bool {
    text.split('.')
        .all(|octet| octet == "0" || !octet.starts_with('0'))
        && text.parse::<Ipv4Addr>().is_ok()
}

fn digits(text: &str, n: usize) -> Option<u32> {
    (text.len() == n && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok())?
}

/// `full-date` of RFC 3339 §5.6, with the days of each month.
fn date(text: &str) -> bool {
    let mut parts = text.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `full-time` of RFC 3339 §5.6 (a leap second allowed at 60).
fn time(text: &str) -> bool {
    let split = text.find(['Z', 'z', '+', '-']);
    let (clock, zone) = split.map_or((text, ""), |i| text.split_at(i));
    let clock = clock.split_once('.').map_or(clock, |(hms, fraction)| {
        if !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()) {
            hms
        } else {
            ""
        }
    });
    let mut hms = clock.split(':').map(|p| digits(p, 2));
    let (Some(Some(h)), Some(Some(m)), Some(Some(s)), None) =
        (hms.next(), hms.next(), hms.next(), hms.next())
    else {
        return false;
    };
    let zone_ok = match zone {
        "Z" | "z" => true,
        _ => zone.get(1..).is_some_and(|offset| {
            let mut hm = offset.split(':').map(|p| digits(p, 2));
            matches!((hm.next(), hm.next(), hm.next()), (Some(Some(oh)), Some(Some(om)), None) if oh < 24 && om < 60)
        }),
    };
    h < 24 && m < 60 && s <= 60 && zone_ok
}

fn email(text: &str) -> bool {
    text.rsplit_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && hostname(domain)
    })
}

/// RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens.
fn hostname(text: &str) -> bool {
    let text = text.strip_suffix('.').unwrap_or(text);
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// `~` only as `~0` or `~1` (RFC 6901 §3).
fn escapes_ok(text: &str) -> bool {
    text.split('~')
        .skip(1)
        .all(|rest| rest.starts_with(['0', '1']))
}

/// 8-4-4-4-12 hexadecimal digits (RFC 4122 §3).
fn uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}
