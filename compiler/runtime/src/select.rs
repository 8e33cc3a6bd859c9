//! From a selection to a prompt, and the other per-skill questions: pipelines,
//! requirements, MCP configuration.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::{Artifact, Bundle, BundleRef, Context, Error, Mcp, Skill};

/// A skill in the assembled prompt.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PromptSkill {
    /// Selectable name.
    pub name: String,
    /// Skill whose content was used (a variant or client override).
    pub resolved: String,
    /// Why it is in: `selected`, `dependency:<by>`, `augments:<with>`, `import:<by>`,
    /// `always_on`.
    pub reason: String,
}

/// A skill left out of the prompt.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Removed {
    /// Name as selected or added.
    pub name: String,
    /// `blocked:<by>`, `excluded:<by>`, `condition`, `hidden`, `disabled`, `unknown`,
    /// `max_active`, `unavailable`.
    pub reason: String,
}

impl Removed {
    /// The reason in words (`blocked by `x``, `no skill of that name in this bundle`, …), as the
    /// CLI and the MCP server print it.
    pub fn words(&self) -> String {
        match self.reason.split_once(':') {
            Some(("blocked", by)) => format!("blocked by `{by}`"),
            Some(("excluded", by)) => {
                format!("excluded by `{by}` (same category, stronger priority)")
            }
            _ => match self.reason.as_str() {
                "unknown" => "no skill of that name in this bundle".to_string(),
                "hidden" => "hidden from selection".to_string(),
                "disabled" => {
                    "turned off for this client (a toggle or default_enabled: false)".to_string()
                }
                "condition" => "its conditions do not hold for this context".to_string(),
                "max_active" => "over the workspace's max_active_skills".to_string(),
                "unavailable" => {
                    "unavailable in this bundle (requirements or variables)".to_string()
                }
                other => other.to_string(),
            },
        }
    }
}

/// A cited source.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SourceRef {
    /// Pool id.
    pub sid: u32,
    /// Normalised URL of the source.
    pub url: String,
    /// Title to show beside the link, if the source gives one.
    pub title: Option<String>,
}

/// An assembled answer prompt.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Prompt {
    /// Skills in, in prompt order.
    pub skills: Vec<PromptSkill>,
    /// Skills out, in the order they were dropped.
    pub removed: Vec<Removed>,
    /// Sources the included skills cite.
    pub sources: Vec<SourceRef>,
    /// The prompt text.
    pub text: String,
    /// Its tokens (sum of the stored counts of its parts).
    pub tokens: u32,
}

/// A pipeline transition.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Transition {
    /// The next skill, if any.
    pub next: Option<String>,
    /// Why there is none, or how it was chosen (`conditional:<key>`, `next_skill`).
    pub reason: String,
}

/// A requirement of a skill and whether this host meets it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Requirement {
    /// `env` or `binary`.
    pub kind: &'static str,
    /// Variable or program name.
    pub name: String,
    /// Met on this host.
    pub met: bool,
}

struct Selection<'b> {
    bundle: &'b Bundle,
    order: Vec<usize>,
    reason: BTreeMap<usize, String>,
    removed: Vec<Removed>,
}

impl Selection<'_> {
    fn has(&self, i: usize) -> bool {
        self.reason.contains_key(&i)
    }

    fn add(&mut self, i: usize, reason: String) {
        if !self.has(i) {
            self.order.push(i);
            self.reason.insert(i, reason);
        }
    }

    fn remove(&mut self, i: usize, reason: String) {
        if self.reason.remove(&i).is_some() {
            self.order.retain(|&x| x != i);
            self.removed.push(Removed {
                name: self.bundle.skills[i].name.clone(),
                reason,
            });
        }
    }
}

/// Each skill's final state, once: a skill taken out and brought back (over the cap, then
/// added as a dependency) is in; one taken out twice keeps its first reason.
fn final_removals(removed: Vec<Removed>, included: &[PromptSkill]) -> Vec<Removed> {
    let mut seen = BTreeSet::new();
    removed
        .into_iter()
        .filter(|r| !included.iter().any(|s| s.name == r.name))
        .filter(|r| seen.insert(r.name.clone()))
        .collect()
}

