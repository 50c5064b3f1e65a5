//! Quantities with units, as scenario files write them: rates `"10Mbps"`, sizes `"42KB"`,
//! times `"500ms"`, queue limits `"100pkt"`, and probabilities as plain numbers.
//!
//! Prefixes are SI (k = 10^3, M = 10^6, G = 10^9) for rates and sizes; binary sizes take
//! `KiB`, `MiB`, `GiB`. A bare number is refused for anything with a unit, so that
//! "10" never silently means 10 bps when 10 Mbps was meant.
//!
//! Every quantity has a documented range, checked where the text is parsed, so that a value
//! like `"1e308s"` is refused as typed instead of saturating to `u64::MAX` nanoseconds:
//!
//! | quantity  | range                                   | why the bound                     |
//! |-----------|-----------------------------------------|-----------------------------------|
//! | time      | 0 to `DURATION_MAX` = 10^8 s (≈ 3.2 y)  | see below                          |
//! | rate      | `RATE_MIN` = 1 bps to `RATE_MAX` = 1 Tbps | a frame still takes ≥ 1 ns        |
//! | size      | 0 to `SIZE_MAX` = 10^15 B (1 PB)        | byte counters stay exact in f64    |
//! | queue     | 1 to `QUEUE_PACKETS_MAX` = 10^9 packets, or a size | fits every counter     |
//!
//! Simulated time is a `u64` of nanoseconds, which ends after 1.8·10^10 s. With every time
//! of a scenario at most 10^8 s, the engine's sums (the current time, itself at most
//! `stop_time`, plus a delay, a timeout, a backed-off RTO or TULIP's equation (1), which
//! adds nine such terms) stay more than a hundred times below that end; the per-field
//! checks in `scenario/validate.rs` bound the factors that multiply a time.

use std::fmt;

use schemars::gen::SchemaGenerator;
use schemars::schema::{InstanceType, Metadata, Schema, SchemaObject, StringValidation};
use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::engine::SimDuration;

/// The longest time a scenario may give (any duration, `stop_time` included): 10^8 s.
pub const DURATION_MAX: SimDuration = SimDuration::from_secs(100_000_000);
/// The slowest rate: 1 bps (a rate that rounds to zero is refused, not taken as "off").
pub const RATE_MIN: Rate = Rate(1);
/// The largest factor that multiplies a time estimate into a timeout (Snoop's and WTCP's
/// `timeout_factor`): with times at most `DURATION_MAX`, a timeout stays far below the end
/// of simulated time.
pub const TIMEOUT_FACTOR_MAX: u32 = 100;
/// The fastest rate: 1 Tbps.
pub const RATE_MAX: Rate = Rate(1_000_000_000_000);
/// The largest size: 10^15 bytes (1 PB).
pub const SIZE_MAX: ByteSize = ByteSize(1_000_000_000_000_000);
/// The longest queue in packets: 10^9.
pub const QUEUE_PACKETS_MAX: u64 = 1_000_000_000;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-')))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e" followed by a unit letter: back off the dangling exponent marker.
    let (mut num, mut unit) = s.split_at(end);
    while num.ends_with(['e', 'E']) {
        num = &num[..num.len() - 1];
        unit = &s[num.len()..];
    }
    let value: f64 = num.parse().ok()?;
    Some((value, unit.trim()))
}

/// A data rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

/// A size in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct ByteSize(pub u64);

/// A duration, in scenario files with a unit: `"500ms"`, `"1us"`, `"3000s"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub SimDuration);

/// A queue limit, in packets (`"100pkt"`) or bytes (`"64KB"`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

/// A probability in [0, 1].
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd, Default)]
pub struct Probability(pub f64);

impl Rate {
    pub fn parse(s: &str) -> Result<Self, String> {
        let (v, unit) = split_number(s).ok_or_else(|| "a rate such as \"10Mbps\"".to_string())?;
        let scale = match unit {
            "bps" => 1.0,
            "kbps" | "Kbps" => 1e3,
            "Mbps" => 1e6,
            "Gbps" => 1e9,
            _ => {
                return Err(
                    "a rate with a unit of bps, kbps, Mbps or Gbps (e.g. \"10Mbps\")".into(),
                )
            }
        };
        if v.is_nan() || v <= 0.0 {
            return Err("a positive rate (e.g. \"10Mbps\")".into());
        }
        let bps = libm::round(v * scale);
        if !(RATE_MIN.0 as f64..=RATE_MAX.0 as f64).contains(&bps) {
            return Err("a rate from 1bps to 1000Gbps".into());
        }
        Ok(Rate(bps as u64))
    }
    pub fn bps(self) -> u64 {
        self.0
    }
}

