//! JSON Schema for tool arguments: generation, the `_intent` field, and a
//! validator that names the offending field.
//!
//! serde alone reports "invalid type: string, expected u32" without saying
//! where, so arguments are first checked against the tool's own schema (the
//! subset of JSON Schema schemars emits for plain structs); serde runs after
//! and only catches what the schema cannot express.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// Name of the field every tool schema gains: the model's reason for a call.
pub(crate) use crate::protocol::INTENT_FIELD;

/// The schemas of one tool's arguments.
#[derive(Debug)]
pub(crate) struct ArgsSchema {
    /// The schema of `Args` exactly as generated (used for validation).
    pub(crate) own: Value,
    /// What the model sees: `own`, slimmed, plus the required `_intent`
    /// string when the tool asks for it.
    pub(crate) exposed: Value,
}

/// Generates the schema of `T` with subschemas inlined, without `$schema`
/// and `title`, `_intent` added to what the model sees when `asks_intent`.
/// Returns `None` when it is not an object schema.
pub(crate) fn args_schema<T: JsonSchema>(asks_intent: bool) -> Option<ArgsSchema> {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let mut schema = exposed(
        generator.into_root_schema_for::<T>().to_value(),
        asks_intent,
    )?;
    if let Some(object) = schema.exposed.as_object_mut() {
        // The struct's own doc ("Arguments of `tree`.") tells the model nothing.
        object.remove("description");
    }
    slim(&mut schema.exposed);
    Some(schema)
}

/// Drops from what the model sees what costs tokens and guides nothing:
/// Rust integer formats (`uint32`; the bounds that matter stay), `null`,
/// `false` and `[]` defaults (absence says the same), `null` types, a
/// minimum of 0 or 1 and a minimum length of 1 (no model sends less).
/// Validation keeps the full schema.
fn slim(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // A string: the keyword; an object would be a property named so.
            if map.get("format").is_some_and(Value::is_string) {
                map.remove("format");
            }
            if map.get("default").is_some_and(says_nothing) {
                map.remove("default");
            }
            // `["integer", "null"]` of an optional field: absence says the same.
            if let Some(Value::Array(types)) = map.get("type")
                && let [one, Value::String(null)] = types.as_slice()
                && null == "null"
            {
                let one = one.clone();
                map.insert("type".to_owned(), one);
            }
            if map
                .get("minimum")
                .and_then(Value::as_u64)
                .is_some_and(|m| m <= 1)
            {
                map.remove("minimum");
            }
            if map.get("minLength") == Some(&Value::from(1)) {
                map.remove("minLength");
            }
            map.values_mut().for_each(slim);
        }
        Value::Array(items) => items.iter_mut().for_each(slim),
        _ => {}
    }
}

/// For `#[schemars(transform = unexplained)]` on a field whose name says
/// what it is (`path`): its doc comment stays for Rust readers, and the
/// model is not sent it in every request.
pub(crate) fn unexplained(schema: &mut schemars::Schema) {
    schema.remove("description");
}

/// Whether a default is what an absent field means anyway.
fn says_nothing(default: &Value) -> bool {
    match default {
        Value::Null | Value::Bool(false) => true,
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// The schemas of a tool whose object schema `own` came from elsewhere (an
/// MCP server): `title` and `$schema` dropped, `_intent` added to what the
/// model sees when `asks_intent`. Returns `None` when `own` is not an
/// object schema.
pub(crate) fn exposed(mut own: Value, asks_intent: bool) -> Option<ArgsSchema> {
    let object = own.as_object_mut()?;
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    object.remove("title");
    object.remove("$schema");

    let mut exposed = own.clone();
    if !asks_intent {
        return Some(ArgsSchema { own, exposed });
    }
    let object = exposed.as_object_mut()?;
    let properties = object
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()?;
    properties.insert(
        INTENT_FIELD.to_owned(),
        // No description: the system prompt's opening says what `_intent` is
        // once, instead of every tool repeating it in every request.
        serde_json::json!({ "type": "string" }),
    );
    let required = object
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()?;
    required.push(Value::String(INTENT_FIELD.to_owned()));
    Some(ArgsSchema { own, exposed })
}

/// One reason arguments were rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Issue {
    /// Dot-joined field path (`search_strs.3`), or `<root>`.
    pub(crate) path: String,
    /// What is wrong, for the model.
    pub(crate) reason: String,
}

/// Checks `value` against `schema` and lists every violation found.
pub(crate) fn validate(schema: &Value, value: &Value) -> Vec<Issue> {
    let mut issues = Vec::new();
    check(schema, value, &mut Vec::new(), &mut issues);
    issues
}

/// Deserialises `value` as `T`; a failure is an issue at the exact field path
/// serde stopped at (`inner.depth`, `items[2]`), with serde's own reason.
pub(crate) fn deserialize<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, Issue> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        Issue {
            path: if path == "." {
                "<root>".to_owned()
            } else {
                path
            },
            reason: error.into_inner().to_string(),
        }
    })
}