/// Whether a skill can go into a prompt for `ctx`: not unavailable, its conditions hold.
fn usable(s: &Skill, ctx: &Context) -> Result<(), &'static str> {
    if s.unavailable.is_some() {
        Err("unavailable")
    } else if !s.conditions_hold(ctx) {
        Err("condition")
    } else {
        Ok(())
    }
}

impl Selection<'_> {
    fn left_out(&mut self, name: &str, reason: &str) {
        self.removed.push(Removed {
            name: name.to_string(),
            reason: reason.into(),
        });
    }

    /// 1–2. The picked names that exist, are shown and usable, up to the cap.
    fn pick(
        &mut self,
        picked: &[&str],
        shown: &[usize],
        hidden: Option<&BTreeSet<String>>,
        ctx: &Context,
        cap: usize,
    ) {
        let b = self.bundle;
        let mut ok = Vec::new();
        for name in picked {
            let found = match name
                .strip_prefix("SK")
                .and_then(|n| n.parse::<usize>().ok())
            {
                Some(n) => shown.get(n.wrapping_sub(1)).copied(),
                None => b.position(name),
            };
            let Some(i) = found else {
                // A skill the build turned off for this client is `disabled`, not unknown.
                match b.left_out(name) {
                    Some((_, why)) if why.code == "disabled" => self.left_out(name, "disabled"),
                    _ => self.left_out(name, "unknown"),
                }
                continue;
            };
            let s = &b.skills[i];
            let consumer_hides = hidden.is_some_and(|h| h.contains(&s.qualified_name));
            if !s.catalog_visible || consumer_hides {
                self.left_out(&s.name, "hidden");
            } else if let Err(why) = usable(s, ctx) {
                self.left_out(&s.name, why);
            } else if !ok.contains(&i) {
                ok.push(i);
            }
        }
        for (n, i) in ok.into_iter().enumerate() {
            if n < cap {
                self.add(i, "selected".into());
            } else {
                self.left_out(&b.skills[i].name, "max_active");
            }
        }
    }

    /// What the included skills bring along: dependencies, augments (both ways), imports.
    fn links(&self) -> Vec<(usize, String)> {
        let b = self.bundle;
        let mut additions = Vec::new();
        for &i in &self.order {
            let s = &b.skills[i];
            let r = &s.record;
            let links = (r.dependencies.iter().map(|q| (q, "dependency")))
                .chain(r.augments.iter().map(|q| (q, "augments")))
                .chain(r.imports.iter().map(|q| (q, "import")));
            for (q, kind) in links {
                if let Some(j) = b.by_qualified(q) {
                    additions.push((j, format!("{kind}:{}", s.name)));
                }
            }
            for &j in b.augmented_by(i) {
                additions.push((j, format!("augments:{}", s.name)));
            }
        }
        additions
    }

    /// 3. Links (transitive) until nothing changes.
    fn close_over_links(&mut self, ctx: &Context) {
        let mut tried: BTreeSet<(usize, String)> = BTreeSet::new();
        loop {
            let mut changed = false;
            for (j, why) in self.links() {
                if self.has(j) || !tried.insert((j, why.clone())) {
                    continue;
                }
                let s = &self.bundle.skills[j];
                match usable(s, ctx) {
                    Ok(()) => {
                        self.add(j, why);
                        changed = true;
                    }
                    Err(e) if !self.removed.iter().any(|r| r.name == s.name) => {
                        self.left_out(&s.name, e);
                    }
                    Err(_) => {}
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// 4. Category priority and exclusivity, strongest first.
    fn apply_exclusivity(&mut self) {
        let b = self.bundle;
        let mut exclusive: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&i| b.skills[i].record.exclusive && b.skills[i].record.priority.is_some())
            .collect();
        exclusive.sort_by_key(|&i| (b.skills[i].record.priority, i));
        for x in exclusive {
            if !self.has(x) {
                continue;
            }
            let (cat, p) = (&b.skills[x].category, b.skills[x].record.priority);
            let weaker: Vec<usize> = self
                .order
                .iter()
                .copied()
                .filter(|&i| i != x && &b.skills[i].category == cat)
                .filter(|&i| b.skills[i].record.priority.is_some_and(|q| Some(q) > p))
                .collect();
            for i in weaker {
                self.remove(i, format!("excluded:{}", b.skills[x].name));
            }
        }
    }

    /// 5. Always-on skills whose conditions hold.
    fn add_always_on(&mut self, ctx: &Context) {
        for (i, s) in self.bundle.skills.iter().enumerate() {
            if s.always_on && s.unavailable.is_none() && s.conditions_hold(ctx) {
                self.add(i, "always_on".into());
            }
        }
    }

    /// 6. Blocks, last, over everything.
    fn apply_blocks(&mut self) {
        let b = self.bundle;
        let blocked: Vec<(usize, String)> = self
            .order
            .iter()
            .flat_map(|&i| {
                let by = &b.skills[i].name;
                b.skills[i]
                    .record
                    .blocks
                    .iter()
                    .filter_map(|q| b.by_qualified(q))
                    .map(move |j| (j, by.clone()))
            })
            .collect();
        for (j, by) in blocked {
            self.remove(j, format!("blocked:{by}"));
        }
    }
}

impl Artifact {
    /// Assembles the answer prompt for the skills a selector picked (names, qualified names or
    /// catalog ids `SKn` of the catalog for the same consumer and context), applying the prompt's
    /// steps in order.
    pub fn prompt(
        &self,
        r: &BundleRef<'_>,
        consumer: Option<&str>,
        ctx: &Context,
        picked: &[&str],
    ) -> Result<Prompt, Error> {
        let bundle = self.bundle(r)?;
        let b = &*bundle;
        let hidden = self.hidden_for(consumer)?;
        let shown = self.catalog_members(b, consumer, ctx)?;
        let mut sel = Selection {
            bundle: b,
            order: Vec::new(),
            reason: BTreeMap::new(),
            removed: Vec::new(),
        };
        let cap = self.max_active_skills().unwrap_or(usize::MAX);
        sel.pick(picked, &shown, hidden, ctx, cap);
        sel.close_over_links(ctx);
        sel.apply_exclusivity();
        sel.add_always_on(ctx);
        sel.apply_blocks();
        self.assemble(sel)
    }

    /// 7. Assemble: categories in order, skills in catalog order, then the cited sources.
    fn assemble(&self, sel: Selection<'_>) -> Result<Prompt, Error> {
        let b = sel.bundle;
        let mut included: Vec<usize> = sel.order.clone();
        let position = |i: usize| {
            self.categories
                .get(&b.skills[i].category)
                .map_or(i64::MAX, |c| c.position)
        };
        included.sort_by_key(|&i| (position(i), i));
        let mut text = String::new();
        let mut tokens = 0;
        let mut cited: BTreeSet<u32> = BTreeSet::new();
        for group in included.chunk_by(|&x, &y| b.skills[x].category == b.skills[y].category) {
            if let Some(c) = self.categories.get(&b.skills[group[0]].category) {
                text.push_str(&c.prompt_heading.0);
                tokens += c.prompt_heading.1;
                if group.len() > 1 {
                    text.push_str(&c.uncertainty.0);
                    tokens += c.uncertainty.1;
                }
            }
            for &i in group {
                let s = &b.skills[i];
                text.push_str(&s.prompt_prefix);
                if s.prompt_body {
                    text.push_str(&self.body(s)?);
                }
                text.push_str(&s.prompt_suffix);
                tokens += s.prompt_tokens;
                cited.extend(&s.record.cited);
            }
        }
        let mut sources = Vec::new();
        if !cited.is_empty() {
            text.push_str("## Sources\n\n");
            tokens += 3;
            for sid in &cited {
                if let Some((s, fragment, n)) = self.sources()?.get(sid) {
                    text.push_str(fragment);
                    tokens += n;
                    sources.push(s.clone());
                }
            }
        }
        let skills: Vec<PromptSkill> = included
            .iter()
            .map(|&i| PromptSkill {
                name: b.skills[i].name.clone(),
                resolved: b.skills[i].resolved_name.clone(),
                reason: sel.reason[&i].clone(),
            })
            .collect();
        Ok(Prompt {
            removed: final_removals(sel.removed, &skills),
            skills,
            sources,
            text: text.trim_end().to_string() + "\n",
            tokens,
        })
    }

    /// The pipeline transition from `current` (001): `conditional_next_skills[key]` when a key
    /// is given and known, else `next_skill`; none once `depth` reaches `pipeline_max_depth`.
    pub fn next_skill(
        &self,
        r: &BundleRef<'_>,
        current: &str,
        key: Option<&str>,
        depth: u32,
    ) -> Result<Transition, Error> {
        let bundle = self.bundle(r)?;
        let s = bundle
            .find(current)
            .ok_or_else(|| Error::Request(format!("unknown skill `{current}` in this bundle")))?;
        let max: u32 = self
            .manifest("pipeline_max_depth")
            .and_then(|v| v.parse().ok())
            .unwrap_or(5);
        if depth >= max {
            return Ok(Transition {
                next: None,
                reason: format!("depth limit {max} reached"),
            });
        }
        let conditional = key.and_then(|k| {
            s.record
                .conditional_next
                .get(k)
                .map(|q| (q, format!("conditional:{k}")))
        });
        let chosen = conditional.or_else(|| {
            s.record
                .next_skill
                .as_ref()
                .map(|q| (q, "next_skill".to_string()))
        });
        Ok(match chosen {
            Some((q, reason)) => match bundle.find(q) {
                Some(next) if next.unavailable.is_none() => Transition {
                    next: Some(next.name.clone()),
                    reason,
                },
                _ => Transition {
                    next: None,
                    reason: format!("`{q}` is not available in this bundle"),
                },
            },
            None => Transition {
                next: None,
                reason: "no transition".to_string(),
            },
        })
    }

    /// Whether this host meets a skill's `requires.env` and `requires.binary`.
    pub fn requirements(&self, r: &BundleRef<'_>, skill: &str) -> Result<Vec<Requirement>, Error> {
        let bundle = self.bundle(r)?;
        let s = bundle
            .find(skill)
            .ok_or_else(|| Error::Request(format!("unknown skill `{skill}` in this bundle")))?;
        let on_path = |name: &str| {
            std::env::var_os("PATH")
                .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        };
        Ok(s.record
            .requires_env
            .iter()
            .map(|n| Requirement {
                kind: "env",
                name: n.clone(),
                met: std::env::var_os(n).is_some(),
            })
            .chain(s.record.requires_binary.iter().map(|n| Requirement {
                kind: "binary",
                name: n.clone(),
                met: on_path(n),
            }))
            .collect())
    }

    /// A skill's MCP configuration with `${VAR}` placeholders resolved from `vars` (run-time
    /// variables, e.g. secrets) and then the environment; unresolved ones stay as written.
    pub fn mcp(
        &self,
        r: &BundleRef<'_>,
        skill: &str,
        vars: &BTreeMap<String, String>,
    ) -> Result<Option<Mcp>, Error> {
        let bundle = self.bundle(r)?;
        let s = bundle
            .find(skill)
            .ok_or_else(|| Error::Request(format!("unknown skill `{skill}` in this bundle")))?;
        Ok(s.record.mcp.as_ref().map(|m| Mcp {
            env: m
                .env
                .iter()
                .map(|(k, v)| {
                    let value = |n: &str| vars.get(n).cloned().or_else(|| std::env::var(n).ok());
                    (
                        k.clone(),
                        crate::placeholder::substitute(v, "${", "}", value),
                    )
                })
                .collect(),
            ..m.clone()
        }))
    }
}
