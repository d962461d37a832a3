//! `load_skill`: a skill's full instructions and file list.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::Skill;
use crate::tool::fs::walk::{Flow, WalkOrder, walk_files};
use crate::tool::fs::{RelPath, Root};
use crate::tool::{Tool, ToolContext, ToolOutput};

/// Most files listed for one skill.
const MAX_LISTED_FILES: usize = 200;
/// Most bytes of SKILL.md returned.
const MAX_BODY_BYTES: usize = 100 * 1024;

/// Folders of skills loaded in this agent, held as handles; their files
/// become readable.
#[derive(Clone, Default)]
pub(super) struct SkillRoots(Arc<Mutex<Vec<Root>>>);

impl SkillRoots {
    /// Makes the files beneath `dir` readable by `read_file`.
    pub(super) fn add(&self, dir: Root) {
        let mut roots = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if !roots
            .iter()
            .any(|r| r.identity().same_file(&dir.identity()))
        {
            roots.push(dir);
        }
    }

    /// The loaded skills' folders.
    pub(super) fn snapshot(&self) -> Vec<Root> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Arguments of `load_skill`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LoadSkillArgs {
    /// The skill's name as listed in the skills index.
    pub name: String,
}

/// The `load_skill` tool, registered when skills exist.
pub struct LoadSkillTool {
    skills: Vec<Skill>,
    roots: SkillRoots,
}

impl LoadSkillTool {
    pub(super) fn new(skills: Vec<Skill>, roots: SkillRoots) -> Self {
        Self { skills, roots }
    }
}

impl Tool for LoadSkillTool {
    type Args = LoadSkillArgs;

    fn name(&self) -> &str {
        "load_skill"
    }

    fn description(&self) -> &str {
        "Loads a skill listed in the skills index: returns its full SKILL.md instructions and the list of its files. After loading, read_file can read those files by the absolute paths given."
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: LoadSkillArgs, _ctx: ToolContext) -> ToolOutput {
        let Some(skill) = self.skills.iter().find(|s| s.name == args.name.trim()) else {
            let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
            return ToolOutput::error(format!(
                "[what]: unknown skill `{}`\n[skills]: {}\n[how]: pass a name from the skills index",
                args.name,
                names.join(", ")
            ));
        };
        let root = skill.root.clone();
        let read = tokio::task::spawn_blocking(move || {
            let body = read_body(&root);
            (body, list_files(&root))
        })
        .await;
        let (body, files) = match read {
            Ok((Ok(body), files)) => (body, files),
            Ok((Err(why), _)) => {
                return ToolOutput::error(format!(
                    "[what]: cannot read {}\n[why]: {why}",
                    skill.file().display()
                ));
            }
            Err(e) => return ToolOutput::error(format!("load_skill failed: {e}")),
        };
        self.roots.add(skill.root.clone());
        let mut out = format!(
            "[what]: skill\n[name]: {}\n[dir]: {}\n[files]:\n",
            skill.name,
            skill.dir.display()
        );
        for file in &files {
            out.push_str(&format!("- {file}\n"));
        }
        out.push_str("[content]:\n");
        out.push_str(&body);
        ToolOutput::ok(out)
    }
}

/// SKILL.md's text through the skill's root: a regular file, at most
/// [`MAX_BODY_BYTES`] read.
fn read_body(root: &Root) -> Result<String, String> {
    let rel = root.relative("SKILL.md").map_err(|r| r.message)?;
    let mut opened = root.open_file(&rel).map_err(|r| r.message)?;
    let (bytes, more) = opened
        .read_prefix(MAX_BODY_BYTES)
        .map_err(|e| e.to_string())?;
    let mut body = String::from_utf8_lossy(&bytes).into_owned();
    if more {
        body.push_str("\n[truncated: SKILL.md is longer than 100 KiB]");
    }
    Ok(body)
}

/// The skill's files (the walk's filters), sorted, at most
/// [`MAX_LISTED_FILES`].
fn list_files(root: &Root) -> Vec<String> {
    let mut files = Vec::new();
    let _ = walk_files(root, &RelPath::root(), WalkOrder::Path, &|| false, |file| {
        files.push(file.rel.to_string());
        if files.len() >= MAX_LISTED_FILES {
            Flow::Stop
        } else {
            Flow::Continue
        }
    });
    files
}