fn display_path(path: &[String]) -> String {
    if path.is_empty() {
        "<root>".to_owned()
    } else {
        path.join(".")
    }
}

fn push(issues: &mut Vec<Issue>, path: &[String], reason: String) {
    issues.push(Issue {
        path: display_path(path),
        reason,
    });
}

fn check(schema: &Value, value: &Value, path: &mut Vec<String>, issues: &mut Vec<Issue>) {
    let schema = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => {
            push(issues, path, "no value is allowed here".to_owned());
            return;
        }
        Value::Object(schema) => schema,
        _ => return,
    };

    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| has_type(value, t)) {
            push(
                issues,
                path,
                format!(
                    "expected {}, received {}",
                    allowed.join(" or "),
                    type_name(value)
                ),
            );
            return;
        }
    }

    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.contains(value)
    {
        let options: Vec<String> = options.iter().map(Value::to_string).collect();
        push(
            issues,
            path,
            format!("expected one of {}", options.join(", ")),
        );
    }
    if let Some(expected) = schema.get("const")
        && expected != value
    {
        push(issues, path, format!("expected {expected}"));
    }

    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let fits = branches
                .iter()
                .any(|branch| validate(branch, value).is_empty());
            if !fits {
                push(issues, path, "does not match any allowed shape".to_owned());
            }
        }
    }
    if let Some(Value::Array(branches)) = schema.get("allOf") {
        for branch in branches {
            check(branch, value, path, issues);
        }
    }

    match value {
        Value::Object(object) => check_object(schema, object, path, issues),
        Value::Array(items) => check_array(schema, items, path, issues),
        Value::String(text) => check_string(schema, text, path, issues),
        Value::Number(_) => check_number(schema, value, path, issues),
        Value::Bool(_) | Value::Null => {}
    }
}

fn check_object(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    path: &mut Vec<String>,
    issues: &mut Vec<Issue>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                path.push(name.to_owned());
                push(issues, path, "required field is missing".to_owned());
                path.pop();
            }
        }
    }
    // In name order, whatever order the object keeps: serde_json keeps
    // insertion order when a dependency turns `preserve_order` on (the ACP
    // schema crate does), and the issues must read the same either way.
    let mut fields: Vec<(&String, &Value)> = object.iter().collect();
    fields.sort_by(|a, b| a.0.cmp(b.0));
    for (name, field) in fields {
        path.push(name.clone());
        match properties.and_then(|p| p.get(name)) {
            Some(field_schema) => check(field_schema, field, path, issues),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    push(issues, path, "unknown field; remove it".to_owned());
                }
                Some(extra) => check(extra, field, path, issues),
                None => {}
            },
        }
        path.pop();
    }
}

