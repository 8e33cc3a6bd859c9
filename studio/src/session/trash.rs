//! What the content team removes stays recoverable until the next publish: deleting a skill or
//! discarding a new file from Review moves it into `.skillc/trash/<n>/`, with a note of where
//! it was, and Restore moves it back. A publish empties the trash (what was published lives
//! on in git's history).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::disk::WritesOnDisk;
use super::{io_err, Session};
use crate::error::StudioError;

/// Something removed and kept until the next publish.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Trashed {
    /// Its place in the trash, to restore it by.
    pub id: String,
    /// Where it was, relative to the workspace (a skill's folder or a file).
    pub path: String,
    /// What to call it: the skill's name, or the file's path.
    pub label: String,
}

/// The note beside each item of the trash that says where it was.
const FROM: &str = "from.txt";
/// The item itself, beside its note.
const ITEM: &str = "item";
/// How many removed things are kept at most.
const KEPT: usize = 200;

impl Session {
    fn trash_dir(&self) -> Result<PathBuf, StudioError> {
        let dir = self.cache_dir()?.join("trash");
        std::fs::create_dir_all(&dir).map_err(io_err)?;
        Ok(dir)
    }

    /// Moves `rel` (a folder or a file inside the workspace) into the trash.
    pub(super) fn to_trash(&self, rel: &str, label: &str) -> Result<Trashed, StudioError> {
        let from = self.inside(rel)?;
        if from.symlink_metadata().is_err() {
            return Err(StudioError::request(format!("`{rel}` does not exist")));
        }
        let trash = self.trash_dir()?;
        let n = self
            .removed()?
            .iter()
            .filter_map(|r| r.id.parse::<u64>().ok())
            .max();
        let id = (n.unwrap_or(0) + 1).to_string();
        let slot = trash.join(&id);
        std::fs::create_dir_all(&slot).map_err(io_err)?;
        std::fs::write(slot.join(FROM), format!("{rel}\n{label}\n")).map_err(io_err)?;
        std::fs::rename(&from, slot.join(ITEM)).map_err(io_err)?;
        // A folder left empty (the last new file of a skill discarded) goes too.
        if let Some(parent) = from.parent().filter(|p| *p != self.root) {
            let _ = std::fs::remove_dir(parent);
        }
        Ok(Trashed {
            id,
            path: rel.to_string(),
            label: label.to_string(),
        })
    }

    /// Deletes a skill: its folder goes to the trash, restorable until the next publish.
    pub fn delete_skill(&self, rel: &str) -> Result<Trashed, StudioError> {
        self.refuse_outside(rel, "delete")?;
        let _written = WritesOnDisk(&self.disk, None);
        let file = self.inside(rel)?;
        if file
            .file_name()
            .is_none_or(|n| n != "SKILL.md" && n != "skill.md")
        {
            return Err(StudioError::request("only skill folders can be deleted"));
        }
        let dir = Path::new(rel)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .ok_or_else(|| StudioError::request("a skill's SKILL.md is in its own folder"))?;
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let dir = dir.to_string_lossy().replace('\\', "/");
        self.to_trash(&dir, &name.unwrap_or_else(|| dir.clone()))
    }

    /// What is in the trash, newest first.
    pub fn removed(&self) -> Result<Vec<Trashed>, StudioError> {
        let dir = self.root.join(".skillc").join("trash");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let Ok(note) = std::fs::read_to_string(e.path().join(FROM)) else {
                continue;
            };
            let mut lines = note.lines();
            let path = lines.next().unwrap_or_default().to_string();
            let label = lines.next().unwrap_or(&path).to_string();
            out.push(Trashed {
                id: e.file_name().to_string_lossy().into_owned(),
                path,
                label,
            });
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.id.parse::<u64>().unwrap_or(0)));
        Ok(out)
    }

    /// Puts an item of the trash back where it was, if nothing took its place meanwhile.
    /// Returns its path.
    pub fn restore(&self, id: &str) -> Result<String, StudioError> {
        let _written = WritesOnDisk(&self.disk, None);
        let item = self
            .removed()?
            .into_iter()
            .find(|r| r.id == id)
            .ok_or_else(|| StudioError::request("nothing to restore: it is no longer kept"))?;
        let to = self.inside(&item.path)?;
        if to.symlink_metadata().is_ok() {
            return Err(StudioError::request(format!(
                "`{}` exists again: rename or delete it first, then restore",
                item.path
            )));
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io_err)?;
        }
        let slot = self.trash_dir()?.join(id);
        std::fs::rename(slot.join(ITEM), &to).map_err(io_err)?;
        std::fs::remove_dir_all(slot).map_err(io_err)?;
        Ok(item.path)
    }

    /// After a publish, forgets what it made part of history (a deleted skill's removal, now
    /// committed) and keeps the rest: a skill never published has no other copy. The oldest
    /// go beyond [`KEPT`] items.
    pub(super) fn forget_published(&self, published: &[String]) -> Result<(), StudioError> {
        let covered = |path: &str| {
            published
                .iter()
                .any(|p| p == path || p.strip_prefix(path).is_some_and(|r| r.starts_with('/')))
        };
        let trash = self.trash_dir()?;
        for (i, item) in self.removed()?.iter().enumerate() {
            if i >= KEPT || covered(&item.path) {
                std::fs::remove_dir_all(trash.join(&item.id)).map_err(io_err)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn a_deleted_skill_is_restored_as_it_was_until_the_next_publish() {
        let (_d, s) = sample();
        let before = std::fs::read_to_string(s.root.join(DEMO)).unwrap();
        let gone = s.delete_skill(DEMO).unwrap();
        assert_eq!(gone.label, "demo_offer");
        assert!(!s.root.join(DEMO).exists());
        assert!(!s.overview().unwrap().skills.iter().any(|k| k.file == DEMO));
        assert_eq!(s.removed().unwrap(), std::slice::from_ref(&gone));
        assert_eq!(
            s.restore(&gone.id).unwrap(),
            "public/response_ending/demo_offer"
        );
        assert_eq!(std::fs::read_to_string(s.root.join(DEMO)).unwrap(), before);
        assert!(s.removed().unwrap().is_empty());
        // Something new in its place is never overwritten by a restore.
        let gone = s.delete_skill(DEMO).unwrap();
        std::fs::create_dir_all(s.root.join(DEMO).parent().unwrap()).unwrap();
        std::fs::write(s.root.join(DEMO), "---\nname: demo_offer\n---\nnew\n").unwrap();
        assert_eq!(s.restore(&gone.id).unwrap_err().kind, "request");
        assert!(std::fs::read_to_string(s.root.join(DEMO))
            .unwrap()
            .ends_with("new\n"));
        // A publish that commits the deletion forgets it; others stay restorable.
        let other = s
            .delete_skill("public/assistant/greeting/SKILL.md")
            .unwrap();
        s.forget_published(&["public/response_ending/demo_offer/SKILL.md".into()])
            .unwrap();
        assert_eq!(s.removed().unwrap(), [other]);
        assert_eq!(
            s.delete_skill("workspace.yaml").unwrap_err().kind,
            "request"
        );
    }
}
