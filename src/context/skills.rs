//! Skills: SKILL.md files with `name` and `description` front matter.
//!
//! Discovered in `.agents/skills/*/SKILL.md` from cwd up to the git root
//! (nearest wins on a name clash), then in the global skills directory.
//! Only the index (name and description) enters the system prompt; the
//! model reads a body through the `load_skill` tool.

use std::path::{Path, PathBuf};

use super::project::dirs_from_git_root;

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Unique name.
    pub name: String,
    /// When to use it.
    pub description: String,
    /// The folder holding SKILL.md and the skill's other files.
    pub dir: PathBuf,
}

impl Skill {
    /// Path of the skill's SKILL.md.
    pub fn file(&self) -> PathBuf {
        self.dir.join("SKILL.md")
    }
}

/// Finds every skill visible from `cwd`; malformed SKILL.md files are
/// skipped and described in the returned warnings.
pub fn discover(cwd: &Path, global_dir: Option<&Path>) -> (Vec<Skill>, Vec<String>) {
    let mut roots: Vec<PathBuf> = dirs_from_git_root(cwd)
        .into_iter()
        .rev()
        .map(|d| d.join(".agents").join("skills"))
        .collect();
    roots.extend(global_dir.map(Path::to_path_buf));
    let mut skills: Vec<Skill> = Vec::new();
    let mut warnings = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            let file = dir.join("SKILL.md");
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            match parse_front_matter(&text) {
                Ok((name, description)) if !skills.iter().any(|s| s.name == name) => {
                    skills.push(Skill {
                        name,
                        description,
                        dir,
                    })
                }
                Ok(_) => {}
                Err(why) => warnings.push(format!("skipped skill {}: {why}", file.display())),
            }
        }
    }
    (skills, warnings)
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
        let skill = |n: &str| Skill {
            name: n.into(),
            description: "d".repeat(50),
            dir: PathBuf::new(),
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
