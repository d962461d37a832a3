//! Our tools' JSON Schema → the OpenAPI-3.0 subset Gemini's
//! `functionDeclarations[].parameters` accepts.
//!
//! `parametersJsonSchema` would take JSON Schema as is, but only newer
//! models and API versions know it, and proxies that speak the Gemini wire
//! format often do not; `parameters` works everywhere, so the schema is
//! converted. Rules, each pinned by one test:
//! 1. only Gemini's keywords are kept (`type`, `format`, `description`,
//!    `nullable`, `enum`, `items`, `properties`, `required`, `anyOf`,
//!    `minimum`, `maximum`, `minItems`, `maxItems`, `minLength`,
//!    `maxLength`, `pattern`); `$schema`, `$id`, `title`, `default`,
//!    `additionalProperties`, `examples`, `$ref`/`$defs` and the rest go;
//! 2. `type: [T, "null"]` becomes `type: T, nullable: true`; a list of
//!    several non-null types becomes `anyOf`;
//! 3. `oneOf` becomes `anyOf` (the only union Gemini has);
//! 4. `const: "x"` becomes `enum: ["x"]` (non-string constants are dropped);
//! 5. `enum` is kept only when every value is a string (Gemini's enums are
//!    string enums);
//! 6. `format` is kept only when Gemini knows it for that type
//!    (`int32`/`int64`, `float`/`double`, `enum`/`date-time`), so schemars'
//!    `uint32` and friends go;
//! 7. `required` keeps only names that are properties, and an object
//!    without properties carries neither (Gemini rejects an empty
//!    `properties` map);
//! 8. a boolean schema (`true`) becomes the empty schema.

use serde_json::{Map, Value};

/// Keywords copied unchanged (their values are scalars or string lists).
const PLAIN_KEYWORDS: [&str; 8] = [
    "description",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
];

/// `schema` in Gemini's dialect; see the module docs for the rules.
pub fn to_gemini_schema(schema: &Value) -> Value {
    let Some(source) = schema.as_object() else {
        return Value::Object(Map::new());
    };
    let mut out = Map::new();
    convert_type(source, &mut out);
    for key in PLAIN_KEYWORDS {
        if let Some(value) = source.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    if source.get("nullable") == Some(&Value::Bool(true)) {
        out.insert("nullable".into(), Value::Bool(true));
    }
    convert_format(source, &mut out);
    convert_enum(source, &mut out);
    if let Some(items) = source.get("items") {
        out.insert("items".into(), to_gemini_schema(items));
    }
    convert_properties(source, &mut out);
    convert_union(source, &mut out);
    Value::Object(out)
}

fn convert_type(source: &Map<String, Value>, out: &mut Map<String, Value>) {
    match source.get("type") {
        Some(Value::String(kind)) => {
            out.insert("type".into(), Value::String(kind.clone()));
        }
        Some(Value::Array(kinds)) => {
            let named: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            let non_null: Vec<&str> = named.iter().copied().filter(|k| *k != "null").collect();
            if non_null.len() < named.len() {
                out.insert("nullable".into(), Value::Bool(true));
            }
            match non_null.as_slice() {
                [] => {}
                [one] => {
                    out.insert("type".into(), Value::String((*one).to_owned()));
                }
                several => {
                    let variants = several
                        .iter()
                        .map(|k| serde_json::json!({ "type": k }))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(variants));
                }
            }
        }
        _ => {}
    }
}

fn convert_format(source: &Map<String, Value>, out: &mut Map<String, Value>) {
    let Some(format) = source.get("format").and_then(Value::as_str) else {
        return;
    };
    let kind = out.get("type").and_then(Value::as_str).unwrap_or("");
    let known = match kind {
        "integer" => matches!(format, "int32" | "int64"),
        "number" => matches!(format, "float" | "double"),
        "string" => matches!(format, "enum" | "date-time"),
        _ => false,
    };
    if known {
        out.insert("format".into(), Value::String(format.to_owned()));
    }
}

fn convert_enum(source: &Map<String, Value>, out: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = source.get("enum")
        && values.iter().all(Value::is_string)
    {
        out.insert("enum".into(), Value::Array(values.clone()));
    }
    if let Some(Value::String(constant)) = source.get("const") {
        out.insert(
            "enum".into(),
            Value::Array(vec![Value::String(constant.clone())]),
        );
        out.entry("type")
            .or_insert_with(|| Value::String("string".into()));
    }
}

fn convert_properties(source: &Map<String, Value>, out: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = source.get("properties") else {
        return;
    };
    if properties.is_empty() {
        return;
    }
    let converted: Map<String, Value> = properties
        .iter()
        .map(|(name, schema)| (name.clone(), to_gemini_schema(schema)))
        .collect();
    if let Some(Value::Array(required)) = source.get("required") {
        let kept: Vec<Value> = required
            .iter()
            .filter(|name| name.as_str().is_some_and(|n| converted.contains_key(n)))
            .cloned()
            .collect();
        if !kept.is_empty() {
            out.insert("required".into(), Value::Array(kept));
        }
    }
    out.insert("properties".into(), Value::Object(converted));
}

