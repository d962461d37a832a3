//! Skills: SKILL.md files with `name` and `description` front matter.
//!
//! Discovered in `.agents/skills/*/SKILL.md` from cwd up to the git root
//! (nearest wins on a name clash), then in the global skills directory.
//! Only the index (name and description) enters the system prompt; the
//! model reads a body through the `load_skill` tool.
//!
//! Project skills are found through the project's [`Root`]: a skills folder
//! or skill folder that leads outside the project (a symlink) is skipped
//! with a warning, and every skill folder is held as a [`Root`] of its own.
//! Global skills (the user's configuration directory) may be symlinks.
//! SKILL.md is read as a regular file only, at most [`SKILL_READ_CAP`]
//! bytes.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::project::{project_root, read_capped};
use crate::tool::fs::{FsRefusalKind, RelPath, Root};

/// Most bytes of a SKILL.md read to find its front matter.
pub const SKILL_READ_CAP: usize = 32 * 1024;

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Unique name.
    pub name: String,
    /// When to use it.
    pub description: String,
    /// The folder holding SKILL.md and the skill's other files (display).
    pub dir: PathBuf,
    /// The same folder, opened once at discovery; every read of the skill
    /// goes through it.
    pub root: Root,
}

impl Skill {
    /// Path of the skill's SKILL.md.
    pub fn file(&self) -> PathBuf {
        self.dir.join("SKILL.md")
    }
}

/// Finds every skill visible from `cwd`; skipped skills (malformed,
/// leaving the project, not regular files) are described in the returned
/// warnings.
pub fn discover(cwd: &Path, global_dir: Option<&Path>) -> (Vec<Skill>, Vec<String>) {
    let mut found = Found::default();
    if let Some((project, below)) = project_root(cwd) {
        // cwd first, then each folder up to the project root.
        let mut levels = vec![RelPath::root()];
        let mut dir = RelPath::root();
        for name in below.components() {
            match dir.join(name) {
                Ok(next) => dir = next,
                Err(_) => break,
            }
            levels.push(dir.clone());
        }
        for level in levels.iter().rev() {
            let Ok(skills_dir) = level
                .join(OsStr::new(".agents"))
                .and_then(|d| d.join(OsStr::new("skills")))
            else {
                continue;
            };
            found.project_folder(&project, &skills_dir);
        }
    }
    if let Some(global) = global_dir {
        found.global_folder(global);
    }
    (found.skills, found.warnings)
}

#[derive(Default)]
struct Found {
    skills: Vec<Skill>,
    warnings: Vec<String>,
}

impl Found {
    /// The skills in `skills_dir` beneath the project root.
    fn project_folder(&mut self, project: &Root, skills_dir: &RelPath) {
        let shown = |rel: &RelPath| project.display_path().join(rel.to_os_path());
        let listing = match project.open_dir(skills_dir) {
            Ok(dir) => dir,
            Err(refusal) => {
                if refusal.kind == FsRefusalKind::Escape {
                    self.warnings.push(format!(
                        "skipped skills folder {}: it leads outside the project",
                        shown(skills_dir).display()
                    ));
                }
                return;
            }
        };
        let Ok(entries) = listing.entries() else {
            return;
        };
        let mut names: Vec<_> = entries.into_iter().map(|e| e.name).collect();
        names.sort();
        for name in names {
            let Ok(rel) = skills_dir.join(&name) else {
                continue;
            };
            // Resolved beneath the project: a folder symlinked outside is an
            // escape, one symlinked elsewhere inside is fine.
            match project.open_subroot(&rel) {
                Ok(root) => self.skill(root, shown(&rel)),
                Err(refusal) if refusal.kind == FsRefusalKind::Escape => {
                    self.warnings.push(format!(
                        "skipped skill {}: it leads outside the project",
                        shown(&rel).display()
                    ));
                }
                Err(_) => {}
            }
        }
    }

    /// The skills in the user's global skills folder (symlinks allowed).
    fn global_folder(&mut self, global: &Path) {
        let Ok(entries) = std::fs::read_dir(global) else {
            return;
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            if let Ok(root) = Root::open(&dir) {
                self.skill(root, dir);
            }
        }
    }

