//! A project's own `.mcp.json` (the format Claude Code reads):
//! `{"mcpServers": {NAME: {command, args, env} | {type: "http", url, headers}}}`.
//!
//! A repository can start programs through it, so it is never used on its
//! own: the host offers it once per content and starts its servers only
//! after the user accepted (the decision lives in the session database).
//! The file is read through the confined-open API ([`Root`]) without
//! following a symlink, without blocking on a FIFO and up to [`MAX_BYTES`].

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;

use serde::Deserialize;
use xxhash_rust::xxh3::xxh3_64;

use super::McpServerConfig;
use crate::tool::fs::{RelPath, Root};

/// The file's name, in the working directory.
pub const PROJECT_FILE: &str = ".mcp.json";
/// Larger files are refused.
pub const MAX_BYTES: u64 = 1 << 20;

/// The servers a project's `.mcp.json` defines.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectServers {
    /// By name, as `[mcp_servers.NAME]` would define them.
    pub servers: BTreeMap<String, McpServerConfig>,
    /// The file's content digest: a decision holds for this content only.
    pub digest: String,
}

impl ProjectServers {
    /// One line per server for the offer: `NAME: command args` or `NAME: url`.
    pub fn describe(&self) -> Vec<String> {
        self.servers
            .iter()
            .map(|(name, config)| match &config.url {
                Some(url) => format!("{name}: {url}"),
                None => {
                    let mut line = format!("{name}: {}", config.command);
                    for arg in &config.args {
                        line.push(' ');
                        line.push_str(arg);
                    }
                    line
                }
            })
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    #[serde(default)]
    mcp_servers: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// Reads `dir/.mcp.json` through the confined-open API: `Ok(None)` when
/// there is none, `Err` with a line for the user when it cannot be used
/// (not a regular file, a symlink, too large, not valid, a server of an
/// unsupported kind).
pub fn read(dir: &Path) -> Result<Option<ProjectServers>, String> {
    let unreadable = |e: &dyn std::fmt::Display| format!("{PROJECT_FILE} cannot be read: {e}");
    let root = Root::open(dir).map_err(|e| unreadable(&e))?;
    let top = root
        .open_dir(&RelPath::root())
        .map_err(|e| unreadable(&e))?;
    let name = OsStr::new(PROJECT_FILE);
    let mut file = match top.open_file(name) {
        Ok(Some(file)) => file,
        Ok(None) => {
            let what = top
                .stat_entry(name)
                .map_or("a special file", |found| found.kind().describe());
            return Err(format!(
                "{PROJECT_FILE} is not a regular file: it is {what}"
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(&e)),
    };
    let (bytes, more) = file
        .read_prefix(MAX_BYTES as usize)
        .map_err(|e| unreadable(&e))?;
    if more {
        return Err(format!(
            "{PROJECT_FILE} is larger than {} KiB",
            MAX_BYTES / 1024
        ));
    }
    parse(&bytes).map(Some)
}

/// Parses the content of a `.mcp.json`.
pub fn parse(bytes: &[u8]) -> Result<ProjectServers, String> {
    let file: File =
        serde_json::from_slice(bytes).map_err(|e| format!("{PROJECT_FILE} is not valid: {e}"))?;
    let mut servers = BTreeMap::new();
    for (name, entry) in file.mcp_servers {
        let config = match (entry.kind.as_deref(), entry.command, entry.url) {
            (None | Some("stdio"), Some(command), None) => McpServerConfig {
                command,
                args: entry.args,
                env: entry.env,
                ..McpServerConfig::default()
            },
            (None | Some("http" | "streamable-http"), None, Some(url)) => McpServerConfig {
                url: Some(url),
                headers: entry.headers,
                ..McpServerConfig::default()
            },
            (Some(kind @ ("sse" | "ws")), _, _) => {
                return Err(format!(
                    "{PROJECT_FILE}: server `{name}` is of type {kind}, which is not supported (stdio and http are)"
                ));
            }
            _ => {
                return Err(format!(
                    "{PROJECT_FILE}: server `{name}` needs either `command` or `url` (with `type` \"stdio\" or \"http\")"
                ));
            }
        };
        servers.insert(name, config);
    }
    Ok(ProjectServers {
        servers,
        digest: format!("{:016x}", xxh3_64(bytes)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_and_http_servers_are_read_and_others_refused() {
        let text = br#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "server-files"], "env": {"A": "1"}},
            "docs": {"type": "http", "url": "https://example.test/mcp", "headers": {"X": "y"}}
        }}"#;
        let project = parse(text).unwrap();
        let files = &project.servers["files"];
        assert_eq!((files.command.as_str(), files.args.len()), ("npx", 2));
        assert_eq!(files.env["A"], "1");
        let docs = &project.servers["docs"];
        assert_eq!(docs.url.as_deref(), Some("https://example.test/mcp"));
        assert_eq!(docs.headers["X"], "y");
        assert_eq!(
            project.describe(),
            [
                "docs: https://example.test/mcp",
                "files: npx -y server-files"
            ]
        );
        let other = parse(br#"{"mcpServers": {"files": {"command": "npx", "args": ["x"]}}}"#);
        assert_ne!(other.unwrap().digest, project.digest);

        let sse = parse(br#"{"mcpServers": {"s": {"type": "sse", "url": "http://x"}}}"#);
        assert!(sse.unwrap_err().contains("type sse"));
        let neither = parse(br#"{"mcpServers": {"s": {"args": []}}}"#);
        assert!(neither.unwrap_err().contains("needs either"));
        assert!(parse(b"{not json").unwrap_err().contains("not valid"));
    }

    #[test]
    fn a_symlink_a_fifo_or_a_huge_file_is_refused_and_none_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), Ok(None));
        let target = dir.path().join("elsewhere.json");
        std::fs::write(&target, br#"{"mcpServers": {}}"#).unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(PROJECT_FILE)).unwrap();
        assert!(read(dir.path()).unwrap_err().contains("a symbolic link"));

        let fifo_dir = tempfile::tempdir().unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            fifo_dir.path().join(PROJECT_FILE),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(
            read(fifo_dir.path())
                .unwrap_err()
                .contains("not a regular file")
        );

        let big = tempfile::tempdir().unwrap();
        std::fs::write(
            big.path().join(PROJECT_FILE),
            vec![b' '; MAX_BYTES as usize + 1],
        )
        .unwrap();
        assert!(read(big.path()).unwrap_err().contains("larger"));
    }
}
