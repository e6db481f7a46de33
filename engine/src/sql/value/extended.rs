//! A software model of the x87 80-bit `long double`, just enough of it to
//! reproduce SQLite's text ⇄ real conversions bit for bit.
//!
//! SQLite converts decimal text to a double (`sqlite3AtoF`) and a double to
//! decimal digits (`sqlite3FpDecode`) by repeated multiplication by powers of
//! ten in `long double` when the platform has one wider than `double`
//! (x86-64 Linux, where our oracle, bundled SQLite, runs). Those conversions
//! are *not* correctly rounded, so Rust's `f64::from_str` / `{}` would disagree
//! with SQLite in the last digit now and then. Emulating the 64-bit-mantissa
//! arithmetic makes every rendering and parse identical to SQLite's, on every
//! target (wasm32 included), which also keeps stored text deterministic.
//!
//! Invariants: a non-zero [`Extended`] has its mantissa's top bit set; the
//! exponent is unbounded (`i32`), which differs from real x87 only beyond
//! 1e±4900, where every caller's result is already 0 or infinity.

use std::cmp::Ordering;

/// A non-negative extended-precision value `mantissa × 2^exponent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extended {
    mantissa: u64,
    exponent: i32,
}

/// `10^k` rounded to 64 significant bits, as GCC rounds `1.0e+kL` literals.
/// Computed once with exact rational arithmetic; the unit test below checks
/// the exactly representable ones.
pub(crate) const TEN_POW_100: Extended = Extended::raw(0x924d_692c_a61b_e758, 269);
pub(crate) const TEN_POW_119: Extended = Extended::raw(0x9e9f_11c4_014d_da7e, 332);
pub(crate) const TEN_POW_29: Extended = Extended::raw(0xa18f_07d7_36b9_0be5, 33);
pub(crate) const TEN_POW_19: Extended = Extended::raw(0x8ac7_2304_89e8_0000, 0);
pub(crate) const TEN_POW_17: Extended = Extended::raw(0xb1a2_bc2e_c500_0000, -7);
pub(crate) const TEN_POW_10: Extended = Extended::raw(0x9502_f900_0000_0000, -30);
pub(crate) const TEN_POW_7: Extended = Extended::raw(0x9896_8000_0000_0000, -40);
pub(crate) const TEN_POW_1: Extended = Extended::raw(0xa000_0000_0000_0000, -60);
pub(crate) const TEN_POW_MINUS_1: Extended = Extended::raw(0xcccc_cccc_cccc_cccd, -67);
pub(crate) const TEN_POW_MINUS_10: Extended = Extended::raw(0xdbe6_fece_bded_d5bf, -97);
pub(crate) const TEN_POW_MINUS_97: Extended = Extended::raw(0xdab9_9e59_9588_85c5, -386);
pub(crate) const TEN_POW_MINUS_100: Extended = Extended::raw(0xdff9_7724_7029_7ebd, -396);
/// `f64::MAX`, exactly representable.
pub(crate) const DOUBLE_MAX: Extended = Extended::raw(0xffff_ffff_ffff_f800, 960);

const ZERO: Extended = Extended {
    mantissa: 0,
    exponent: 0,
};

impl Extended {
    const fn raw(mantissa: u64, exponent: i32) -> Extended {
        Extended { mantissa, exponent }
    }

    /// The exact value of `v`.
    pub(crate) fn from_u64(v: u64) -> Extended {
        if v == 0 {
            return ZERO;
        }
        let shift = v.leading_zeros();
        Extended {
            mantissa: v << shift,
            exponent: -(shift as i32),
        }
    }