impl ByteSize {
    pub fn parse(s: &str) -> Result<Self, String> {
        let (v, unit) =
            split_number(s).ok_or_else(|| "a size such as \"1400B\" or \"42KB\"".to_string())?;
        let scale = match unit {
            "B" => 1.0,
            "KB" | "kB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            _ => {
                return Err(
                    "a size with a unit of B, KB, MB, GB, KiB, MiB or GiB (e.g. \"42KB\")".into(),
                )
            }
        };
        if v.is_nan() || v < 0.0 {
            return Err("a size of zero or more (e.g. \"1400B\")".into());
        }
        let bytes = v * scale;
        if !(0.0..=SIZE_MAX.0 as f64).contains(&bytes) {
            return Err("a size from 0B to 1000000GB (1 PB)".into());
        }
        if libm::fabs(bytes - libm::round(bytes)) > 1e-6 {
            return Err("a whole number of bytes".into());
        }
        Ok(ByteSize(libm::round(bytes) as u64))
    }
    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl Duration {
    pub fn parse(s: &str) -> Result<Self, String> {
        let (v, unit) = split_number(s).ok_or_else(|| "a time such as \"500ms\"".to_string())?;
        let nanos_per = match unit {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "min" => 60e9,
            _ => return Err("a time with a unit of ns, us, ms, s or min (e.g. \"500ms\")".into()),
        };
        if v.is_nan() || v < 0.0 {
            return Err("a time of zero or more (e.g. \"500ms\")".into());
        }
        let nanos = libm::round(v * nanos_per);
        if !(0.0..=DURATION_MAX.as_nanos() as f64).contains(&nanos) {
            return Err("a time from 0s to 100000000s (about 3 years)".into());
        }
        Ok(Duration(SimDuration::from_nanos(nanos as u64)))
    }
    pub fn sim(self) -> SimDuration {
        self.0
    }
    pub fn from_millis(ms: u64) -> Self {
        Duration(SimDuration::from_millis(ms))
    }
    pub fn from_secs(s: u64) -> Self {
        Duration(SimDuration::from_secs(s))
    }
}

impl QueueLimit {
    pub fn parse(s: &str) -> Result<Self, String> {
        let expected = "a queue limit in packets (\"100pkt\") or bytes (\"64KB\")";
        let (v, unit) = split_number(s).ok_or_else(|| expected.to_string())?;
        if unit == "pkt" || unit == "pkts" || unit == "packets" {
            if !(1.0..=QUEUE_PACKETS_MAX as f64).contains(&v)
                || libm::fabs(v - libm::round(v)) > 0.0
            {
                return Err(
                    "a whole number of packets from 1 to 1000000000 (e.g. \"100pkt\")".into(),
                );
            }
            return Ok(QueueLimit::Packets(v as u64));
        }
        if ByteSize::parse(&format!("1{unit}")).is_err() {
            return Err(expected.to_string());
        }
        ByteSize::parse(s).map(|b| QueueLimit::Bytes(b.0))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gbps", v / 1_000_000_000)
        } else if v.is_multiple_of(1_000_000) {
            write!(f, "{}Mbps", v / 1_000_000)
        } else if v.is_multiple_of(1_000) {
            write!(f, "{}kbps", v / 1_000)
        } else {
            write!(f, "{v}bps")
        }
    }
}
impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
impl fmt::Display for QueueLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueLimit::Packets(n) => write!(f, "{n}pkt"),
            QueueLimit::Bytes(n) => write!(f, "{n}B"),
        }
    }
}

/// Implements serde and JSON Schema for a unit type parsed from a string.
macro_rules! string_unit {
    ($ty:ty, $what:expr, $pattern:expr, $example:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(
                            f,
                            "{} as a string with a unit, e.g. \"{}\"",
                            $what, $example
                        )
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        <$ty>::parse(s).map_err(|expected| {
                            E::custom(format!("invalid value \"{s}\": expected {expected}"))
                        })
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            "invalid value {v}: expected {} with a unit, e.g. \"{}\"",
                            $what, $example
                        )))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            "invalid value {v}: expected {} with a unit, e.g. \"{}\"",
                            $what, $example
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl JsonSchema for $ty {
            fn schema_name() -> String {
                stringify!($ty).to_string()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                SchemaObject {
                    instance_type: Some(InstanceType::String.into()),
                    string: Some(Box::new(StringValidation {
                        pattern: Some($pattern.to_string()),
                        ..Default::default()
                    })),
                    metadata: Some(Box::new(Metadata {
                        description: Some(format!("{}, e.g. \"{}\"", $what, $example)),
                        ..Default::default()
                    })),
                    ..Default::default()
                }
                .into()
            }
        }
    };
}

