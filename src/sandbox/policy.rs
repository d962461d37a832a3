//! What a sandboxed command may do, and how the parent tells the helper.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::HELPER_ARG;

/// How much a command may change (`[sandbox] mode`, `--sandbox MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Writes beneath the working directory, the temporary directory,
    /// `/dev/null` and the writable roots.
    #[default]
    WorkspaceWrite,
    /// No writes except `/dev/null`.
    ReadOnly,
    /// No sandbox: commands run as the user (still without a terminal, in
    /// their own process group, with a scrubbed environment).
    Off,
}

impl SandboxMode {
    /// The configuration spelling (`workspace-write`, `read-only`, `off`).
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }

    /// Parses the configuration spelling; `None` for anything else.
    pub fn parse(text: &str) -> Option<SandboxMode> {
        match text {
            "workspace-write" => Some(SandboxMode::WorkspaceWrite),
            "read-only" => Some(SandboxMode::ReadOnly),
            "off" => Some(SandboxMode::Off),
            _ => None,
        }
    }
}

/// The sandbox every command runs in (`[sandbox]`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    /// How much a command may change.
    pub mode: SandboxMode,
    /// Extra directories a command may write beneath (absolute).
    pub writable_roots: Vec<PathBuf>,
    /// Whether TCP bind and connect are allowed.
    pub network: bool,
    /// Paths a command may not read beyond [`HOME_SECRETS`](super::HOME_SECRETS)
    /// (`[sandbox] deny_read` and light-agent's own directories): absolute,
    /// or `~/`-relative to the command's `$HOME`.
    pub deny_read: Vec<String>,
    /// Test switch: the helper behaves as on a kernel without Landlock.
    pub simulate_unavailable: bool,
}

impl SandboxPolicy {
    /// The directories a command may write beneath when it runs in `cwd`
    /// with temporary directory `tmp` (none in read-only mode; `/dev/null`
    /// is always writable and not listed).
    pub fn write_roots(&self, cwd: &Path, tmp: &Path) -> Vec<PathBuf> {
        match self.mode {
            SandboxMode::ReadOnly => Vec::new(),
            SandboxMode::WorkspaceWrite | SandboxMode::Off => {
                let mut roots = vec![cwd.to_path_buf(), tmp.to_path_buf()];
                roots.extend(self.writable_roots.iter().cloned());
                roots
            }
        }
    }

    /// The helper's arguments (after the program) for running `command`
    /// with the working directory `cwd` (writable beneath, whatever folder
    /// inside it the command starts in) and temporary directory `tmp`.
    pub fn helper_args(&self, cwd: &Path, tmp: &Path, command: &str) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![HELPER_ARG.into()];
        for root in self.write_roots(cwd, tmp) {
            args.push("--write".into());
            args.push(root.into_os_string());
        }
        for denied in &self.deny_read {
            args.push("--deny-read".into());
            args.push(denied.into());
        }
        if self.network {
            args.push("--network".into());
        }
        if self.simulate_unavailable {
            args.push("--simulate-unavailable".into());
        }
        args.push("--".into());
        args.push(command.into());
        args
    }
}

/// What the helper was asked to do, parsed from its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct HelperRequest {
    pub write: Vec<PathBuf>,
    pub deny_read: Vec<String>,
    pub network: bool,
    pub simulate_unavailable: bool,
    pub command: OsString,
}

impl HelperRequest {
    /// Parses the arguments after [`HELPER_ARG`].
    pub(super) fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Self, String> {
        let mut request = HelperRequest {
            write: Vec::new(),
            deny_read: Vec::new(),
            network: false,
            simulate_unavailable: false,
            command: OsString::new(),
        };
        while let Some(arg) = args.next() {
            match arg.to_str() {
                Some("--write") => match args.next() {
                    Some(path) => request.write.push(PathBuf::from(path)),
                    None => return Err("--write needs a path".into()),
                },
                Some("--deny-read") => match args.next().map(OsString::into_string) {
                    Some(Ok(path)) => request.deny_read.push(path),
                    Some(Err(_)) => return Err("--deny-read needs a UTF-8 path".into()),
                    None => return Err("--deny-read needs a path".into()),
                },
                Some("--network") => request.network = true,
                Some("--simulate-unavailable") => request.simulate_unavailable = true,
                Some("--") => {
                    request.command = args.next().ok_or("no command after --")?;
                    if args.next().is_some() {
                        return Err("one command string expected after --".into());
                    }
                    return Ok(request);
                }
                _ => return Err(format!("unknown helper argument {arg:?}")),
            }
        }
        Err("no command given".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helper_arguments_round_trip() {
        let policy = SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            writable_roots: vec!["/extra".into()],
            deny_read: vec!["~/.secret".into()],
            network: true,
            simulate_unavailable: true,
        };
        let args = policy.helper_args(Path::new("/w"), Path::new("/tmp"), "echo hi -- x");
        assert_eq!(args[0], HELPER_ARG);
        let request = HelperRequest::parse(args.into_iter().skip(1)).unwrap();
        assert_eq!(
            request.write,
            vec![
                PathBuf::from("/w"),
                PathBuf::from("/tmp"),
                PathBuf::from("/extra")
            ]
        );
        assert!(request.network && request.simulate_unavailable);
        assert_eq!(request.deny_read, ["~/.secret"]);
        assert_eq!(request.command, "echo hi -- x");
    }

    #[test]
    fn read_only_mode_writes_nowhere() {
        let policy = SandboxPolicy {
            mode: SandboxMode::ReadOnly,
            writable_roots: vec!["/extra".into()],
            ..SandboxPolicy::default()
        };
        assert!(
            policy
                .write_roots(Path::new("/w"), Path::new("/tmp"))
                .is_empty()
        );
    }

    #[test]
    fn malformed_helper_arguments_are_refused() {
        let parse = |args: &[&str]| HelperRequest::parse(args.iter().map(OsString::from));
        assert!(parse(&["--write"]).is_err());
        assert!(parse(&["--bogus", "--", "x"]).is_err());
        assert!(parse(&["--", "a", "b"]).is_err());
        assert!(parse(&[]).is_err());
    }
}
