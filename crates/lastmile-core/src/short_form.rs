//! A family member written by name or as a tagged table: `cc = "cubic"` is `cc = { kind =
//! "cubic" }`, every setting at its default. Reading takes either form into the family's
//! tagged enum (tag `kind`); the JSON Schema says both (a string among the names, or the
//! table). On the ground floor so that every family's spec, whatever its floor, reads its
//! short form the same way.

use std::fmt;
use std::marker::PhantomData;

use schemars::gen::SchemaGenerator;
use schemars::schema::{InstanceType, Metadata, Schema, SchemaObject, SubschemaValidation};
use schemars::JsonSchema;
use serde::de::value::{MapAccessDeserializer, MapDeserializer};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer};

/// How a family member was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// By name (`"cubic"`): every setting at its default.
    Name,
    /// As a tagged table (`{ kind = "cubic", ... }`).
    Table,
}

/// Reads a tagged enum `T` (tag `kind`) from a name or a table.
pub fn deserialize<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserialize_with_form(deserializer).map(|(value, _)| value)
}

/// `deserialize`, telling which form the file used.
pub fn deserialize_with_form<'de, D, T>(deserializer: D) -> Result<(T, Form), D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct NameOrTable<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for NameOrTable<T> {
        type Value = (T, Form);
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a name or a table with `kind`")
        }
        fn visit_str<E: de::Error>(self, name: &str) -> Result<(T, Form), E> {
            let tag = MapDeserializer::<_, de::value::Error>::new(std::iter::once((
                "kind".to_string(),
                name.to_string(),
            )));
            T::deserialize(tag)
                .map(|v| (v, Form::Name))
                .map_err(E::custom)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<(T, Form), A::Error> {
            T::deserialize(MapAccessDeserializer::new(map)).map(|v| (v, Form::Table))
        }
    }
    deserializer.deserialize_any(NameOrTable(PhantomData))
}

/// The schema of `T` written by one of `names` (described as `by_name`) or as its table.
pub fn schema<T: JsonSchema>(gen: &mut SchemaGenerator, names: &[&str], by_name: &str) -> Schema {
    let by_name = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        enum_values: Some(names.iter().map(|n| (*n).into()).collect()),
        metadata: Some(Box::new(Metadata {
            description: Some(by_name.into()),
            ..Default::default()
        })),
        ..Default::default()
    };
    SchemaObject {
        subschemas: Some(Box::new(SubschemaValidation {
            any_of: Some(vec![by_name.into(), gen.subschema_for::<T>()]),
            ..Default::default()
        })),
        ..Default::default()
    }
    .into()
}
