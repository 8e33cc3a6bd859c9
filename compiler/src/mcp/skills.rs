//! The MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list` and
//! `skills/get` give one entry per skill of the served catalog, `skill://<name>/SKILL.md`, with
//! its frontmatter and every file's `sha256:` digest and size. A skill's SKILL.md is the one
//! `skillc export` writes for this bundle (its client's variant, its locale, variables
//! substituted; an untrusted skill without its code), so what a host reads is exactly what the
//! entry describes.

use rmcp::model::{
    CacheScope, ErrorData, GetSkillResult, ListSkillsResult, Skill, SkillFrontmatter,
    SkillResource, SkillResources,
};
use serde_json::Value;
use skillc_runtime::Error;

use super::Server;

/// How long a host may take an entry as current: the artifact can be swapped at any time, and
/// the next call serves the new one.
const TTL_MS: u64 = 60_000;

impl Server {
    /// The SKILL.md of a skill of the served catalog under its portable name, as `skillc
    /// export` writes it: its frontmatter as JSON and its text.
    pub(super) fn skill_md(
        &self,
        portable: &str,
        name: &str,
    ) -> Result<(serde_json::Map<String, Value>, String), Error> {
        let a = self.artifact();
        let bundle = a.bundle(&self.bundle.as_ref())?;
        let s = bundle
            .find(name)
            .ok_or_else(|| Error::Request(format!("unknown skill `{name}` in this bundle")))?;
        // An untrusted skill's SKILL.md goes without what would make a client run something
        // (its MCP server, pre-approved tools), as `skillc export` writes it.
        crate::skill_md::skill_md_with(&a, s, portable, !s.untrusted)
            .map(|(front, text, _)| (front, text))
    }

    /// The entry of one skill: its SKILL.md and every other file, each with its digest.
    fn entry(&self, portable: &str, name: &str, files: &[String]) -> Result<Skill, Error> {
        let uri = format!("skill://{portable}/SKILL.md");
        let (mut front, text) = self.skill_md(portable, name)?;
        let description = match front.remove("description") {
            Some(Value::String(d)) => d,
            _ => String::new(),
        };
        front.remove("name");
        let mut frontmatter = SkillFrontmatter::new(portable, description);
        frontmatter.extra = front;
        let mut resources = vec![SkillResource::from_bytes(&uri, text.as_bytes())];
        let a = self.artifact();
        for path in files.iter().filter(|p| *p != "SKILL.md") {
            let bytes = a.asset(&self.bundle.as_ref(), name, path)?;
            let file_uri = format!("skill://{portable}/{path}");
            resources.push(SkillResource::from_bytes(file_uri, &bytes));
        }
        Ok(Skill::new(
            uri,
            frontmatter,
            SkillResources::Files(resources),
        ))
    }

    /// Every served skill: its name in uris, its name, its files.
    fn listed(&self) -> Result<Vec<(String, String, Vec<String>)>, Error> {
        let mut out: Vec<(String, String, Vec<String>)> = Vec::new();
        for (_, portable, name, path) in self.resources()? {
            match out.last_mut() {
                Some((p, _, files)) if *p == portable => files.push(path),
                _ => out.push((portable, name, vec![path])),
            }
        }
        Ok(out)
    }

    /// `skills/list`: every skill of the served catalog.
    pub(super) fn list_skills(&self) -> Result<ListSkillsResult, ErrorData> {
        let skills = (self.listed().map_err(|e| super::mcp_error(&e))?)
            .iter()
            .map(|(portable, name, files)| self.entry(portable, name, files))
            .collect::<Result<Vec<Skill>, Error>>()
            .map_err(|e| super::mcp_error(&e))?;
        Ok(ListSkillsResult::with_all_items(skills)
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    /// `skills/get`: the entry of the skill whose SKILL.md is at `uri`; -32602 (invalid
    /// params) for a uri this server does not serve as a skill.
    pub(super) fn get_skill(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        let not_served = || {
            ErrorData::invalid_params(
                format!("`{uri}` is not a skill this server serves: write skill://<name>/SKILL.md"),
                None,
            )
        };
        let name = uri
            .strip_prefix("skill://")
            .and_then(|rest| rest.strip_suffix("/SKILL.md"))
            .filter(|name| !name.contains('/'))
            .ok_or_else(not_served)?;
        let listed = self.listed().map_err(|e| super::mcp_error(&e))?;
        let (portable, name, files) = (listed.iter())
            .find(|(p, _, _)| p == name)
            .ok_or_else(not_served)?;
        let skill = (self.entry(portable, name, files)).map_err(|e| super::mcp_error(&e))?;
        Ok(GetSkillResult::new(skill)
            .with_ttl_ms(TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }
}
