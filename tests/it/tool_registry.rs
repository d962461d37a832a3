#![allow(clippy::unwrap_used, clippy::expect_used)]
//! ToolRegistry: registration rules, specs with `_intent`, the guarded call path.

use light_agent::tool::{RegisterError, ToolContext, ToolDefinition, ToolOutput, ToolRegistry};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Weather {
    /// City to look up.
    city: String,
    /// Days ahead, 1 to 7.
    #[schemars(range(min = 1, max = 7))]
    days: u8,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Trip {
    stops: Vec<Stop>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Stop {
    name: String,
    nights: u32,
}

fn weather_tool(name: &str) -> impl light_agent::tool::Tool {
    ToolDefinition::new(
        name,
        "Weather forecast for a city.",
        |args: Weather, _ctx: ToolContext| async move {
            ToolOutput::ok(format!("{} in {} days: sunny", args.city, args.days))
        },
    )
}

/// Echoes the keys it received, to see exactly what a tool is given.
fn echo_tool() -> impl light_agent::tool::Tool {
    ToolDefinition::new(
        "echo",
        "Echo the argument keys.",
        |args: Map<String, Value>, _ctx: ToolContext| async move {
            ToolOutput::ok(Value::Object(args).to_string())
        },
    )
}

fn ctx() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path(), CancellationToken::new()).unwrap();
    (dir, ctx)
}

#[test]
fn every_registration_error_is_typed_and_names_the_tool() {
    let registry = ToolRegistry::new();
    assert_eq!(
        registry.register(weather_tool("")),
        Err(RegisterError::EmptyName)
    );
    assert_eq!(
        registry.register(weather_tool("   ")),
        Err(RegisterError::EmptyName)
    );
    for bad in ["has space", "dot.name", "ünï", &"x".repeat(65)] {
        let err = registry.register(weather_tool(bad)).unwrap_err();
        assert_eq!(
            err,
            RegisterError::InvalidName {
                name: bad.to_owned()
            }
        );
        assert!(err.to_string().contains(bad), "{err}");
    }
    assert!(registry.register(weather_tool(&"x".repeat(64))).is_ok());

    let no_description =
        ToolDefinition::new("quiet", "  ", |_: Weather, _ctx: ToolContext| async {
            ToolOutput::ok("")
        });
    let err = registry.register(no_description).unwrap_err();
    assert_eq!(
        err,
        RegisterError::EmptyDescription {
            name: "quiet".into()
        }
    );
    assert!(err.to_string().contains("quiet"));

    let string_args = ToolDefinition::new(
        "stringy",
        "Takes a bare string.",
        |_: String, _ctx: ToolContext| async { ToolOutput::ok("") },
    );
    let err = registry.register(string_args).unwrap_err();
    assert_eq!(
        err,
        RegisterError::SchemaNotObject {
            name: "stringy".into()
        }
    );
    assert!(err.to_string().contains("stringy"));

    let list_args = ToolDefinition::new(
        "listy",
        "Takes a list.",
        |_: Vec<u32>, _ctx: ToolContext| async { ToolOutput::ok("") },
    );
    assert_eq!(
        registry.register(list_args),
        Err(RegisterError::SchemaNotObject {
            name: "listy".into()
        })
    );

    registry.register(weather_tool("weather")).unwrap();
    let err = registry.register(weather_tool("weather")).unwrap_err();
    assert_eq!(
        err,
        RegisterError::Duplicate {
            name: "weather".into()
        }
    );
    assert!(err.to_string().contains("weather"));
    assert_eq!(registry.names(), vec!["x".repeat(64), "weather".to_owned()]);
}

#[test]
fn remove_reports_whether_something_was_removed() {
    let registry = ToolRegistry::new();
    registry.register(weather_tool("weather")).unwrap();
    let shared = registry.clone();
    assert!(shared.contains("weather"));
    assert!(registry.remove("weather"));
    assert!(!registry.remove("weather"));
    assert!(!shared.contains("weather"), "clones share one set of tools");
    registry.register(weather_tool("weather")).unwrap();
}

