//! The numeric keywords (Validation 2020-12 §6.2), exact for integers: JSON numbers are
//! compared as `i128` when both are integers, and as `f64` otherwise.

use super::compile::Keywords;
use serde_json::Number;
use std::cmp::Ordering;

/// Each numeric keyword of `k` that `n` fails: what is wrong, and the keyword.
pub(super) fn problems(k: &Keywords, n: &Number) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let mut bound = |want: &Option<Number>, fails: fn(Ordering) -> bool, what: &str, keyword| {
        if let Some(want) = want
            && compare(n, want).is_some_and(fails)
        {
            out.push((format!("{n} {what} {want}"), keyword));
        }
    };
    bound(&k.minimum, Ordering::is_lt, "is less than", "minimum");
    bound(&k.maximum, Ordering::is_gt, "is greater than", "maximum");
    bound(
        &k.exclusive_minimum,
        Ordering::is_le,
        "is not greater than",
        "exclusiveMinimum",
    );
    bound(
        &k.exclusive_maximum,
        Ordering::is_ge,
        "is not less than",
        "exclusiveMaximum",
    );
    if let Some(want) = &k.multiple_of
        && !multiple(n, want)
    {
        out.push((format!("{n} is not a multiple of {want}"), "multipleOf"));
    }
    out
}

/// Whether two JSON numbers are the same value (`1` and `1.0` are).
pub(super) fn same(a: &Number, b: &Number) -> bool {
    compare(a, b) == Some(Ordering::Equal)
}

fn integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// `n` is an integer multiple of `m` (`m` > 0, checked when compiling). For fractions, a
/// quotient within a relative 1e-9 of an integer counts (0.0075 is a multiple of 0.0001,
/// which binary floating point cannot say exactly); a quotient too large for `f64` is not.
fn multiple(n: &Number, m: &Number) -> bool {
    if let (Some(x), Some(y)) = (integer(n), integer(m)) {
        return x % y == 0;
    }
    let (Some(x), Some(y)) = (n.as_f64(), m.as_f64()) else {
        return false;
    };
    let q = x / y;
    q.is_finite() && (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
}
