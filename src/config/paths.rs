//! [`Paths`]: where light-agent keeps its config, data, state and logs.

use std::path::{Path, PathBuf};

use super::ConfigError;

/// Every file location light-agent uses, decided once at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// Directory holding `config.toml` and `skills/`.
    pub config_dir: PathBuf,
    /// Directory holding the session database.
    pub data_dir: PathBuf,
    /// Directory holding logs and other state.
    pub state_dir: PathBuf,
    /// The config file (`config_dir/config.toml`); it may not exist.
    pub config_file: PathBuf,
    /// The session database (`data_dir/sessions.sqlite3`).
    pub db_file: PathBuf,
    /// Directory of the rotating log files (`state_dir/logs`).
    pub log_dir: PathBuf,
    /// Directory of global skills (`config_dir/skills`).
    pub skills_dir: PathBuf,
    /// The user's home directory, whose secrets nothing sandboxed reads;
    /// `None` when the platform knows none.
    pub home: Option<PathBuf>,
}

impl Paths {
    /// Decides the locations without touching the file system.
    ///
    /// `home_override` is the value of `LIGHT_AGENT_HOME` (read by `main`):
    /// when given, every directory is that one directory. Otherwise the
    /// platform's conventions apply (XDG on Linux; the state dir falls back to
    /// the data dir where the platform has none). Fails with
    /// [`ConfigError::NoDirectories`] when no home directory is known.
    pub fn resolve(home_override: Option<&Path>) -> Result<Paths, ConfigError> {
        if let Some(home) = home_override {
            return Ok(Paths::under(
                home.to_path_buf(),
                home.to_path_buf(),
                home.to_path_buf(),
            ));
        }
        let dirs = directories::ProjectDirs::from("", "", "light-agent")
            .ok_or(ConfigError::NoDirectories)?;
        let data_dir = dirs.data_dir().to_path_buf();
        let state_dir = dirs
            .state_dir()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| data_dir.clone());
        Ok(Paths::under(
            dirs.config_dir().to_path_buf(),
            data_dir,
            state_dir,
        ))
    }

    fn under(config_dir: PathBuf, data_dir: PathBuf, state_dir: PathBuf) -> Paths {
        Paths {
            config_file: config_dir.join("config.toml"),
            skills_dir: config_dir.join("skills"),
            db_file: data_dir.join("sessions.sqlite3"),
            log_dir: state_dir.join("logs"),
            config_dir,
            data_dir,
            state_dir,
            home: directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()),
        }
    }

    /// light-agent's own files nothing sandboxed and no file tool may read:
    /// the config file (it may hold keys), the session database (every
    /// conversation of every project) and the logs.
    pub fn private_files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.config_file.clone(), self.log_dir.clone()];
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = self.db_file.clone().into_os_string();
            name.push(suffix);
            files.push(PathBuf::from(name));
        }
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_override_puts_everything_under_one_directory() {
        let home = Path::new("/tmp/la-home");
        let paths = Paths::resolve(Some(home)).unwrap();
        assert_eq!(paths.config_file, home.join("config.toml"));
        assert_eq!(paths.db_file, home.join("sessions.sqlite3"));
        assert_eq!(paths.log_dir, home.join("logs"));
        assert_eq!(paths.skills_dir, home.join("skills"));
    }
}