#[test]
fn specs_add_a_required_intent_and_keep_registration_order() {
    let registry = ToolRegistry::new();
    registry.register(weather_tool("weather")).unwrap();
    registry.register(echo_tool()).unwrap();
    registry
        .register(ToolDefinition::new(
            "trip",
            "Plan a trip.",
            |_: Trip, _ctx: ToolContext| async { ToolOutput::ok("") },
        ))
        .unwrap();

    let specs = registry.specs();
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["weather", "echo", "trip"]);

    let weather = &specs[0].schema;
    assert_eq!(weather["type"], "object");
    assert_eq!(weather["properties"]["_intent"]["type"], "string");
    assert!(
        weather["properties"]["_intent"]
            .get("description")
            .is_none(),
        "the system prompt's opening says what _intent is, once"
    );
    let required: Vec<&str> = weather["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, ["city", "days", "_intent"]);
    assert_eq!(weather["properties"]["days"]["maximum"], 7);
    assert_eq!(specs[0].description, "Weather forecast for a city.");

    for spec in &specs {
        assert!(spec.schema.get("$schema").is_none(), "{}", spec.schema);
        assert!(spec.schema.get("title").is_none(), "{}", spec.schema);
        let text = spec.schema.to_string();
        assert!(
            !text.contains("$ref") && !text.contains("$defs") && !text.contains("definitions"),
            "{text}"
        );
        assert!(
            spec.schema["required"]
                .as_array()
                .unwrap()
                .contains(&json!("_intent"))
        );
    }
    // The nested struct is inlined.
    assert_eq!(
        specs[2].schema["properties"]["stops"]["items"]["properties"]["nights"]["type"],
        "integer"
    );
}

#[tokio::test]
async fn intent_is_stripped_before_the_tool_runs_and_may_be_missing() {
    let registry = ToolRegistry::new();
    registry.register(echo_tool()).unwrap();
    let (_dir, ctx) = ctx();

    let out = registry
        .execute(
            "echo",
            json!({"_intent": "see the keys", "a": 1}),
            ctx.clone(),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        serde_json::from_str::<Value>(&out.content).unwrap(),
        json!({"a": 1})
    );

    let out = registry.execute("echo", json!({"a": 2}), ctx).await;
    assert_eq!(
        serde_json::from_str::<Value>(&out.content).unwrap(),
        json!({"a": 2})
    );
}

#[tokio::test]
async fn good_arguments_reach_the_closure() {
    let registry = ToolRegistry::new();
    registry.register(weather_tool("weather")).unwrap();
    let (_dir, ctx) = ctx();
    let out = registry
        .execute(
            "weather",
            json!({"city": "Oslo", "days": 3, "_intent": "plan"}),
            ctx,
        )
        .await;
    assert_eq!(out, ToolOutput::ok("Oslo in 3 days: sunny"));
}

