//! The JSON Schema of `Scenario`, for editors and docs (`lastmile schema`).

use super::model::Scenario;

/// The schemars root schema of `Scenario`, with a title and description.
pub fn json_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_value(schema).unwrap_or(serde_json::Value::Null)
}
