//! The environment a command gets: the agent's own minus secrets, plus
//! settings that make interactive programs give up instead of waiting.

use std::ffi::{OsStr, OsString};

/// Set for every command: no pagers, no editors, no prompts.
const NON_INTERACTIVE: &[(&str, &str)] = &[
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("MANPAGER", "cat"),
    ("SYSTEMD_PAGER", "cat"),
    ("LESS", "FRX"),
    ("GIT_EDITOR", "true"),
    ("EDITOR", "true"),
    ("VISUAL", "true"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_ASKPASS", "true"),
    ("SSH_ASKPASS", "true"),
    ("DEBIAN_FRONTEND", "noninteractive"),
    ("PIP_NO_INPUT", "1"),
    ("npm_config_yes", "true"),
    ("TERM", "dumb"),
    ("NO_COLOR", "1"),
];

/// Name fragments that mark a variable as a secret (upper-cased compare).
const SECRET_MARKS: &[&str] = &["KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL"];

/// Which variables a command must not see.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretFilter {
    /// Variables that carry provider keys (from the provider table), removed
    /// whatever their names look like.
    pub provider_keys: Vec<String>,
    /// Variables kept although they look secret (`[shell] env_passthrough`).
    pub passthrough: Vec<String>,
}

impl SecretFilter {
    /// Whether `name` is removed.
    pub fn removes(&self, name: &OsStr) -> bool {
        let name = name.to_string_lossy();
        if self.passthrough.iter().any(|p| *p == name) {
            return false;
        }
        if self.provider_keys.iter().any(|p| *p == name) {
            return true;
        }
        let upper = name.to_ascii_uppercase();
        SECRET_MARKS.iter().any(|mark| upper.contains(mark))
    }
}

/// The environment for a command: `base` without secrets, with the
/// non-interactive settings and `TMPDIR`.
pub(crate) fn command_env(
    base: &[(OsString, OsString)],
    filter: &SecretFilter,
    tmp: &OsStr,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = base
        .iter()
        .filter(|(name, _)| !filter.removes(name))
        .filter(|(name, _)| !NON_INTERACTIVE.iter().any(|(n, _)| name == n))
        .cloned()
        .collect();
    env.extend(
        NON_INTERACTIVE
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v))),
    );
    env.retain(|(name, _)| name != "TMPDIR");
    env.push(("TMPDIR".into(), tmp.to_os_string()));
    env
}

/// The temporary directory commands may write: `$TMPDIR` of `base`, else `/tmp`.
pub(crate) fn temp_dir(base: &[(OsString, OsString)]) -> OsString {
    base.iter()
        .find(|(name, value)| name == "TMPDIR" && !value.is_empty())
        .map_or_else(|| OsString::from("/tmp"), |(_, value)| value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        list.iter()
            .map(|(n, v)| ((*n).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn secrets_are_removed_unless_passed_through() {
        let base = pairs(&[
            ("OPENAI_API_KEY", "sk-1"),
            ("GITHUB_TOKEN", "t"),
            ("aws_secret_access_key", "s"),
            ("MY_PROVIDER", "k"),
            ("NPM_TOKEN", "n"),
            ("PATH", "/bin"),
            ("PAGER", "less"),
        ]);
        let filter = SecretFilter {
            provider_keys: vec!["MY_PROVIDER".into()],
            passthrough: vec!["NPM_TOKEN".into()],
        };
        let env = command_env(&base, &filter, OsStr::new("/tmp"));
        let get = |name: &str| env.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        for gone in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "aws_secret_access_key",
            "MY_PROVIDER",
        ] {
            assert_eq!(get(gone), None, "{gone}");
        }
        assert_eq!(get("NPM_TOKEN"), Some("n".into()));
        assert_eq!(get("PATH"), Some("/bin".into()));
        assert_eq!(get("PAGER"), Some("cat".into()));
        assert_eq!(get("GIT_TERMINAL_PROMPT"), Some("0".into()));
        assert_eq!(get("TMPDIR"), Some("/tmp".into()));
        assert_eq!(env.iter().filter(|(n, _)| n == "PAGER").count(), 1);
    }

    #[test]
    fn temp_dir_comes_from_tmpdir_or_defaults() {
        assert_eq!(temp_dir(&pairs(&[("TMPDIR", "/x")])), "/x");
        assert_eq!(temp_dir(&pairs(&[("TMPDIR", "")])), "/tmp");
        assert_eq!(temp_dir(&[]), "/tmp");
    }
}
