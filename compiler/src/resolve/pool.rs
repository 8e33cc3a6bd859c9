//! The sources pool (002): every source of the workspace under one normalised URL and one id.
//!
//! The pool is workspace-wide and numbered by sorted URL, so a source id means the same URL in
//! every bundle: bodies rewritten once are shared by all bundles, and within any bundle one URL
//! has one id and no id names two URLs.

use std::collections::BTreeMap;

use crate::model::Workspace;
use crate::parse::sources;

pub(crate) use crate::model::census::PooledSource;

/// The pool and each skill's local-to-pool id map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pool {
    /// Sources by pool id - 1.
    pub sources: Vec<PooledSource>,
    /// Per skill (index into `Workspace::skills`): local sid → pool sid.
    pub local: Vec<BTreeMap<u32, u32>>,
}

/// Lowercases scheme and host, drops the fragment and a default port, and writes an empty path
/// as `/` and a path's trailing slash away, so one page has one spelling.
pub fn normalize_url(url: &str) -> String {
    let url = url.trim();
    let url = url.split('#').next().unwrap_or(url);
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let scheme = scheme.to_ascii_lowercase();
    let (host, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut host = host.to_ascii_lowercase();
    for (s, port) in [("http", ":80"), ("https", ":443")] {
        if scheme == s && host.ends_with(port) {
            host.truncate(host.len() - port.len());
        }
    }
    let (path, query) = match path.find('?') {
        Some(i) => (&path[..i], &path[i..]),
        None => (path, ""),
    };
    let path = match path.trim_end_matches('/') {
        "" => "/",
        p => p,
    };
    format!("{scheme}://{host}{path}{query}")
}

/// Builds the pool of all sources of `ws` (in a batch of clients, of the whole workspace).
pub fn build(ws: &Workspace) -> Pool {
    let mut sources: Vec<PooledSource> = match ws.census.as_deref() {
        Some(census) => census.sources.values().cloned().collect(),
        None => {
            let mut by_url = BTreeMap::new();
            gather(&mut by_url, ws.skills.iter().map(|s| &**s));
            by_url.into_values().collect()
        }
    };
    let mut sid_of: BTreeMap<&str, u32> = BTreeMap::new();
    for (i, s) in sources.iter_mut().enumerate() {
        s.sid = i as u32 + 1;
    }
    for s in &sources {
        sid_of.insert(&s.url, s.sid);
    }
    let local = ws
        .skills
        .iter()
        .map(|skill| {
            skill
                .sources
                .iter()
                .map(|s| (s.sid, sid_of[normalize_url(&s.url).as_str()]))
                .collect()
        })
        .collect();
    Pool { sources, local }
}

/// Adds the sources of `skills` to the pool by normalised URL. Skills come sorted by scope
/// and path: the first description of a URL wins, the same way on every run.
pub(crate) fn gather<'s>(
    by_url: &mut BTreeMap<String, PooledSource>,
    skills: impl Iterator<Item = &'s crate::model::Skill>,
) {
    for skill in skills {
        for s in &skill.sources {
            let url = normalize_url(&s.url);
            let entry = by_url.entry(url.clone()).or_insert_with(|| PooledSource {
                sid: 0,
                url,
                title: None,
                text: None,
                extra: BTreeMap::new(),
            });
            if entry.title.is_none() {
                entry.title.clone_from(&s.title);
            }
            if entry.text.is_none() {
                entry.text.clone_from(&s.text);
            }
            for (k, v) in &s.extra {
                entry.extra.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
}

/// Writes pool ids as a token body: `1,2,3,7` → `1-3,7`.
fn compress(mut ids: Vec<u32>) -> String {
    ids.sort_unstable();
    ids.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let start = ids[i];
        let mut end = start;
        while i + 1 < ids.len() && ids[i + 1] == end + 1 {
            i += 1;
            end = ids[i];
        }
        parts.push(if end > start {
            format!("{start}-{end}")
        } else {
            start.to_string()
        });
        i += 1;
    }
    parts.join(",")
}

/// Rewrites every citation token of `text` from local ids to pool ids. Returns the text and
/// the pool ids it cites. Tokens naming undefined ids were rejected by `check`; here they are
/// left as written.
pub fn rewrite(text: &str, local: &BTreeMap<u32, u32>) -> (String, Vec<u32>) {
    let (tokens, _) = sources::scan(text);
    let mut out = String::with_capacity(text.len());
    let mut cited = Vec::new();
    let mut last = 0;
    for t in tokens {
        let mapped: Option<Vec<u32>> = t.sids.iter().map(|s| local.get(s).copied()).collect();
        out.push_str(&text[last..t.start]);
        match mapped {
            Some(ids) => {
                cited.extend(&ids);
                out.push_str(&format!("[[S:{}]]", compress(ids)));
            }
            None => out.push_str(&text[t.start..t.end]),
        }
        last = t.end;
    }
    out.push_str(&text[last..]);
    cited.sort_unstable();
    cited.dedup();
    (out, cited)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_urls() {
        assert_eq!(
            normalize_url("HTTPS://Example.COM:443"),
            "https://example.com/"
        );
        assert_eq!(
            normalize_url("https://example.com/a/#x"),
            "https://example.com/a"
        );
        assert_eq!(
            normalize_url("https://example.com/a?q=1"),
            "https://example.com/a?q=1"
        );
    }

    #[test]
    fn rewrites_ids_ranges_and_lists() {
        let local = BTreeMap::from([(1, 4), (2, 5), (3, 9)]);
        let (text, cited) = rewrite("a [[S:1]] b [[S:1-3]] c [[S:3,1]]", &local);
        assert_eq!(text, "a [[S:4]] b [[S:4-5,9]] c [[S:4,9]]");
        assert_eq!(cited, vec![4, 5, 9]);
    }
}
