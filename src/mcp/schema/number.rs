//! The numeric keywords (Validation 2020-12 §6.2), exact for integers: JSON numbers are
//! compared as `i128` when both are integers, and as `f64` otherwise; `multipleOf` is
//! exact in the numbers' decimal reading.

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

/// `n` is an integer multiple of `m` (`m` > 0, checked when compiling): exactly, in the
/// decimal reading each number prints as (the shortest that reads back as the same `f64`),
/// so 0.0075 is a multiple of 0.0001 (which binary floating point cannot say), 1e-300 is
/// not a multiple of 3, and 6.544563636215538e283 is one (its digits sum to 72).
fn multiple(n: &Number, m: &Number) -> bool {
    if let (Some(x), Some(y)) = (integer(n), integer(m)) {
        return x % y == 0;
    }
    let (Some((x, x_exp)), Some((y, y_exp))) = (decimal(n), decimal(m)) else {
        return false;
    };
    if x == 0 {
        return true;
    }
    if y == 0 {
        return false;
    }
    // n / m = x · 10^(x_exp − y_exp) / y
    let shift = i64::from(x_exp) - i64::from(y_exp);
    if shift >= 0 {
        // y divides x · 10^shift: by remainders, exact at any shift.
        let y = u128::from(y);
        ((u128::from(x) % y) * pow10_mod(shift as u64, y)).is_multiple_of(y)
    } else {
        // y · 10^−shift divides x: only if it is no larger than x (below 10^20).
        u32::try_from(-shift)
            .ok()
            .and_then(|places| 10u128.checked_pow(places))
            .and_then(|scale| scale.checked_mul(u128::from(y)))
            .is_some_and(|divisor| u128::from(x).is_multiple_of(divisor))
    }
}

/// `n`'s magnitude as digits · 10^exponent, from the shortest decimal it prints as
/// (`6.5e283`, `0.0075`, `12`), trailing zeros moved into the exponent.
fn decimal(n: &Number) -> Option<(u64, i32)> {
    let text = n.to_string();
    let text = text.trim_start_matches('-');
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut exponent = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    let mut digits = format!("{whole}{fraction}");
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
        exponent = exponent.checked_add(1)?;
    }
    Some((digits.parse().ok()?, exponent))
}

/// 10^power mod `m` (`m` ≥ 1, below 2^64, so products stay within `u128`).
fn pow10_mod(mut power: u64, m: u128) -> u128 {
    let (mut base, mut out) = (10 % m, 1 % m);
    while power > 0 {
        if power & 1 == 1 {
            out = out * base % m;
        }
        base = base * base % m;
        power >>= 1;
    }
    out
}
