//! The MCP Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list` and
//! `skills/get` give one entry per skill of the served catalog, `skill://<name>/SKILL.md`, with
//! its frontmatter and every file's `sha256:` digest and size. A skill's SKILL.md is the one
//! `skillc export` writes for this bundle (its client's variant, its locale, variables
//! substituted; an untrusted skill without its code), so what a host reads is exactly what the
//! entry describes.
//!
//! An entry stays within what a verifying client accepts (the Python SDK's `validate_skill`):
//! at most [`MAX_FILES`] files and [`MAX_BYTES`] bytes, a description of 1 to 1,024
//! characters. A skill past them is left out of `skills/list` (one bad entry would make such a
//! client refuse the whole listing) and `skills/get` says why; its files stay resources. The
//! cache fields `ttlMs` and `cacheScope` (SEP-2549) go only to clients of protocol 2026-07-28
//! or later, the first version that defines them.

use rmcp::model::{
    CacheScope, ErrorData, GetSkillResult, ListSkillsResult, ProtocolVersion, Resource, Skill,
    SkillFrontmatter, SkillResource, SkillResources,
};
use serde_json::Value;
use skillc_runtime::Error;

use super::Server;

/// How long a host may take an entry as current: the artifact can be swapped at any time, and
/// the next call serves the new one.
const TTL_MS: u64 = 60_000;

/// Most files one entry lists, its SKILL.md included (SEP-2640; `MAX_RESOURCES_PER_SKILL` of
/// the Python SDK, which refuses a listing with a larger entry).
pub(super) const MAX_FILES: usize = 512;

/// Most bytes of one skill's files together (SEP-2640; the Python SDK's `MAX_TOTAL_SIZE`).
pub(super) const MAX_BYTES: u64 = 16 << 20;

/// Longest description of an entry, in characters (Agent Skills; the Python SDK refuses a
/// longer one, or an empty one).
const MAX_DESCRIPTION: usize = 1024;

/// Whether a client speaking `version` knows the cache fields (`ttlMs`, `cacheScope`: SEP-2549,
/// protocol 2026-07-28). A client that never said is taken as an older one.
fn knows_cache_fields(version: Option<&ProtocolVersion>) -> bool {
    version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// A skill's entry, or why it cannot be one.
type Entry = Result<Skill, String>;

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

    /// The entry of one skill: its SKILL.md and every other file, each with its digest; or,
    /// past what a verifying client accepts, why it is not an entry.
    fn entry(&self, portable: &str, name: &str, files: &[String]) -> Result<Entry, Error> {
        let uri = format!("skill://{portable}/SKILL.md");
        let past = |what: String| {
            format!(
                "`{uri}` is not served as a skill: {what} (SEP-2640, as the Python SDK checks); \
                 its files stay resources skill://{portable}/<path>"
            )
        };
        if files.len() > MAX_FILES {
            let what = format!(
                "it has {} files, over the {MAX_FILES} of an entry",
                files.len()
            );
            return Ok(Err(past(what)));
        }
        let (mut front, text) = self.skill_md(portable, name)?;
        let description = match front.remove("description") {
            Some(Value::String(d)) => d,
            _ => String::new(),
        };
        let chars = description.chars().count();
        if !(1..=MAX_DESCRIPTION).contains(&chars) {
            let what =
                format!("its description has {chars} characters, not 1 to {MAX_DESCRIPTION}");
            return Ok(Err(past(what)));
        }
        front.remove("name");
        let mut frontmatter = SkillFrontmatter::new(portable, description);
        frontmatter.extra = front;
        let mut total = text.len() as u64;
        let mut resources = vec![SkillResource::from_bytes(&uri, text.as_bytes())];
        let a = self.artifact();
        for path in files.iter().filter(|p| *p != "SKILL.md") {
            let bytes = a.asset(&self.bundle.as_ref(), name, path)?;
            total += bytes.len() as u64;
            if total > MAX_BYTES {
                let what = format!("its files come to over {MAX_BYTES} bytes (16 MiB)");
                return Ok(Err(past(what)));
            }
            let file_uri = format!("skill://{portable}/{path}");
            resources.push(SkillResource::from_bytes(file_uri, &bytes));
        }
        Ok(Ok(Skill::new(
            uri,
            frontmatter,
            SkillResources::Files(resources),
        )))
    }

    /// A file as `resources/list` lists it: a SKILL.md named and described as its frontmatter
    /// (SEP-2640 asks the resource's name and description to be the frontmatter's), any other
    /// file named by its place.
    pub(super) fn listed_resource(
        &self,
        uri: &str,
        portable: &str,
        name: &str,
        path: &str,
    ) -> Resource {
        let mime = super::mime_type(path);
        if path != "SKILL.md" {
            return Resource::new(uri, format!("{portable}/{path}")).with_mime_type(mime);
        }
        let listed = Resource::new(uri, portable).with_mime_type(mime);
        match self
            .skill_md(portable, name)
            .ok()
            .and_then(|(mut front, _)| front.remove("description"))
        {
            Some(Value::String(d)) => listed.with_description(d),
            _ => listed,
        }
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

    /// `skills/list`: every skill of the served catalog that can be an entry (those that
    /// cannot are named on stderr, the host's log), with the cache fields for a client of
    /// `version` that knows them.
    pub(super) fn list_skills(
        &self,
        version: Option<&ProtocolVersion>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let mut skills = Vec::new();
        for (portable, name, files) in self.listed().map_err(|e| super::mcp_error(&e))? {
            match self.entry(&portable, &name, &files) {
                Ok(Ok(skill)) => skills.push(skill),
                Ok(Err(why)) => eprintln!("skillc mcp: {why}"),
                Err(e) => return Err(super::mcp_error(&e)),
            }
        }
        let result = ListSkillsResult::with_all_items(skills);
        Ok(match knows_cache_fields(version) {
            true => result
                .with_ttl_ms(TTL_MS)
                .with_cache_scope(CacheScope::Public),
            false => result,
        })
    }

    /// `skills/get`: the entry of the skill whose SKILL.md is at `uri`; -32602 (invalid
    /// params) for a uri this server does not serve as a skill, saying why when the skill is
    /// past an entry's limits.
    pub(super) fn get_skill(
        &self,
        uri: &str,
        version: Option<&ProtocolVersion>,
    ) -> Result<GetSkillResult, ErrorData> {
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
        let result =
            GetSkillResult::new(skill.map_err(|why| ErrorData::invalid_params(why, None))?);
        Ok(match knows_cache_fields(version) {
            true => result
                .with_ttl_ms(TTL_MS)
                .with_cache_scope(CacheScope::Public),
            false => result,
        })
    }
}
