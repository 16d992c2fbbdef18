use crate::v1::WEIGHT_FRACTION_BITS;
use crate::Error;

/// A node's weight, held as an unsigned fixed-point number with 32 fractional bits, so that every
/// platform and language compares weights with exact integer arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Weight(u64);

impl Weight {
    /// Keeps a node in the membership but never selects it (draining).
    pub const ZERO: Weight = Weight(0);
    /// The weight of every node of an unweighted placement.
    pub const ONE: Weight = Weight(1 << WEIGHT_FRACTION_BITS);

    /// Converts `w` to fixed point: `round_half_even(w * 2^32)`.
    ///
    /// `w` must be finite, `>= 0` and `< 2^32`; a positive `w` must not round to zero (`w > 2^-33`).
    ///
    /// ```
    /// use hrwhash::Weight;
    /// assert_eq!(Weight::new(1.0).unwrap(), Weight::ONE);
    /// assert_eq!(Weight::new(0.5).unwrap().to_fixed(), 1 << 31);
    /// assert!(Weight::new(f64::NAN).is_err());
    /// assert!(Weight::new(-1.0).is_err());
    /// ```
    pub fn new(w: f64) -> Result<Weight, Error> {
        const SCALE: f64 = (1u64 << WEIGHT_FRACTION_BITS) as f64;
        const LIMIT: f64 = 18_446_744_073_709_551_616.0; // 2^64
                                                         // NaN fails every comparison, so test for the valid range rather than the invalid one.
        if w.is_nan() || w < 0.0 || !w.is_finite() {
            return Err(Error::InvalidWeight { value: w });
        }
        // Multiplying by a power of two is exact; so are the truncation and the subtraction below.
        let x = w * SCALE;
        if x >= LIMIT {
            return Err(Error::InvalidWeight { value: w });
        }
        let truncated = x as u64;
        let fraction = x - truncated as f64;
        let rounded = if fraction > 0.5 || (fraction == 0.5 && truncated & 1 == 1) {
            truncated + 1
        } else {
            truncated
        };
        if rounded == 0 && w > 0.0 {
            return Err(Error::InvalidWeight { value: w });
        }
        Ok(Weight(rounded))
    }

    /// A weight from its fixed-point representation (`w * 2^32`). Every value is valid.
    pub const fn from_fixed(fixed: u64) -> Weight {
        Weight(fixed)
    }

    /// The fixed-point representation, `w * 2^32`.
    pub const fn to_fixed(self) -> u64 {
        self.0
    }

    /// The weight as a float (exact when it has at most 53 significant bits).
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / (1u64 << WEIGHT_FRACTION_BITS) as f64
    }

    /// Whether the node can never be selected.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl Default for Weight {
    fn default() -> Weight {
        Weight::ONE
    }
}

impl TryFrom<f64> for Weight {
    type Error = Error;
    fn try_from(w: f64) -> Result<Weight, Error> {
        Weight::new(w)
    }
}

/// Whether `W / 2^32` is a binary64, so that its exact decimal parses back to it: what a document
/// (a view, a slot table's history) can hold.
pub(crate) fn representable(w: Weight) -> bool {
    let w = w.to_fixed();
    w == 0 || 64 - w.leading_zeros() - w.trailing_zeros() <= 53
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_half_even_on_the_exact_value() {
        let ulp = 1.0 / 4_294_967_296.0;
        assert_eq!(
            Weight::new(0.5 * ulp).unwrap_err(),
            Error::InvalidWeight { value: 0.5 * ulp }
        );
        assert_eq!(Weight::new(1.5 * ulp).unwrap().to_fixed(), 2);
        assert_eq!(Weight::new(2.5 * ulp).unwrap().to_fixed(), 2);
        assert_eq!(Weight::new(0.75 * ulp).unwrap().to_fixed(), 1);
        assert_eq!(Weight::new(1e6).unwrap().to_fixed(), 1_000_000u64 << 32);
        assert_eq!(Weight::new(0.0).unwrap(), Weight::ZERO);
        assert_eq!(Weight::new(-0.0).unwrap(), Weight::ZERO);
    }

    #[test]
    fn rejects_out_of_range() {
        for w in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1e-300,
            4_294_967_296.0,
            1e300,
        ] {
            assert!(Weight::new(w).is_err(), "{w}");
        }
        let largest = 4_294_967_296.0 - 1.0 / 2_097_152.0; // largest f64 below 2^32
        assert_eq!(Weight::new(largest).unwrap().to_fixed(), u64::MAX - 2047);
    }
}
