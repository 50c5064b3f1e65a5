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
