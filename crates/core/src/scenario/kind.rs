//! Settings chosen by kind.
//!
//! * The shorthand: `cc = "bbr"` stands for `cc = { kind = "bbr" }`, `abr = "bola"` for
//!   `abr = { kind = "bola" }` (`name_or_table`).
//! * Tables whose errors name their full path (`parse`: the app, the queue, the shaper).
//!   serde's internally tagged enums buffer the whole table before choosing the variant,
//!   and an error inside it then points at the table ("flow[0].app") rather than the field
//!   ("flow[0].app.init_segment"). So the scenario keeps these tables as JSON while it is
//!   read, and resolution parses each one here: `kind` selects the variant of an
//!   externally tagged enum, whose fields `serde_path_to_error` follows.

use super::ScenarioError;
use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use serde_path_to_error::Segment;

#[derive(Deserialize)]
#[serde(untagged)]
enum Spec {
    Name(String),
    Table(serde_json::Value),
}

/// Reads a kind name or a table with `kind` as `T` (a `kind`-tagged enum). An error starts
/// with the field at fault, when one alone is; the allowed `kinds` end it when neither a field
/// nor serde's own list of variants says what is wrong (a missing `kind`, a value of another type).
pub(crate) fn name_or_table<'de, D, T>(d: D, kinds: &[&str]) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let allowed = || format!("allowed kinds: {}", kinds.join(", "));
    let table = match Spec::deserialize(d)? {
        Spec::Name(name) => serde_json::json!({ "kind": name }),
        Spec::Table(v) if v.is_object() => v,
        Spec::Table(v) => {
            return Err(D::Error::custom(format!(
                "expected a kind name or a table {{ kind = \"...\", ... }}, got {v} ({})",
                allowed()
            )))
        }
    };
    serde_json::from_value::<T>(table.clone()).map_err(|e| {
        let message = e.to_string();
        match culprit::<T>(&table, &message) {
            Some(field) => D::Error::custom(format!("{field}: {message}")),
            None if message.starts_with("unknown variant") => D::Error::custom(message),
            None => D::Error::custom(format!("{message} ({})", allowed())),
        }
    })
}

/// The one field of `table` that, next to `kind` alone, fails with the same `message`.
/// (`T` is internally tagged, and serde loses the path inside such a table.)
fn culprit<T: DeserializeOwned>(table: &Value, message: &str) -> Option<String> {
    let fields = table.as_object()?;
    let kind = fields.get("kind")?;
    let mut failing = fields.iter().filter(|(k, v)| {
        *k != "kind"
            && serde_json::from_value::<T>(serde_json::json!({ "kind": kind, *k: v }))
                .is_err_and(|e| e.to_string() == message)
    });
    match (failing.next(), failing.next()) {
        (Some((k, _)), None) => Some(k.clone()),
        _ => None,
    }
}

/// Parses the table at `path` as the variant of `T` its `kind` names.
pub fn parse<T: DeserializeOwned>(table: &Value, path: &str) -> Result<T, ScenarioError> {
    let error = |at: String, message: String| ScenarioError { path: at, message };
    let Value::Object(fields) = table else {
        return Err(error(
            path.into(),
            format!("expected a table {{ kind = \"...\", ... }}, got {table}"),
        ));
    };
    let kind = match fields.get("kind") {
        Some(Value::String(kind)) => kind.clone(),
        Some(other) => {
            return Err(error(
                format!("{path}.kind"),
                format!("expected a string, got {other}"),
            ))
        }
        None => return Err(error(format!("{path}.kind"), "missing".into())),
    };
    let rest: Map<String, Value> = fields
        .iter()
        .filter(|(k, _)| *k != "kind")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let external = Value::Object(Map::from_iter([(kind, Value::Object(rest))]));
    serde_path_to_error::deserialize(external).map_err(|e| {
        // the first segment is the variant, which the table does not have
        let inner: String = e
            .path()
            .iter()
            .skip(1)
            .map(|s| match s {
                Segment::Seq { index } => format!("[{index}]"),
                Segment::Map { key } => format!(".{key}"),
                Segment::Enum { variant } => format!(".{variant}"),
                Segment::Unknown => ".?".into(),
            })
            .collect();
        let message = super::in_words(&e.inner().to_string());
        let at = if inner.is_empty() && message.starts_with("unknown variant") {
            format!("{path}.kind")
        } else {
            format!("{path}{inner}")
        };
        error(at, message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase", deny_unknown_fields)]
    enum Shape {
        Empty {},
        Box { sides: Vec<u32> },
    }

    #[test]
    fn the_kind_picks_the_variant_and_errors_name_the_field_inside() {
        let ok: Shape = parse(&json!({"kind": "box", "sides": [1, 2]}), "t.shape").unwrap();
        assert_eq!(ok, Shape::Box { sides: vec![1, 2] });
        let empty: Shape = parse(&json!({"kind": "empty"}), "t.shape").unwrap();
        assert_eq!(empty, Shape::Empty {});
        let e = parse::<Shape>(&json!({"kind": "box", "sides": [1, -2]}), "t.shape").unwrap_err();
        assert_eq!(e.path, "t.shape.sides[1]");
        let e = parse::<Shape>(&json!({"kind": "ring"}), "t.shape").unwrap_err();
        assert_eq!(e.path, "t.shape.kind");
        assert!(e.message.contains("`empty` or `box`"), "{}", e.message);
        let e = parse::<Shape>(&json!({"sides": []}), "t.shape").unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("t.shape.kind", "missing")
        );
        let e = parse::<Shape>(&json!({"kind": "box", "side": []}), "t.shape").unwrap_err();
        assert!(e.message.contains("unknown field `side`"), "{}", e.message);
        // a field missing from a known kind is the table's error, not its kind's
        let e = parse::<Shape>(&json!({"kind": "box"}), "t.shape").unwrap_err();
        assert_eq!(e.path, "t.shape");
        assert!(e.message.contains("missing field `sides`"), "{}", e.message);
    }
}