    /// Reads one skill folder's SKILL.md through its root.
    fn skill(&mut self, root: Root, dir: PathBuf) {
        let file = RelPath::root()
            .join(OsStr::new("SKILL.md"))
            .unwrap_or_default();
        let text = match read_capped(&root, &file, SKILL_READ_CAP) {
            Ok(Some(text)) => text,
            Ok(None) => return,
            Err(warning) => {
                self.warnings.push(warning);
                return;
            }
        };
        match parse_front_matter(&text) {
            Ok((name, description)) if !self.skills.iter().any(|s| s.name == name) => {
                self.skills.push(Skill {
                    name,
                    description,
                    dir,
                    root,
                })
            }
            Ok(_) => {}
            Err(why) => self.warnings.push(format!(
                "skipped skill {}: {why}",
                dir.join("SKILL.md").display()
            )),
        }
    }
}

/// Reads `name` and `description` from SKILL.md front matter.
pub fn parse_front_matter(text: &str) -> Result<(String, String), String> {
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("it does not start with a `---` front-matter line".into());
    }
    let (mut name, mut description) = (None, None);
    for line in lines {
        if line.trim_end() == "---" {
            return match (name, description) {
                (Some(n), Some(d)) => Ok((n, d)),
                _ => Err("front matter needs both `name` and `description`".into()),
            };
        }
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim().trim_matches('"').to_string();
            match key.trim() {
                "name" if !value.is_empty() => name = Some(value),
                "description" if !value.is_empty() => description = Some(value),
                _ => {}
            }
        }
    }
    Err("front matter is missing its closing `---`".into())
}

/// The skills block of the system prompt, within `budget` characters;
/// skills that do not fit are named only. `None` without skills.
pub fn render_index(skills: &[Skill], budget: usize) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let mut out = format!(
        "<skillIndex_instructions>\n{}\n</skillIndex_instructions>\n",
        include_str!("../../assets/prompts/skills_usage.md").trim_end()
    );
    let mut unlisted = Vec::new();
    let mut used = 0;
    for skill in skills {
        let entry = format!(
            "<skill>\n<name>{}</name>\n<description>{}</description>\n</skill>\n",
            skill.name, skill.description
        );
        if used + entry.len() <= budget {
            used += entry.len();
            out.push_str(&entry);
        } else {
            unlisted.push(skill.name.as_str());
        }
    }
    if !unlisted.is_empty() {
        out.push_str(&format!(
            "<moreSkills>{}</moreSkills>\n",
            unlisted.join(", ")
        ));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_skill(root: &Path, dir: &str, text: &str) {
        let d = root.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("SKILL.md"), text).unwrap();
    }

    #[test]
    fn discovers_project_and_global_skills_and_skips_malformed_ones() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir(repo.path().join(".git")).unwrap();
        let global = tempfile::tempdir().unwrap();
        write_skill(
            &repo.path().join(".agents/skills"),
            "review",
            "---\nname: review\ndescription: project review\n---\nbody",
        );
        write_skill(
            global.path(),
            "review",
            "---\nname: review\ndescription: global review\n---\n",
        );
        write_skill(
            global.path(),
            "deploy",
            "---\nname: deploy\ndescription: ship it\n---\nsteps",
        );
        write_skill(global.path(), "broken", "no front matter");

        let (skills, warnings) = discover(repo.path(), Some(global.path()));
        let names: Vec<(&str, &str)> = skills
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str()))
            .collect();
        assert_eq!(names, [("review", "project review"), ("deploy", "ship it")]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("broken"), "{warnings:?}");
    }

    #[test]
    fn index_lists_what_fits_and_names_the_rest() {
        let here = tempfile::tempdir().unwrap();
        let skill = |n: &str| Skill {
            name: n.into(),
            description: "d".repeat(50),
            dir: PathBuf::new(),
            root: Root::open(here.path()).unwrap(),
        };
        let index = render_index(&[skill("a"), skill("b")], 120).unwrap();
        assert!(index.contains("<name>a</name>"));
        assert!(!index.contains("<name>b</name>"));
        assert!(index.contains("<moreSkills>b</moreSkills>"));
        assert_eq!(render_index(&[], 1000), None);
    }

    #[test]
    fn front_matter_errors_are_described() {
        assert!(
            parse_front_matter("---\nname: x\n")
                .unwrap_err()
                .contains("closing")
        );
        assert!(
            parse_front_matter("---\nname: x\n---\n")
                .unwrap_err()
                .contains("description")
        );
        assert_eq!(
            parse_front_matter("\u{feff}---\nname: x\ndescription: \"y: z\"\n---\n").unwrap(),
            ("x".into(), "y: z".into())
        );
    }
}