fn convert_union(source: &Map<String, Value>, out: &mut Map<String, Value>) {
    let variants = ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| source.get(*key).and_then(Value::as_array));
    if let Some(variants) = variants {
        let converted = variants.iter().map(to_gemini_schema).collect();
        out.insert("anyOf".into(), Value::Array(converted));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rule_1_only_gemini_keywords_survive() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "x", "title": "Args", "default": {}, "examples": [],
            "additionalProperties": false, "$defs": {"A": {}},
            "type": "object", "description": "d",
            "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 9, "title": "N", "default": 3}},
        });
        assert_eq!(
            to_gemini_schema(&schema),
            json!({"type": "object", "description": "d",
                   "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 9}}})
        );
    }

    #[test]
    fn rule_1_length_and_pattern_keywords_are_kept() {
        let schema = json!({"type": "array", "minItems": 1, "maxItems": 3,
            "items": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^a"}});
        assert_eq!(to_gemini_schema(&schema), schema);
    }

    #[test]
    fn rule_2_nullable_type_lists_become_nullable() {
        assert_eq!(
            to_gemini_schema(&json!({"type": ["integer", "null"], "minimum": 0})),
            json!({"type": "integer", "nullable": true, "minimum": 0})
        );
        assert_eq!(
            to_gemini_schema(&json!({"type": ["string", "number"]})),
            json!({"anyOf": [{"type": "string"}, {"type": "number"}]})
        );
    }

    #[test]
    fn rule_3_one_of_becomes_any_of() {
        let schema = json!({"oneOf": [{"type": "string", "title": "s"}, {"type": "integer"}]});
        assert_eq!(
            to_gemini_schema(&schema),
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
    }

    #[test]
    fn rule_4_string_const_becomes_a_one_value_enum() {
        assert_eq!(
            to_gemini_schema(&json!({"const": "fast", "description": "mode"})),
            json!({"type": "string", "enum": ["fast"], "description": "mode"})
        );
        assert_eq!(to_gemini_schema(&json!({"const": 3})), json!({}));
    }

    #[test]
    fn rule_5_only_string_enums_are_kept() {
        assert_eq!(
            to_gemini_schema(&json!({"type": "string", "enum": ["a", "b"]})),
            json!({"type": "string", "enum": ["a", "b"]})
        );
        assert_eq!(
            to_gemini_schema(&json!({"type": "integer", "enum": [1, 2]})),
            json!({"type": "integer"})
        );
    }

    #[test]
    fn rule_6_unknown_formats_are_dropped() {
        assert_eq!(
            to_gemini_schema(&json!({"type": "integer", "format": "uint32"})),
            json!({"type": "integer"})
        );
        assert_eq!(
            to_gemini_schema(&json!({"type": "integer", "format": "int64"})),
            json!({"type": "integer", "format": "int64"})
        );
        assert_eq!(
            to_gemini_schema(&json!({"type": "number", "format": "double"})),
            json!({"type": "number", "format": "double"})
        );
        assert_eq!(
            to_gemini_schema(&json!({"type": "string", "format": "uri"})),
            json!({"type": "string"})
        );
    }

    #[test]
    fn rule_7_required_names_only_existing_properties_and_empty_objects_are_bare() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "required": ["a", "ghost"]});
        assert_eq!(
            to_gemini_schema(&schema),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
        );
        assert_eq!(
            to_gemini_schema(&json!({"type": "object", "properties": {}, "required": []})),
            json!({"type": "object"})
        );
    }

    #[test]
    fn rule_8_boolean_schema_becomes_empty() {
        assert_eq!(to_gemini_schema(&json!(true)), json!({}));
        let schema = json!({"type": "array", "items": true});
        assert_eq!(
            to_gemini_schema(&schema),
            json!({"type": "array", "items": {}})
        );
    }

    #[test]
    fn a_real_tool_schema_converts_recursively() {
        let schema = json!({
            "type": "object",
            "properties": {
                "search_strs": {"type": "array", "items": {"type": "string"}, "description": "terms"},
                "max_files": {"type": ["integer", "null"], "format": "uint", "minimum": 0},
                "_intent": {"type": "string"},
            },
            "required": ["search_strs", "_intent"],
            "additionalProperties": false,
        });
        assert_eq!(
            to_gemini_schema(&schema),
            json!({
                "type": "object",
                "properties": {
                    "search_strs": {"type": "array", "items": {"type": "string"}, "description": "terms"},
                    "max_files": {"type": "integer", "nullable": true, "minimum": 0},
                    "_intent": {"type": "string"},
                },
                "required": ["search_strs", "_intent"],
            })
        );
    }
}
