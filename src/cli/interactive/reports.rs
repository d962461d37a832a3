//! The typed answers to `/status`, `/tools`, `/skills` and `/sessions`, and
//! the models `/model` offers. Filled in here, rendered by the TUI's views.

use anyhow::Result;
use light_agent::config::{Settings, builtin_context_window};
use light_agent::context::skills;
use light_agent::tui::{
    ModelChoice, Report, ReportKind, SessionsReport, SkillRow, SkillsReport, StatusReport,
    TokenTotals, ToolRow, TurnTokens,
};

use super::bridge::RuntimeBridge;

/// Builds the report `kind` asks for.
pub(super) async fn build(bridge: &RuntimeBridge, kind: ReportKind) -> Result<Report> {
    Ok(match kind {
        ReportKind::Status => Report::Status(status(bridge).await?),
        ReportKind::Tools => Report::Tools(tools(bridge)),
        ReportKind::Skills => Report::Skills(skills_report(bridge)),
        ReportKind::Sessions => Report::Sessions(SessionsReport {
            cwd: bridge.launch.cwd.display().to_string(),
            current_id: bridge.session.id().to_string(),
            rows: super::sessions::rows(&bridge.manager, None).await?,
        }),
    })
}

async fn status(bridge: &RuntimeBridge) -> Result<StatusReport> {
    let s = &bridge.launch.settings;
    let title = if bridge.session.is_written() {
        bridge
            .manager
            .info(bridge.session.id())
            .await?
            .title
            .unwrap_or_default()
    } else {
        String::new()
    };
    let turns = bridge
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
        session_id: bridge.session.id().to_string(),
        title,
        cwd: bridge.launch.cwd.display().to_string(),
        model: s.model.clone(),
        provider: s.provider.name.clone(),
        base_url: s.provider.base_url.clone(),
        context_window: s.context_window,
        window_tokens: bridge
            .agent
            .as_ref()
            .map(|a| a.state().current_window_tokens)
            .unwrap_or(0),
        turns,
        database: bridge.manager.db_path().display().to_string(),
    })
}

fn tools(bridge: &RuntimeBridge) -> Vec<ToolRow> {
    let Some(agent) = &bridge.agent else {
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

fn skills_report(bridge: &RuntimeBridge) -> SkillsReport {
    let cwd = &bridge.launch.cwd;
    let global = &bridge.launch.paths.skills_dir;
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

/// The models to offer: the one in use, then each configured profile's
/// default model (a provider's own model list is not fetched).
pub(super) fn models(settings: &Settings) -> Vec<ModelChoice> {
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
