//! Task ids: 128 bits from the platform's cryptographic RNG, written as 32 lower-case
//! hex digits (e.g. `3f0c9a1be4d2477f8a60c2d5b9e1f004`). The adapter draws the bytes; this
//! module only formats and validates, so an id can be checked before any routing.

/// Length of a task id in characters.
pub const LEN: usize = 32;

/// Formats 16 random bytes as a task id.
pub fn format(bytes: [u8; 16]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `id` has the one format this server mints. Anything else cannot name a task
/// here, so it is "not found" without touching a Durable Object.
pub fn is_valid(id: &str) -> bool {
    id.len() == LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_and_validates() {
        let id = super::format([0xab; 16]);
        assert_eq!(id, "abababababababababababababababab");
        assert!(super::is_valid(&id));
        assert!(!super::is_valid("ABABABABABABABABABABABABABABABAB"));
        assert!(!super::is_valid("gate-test"));
        assert!(!super::is_valid(&id[..31]));
    }
}