fn check_array(
    schema: &Map<String, Value>,
    items: &[Value],
    path: &mut Vec<String>,
    issues: &mut Vec<Issue>,
) {
    let count = items.len() as u64;
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
        && count < min
    {
        push(
            issues,
            path,
            format!("expected at least {min} items, received {count}"),
        );
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && count > max
    {
        push(
            issues,
            path,
            format!("expected at most {max} items, received {count}"),
        );
    }
    if let Some(item_schema) = schema.get("items") {
        for (index, item) in items.iter().enumerate() {
            path.push(index.to_string());
            check(item_schema, item, path, issues);
            path.pop();
        }
    }
}

fn check_string(schema: &Map<String, Value>, text: &str, path: &[String], issues: &mut Vec<Issue>) {
    let chars = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && chars < min
    {
        push(
            issues,
            path,
            format!("expected at least {min} characters, received {chars}"),
        );
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && chars > max
    {
        push(
            issues,
            path,
            format!("expected at most {max} characters, received {chars}"),
        );
    }
}

fn check_number(
    schema: &Map<String, Value>,
    value: &Value,
    path: &[String],
    issues: &mut Vec<Issue>,
) {
    let Some(number) = value.as_f64() else {
        return;
    };
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let (format_min, format_max) = schema
        .get("format")
        .and_then(Value::as_str)
        .map(format_bounds)
        .unwrap_or((None, None));
    if let Some(min) = bound("minimum").or(format_min)
        && number < min
    {
        push(
            issues,
            path,
            format!("expected a number >= {min}, received {value}"),
        );
    }
    if let Some(max) = bound("maximum").or(format_max)
        && number > max
    {
        push(
            issues,
            path,
            format!("expected a number <= {max}, received {value}"),
        );
    }
    if let Some(min) = bound("exclusiveMinimum")
        && number <= min
    {
        push(
            issues,
            path,
            format!("expected a number > {min}, received {value}"),
        );
    }
    if let Some(max) = bound("exclusiveMaximum")
        && number >= max
    {
        push(
            issues,
            path,
            format!("expected a number < {max}, received {value}"),
        );
    }
}

/// Bounds implied by schemars' integer formats, which it emits instead of
/// `maximum` for the Rust integer types.
fn format_bounds(format: &str) -> (Option<f64>, Option<f64>) {
    match format {
        "uint8" => (Some(0.0), Some(f64::from(u8::MAX))),
        "uint16" => (Some(0.0), Some(f64::from(u16::MAX))),
        "uint32" => (Some(0.0), Some(f64::from(u32::MAX))),
        "uint" | "uint64" => (Some(0.0), None),
        "int8" => (Some(f64::from(i8::MIN)), Some(f64::from(i8::MAX))),
        "int16" => (Some(f64::from(i16::MIN)), Some(f64::from(i16::MAX))),
        "int32" => (Some(f64::from(i32::MIN)), Some(f64::from(i32::MAX))),
        _ => (None, None),
    }
}

fn has_type(value: &Value, expected: &str) -> bool {
    match expected {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        depth: u8,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// A name.
        name: String,
        #[schemars(length(min = 1, max = 2), inner(length(min = 1)))]
        tags: Vec<String>,
        #[schemars(range(min = 1, max = 10))]
        count: Option<u32>,
        inner: Option<Inner>,
    }

    #[test]
    fn schema_is_inline_without_meta_and_title() {
        let schema = args_schema::<Args>(true).unwrap();
        let text = schema.exposed.to_string();
        assert!(!text.contains("$ref"), "{text}");
        assert!(!text.contains("$defs"), "{text}");
        assert!(schema.exposed.get("$schema").is_none());
        assert!(schema.exposed.get("title").is_none());
        assert!(schema.own["properties"].get(INTENT_FIELD).is_none());
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Flags {
        #[serde(default)]
        verbose: bool,
        #[serde(default)]
        names: Vec<String>,
        #[serde(default = "three")]
        tries: u32,
    }

    fn three() -> u32 {
        3
    }

    #[test]
    fn defaults_an_absent_field_means_anyway_are_not_shown() {
        let schema = args_schema::<Flags>(true).unwrap();
        let shown = &schema.exposed["properties"];
        assert!(shown["verbose"].get("default").is_none(), "{shown}");
        assert!(shown["names"].get("default").is_none(), "{shown}");
        assert_eq!(shown["tries"]["default"], 3);
        assert_eq!(schema.own["properties"]["verbose"]["default"], false);
    }

    #[test]
    fn a_tool_that_asks_no_intent_shows_no_intent_field() {
        let schema = args_schema::<Args>(false).unwrap().exposed;
        assert!(schema["properties"].get(INTENT_FIELD).is_none(), "{schema}");
        let required = schema["required"].as_array().unwrap();
        assert!(!required.contains(&json!(INTENT_FIELD)), "{schema}");
        let asked = args_schema::<Args>(true).unwrap().exposed;
        assert_eq!(asked["properties"][INTENT_FIELD]["type"], "string");
    }

    #[test]
    fn validator_names_nested_fields() {
        let schema = args_schema::<Args>(true).unwrap().own;
        let issues = validate(
            &schema,
            &json!({"tags": ["a", "", "c"], "count": 11, "inner": {"depth": "deep"}}),
        );
        let paths: Vec<&str> = issues.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(
            paths,
            ["name", "count", "inner.depth", "tags", "tags.1"],
            "{issues:?}"
        );
    }

    #[test]
    fn validator_accepts_good_args_and_null_options() {
        let schema = args_schema::<Args>(true).unwrap().own;
        assert!(validate(&schema, &json!({"name": "x", "tags": ["a"], "count": null})).is_empty());
        assert!(validate(&schema, &json!({"name": "x", "tags": ["a"], "count": 3})).is_empty());
    }

    #[test]
    fn integer_rejects_fractions_and_format_bounds_apply() {
        let schema = args_schema::<Args>(true).unwrap().own;
        let issues = validate(
            &schema,
            &json!({"name": "x", "tags": ["a"], "inner": {"depth": 300}, "count": 2.5}),
        );
        let paths: Vec<&str> = issues.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["count", "inner.depth"], "{issues:?}");
    }

    #[test]
    fn serde_errors_carry_the_field_path() {
        let Err(issue) =
            deserialize::<Args>(json!({"name": "x", "tags": ["a", 3], "inner": {"depth": 1}}))
        else {
            panic!("a number in a list of strings")
        };
        assert_eq!(issue.path, "tags[1]");
        assert!(issue.reason.contains("expected a string"), "{issue:?}");
        let Err(issue) = deserialize::<Inner>(json!({})) else {
            panic!("a missing field")
        };
        assert_eq!(
            (issue.path.as_str(), issue.reason.as_str()),
            ("<root>", "missing field `depth`")
        );
    }
}
