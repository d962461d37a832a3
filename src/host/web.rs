//! `web_fetch` as the settings make it: which private addresses it may
//! reach (`[web]`) and the small model that answers its `prompt`.

use crate::agent::web_fetch::WebFetchTool;
use crate::ai::web::{PrivateAccess, WebClient, WebOptions};
use crate::config::Settings;
use crate::tool::ToolRegistry;

use super::HostError;
use super::build::adaptor;

/// Registers `web_fetch` in `registry` with the `[web]` settings.
pub fn register(registry: &ToolRegistry, settings: &Settings) -> Result<(), HostError> {
    let client = WebClient::new(WebOptions {
        private: PrivateAccess {
            all: settings.web.allow_private,
            hosts: settings.web.private_hosts.clone(),
        },
        connect_timeout: settings.connect_timeout,
        ..WebOptions::default()
    })
    .map_err(|e| HostError::setup(format!("web_fetch: {e}")))?;
    let small_model = match &settings.web.small_model {
        Some(model) => Some(adaptor(&Settings {
            model: model.clone(),
            effort: None,
            ..settings.clone()
        })?),
        None => None,
    };
    registry
        .register(WebFetchTool::new(client, small_model))
        .map_err(|e| HostError::setup(format!("registering web_fetch: {e}")))
}
