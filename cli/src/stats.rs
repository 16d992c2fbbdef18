//! Pearson's chi-square goodness-of-fit test: how likely a spread at least this uneven would be if
//! keys landed on nodes independently with exactly the intended probabilities.

pub struct ChiSquare {
    pub statistic: f64,
    pub degrees_of_freedom: usize,
    /// `None` with a single category, where the test says nothing.
    pub p_value: Option<f64>,
}

/// `observed[i]` keys landed where `expected_share[i]` of them should; categories with an expected
/// share of zero are left out (nothing lands there by construction).
pub fn chi_square(observed: &[u64], expected_share: &[f64]) -> ChiSquare {
    let total: u64 = observed.iter().sum();
    let mut statistic = 0.0;
    let mut categories: usize = 0;
    for (&o, &share) in observed.iter().zip(expected_share) {
        if share > 0.0 {
            let e = total as f64 * share;
            statistic += (o as f64 - e).powi(2) / e;
            categories += 1;
        }
    }
    let degrees_of_freedom = categories.saturating_sub(1);
    let p_value = (degrees_of_freedom > 0)
        .then(|| upper_regularized_gamma(degrees_of_freedom as f64 / 2.0, statistic / 2.0));
    ChiSquare {
        statistic,
        degrees_of_freedom,
        p_value,
    }
}

/// Q(a, x) = Γ(a, x) / Γ(a): a series below `a + 1`, a continued fraction above (Numerical Recipes,
/// "Incomplete Gamma Function"), both accurate to about 1e-14.
fn upper_regularized_gamma(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_prefix = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (1.0 - sum * log_prefix.exp()).clamp(0.0, 1.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (log_prefix.exp() * h).clamp(0.0, 1.0)
    }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the approximation in its accurate range.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, &c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_match_published_chi_square_tables() {
        // Critical values from standard chi-square tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4).
        for (x, df, p) in [
            (3.841, 1, 0.05),
            (9.488, 4, 0.05),
            (13.277, 4, 0.01),
            (1.064, 4, 0.90),
            (18.307, 10, 0.05),
            (124.342, 100, 0.05),
        ] {
            let q = upper_regularized_gamma(df as f64 / 2.0, x / 2.0);
            assert!(
                (q - p).abs() < 5e-4,
                "chi2={x} df={df}: got {q}, table says {p}"
            );
        }
    }

    #[test]
    fn perfect_fit_has_zero_statistic() {
        let c = chi_square(&[25, 25, 50, 0], &[0.25, 0.25, 0.5, 0.0]);
        assert_eq!(c.statistic, 0.0);
        assert_eq!(c.degrees_of_freedom, 2);
        assert_eq!(c.p_value, Some(1.0));
    }
}
