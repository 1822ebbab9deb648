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
//! * Errors in plain words: a field that takes a name and is given another type lists the
//!   names (`expected_names`), where serde would say "expected value" or "expected string or map".

use super::{err, ScenarioError};
use serde::de::{DeserializeOwned, Error, Unexpected};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use serde_path_to_error::Segment;

#[derive(Deserialize)]
#[serde(untagged)]
enum Spec {
    Name(String),
    Table(serde_json::Value),
}

/// The table a kind's name alone stands for: `{ kind = name }`.
fn named(name: &str) -> Value {
    serde_json::json!({ "kind": name })
}

/// Reads a kind name or a table with `kind` as `T` (a `kind`-tagged enum). An error starts
/// with the field at fault, when one alone is (`kind` itself when a table names no known kind,
/// `bbr.cwnd_gain` inside a table within the table); the allowed `kinds` end it when neither a
/// field nor serde's own list of variants says what is wrong (a missing `kind`, a value of
/// another type).
pub(crate) fn name_or_table<'de, D, T>(d: D, kinds: &[&str]) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let allowed = || format!("allowed kinds: {}", kinds.join(", "));
    let (table, written_as_table) = match Spec::deserialize(d)? {
        Spec::Name(name) => (named(&name), false),
        Spec::Table(v) if v.is_object() => (v, true),
        Spec::Table(v) => {
            return Err(D::Error::custom(format!(
                "expected a kind name or a table {{ kind = \"...\", ... }}, got {v} ({})",
                allowed()
            )))
        }
    };
    serde_json::from_value::<T>(table.clone()).map_err(|e| {
        let message = e.to_string();
        let listed = || {
            if message.starts_with("unknown variant") {
                message.clone()
            } else {
                format!("{message} ({})", allowed())
            }
        };
        let known_kind = table["kind"].as_str().is_some_and(|k| kinds.contains(&k));
        if let Some(kind) = table.get("kind").filter(|_| !known_kind) {
            let message = match kind {
                Value::String(_) => listed(),
                other => format!("expected a kind name, got {other} ({})", allowed()),
            };
            return D::Error::custom(if written_as_table {
                format!("kind: {message}")
            } else {
                message
            });
        }
        match culprit::<T>(&table, &message) {
            Some(field) => {
                let message = expected_names::<T>(&table, |t| at_dotted(t, &field), &message)
                    .unwrap_or(message);
                D::Error::custom(format!("{field}: {message}"))
            }
            None => D::Error::custom(listed()),
        }
    })
}

/// The one field of `table` that, next to `kind` alone, fails with the same `message`, and
/// inside it, while it is a table, the one field of its own that does: a dotted path beneath
/// the table. (`T` is internally tagged, and serde loses the path inside such a table.)
fn culprit<T: DeserializeOwned>(table: &Value, message: &str) -> Option<String> {
    let fields = table.as_object()?;
    let kind = fields.get("kind")?;
    // `kind` and one value at `path`, the tables on the way holding nothing else
    let read_alone = |path: &[&str], value: &Value| {
        let nested = path.iter().rev().fold(value.clone(), |inner, key| {
            Value::Object(Map::from_iter([(key.to_string(), inner)]))
        });
        let mut fields = nested.as_object().cloned().unwrap_or_default();
        fields.insert("kind".into(), kind.clone());
        serde_json::from_value::<T>(Value::Object(fields))
    };
    let fails_alone = |path: &[&str], value: &Value| {
        read_alone(path, value).is_err_and(|e| e.to_string() == message)
    };
    let the_one = |within: &[&str], candidates: &Map<String, Value>| -> Option<String> {
        let mut failing = candidates.iter().filter(|(k, v)| {
            let path: Vec<&str> = within.iter().copied().chain([k.as_str()]).collect();
            (!within.is_empty() || *k != "kind") && fails_alone(&path, v)
        });
        match (failing.next(), failing.next()) {
            (Some((k, _)), None) => Some(k.clone()),
            _ => None,
        }
    };
    let mut path = vec![the_one(&[], fields)?];
    let mut value = &fields[&path[0]];
    while let Value::Object(inner) = value {
        let within: Vec<&str> = path.iter().map(String::as_str).collect();
        // only a field that is a table has fields of its own (a number given as a table does not)
        if read_alone(&within, &Value::Object(Map::new())).is_err() {
            break;
        }
        let Some(field) = the_one(&within, inner) else {
            break;
        };
        value = &inner[&field];
        path.push(field);
    }
    Some(path.join("."))
}

