//! Keys a hop no longer takes because they moved into its `mac` or `link` table: an old file
//! that writes one gets the fix in one line (`rts_threshold = "0B"` → `mac = { kind = "dcf",
//! rts_threshold = "0B" }`) instead of a bare "unknown key".

use serde_json::Value;

use crate::errors::ScenarioError;

/// The MACs that take the 802.11 PHY keys.
const PHY_MACS: [&str; 3] = ["ideal", "dcf", "fama"];

/// The error for `field` written in `hop` (a hop's table) at `path`, if it is a key that
/// moved: where it goes now, with its value as written.
pub(crate) fn moved_hop_key(path: &str, field: &str, hop: &Value) -> Option<ScenarioError> {
    let is_hop = ["rate", "mac", "link", "preset", "from"]
        .iter()
        .any(|k| hop.get(k).is_some());
    let value = hop.get(field)?;
    if !is_hop {
        return None;
    }
    let written = render(value);
    let (family, table) = match field {
        "rts_threshold" | "retry_limit_short" | "retry_limit_long" | "cw_rule" => {
            ("mac", format!("{{ kind = \"dcf\", {field} = {written} }}"))
        }
        "phy" | "basic_rate" | "preamble" => {
            let mac = hop.get("mac").and_then(kind_of);
            let kind = mac.filter(|m| PHY_MACS.contains(m)).unwrap_or("dcf");
            (
                "mac",
                format!("{{ kind = \"{kind}\", {field} = {written} }}"),
            )
        }
        "fama" => ("mac", with_kind("fama", value)),
        "link_retry_limit" => (
            "link",
            format!("{{ kind = \"stop_and_wait\", retry_limit = {written} }}"),
        ),
        "tulip" | "rlp" | "airmail" | "dda" => ("link", with_kind(field, value)),
        _ => return None,
    };
    let whose = match family {
        "mac" => "the MAC's",
        _ => "the link layer's",
    };
    Some(ScenarioError::problem(
        path,
        format!("this key moved into {whose} table: write {family} = {table}"),
    ))
}

/// The kind a family value names, as a name or a table's `kind`.
fn kind_of(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        other => other.get("kind").and_then(Value::as_str),
    }
}

/// A settings table written with `kind` first.
fn with_kind(kind: &str, settings: &Value) -> String {
    let mut keys = vec![format!("kind = \"{kind}\"")];
    if let Value::Object(map) = settings {
        keys.extend(map.iter().map(|(k, v)| format!("{k} = {}", render(v))));
    }
    format!("{{ {} }}", keys.join(", "))
}

/// `v` as TOML writes it inline.
fn render(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Object(map) => {
            let keys: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k} = {}", render(v)))
                .collect();
            format!("{{ {} }}", keys.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(render).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{load_str, Format};

    fn chain_err(wireless: &str) -> String {
        let text = format!(
            r#"
name = "m"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps" }}
wireless = {{ rate = "2Mbps", {wireless} }}
[[flow]]
src = "fh"
dst = "mh"
app = {{ kind = "bulk", bytes = "10KB" }}
"#
        );
        load_str(&text, Format::Toml, "m.toml", &[])
            .expect_err("an old key")
            .to_string()
    }

    #[test]
    fn an_old_flat_key_is_refused_with_its_new_place() {
        let cases = [
            (
                r#"mac = "dcf", rts_threshold = "0B""#,
                r#"topology.wireless.rts_threshold: this key moved into the MAC's table: write mac = { kind = "dcf", rts_threshold = "0B" }"#,
            ),
            (
                r#"mac = "fama", phy = "802.11b""#,
                r#"write mac = { kind = "fama", phy = "802.11b" }"#,
            ),
            (
                r#"mac = "fama", fama = { cw_min = 7 }"#,
                r#"write mac = { kind = "fama", cw_min = 7 }"#,
            ),
            (
                r#"mac = "dcf", link = "stop_and_wait", link_retry_limit = 3"#,
                r#"write link = { kind = "stop_and_wait", retry_limit = 3 }"#,
            ),
            (
                r#"mac = "fama", link = "tulip", tulip = { window = 4 }"#,
                r#"topology.wireless.tulip: this key moved into the link layer's table: write link = { kind = "tulip", window = 4 }"#,
            ),
            (
                r#"mac = "duplex", link = "rlp", rlp = { n2 = 3 }"#,
                r#"write link = { kind = "rlp", n2 = 3 }"#,
            ),
        ];
        for (written, fix) in cases {
            let e = chain_err(written);
            assert!(e.contains(fix), "{written}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }
}
