#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Third-party npm packages the tests drive (a real MCP server, the
//! official ACP client): each pinned, installed once with npm from the
//! registry into `target/tmp/<dir>` and reused.
//!
//! Without npm (or when the install fails) a test prints why and passes,
//! unless `LIGHT_AGENT_REQUIRE_NPM=1` (set by `.ci/run`): then it fails.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// Makes a missing npm or a failed install a failure instead of a skip.
pub const REQUIRE_ENV: &str = "LIGHT_AGENT_REQUIRE_NPM";
/// Hang guard for the one-time install (a cold install takes about 11 s here).
const INSTALL_GUARD: Duration = Duration::from_secs(600);

/// One install at a time: tests run in parallel, and a test must never see
/// another's install half done (on a clean checkout three ACP tests once
/// raced into the same folder and one imported a package still being
/// written).
static INSTALLING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The package's folder once `package@version` is installed under `dir`
/// (in `target/tmp`), or `None` when the test is to be skipped (it says
/// why). Panics when npm is required and the install fails.
pub async fn package(dir: &str, package: &str, version: &str) -> Option<PathBuf> {
    let _alone = INSTALLING.lock().await;
    match install(dir, package, version).await {
        Ok(folder) => Some(folder),
        Err(why) if std::env::var(REQUIRE_ENV).as_deref() != Ok("1") => {
            eprintln!("skipped: {why} (set {REQUIRE_ENV}=1 to make this a failure)");
            None
        }
        Err(why) => panic!("{why} ({REQUIRE_ENV}=1)"),
    }
}

/// The installed package's folder when its version is `version`.
fn installed(prefix: &Path, package: &str, version: &str) -> Option<PathBuf> {
    let folder = prefix.join("node_modules").join(package);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("package.json")).ok()?).ok()?;
    (manifest["version"] == version).then_some(folder)
}

async fn install(dir: &str, package: &str, version: &str) -> Result<PathBuf, String> {
    let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    if let Some(folder) = installed(&prefix, package, version) {
        return Ok(folder);
    }
    // Installed beside and renamed into place, so that a run killed
    // mid-install leaves no folder that looks installed.
    let staging = prefix.with_extension("partial");
    let _ = std::fs::remove_dir_all(&staging);
    let mut npm = tokio::process::Command::new("npm");
    npm.arg("install")
        .arg("--prefix")
        .arg(&staging)
        .args(["--no-audit", "--no-fund", "--no-save", "--loglevel=error"])
        .arg(format!("{package}@{version}"))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let out = match tokio::time::timeout(INSTALL_GUARD, npm.output()).await {
        Err(_) => {
            return Err(format!(
                "npm install gave no answer within {INSTALL_GUARD:?}"
            ));
        }
        Ok(Err(e)) => return Err(format!("npm cannot be run: {e}")),
        Ok(Ok(out)) => out,
    };
    if !out.status.success() {
        return Err(format!(
            "npm install {package}@{version} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    installed(&staging, package, version)
        .ok_or_else(|| format!("npm installed no {package}@{version}"))?;
    let _ = std::fs::remove_dir_all(&prefix);
    std::fs::rename(&staging, &prefix)
        .map_err(|e| format!("cannot move the install into {}: {e}", prefix.display()))?;
    installed(&prefix, package, version)
        .ok_or_else(|| format!("npm installed no {package}@{version}"))
}
