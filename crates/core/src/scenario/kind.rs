//! The scenario shorthand for settings chosen by kind: `cc = "bbr"` stands for
//! `cc = { kind = "bbr" }`, `abr = "bola"` for `abr = { kind = "bola" }`.

use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};

#[derive(Deserialize)]
#[serde(untagged)]
enum Spec {
    Name(String),
    Table(serde_json::Value),
}

/// Reads a kind name or a table with `kind` as `T` (a `kind`-tagged enum);
/// errors end with the allowed `kinds`.
pub(crate) fn name_or_table<'de, D, T>(d: D, kinds: &[&str]) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let table = match Spec::deserialize(d)? {
        Spec::Name(name) => serde_json::json!({ "kind": name }),
        Spec::Table(v) => v,
    };
    serde_json::from_value(table)
        .map_err(|e| D::Error::custom(format!("{e} (allowed kinds: {})", kinds.join(", "))))
}
