//! The typed answers to `/status`, `/tools`, `/skills`, `/sessions` and `/mcp`, and
//! the models `/model` offers. Filled in here, rendered by the TUI's views.

use std::time::Duration;

use crate::ai::HttpOptions;
use crate::ai::openai::list_models;
use crate::config::{ProviderKind, Settings, builtin_context_window};
use crate::context::skills;
use crate::protocol::{
    ModelChoice, Report, ReportKind, SessionsReport, SkillRow, SkillsReport, StatusReport,
    TokenTotals, ToolRow, TurnTokens,
};

use super::HostError;
use super::actor::Actor;

type Result<T, E = HostError> = std::result::Result<T, E>;

/// Builds the report `kind` asks for.
pub(super) async fn build(actor: &Actor, kind: ReportKind) -> Result<Report> {
    Ok(match kind {
        ReportKind::Status => Report::Status(status(actor).await?),
        ReportKind::Tools => Report::Tools(tools(actor)),
        ReportKind::Skills => Report::Skills(skills_report(actor)),
        ReportKind::Mcp => Report::Mcp(
            actor
                .mcp()
                .map(crate::mcp::McpServers::rows)
                .unwrap_or_default(),
        ),
        ReportKind::Sessions => Report::Sessions(SessionsReport {
            cwd: actor.config.cwd.display().to_string(),
            current_id: actor.session.id().to_string(),
            rows: super::sessions::rows(&actor.manager, None).await?,
        }),
    })
}

async fn status(actor: &Actor) -> Result<StatusReport> {
    let s = &actor.config.settings;
    let title = if actor.session.is_written() {
        actor
            .manager
            .info(actor.session.id())
            .await?
            .title
            .unwrap_or_default()
    } else {
        String::new()
    };
    let turns = actor
        .session
        .usage_by_turn()
        .await?
        .into_iter()
        .map(|t| TurnTokens {
            turn: t.turn,
            calls: t.calls,
            tokens: TokenTotals {
                input: t.input,
                output: t.output,
                cached: t.cached,
            },
        })
        .collect();
    Ok(StatusReport {
        session_id: actor.session.id().to_string(),
        title,
        cwd: actor.config.cwd.display().to_string(),
        model: s.model.clone(),
        provider: s.provider.name.clone(),
        base_url: s.provider.base_url.clone(),
        context_window: s.context_window,
        window_tokens: actor
            .agent()
            .map(|a| a.state().current_window_tokens)
            .unwrap_or(0),
        turns,
        database: actor.manager.db_path().display().to_string(),
    })
}

fn tools(actor: &Actor) -> Vec<ToolRow> {
    let Some(agent) = actor.agent() else {
        return Vec::new();
    };
    agent
        .tool()
        .specs()
        .into_iter()
        .map(|spec| ToolRow {
            name: spec.name,
            description: spec.description,
        })
        .collect()
}

fn skills_report(actor: &Actor) -> SkillsReport {
    let cwd = &actor.config.cwd;
    let global = &actor.config.paths.skills_dir;
    let (found, _) = skills::discover(cwd, Some(global));
    SkillsReport {
        skills: found
            .into_iter()
            .map(|s| SkillRow {
                name: s.name,
                description: s.description,
            })
            .collect(),
        search_dirs: vec![".agents/skills".to_string(), global.display().to_string()],
    }
}

/// Longest wait for a provider's model list; the picker opens without it.
const CATALOGUE_WAIT: Duration = Duration::from_secs(3);

/// The models to offer: the one in use, what its provider lists
/// (OpenAI-compatible servers answer `GET /models`; a list that fails or is
/// slow is left out), then each other configured profile's default model.
pub(super) async fn models(settings: &Settings) -> Vec<ModelChoice> {
    let mut rows = configured_models(settings);
    if settings.provider.kind == ProviderKind::OpenAi {
        let http = HttpOptions {
            connect_timeout: settings.connect_timeout,
            idle_timeout: settings.idle_timeout,
        };
        let key = settings.api_key.as_ref().map(|k| k.expose().to_string());
        let listed = tokio::time::timeout(
            CATALOGUE_WAIT,
            list_models(&settings.provider.base_url, key.as_deref(), &http),
        )
        .await;
        match listed {
            Ok(Ok(ids)) => {
                let listed: Vec<ModelChoice> = ids
                    .into_iter()
                    .map(|model| ModelChoice {
                        provider: settings.provider.name.clone(),
                        model,
                    })
                    .filter(|row| !rows.contains(row))
                    .collect();
                let at = rows.len().min(1);
                rows.splice(at..at, listed);
            }
            Ok(Err(e)) => tracing::info!("listing the provider's models: {e}"),
            Err(_) => tracing::info!("listing the provider's models timed out"),
        }
    }
    rows
}

fn configured_models(settings: &Settings) -> Vec<ModelChoice> {
    let mut rows = vec![ModelChoice {
        provider: settings.provider.name.clone(),
        model: settings.model.clone(),
    }];
    for profile in &settings.providers {
        let Some(model) = profile.default_model.clone() else {
            continue;
        };
        let row = ModelChoice {
            provider: profile.name.clone(),
            model,
        };
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows.retain(|r| !r.model.is_empty());
    rows
}

/// The settings with `choice`'s model (and its provider profile, when it
/// names another configured one).
pub(super) fn settings_for(current: &Settings, choice: &ModelChoice) -> Settings {
    let mut settings = current.clone();
    if !choice.provider.is_empty()
        && choice.provider != current.provider.name
        && let Some(profile) = current.providers.iter().find(|p| p.name == choice.provider)
    {
        settings.api_key = profile.api_key.clone();
        settings.provider = profile.clone();
    }
    settings.model = choice.model.clone();
    if let Some(window) = builtin_context_window(&choice.model) {
        settings.context_window = window;
    }
    settings
}