    /// The exact value of `|r|` (`r` must be finite).
    pub(crate) fn from_f64(r: f64) -> Extended {
        let bits = r.abs().to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1u64 << 52) - 1);
        if biased == 0 {
            // Subnormal or zero: fraction × 2^-1074.
            let e = Extended::from_u64(fraction);
            return if e.mantissa == 0 {
                ZERO
            } else {
                Extended {
                    exponent: e.exponent - 1074,
                    ..e
                }
            };
        }
        let m = (fraction | (1u64 << 52)) << 11;
        Extended {
            mantissa: m,
            exponent: biased - 1075 - 11,
        }
    }

    pub(crate) fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// `self × other`, rounded to 64 bits, ties to even (x87 default mode).
    pub(crate) fn mul(self, other: Extended) -> Extended {
        if self.is_zero() || other.is_zero() {
            return ZERO;
        }
        let p = u128::from(self.mantissa) * u128::from(other.mantissa);
        // p is in [2^126, 2^128): drop the bits below the top 64.
        let discard = 64 - p.leading_zeros();
        let mut m = shift_round_even(p, discard);
        let mut exponent = self.exponent + other.exponent + discard as i32;
        if m >> 64 != 0 {
            m >>= 1;
            exponent += 1;
        }
        Extended {
            mantissa: m as u64,
            exponent,
        }
    }

    /// Truncation toward zero, like C's `(u64)x` (saturating above 2^64).
    pub(crate) fn to_u64_trunc(self) -> u64 {
        if self.is_zero() || self.exponent <= -64 {
            0
        } else if self.exponent <= 0 {
            self.mantissa >> (-self.exponent)
        } else {
            u64::MAX
        }
    }

    /// Rounds to the nearest double, ties to even, with gradual underflow;
    /// values above `f64::MAX` after rounding become infinity.
    pub(crate) fn to_f64(self) -> f64 {
        if self.is_zero() {
            return 0.0;
        }
        // Value = mantissa × 2^exponent with mantissa in [2^63, 2^64), so the
        // unbiased binary exponent of the leading bit is exponent + 63.
        let lead = self.exponent + 63;
        if lead > 1023 {
            return f64::INFINITY;
        }
        // The result is q × 2^scale with q < 2^53 (or q = 2^53 after a carry,
        // still exact): scale is fixed by the leading bit, floored at the
        // subnormal exponent.
        let scale = (lead - 52).max(-1074);
        let discard = scale - self.exponent; // ≥ 11 by construction
        let q = shift_round_even(u128::from(self.mantissa), discard as u32);
        (q as f64) * pow2(scale)
    }
}

impl PartialOrd for Extended {
    fn partial_cmp(&self, other: &Extended) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Extended {
    fn cmp(&self, other: &Extended) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => self
                .exponent
                .cmp(&other.exponent)
                .then(self.mantissa.cmp(&other.mantissa)),
        }
    }
}

/// `p / 2^shift` rounded to nearest, ties to even.
fn shift_round_even(p: u128, shift: u32) -> u128 {
    match shift {
        0 => p,
        1..=127 => {
            let kept = p >> shift;
            let rest = p & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            kept + u128::from(rest > half || (rest == half && kept & 1 == 1))
        }
        128 => u128::from(p > 1u128 << 127),
        _ => 0,
    }
}

/// `2^e` as a double for `e` in the range `to_f64` produces (-1074..=1023),
/// built in two steps so subnormal results stay exact.
fn pow2(e: i32) -> f64 {
    let half = e / 2;
    f64::powi(2.0, half) * f64::powi(2.0, e - half)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_constants_match_their_integers() {
        assert_eq!(TEN_POW_19, Extended::from_u64(10_000_000_000_000_000_000));
        assert_eq!(TEN_POW_17, Extended::from_u64(100_000_000_000_000_000));
        assert_eq!(TEN_POW_10, Extended::from_u64(10_000_000_000));
        assert_eq!(TEN_POW_7, Extended::from_u64(10_000_000));
        assert_eq!(TEN_POW_1, Extended::from_u64(10));
        assert_eq!(DOUBLE_MAX, Extended::from_f64(f64::MAX));
    }

    #[test]
    fn round_trips_doubles() {
        for r in [
            1.0,
            0.1,
            1e300,
            5e-324,
            2.2250738585072014e-308,
            123456.789,
            f64::MAX,
        ] {
            assert_eq!(Extended::from_f64(r).to_f64(), r, "{r}");
        }
    }

    #[test]
    fn multiplication_rounds_to_even() {
        // 3 × (2^64 - 1) needs 66 bits; check against exact integer arithmetic.
        let a = Extended::from_u64(3);
        let b = Extended::from_u64(u64::MAX);
        let p = a.mul(b);
        let exact = 3u128 * u128::from(u64::MAX);
        let approx = u128::from(p.mantissa) << p.exponent;
        assert!(approx.abs_diff(exact) <= 2);
        assert_eq!(Extended::from_u64(10).mul(TEN_POW_MINUS_1).to_f64(), 1.0);
    }
}
