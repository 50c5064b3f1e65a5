//! The JSON Schema of `Scenario`, for editors and docs (`lastmile schema`). It is generated
//! from the same types the loader deserializes into, so it cannot drift from the format.

use super::model::Scenario;

/// The schemars root schema of `Scenario`, with a title and description.
pub fn json_schema() -> serde_json::Value {
    let mut root = schemars::schema_for!(Scenario);
    let meta = root.schema.metadata();
    meta.title = Some("lastmile scenario".into());
    meta.description = Some(
        "A lastmile simulation scenario: a topology (the `chain` preset or explicit nodes \
         and links), the base station's agent and the flows. Quantities are strings with \
         units: rates \"10Mbps\", sizes \"42KB\", times \"500ms\", queue limits \"100pkt\"; \
         probabilities are numbers in [0, 1]."
            .into(),
    );
    // A hop with a network `preset` may leave `rate` out (the preset fills it before the
    // hop is read, `presets.rs`): the schema must not call it required.
    if let Some(schemars::schema::Schema::Object(link)) = root.definitions.get_mut("LinkSpec") {
        link.object().required.remove("rate");
    }
    // A RootSchema is plain data: serializing it cannot fail.
    serde_json::to_value(&root).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{LinkLayerSpec, MacSpec};

    /// A hop's `mac` and `link` take a name or a table: the schema says both, the names
    /// being the registries'.
    #[test]
    fn the_schema_gives_mac_and_link_by_name_or_as_a_table() {
        let root = json_schema();
        let hop = &root["definitions"]["LinkSpec"]["properties"];
        for (key, names, table) in [
            ("mac", MacSpec::NAMES, "MacSpec"),
            ("link", LinkLayerSpec::NAMES, "LinkLayerSpec"),
        ] {
            let forms = hop[key]["anyOf"].as_array().expect("two forms");
            let by_name: Vec<&str> = forms[0]["enum"]
                .as_array()
                .expect("names")
                .iter()
                .filter_map(|v| v.as_str())
                .collect();
            assert_eq!(by_name, names, "{key}");
            assert_eq!(forms[1]["$ref"], format!("#/definitions/{table}"), "{key}");
            let variants = root["definitions"][table]["oneOf"]
                .as_array()
                .expect("tagged");
            assert_eq!(variants.len(), names.len(), "{key}: one table per name");
        }
    }
}
