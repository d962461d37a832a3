//! `load_skill`: a skill's full instructions and file list.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::Skill;
use crate::tool::fs::Root;
use crate::tool::{Tool, ToolContext, ToolOutput};

/// Most files listed for one skill.
const MAX_LISTED_FILES: usize = 200;

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

    async fn execute(&self, args: LoadSkillArgs, _ctx: ToolContext) -> ToolOutput {
        let Some(skill) = self.skills.iter().find(|s| s.name == args.name.trim()) else {
            let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
            return ToolOutput::error(format!(
                "[what]: unknown skill `{}`\n[skills]: {}\n[how]: pass a name from the skills index",
                args.name,
                names.join(", ")
            ));
        };
        let body = match tokio::fs::read_to_string(skill.file()).await {
            Ok(body) => body,
            Err(e) => {
                return ToolOutput::error(format!(
                    "[what]: cannot read {}\n[why]: {e}",
                    skill.file().display()
                ));
            }
        };
        let dir = skill.dir.clone();
        let files = tokio::task::spawn_blocking(move || list_files(&dir))
            .await
            .unwrap_or_default();
        if let Ok(root) = Root::open(&skill.dir) {
            self.roots.add(root);
        }
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

fn list_files(dir: &std::path::Path) -> Vec<String> {
    let mut files: Vec<String> = ignore::WalkBuilder::new(dir)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| {
            e.path()
                .strip_prefix(dir)
                .ok()
                .map(|p| p.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    files.sort();
    files.truncate(MAX_LISTED_FILES);
    files
}