const NUM: &str = r"^\s*[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?\s*";
string_unit!(
    Rate,
    "a data rate",
    format!("{NUM}(bps|kbps|Kbps|Mbps|Gbps)$"),
    "10Mbps"
);
string_unit!(
    ByteSize,
    "a size",
    format!("{NUM}(B|KB|kB|MB|GB|KiB|MiB|GiB)$"),
    "42KB"
);
string_unit!(
    Duration,
    "a time",
    format!("{NUM}(ns|us|µs|ms|s|min)$"),
    "500ms"
);
string_unit!(
    QueueLimit,
    "a queue limit",
    format!("{NUM}(pkt|pkts|packets|B|KB|kB|MB|GB|KiB|MiB|GiB)$"),
    "100pkt"
);

impl<'de> Deserialize<'de> for Probability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if !(0.0..=1.0).contains(&v) {
            return Err(de::Error::custom(format!(
                "invalid value {v}: expected a probability between 0 and 1"
            )));
        }
        Ok(Probability(v))
    }
}
impl Serialize for Probability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}
impl JsonSchema for Probability {
    fn schema_name() -> String {
        "Probability".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let mut s = SchemaObject {
            instance_type: Some(InstanceType::Number.into()),
            ..Default::default()
        };
        s.number().minimum = Some(0.0);
        s.number().maximum = Some(1.0);
        s.metadata().description = Some("a probability between 0 and 1".into());
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rates_sizes_and_times() {
        assert_eq!(Rate::parse("10Mbps"), Ok(Rate(10_000_000)));
        assert_eq!(Rate::parse("800kbps"), Ok(Rate(800_000)));
        assert_eq!(Rate::parse("5.5Mbps"), Ok(Rate(5_500_000)));
        assert_eq!(ByteSize::parse("42KB"), Ok(ByteSize(42_000)));
        assert_eq!(ByteSize::parse("1400B"), Ok(ByteSize(1400)));
        assert_eq!(ByteSize::parse("64KiB"), Ok(ByteSize(65_536)));
        assert_eq!(ByteSize::parse("10MB"), Ok(ByteSize(10_000_000)));
        assert_eq!(Duration::parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(
            Duration::parse("1us"),
            Ok(Duration(SimDuration::from_micros(1)))
        );
        assert_eq!(Duration::parse("1e-3s"), Ok(Duration::from_millis(1)));
        assert_eq!(QueueLimit::parse("100pkt"), Ok(QueueLimit::Packets(100)));
        assert_eq!(QueueLimit::parse("64KB"), Ok(QueueLimit::Bytes(64_000)));
    }

    #[test]
    fn units_out_of_range_are_refused_not_saturated() {
        // The issue's values: each used to saturate to u64::MAX.
        for huge in ["1e308s", "2e10s", "1e400s", "100000001s", "1e9min"] {
            let e = Duration::parse(huge).unwrap_err();
            assert!(e.contains("100000000s"), "{huge}: {e}");
        }
        assert_eq!(
            Duration::parse("100000000s"),
            Ok(Duration(DURATION_MAX)),
            "the bound itself is allowed"
        );
        for huge in ["1e400MB", "1e16B", "1000001GB"] {
            assert!(
                ByteSize::parse(huge).unwrap_err().contains("1 PB"),
                "{huge}"
            );
        }
        assert_eq!(ByteSize::parse("1000000GB"), Ok(SIZE_MAX));
        for bad in ["1e400Mbps", "1001Gbps", "0.4bps"] {
            assert!(
                Rate::parse(bad).unwrap_err().contains("1bps to 1000Gbps"),
                "{bad}"
            );
        }
        assert_eq!(Rate::parse("1000Gbps"), Ok(RATE_MAX));
        assert_eq!(Rate::parse("0.5bps"), Ok(RATE_MIN));
        assert!(QueueLimit::parse("1e400pkt").is_err());
        assert!(QueueLimit::parse("1e400MB").unwrap_err().contains("1 PB"));
        assert_eq!(
            QueueLimit::parse("1000000000pkt"),
            Ok(QueueLimit::Packets(QUEUE_PACKETS_MAX))
        );
    }

    #[test]
    fn refuses_bad_units_and_signs() {
        assert!(Rate::parse("10").is_err());
        assert!(Rate::parse("-1Mbps").is_err());
        assert!(Rate::parse("10MB").is_err());
        assert!(ByteSize::parse("1.5B").is_err());
        assert!(Duration::parse("5 parsecs").is_err());
    }
}
