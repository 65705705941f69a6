//! Deterministic random numbers: one independent stream per random process.
//!
//! Streams are xoshiro256** generators seeded by SplitMix64 from the run's seed
//! and a stable stream label, so adding a random process never shifts the
//! draws of another, and the same scenario and seed give the same run on every
//! machine.

/// A seeded random stream (xoshiro256**, Blackman & Vigna).
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a, for turning a stream label into a number.
fn label_hash(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Rng {
    /// The stream named `label` of run `seed`.
    pub fn stream(seed: u64, label: &str) -> Self {
        let mut st = seed ^ label_hash(label).rotate_left(17);
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Pareto distributed with the given mean and shape (> 1).
    pub fn pareto(&mut self, mean: f64, shape: f64) -> f64 {
        let scale = mean * (shape - 1.0) / shape;
        scale / (1.0 - self.uniform()).powf(1.0 / shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u64> = (0..4).map(|_| Rng::stream(1, "x").next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::stream(1, "x").next_u64(),
            Rng::stream(1, "y").next_u64()
        );
        assert_ne!(
            Rng::stream(1, "x").next_u64(),
            Rng::stream(2, "x").next_u64()
        );
    }

    #[test]
    fn moments_are_right() {
        let mut r = Rng::stream(7, "m");
        let n = 200_000;
        let mean_u: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.005);
        let mean_e: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean_e - 2.0).abs() < 0.03);
        let mean_p: f64 = (0..n).map(|_| r.pareto(1.0, 2.5)).sum::<f64>() / n as f64;
        assert!((mean_p - 1.0).abs() < 0.05, "{mean_p}");
    }
}
