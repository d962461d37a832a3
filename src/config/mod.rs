//! Configuration: the config file, environment and flags, resolved once into
//! [`Settings`].
//!
//! Raw input and resolved settings are kept apart (ripgrep's low/high args):
//!
//! - `raw` — the TOML file as written, read with spans so that a malformed
//!   file is reported with line and column and an unknown key is a warning
//!   naming its line.
//! - [`Env`], [`Flags`] — a snapshot of the environment taken by `main` (the
//!   only place that reads the process environment) and the relevant flags.
//! - [`resolve()`] — pure: flags > environment > file > built-in defaults, per
//!   field; picks the provider profile, model, key and context window.
//!   [`load`] reads the file and resolves it with the caller's probe;
//!   [`servers_to_probe`] says which local servers that probe will be asked
//!   about, so `main` can ask them first (asynchronously, within a budget).
//! - [`Settings`] / [`Resolution`] — the result; `NoModel` when nothing
//!   usable is configured, with a message saying exactly what to set.
//! - [`Secret`] — API keys; `Debug` and `Display` print `[redacted]`.
//! - [`ProviderProfile`], [`ProviderKind`] — built-in and user profiles.
//! - [`builtin_context_window`], [`builtin_image_input`] — context windows
//!   and image input of common models.
//! - [`Paths`] — config, data, state and log locations (`LIGHT_AGENT_HOME`
//!   or the platform's directories).
//! - [`starter_file`], [`init`], [`show`] — `light-agent config init | show`.
//! - [`init_logging`] — `tracing` to a daily-rotating file, never the terminal.
//!
//! Architecture invariant: `config` uses no other layer of the crate; keys
//! leave a [`Secret`] only through [`Secret::expose`].

mod error;
mod logging;
mod models;
mod paths;
pub mod project_hooks;
mod providers;
mod raw;
mod resolve;
mod settings;
mod show;
mod starter;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

pub use crate::protocol::Secret;
pub use error::ConfigError;
pub use logging::{LogGuard, init_logging};
pub use models::{DEFAULT_CONTEXT_WINDOW, builtin_context_window, builtin_image_input};
pub use paths::Paths;
pub use providers::{BUILTIN_PROFILES, BuiltinProfile, ProviderKind, ProviderProfile};
pub use raw::{NOTIFICATION_MODES, SANDBOX_MODES};
pub use resolve::{BASE_URL_ENV, LOG_ENV, MODEL_ENV, PERMISSIONS_ENV, PROVIDER_ENV, resolve};
pub use settings::{
    AgentsSettings, Env, Flags, HOOK_EVENTS, HookSetting, HookSettings, PermissionSettings,
    Resolution, SandboxSettings, Settings, ShellSettings, TuiSettings, WebSettings,
};
pub use show::show;
pub use starter::starter_file;

/// Reads `paths.config_file` if it exists and resolves it with `env` and
/// `flags`; `probe(base_url)` answers for a local server's first model (asked
/// only if no model is otherwise known).
///
/// Fails if the file exists but cannot be read, or as [`resolve()`] fails.
pub fn load(
    paths: &Paths,
    env: &Env,
    flags: &Flags,
    probe: &dyn Fn(&str) -> Option<String>,
) -> Result<Resolution, ConfigError> {
    let text = match std::fs::read_to_string(&paths.config_file) {
        Ok(text) => Some(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(ConfigError::io("read", &paths.config_file, err)),
    };
    let file = text
        .as_deref()
        .map(|text| (paths.config_file.as_path(), text));
    resolve(file, env, flags, probe)
}

/// The base URLs [`load`] would probe for a local model, in order (empty when
/// a key or a model settles it). Resolution is pure, so a dry run that
/// records the questions is exact.
pub fn servers_to_probe(
    paths: &Paths,
    env: &Env,
    flags: &Flags,
) -> Result<Vec<String>, ConfigError> {
    let asked = std::cell::RefCell::new(Vec::new());
    load(paths, env, flags, &|url: &str| {
        asked.borrow_mut().push(url.to_owned());
        None
    })?;
    Ok(asked.into_inner())
}

/// Writes [`starter_file`] to `paths.config_file`, creating its directory,
/// and returns the path.
///
/// Never overwrites: if the file exists (even if created a moment ago by
/// someone else) it is left untouched and [`ConfigError::AlreadyExists`] is
/// returned.
pub fn init(paths: &Paths) -> Result<PathBuf, ConfigError> {
    let path = paths.config_file.clone();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| ConfigError::io("create directory", dir, err))?;
    }
    let mut file = match OpenOptions::new().write(true).create_new(true).open(&path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(ConfigError::AlreadyExists(path));
        }
        Err(err) => return Err(ConfigError::io("create", &path, err)),
    };
    file.write_all(starter_file().as_bytes())
        .map_err(|err| ConfigError::io("write", &path, err))?;
    Ok(path)
}
