//! Quantities with units in scenario files: rates (`"10Mbit/s"`), times
//! (`"20ms"`), sizes (`"5MB"`). A bare number, a negative value or an unknown
//! unit is an error that names the accepted units.

use radial_core::{BitRate, Duration};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(s.len());
    // `e` may start a unit name only if no digit follows; keep it simple:
    // scientific notation is accepted when the unit follows it.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

/// `x` rounded to a whole number, if a `u64` holds it (`x` is finite and
/// not negative).
fn whole(x: f64) -> Option<u64> {
    let r = x.round();
    // 2^64 is the first f64 above every u64.
    (r < 18_446_744_073_709_551_616.0).then_some(r as u64)
}

/// Parses a rate such as `"1.5Mbit/s"`.
pub fn parse_rate(s: &str) -> Result<BitRate, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("invalid rate `{s}`: expected e.g. \"10Mbit/s\""))?;
    let mult = match unit {
        "bit/s" | "bps" | "b/s" => 1.0,
        "kbit/s" | "kbps" | "Kbit/s" | "Kbps" => 1e3,
        "Mbit/s" | "Mbps" | "mbit/s" => 1e6,
        "Gbit/s" | "Gbps" => 1e9,
        "" => {
            return Err(format!(
                "rate `{s}` has no unit (bit/s, kbit/s, Mbit/s, Gbit/s)"
            ))
        }
        _ => {
            return Err(format!(
                "rate `{s}` has unknown unit `{unit}` (bit/s, kbit/s, Mbit/s, Gbit/s)"
            ))
        }
    };
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("rate `{s}` must be positive"));
    }
    let bps = whole(v * mult).ok_or_else(|| format!("rate `{s}` is too large"))?;
    if bps == 0 {
        return Err(format!("rate `{s}` is below 1 bit/s"));
    }
    Ok(BitRate::from_bps(bps))
}

/// Parses a time such as `"20ms"`.
pub fn parse_time(s: &str) -> Result<Duration, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("invalid time `{s}`: expected e.g. \"20ms\""))?;
    let mult = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        "" => return Err(format!("time `{s}` has no unit (ns, us, ms, s, min)")),
        _ => {
            return Err(format!(
                "time `{s}` has unknown unit `{unit}` (ns, us, ms, s, min)"
            ))
        }
    };
    if !v.is_finite() || v < 0.0 {
        return Err(format!("time `{s}` must not be negative"));
    }
    let ns = whole(v * mult * 1e9).ok_or_else(|| {
        format!(
            "time `{s}` is too long (at most {} s)",
            u64::MAX / 1_000_000_000
        )
    })?;
    Ok(Duration::from_nanos(ns))
}

/// Parses a size such as `"5MB"` (decimal units; `KiB`, `MiB`, `GiB` binary).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("invalid size `{s}`: expected e.g. \"5MB\""))?;
    let mult = match unit {
        "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "" => {
            return Err(format!(
                "size `{s}` has no unit (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)"
            ))
        }
        _ => {
            return Err(format!(
                "size `{s}` has unknown unit `{unit}` (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)"
            ))
        }
    };
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("size `{s}` must be positive"));
    }
    match whole(v * mult) {
        None => Err(format!("size `{s}` is too large")),
        Some(0) => Err(format!("size `{s}` is below 1 byte")),
        Some(bytes) => Ok(bytes),
    }
}

/// Parses a power such as `"1.65W"` or `"45mW"`, in watts.
pub fn parse_power(s: &str) -> Result<f64, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("invalid power `{s}`: expected e.g. \"1.4W\""))?;
    let mult = match unit {
        "W" => 1.0,
        "mW" => 1e-3,
        "" => return Err(format!("power `{s}` has no unit (W, mW)")),
        _ => return Err(format!("power `{s}` has unknown unit `{unit}` (W, mW)")),
    };
    if !v.is_finite() || v < 0.0 {
        return Err(format!("power `{s}` must not be negative"));
    }
    Ok(v * mult)
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:ident, $what:literal) => {
        #[doc = concat!("A ", $what, " written with its unit in a scenario file.")]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "a {} with its unit, as a string", $what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "{} `{v}` has no unit: write it as a string with its unit",
                            $what
                        )))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "{} `{v}` has no unit: write it as a string with its unit",
                            $what
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

unit_type!(Rate, BitRate, parse_rate, "rate");
unit_type!(Time, Duration, parse_time, "time");
unit_type!(Size, u64, parse_size, "size");
unit_type!(Power, f64, parse_power, "power");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_rate("1.5Mbit/s"), Ok(BitRate::from_bps(1_500_000)));
        assert_eq!(parse_rate("500 kbit/s"), Ok(BitRate::from_kbps(500)));
        assert_eq!(parse_time("15ms"), Ok(Duration::from_millis(15)));
        assert_eq!(parse_time("300s"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_size("5MB"), Ok(5_000_000));
        assert!(parse_rate("-10Mbit/s").unwrap_err().contains("positive"));
        assert!(parse_rate("10Mbx").unwrap_err().contains("unknown unit"));
        assert!(parse_time("20").unwrap_err().contains("no unit"));
        assert_eq!(parse_power("45mW"), Ok(0.045));
        assert_eq!(parse_power("1.65W"), Ok(1.65));
        assert!(parse_power("-1W").is_err());
    }

    #[test]
    fn values_a_run_cannot_hold_are_refused_not_clamped() {
        assert!(parse_time("1e11s").unwrap_err().contains("too long"));
        assert_eq!(parse_time("1e9s"), Ok(Duration::from_secs(1_000_000_000)));
        assert!(parse_rate("1e30Gbit/s").unwrap_err().contains("too large"));
        assert!(parse_rate("0.1bit/s")
            .unwrap_err()
            .contains("below 1 bit/s"));
        assert!(parse_size("1e30GB").unwrap_err().contains("too large"));
        assert!(parse_size("0.2B").unwrap_err().contains("below 1 byte"));
        assert_eq!(parse_time("0.2ns"), Ok(Duration::ZERO));
    }
}