#[tokio::test]
async fn validation_errors_name_each_bad_field_in_labelled_lines() {
    let registry = ToolRegistry::new();
    registry.register(weather_tool("weather")).unwrap();
    let (_dir, ctx) = ctx();

    let out = registry
        .execute(
            "weather",
            json!({"city": 42, "days": 9, "_intent": "x"}),
            ctx.clone(),
        )
        .await;
    assert!(out.is_error);
    let lines: Vec<&str> = out.content.lines().collect();
    assert_eq!(
        lines[0],
        "[what]: your tool arguments failed schema validation"
    );
    assert_eq!(lines[1], "[tool]: weather");
    assert_eq!(lines[2], "[issues]:");
    assert!(
        lines[3].starts_with("- city: expected string, received integer"),
        "{}",
        out.content
    );
    assert!(
        lines[4].starts_with("- days: expected a number <= 7"),
        "{}",
        out.content
    );
    assert!(lines[5].starts_with("[how]: "), "{}", out.content);

    let out = registry.execute("weather", json!({"days": 2}), ctx).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("- city: required field is missing"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn nested_bad_fields_get_a_dotted_path() {
    let registry = ToolRegistry::new();
    registry
        .register(ToolDefinition::new(
            "trip",
            "Plan a trip.",
            |_: Trip, _ctx: ToolContext| async { ToolOutput::ok("") },
        ))
        .unwrap();
    let (_dir, ctx) = ctx();
    let out = registry
        .execute(
            "trip",
            json!({"stops": [{"name": "a", "nights": 1}, {"name": "b", "nights": -1}]}),
            ctx,
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("- stops.1.nights: "),
        "{}",
        out.content
    );
    assert!(!out.content.contains("stops.0"), "{}", out.content);
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_error_results() {
    let registry = ToolRegistry::new();
    registry.register(weather_tool("weather")).unwrap();
    let (_dir, ctx) = ctx();

    // The adaptor hands over unparsable argument text as a JSON string.
    let out = registry
        .execute(
            "weather",
            Value::String("{\"city\": \"Oslo".into()),
            ctx.clone(),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("not a valid JSON object"),
        "{}",
        out.content
    );
    assert!(out.content.contains("[tool]: weather"));
    assert!(out.content.contains("{\"city\": \"Oslo"));

    let out = registry.execute("weather", json!([1, 2]), ctx).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("- <root>: expected an object"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn unknown_tool_names_the_registered_ones() {
    let registry = ToolRegistry::new();
    registry.register(weather_tool("weather")).unwrap();
    registry.register(echo_tool()).unwrap();
    let (_dir, ctx) = ctx();
    let out = registry.execute("wether", json!({}), ctx).await;
    assert!(out.is_error);
    assert!(
        out.content.contains("[what]: unknown tool"),
        "{}",
        out.content
    );
    assert!(out.content.contains("[tool]: wether"));
    assert!(
        out.content.contains("[available]: weather, echo"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result() {
    let registry = ToolRegistry::new();
    registry
        .register(ToolDefinition::new(
            "boom",
            "Always panics.",
            |args: Weather, _ctx: ToolContext| async move {
                if args.days > 0 {
                    panic!("exploded on {}", args.city);
                }
                ToolOutput::ok("unreachable")
            },
        ))
        .unwrap();
    registry.register(weather_tool("weather")).unwrap();
    let (_dir, ctx) = ctx();

    let out = registry
        .execute("boom", json!({"city": "Rome", "days": 1}), ctx.clone())
        .await;
    assert!(out.is_error);
    assert!(out.content.contains("[tool]: boom"), "{}", out.content);
    assert!(out.content.contains("exploded on Rome"), "{}", out.content);

    // The registry still works afterwards.
    let out = registry
        .execute("weather", json!({"city": "Rome", "days": 1}), ctx)
        .await;
    assert!(!out.is_error);
}

#[tokio::test]
async fn the_tool_receives_the_context_it_was_called_with() {
    let registry = ToolRegistry::new();
    registry
        .register(ToolDefinition::new(
            "where",
            "Report the cwd.",
            |_: Map<String, Value>, ctx: ToolContext| async move {
                ToolOutput::ok(format!(
                    "{} {}",
                    ctx.cwd.display(),
                    ctx.cancel.is_cancelled()
                ))
            },
        ))
        .unwrap();
    let (dir, ctx) = ctx();
    ctx.cancel.cancel();
    let out = registry.execute("where", json!({}), ctx).await;
    assert_eq!(
        out.content,
        format!("{} true", dir.path().canonicalize().unwrap().display())
    );
}

#[test]
fn builtin_specs_are_plain_object_schemas() {
    let registry = ToolRegistry::new();
    light_agent::tool::builtin::register_all(&registry).unwrap();
    let specs = registry.specs();
    assert_eq!(registry.names(), ["tree", "grep", "read_file"]);
    for spec in &specs {
        assert_eq!(spec.schema["type"], "object");
        assert!(
            spec.schema["required"]
                .as_array()
                .unwrap()
                .contains(&json!("_intent"))
        );
    }
    let required = |i: usize| spec_required(&specs[i].schema);
    assert_eq!(required(0), ["_intent"], "tree's fields all have defaults");
    assert_eq!(required(1), ["search_strs", "_intent"]);
    assert_eq!(required(2), ["path", "_intent"]);
    assert_eq!(specs[0].schema["properties"]["max_files"]["maximum"], 1000);
    assert_eq!(specs[1].schema["properties"]["search_strs"]["maxItems"], 10);
    assert!(!light_agent::tool::builtin::tool_prompts().is_empty());
    assert_eq!(
        light_agent::tool::builtin::TOOL_PROMPTS_NAME,
        "builtin_tools"
    );
}

fn spec_required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}
