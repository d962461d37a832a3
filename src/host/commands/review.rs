//! `/review`'s material: the uncommitted changes (`git diff HEAD`, or
//! against a base), read with git as the environment's `git status` runs
//! ([`git_command`]: a cleared environment, no system configuration, no
//! optional locks) and with no external diff or text conversion programs,
//! a timeout and a size cap.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

use crate::context::environment::git_command;

/// Longest a git call may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(20);

/// Most bytes of diff sent; the rest is named, for the model to read.
pub const DIFF_CAP: usize = 96 * 1024;

/// What `/review` reviews.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// What it is compared with (`HEAD`, or the base given).
    pub base: String,
    /// The unified diff, at most [`DIFF_CAP`] bytes.
    pub diff: String,
    /// Whether the diff was cut.
    pub cut: bool,
    /// Files git does not track yet (not in the diff).
    pub untracked: Vec<String>,
}

/// The changes to review in `cwd`: against `base`, or the uncommitted ones.
/// `Err` is what to tell the user instead of calling the model (no
/// repository, no git, a bad base, nothing changed).
pub async fn changes(cwd: &Path, base: Option<&str>) -> Result<Changes, String> {
    let inside = git(cwd, &["rev-parse", "--is-inside-work-tree"], 64).await;
    if !matches!(&inside, Ok((out, _)) if out.trim() == "true") {
        return Err(format!(
            "/review reviews git changes, and {} is not inside a git work tree",
            cwd.display()
        ));
    }
    let base = match base {
        Some(base) if base.starts_with('-') || base.contains(char::is_whitespace) => {
            return Err(format!("`{base}` is not a revision"));
        }
        Some(base) => {
            let spec = format!("{base}^{{commit}}");
            if git(cwd, &["rev-parse", "--verify", "--quiet", &spec], 256)
                .await
                .is_err()
            {
                return Err(format!("`{base}` is not a commit in this repository"));
            }
            base.to_owned()
        }
        None => "HEAD".to_owned(),
    };
    let has_head = git(cwd, &["rev-parse", "--verify", "--quiet", "HEAD"], 256)
        .await
        .is_ok();
    const DIFF: [&str; 4] = ["diff", "--no-ext-diff", "--no-textconv", "--no-color"];
    let (diff, cut) = if has_head || base != "HEAD" {
        git(cwd, &[&DIFF[..], &[base.as_str(), "--"]].concat(), DIFF_CAP).await?
    } else {
        // No commit yet: what is staged, then what is not.
        let (staged, cut) = git(cwd, &[&DIFF[..], &["--cached"]].concat(), DIFF_CAP).await?;
        let (rest, more) = git(cwd, &DIFF, DIFF_CAP).await?;
        (format!("{staged}{rest}"), cut || more)
    };
    let (listed, _) = git(
        cwd,
        &["ls-files", "--others", "--exclude-standard", "-z"],
        64 * 1024,
    )
    .await?;
    let untracked: Vec<String> = listed
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    if diff.trim().is_empty() && untracked.is_empty() {
        return Err(match base.as_str() {
            "HEAD" => "no uncommitted changes to review".to_owned(),
            base => format!("no changes against {base} to review"),
        });
    }
    Ok(Changes {
        base,
        diff,
        cut,
        untracked,
    })
}

/// Runs git with `args` in `cwd`; its output up to `cap` bytes (cut at a
/// line end) and whether there was more; `Err` on failure or timeout.
async fn git(cwd: &Path, args: &[&str], cap: usize) -> Result<(String, bool), String> {
    let mut git = git_command(cwd);
    git.args(args).stdout(Stdio::piped());
    let mut child = Command::from(git)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("git cannot be run: {e}"))?;
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| "git's output cannot be read".to_owned())?;
    let run = async {
        let mut out = Vec::new();
        (&mut stdout)
            .take(cap as u64 + 1)
            .read_to_end(&mut out)
            .await
            .map_err(|e| format!("reading git's output: {e}"))?;
        let more = out.len() > cap;
        if more {
            // Enough read: git need not finish writing what is not sent.
            let _ = child.start_kill();
            out.truncate(cap);
            if let Some(end) = out.iter().rposition(|&b| b == b'\n') {
                out.truncate(end + 1);
            }
        }
        let status = child
            .wait()
            .await
            .map_err(|e| format!("waiting for git: {e}"))?;
        if !more && !status.success() {
            return Err(format!("git {} failed ({status})", args.join(" ")));
        }
        Ok((String::from_utf8_lossy(&out).into_owned(), more))
    };
    tokio::time::timeout(GIT_TIMEOUT, run).await.map_err(|_| {
        format!(
            "git {} did not answer in {} s",
            args.join(" "),
            GIT_TIMEOUT.as_secs()
        )
    })?
}

/// The review prompt: the asset's instructions, then the changes.
pub fn prompt(instructions: &str, changes: &Changes) -> String {
    let mut text = format!(
        "{}\n\nThe changes against {}:\n\n```diff\n{}```\n",
        instructions.trim_end(),
        changes.base,
        changes.diff.replace("```", "`\u{200b}``")
    );
    if changes.cut {
        text.push_str(&format!(
            "\n[the diff is longer than {} KiB and was cut here: run `git diff {}` or read the files for the rest]\n",
            DIFF_CAP / 1024,
            changes.base
        ));
    }
    if !changes.untracked.is_empty() {
        text.push_str(&format!(
            "\nNew files git does not track yet (read them to review them): {}\n",
            changes.untracked.join(", ")
        ));
    }
    text
}