/// For a value of another type where a name is expected (`topology = 1`), which serde words
/// as "expected value" (read from text), "expected string or map" or "expected map with a
/// single key" (from a table): "invalid type: integer `1`, expected `dumbbell` or
/// `loopback`", the names taken from the error that a string naming none of them gets in the
/// value's place, `slot`. A table holding `kind` alone (`http = { kind = "h2" }`) is one too:
/// serde reads a one-key table as the variant its key names, and would call it "unknown
/// variant `kind`". `None` for other messages, and where the field takes no names.
pub(crate) fn expected_names<T: DeserializeOwned>(
    document: &Value,
    slot: impl FnOnce(&mut Value) -> Option<&mut Value>,
    message: &str,
) -> Option<String> {
    const NONE_OF_THEM: &str = "\u{0}";
    let mut probe = document.clone();
    let place = slot(&mut probe)?;
    let a_kind_table = message.starts_with("unknown variant `kind`, ")
        && place.as_object().is_some_and(|t| t.len() == 1);
    let of_another_type = message == "expected value"
        || message == "invalid value: map, expected map with a single key"
        || (message.starts_with("invalid type: ") && message.ends_with("expected string or map"))
        || a_kind_table;
    if !of_another_type || place.is_string() {
        return None;
    }
    let given = std::mem::replace(place, Value::String(NONE_OF_THEM.into()));
    let error = serde_json::from_value::<T>(probe).err()?.to_string();
    let names = error.strip_prefix(&format!("unknown variant `{NONE_OF_THEM}`, expected "))?;
    let unexpected = match &given {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    };
    Some(format!("invalid type: {unexpected}, expected {names}"))
}

/// The value at `path` in `document`, a dotted path of keys.
fn at_dotted<'v>(document: &'v mut Value, path: &str) -> Option<&'v mut Value> {
    path.split('.')
        .try_fold(document, |value, key| value.get_mut(key))
}

/// The value at `path` in `document` (the variant of an externally tagged enum is its key).
pub(crate) fn at_path<'v>(
    document: &'v mut Value,
    path: &serde_path_to_error::Path,
) -> Option<&'v mut Value> {
    path.iter()
        .try_fold(document, |value, segment| match segment {
            Segment::Seq { index } => value.get_mut(*index),
            Segment::Map { key } => value.get_mut(key.as_str()),
            Segment::Enum { variant } => value.get_mut(variant.as_str()),
            Segment::Unknown => None,
        })
}

/// Parses the table at `path` as the variant of `T` its `kind` names; a kind's name alone
/// (`app = "bulk"`) stands for the table of `kind` alone, and its errors name `path`.
pub fn parse<T: DeserializeOwned>(table: &Value, path: &str) -> Result<T, ScenarioError> {
    let fields = match table {
        Value::Object(fields) => fields,
        Value::String(name) => {
            return parse(&named(name), path).map_err(|e| ScenarioError::new(path, e.message));
        }
        other => {
            return err(
                path,
                format!("expected a kind name or a table {{ kind = \"...\", ... }}, got {other}"),
            )
        }
    };
    // "`bulk` or `dash`": serde's list, from a kind named by no variant
    let serde_list = || {
        let none = Value::Object(Map::from_iter([(
            "\u{0}".into(),
            Value::Object(Map::new()),
        )]));
        let message = serde_json::from_value::<T>(none).err()?.to_string();
        Some(message.split_once(", expected ")?.1.to_string())
    };
    let kinds = || serde_list().map_or(String::new(), |k| format!(" (allowed kinds: {k})"));
    let kind = match fields.get("kind") {
        Some(Value::String(kind)) => kind.clone(),
        Some(other) => {
            return err(
                format!("{path}.kind"),
                format!("expected a kind name, got {other}{}", kinds()),
            )
        }
        None => return err(format!("{path}.kind"), format!("missing{}", kinds())),
    };
    let rest: Map<String, Value> = fields
        .iter()
        .filter(|(k, _)| *k != "kind")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let external = Value::Object(Map::from_iter([(kind, Value::Object(rest))]));
    serde_path_to_error::deserialize(&external).map_err(|e| {
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
        let message =
            expected_names::<T>(&external, |v| at_path(v, e.path()), &e.inner().to_string())
                .unwrap_or_else(|| super::in_words(&e.inner().to_string()));
        let at = if inner.is_empty() && message.starts_with("unknown variant") {
            format!("{path}.kind")
        } else {
            format!("{path}{inner}")
        };
        ScenarioError::new(at, message)
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
            ("t.shape.kind", "missing (allowed kinds: `empty` or `box`)")
        );
        let e = parse::<Shape>(&json!({"kind": 3}), "t.shape").unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            (
                "t.shape.kind",
                "expected a kind name, got 3 (allowed kinds: `empty` or `box`)"
            )
        );
        // a name alone is the table of its kind alone, and its errors name the field
        let empty: Shape = parse(&json!("empty"), "t.shape").unwrap();
        assert_eq!(empty, Shape::Empty {});
        let e = parse::<Shape>(&json!("box"), "t.shape").unwrap_err();
        assert_eq!(e.path, "t.shape");
        assert!(e.message.contains("missing field `sides`"), "{}", e.message);
        let e = parse::<Shape>(&json!("ring"), "t.shape").unwrap_err();
        assert_eq!(e.path, "t.shape");
        assert!(e.message.contains("`empty` or `box`"), "{}", e.message);
        let e = parse::<Shape>(&json!(3), "t.shape").unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            (
                "t.shape",
                "expected a kind name or a table { kind = \"...\", ... }, got 3"
            )
        );
        let e = parse::<Shape>(&json!({"kind": "box", "side": []}), "t.shape").unwrap_err();
        assert!(e.message.contains("unknown field `side`"), "{}", e.message);
        // a field missing from a known kind is the table's error, not its kind's
        let e = parse::<Shape>(&json!({"kind": "box"}), "t.shape").unwrap_err();
        assert_eq!(e.path, "t.shape");
        assert!(e.message.contains("missing field `sides`"), "{}", e.message);
    }
}
