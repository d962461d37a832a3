//! The project's own test command, guessed from the files at its top, for
//! the environment section: a model that is told `cargo test` does not run
//! `pytest` in a Rust crate (or copy an example command from a schema).

use std::ffi::OsStr;

use crate::tool::fs::{FileKind, RelPath, Root};

/// Most bytes read of one build file.
const BUILD_FILE_CAP: usize = 64 * 1024;
/// What `npm init` puts in `scripts.test`: not a test command.
const NPM_NO_TEST: &str = "no test specified";

/// The commands that run the tests of the project at `root`, one per
/// build system found at its top, e.g. ``["`cargo test`"]``. Empty when
/// nothing is recognised. Every file is opened through `root`: nothing outside it is read.
pub fn test_commands(root: &Root) -> Vec<String> {
    let Ok(top) = root.open_dir(&RelPath::root()) else {
        return Vec::new();
    };
    let Ok(entries) = top.entries() else {
        return Vec::new();
    };
    let has = |name: &str| {
        entries
            .iter()
            .any(|e| e.name == name && matches!(e.kind, FileKind::Regular | FileKind::Unknown))
    };
    let text = |name: &str| -> String {
        top.open_file(OsStr::new(name))
            .ok()
            .flatten()
            .and_then(|mut file| file.read_prefix(BUILD_FILE_CAP).ok())
            .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default()
    };
    let uses_pytest = ["pytest.ini", "conftest.py"].iter().any(|name| has(name))
        || ["pyproject.toml", "setup.cfg", "tox.ini"]
            .iter()
            .any(|name| has(name) && text(name).contains("pytest"));
    let has_unittest_files = entries.iter().any(|e| {
        e.name.to_str().is_some_and(|name| {
            name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
        })
    });
    let found = [
        (has("Cargo.toml"), "cargo test"),
        (
            has("package.json") && npm_has_tests(&text("package.json")),
            "npm test",
        ),
        (has("go.mod"), "go test ./..."),
        (uses_pytest, "python3 -m pytest -q"),
        (!uses_pytest && has_unittest_files, "python3 -m unittest"),
    ];
    let mut commands: Vec<String> = found
        .iter()
        .filter(|(present, _)| *present)
        .map(|(_, command)| format!("`{command}`"))
        .collect();
    if commands.is_empty() && has("Makefile") && has_make_test(&text("Makefile")) {
        commands.push("`make test`".to_owned());
    }
    commands
}

/// Whether a `package.json` names a test script other than `npm init`'s.
fn npm_has_tests(package: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(package)
        .ok()
        .and_then(|v| v.get("scripts")?.get("test")?.as_str().map(str::to_owned))
        .is_some_and(|script| !script.trim().is_empty() && !script.contains(NPM_NO_TEST))
}

/// Whether a Makefile has a `test` target.
fn has_make_test(makefile: &str) -> bool {
    makefile.lines().any(|line| {
        line.strip_prefix("test")
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(files: &[(&str, &str)]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        test_commands(&Root::open(dir.path()).unwrap())
    }

    #[test]
    fn each_build_system_names_its_own_command() {
        assert_eq!(commands(&[("Cargo.toml", "[package]\n")]), ["`cargo test`"]);
        assert_eq!(
            commands(&[(
                "package.json",
                r#"{"scripts": {"test": "node --test test/"}}"#
            )]),
            ["`npm test`"]
        );
        assert_eq!(commands(&[("go.mod", "module x\n")]), ["`go test ./...`"]);
        assert_eq!(
            commands(&[
                ("pyproject.toml", "[tool.pytest.ini_options]\n"),
                ("test_a.py", "")
            ]),
            ["`python3 -m pytest -q`"]
        );
        assert_eq!(
            commands(&[("stats.py", ""), ("test_stats.py", "")]),
            ["`python3 -m unittest`"]
        );
        assert_eq!(
            commands(&[("Makefile", "build:\n\ttrue\ntest: build\n\ttrue\n")]),
            ["`make test`"]
        );
    }

    #[test]
    fn nothing_is_claimed_without_evidence() {
        assert!(commands(&[]).is_empty());
        assert!(commands(&[("README.md", "run cargo test")]).is_empty());
        let npm_init = r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#;
        assert!(commands(&[("package.json", npm_init)]).is_empty());
        assert!(commands(&[("package.json", "{not json")]).is_empty());
        assert!(commands(&[("pyproject.toml", "[project]\nname = 'x'\n")]).is_empty());
        assert!(commands(&[("Makefile", "testing:\n\ttrue\n")]).is_empty());
    }

    #[test]
    fn a_build_file_that_is_a_symlink_out_of_the_project_is_not_read() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("package.json");
        std::fs::write(&secret, r#"{"scripts": {"test": "jest"}}"#).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join("package.json")).unwrap();
        assert!(test_commands(&Root::open(dir.path()).unwrap()).is_empty());
    }
}
