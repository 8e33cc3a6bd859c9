//! The input hash: every input file's path and content digest, in path order. Two builds
//! with the same hash have the same inputs (an unchanged workspace is not written again).

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};

use crate::parse::load;

/// The sha256 of each text file a session's last build hashed, by the address of its text
/// (held, so that address cannot hold another text meanwhile): an unchanged file's text is the
/// one the parse cache handed out before, and is not hashed again.
#[derive(Debug, Default)]
pub(super) struct TextDigests(pub(super) FxHashMap<usize, (std::sync::Arc<str>, [u8; 32])>);

/// An input file: its path, its bytes (none for a large file), its digest if known already,
/// and its length.
pub(super) type Input<'a> = (Cow<'a, str>, &'a [u8], Option<[u8; 32]>, u64);

/// Hash of every input file (its path and the sha256 of its content, in path order) and the
/// bytes of the distinct inputs. Each file is hashed once, on every core, or taken from a
/// session's `digests`: the inputs are read again on every rebuild in `watch` and the studio.
pub(super) fn input_hash(
    loaded: &load::Loaded,
    digests: Option<&mut TextDigests>,
) -> (String, u64) {
    use rayon::prelude::*;
    let address = |text: &std::sync::Arc<str>| text.as_ptr() as usize;
    let known = |text: &std::sync::Arc<str>| {
        let d = digests.as_deref()?.0.get(&address(text))?;
        std::sync::Arc::ptr_eq(&d.0, text).then_some(d.1)
    };
    let texts = loaded.texts.iter().map(|(path, text)| {
        let bytes = text.as_bytes();
        (
            Cow::Borrowed(&**path),
            bytes,
            known(text),
            bytes.len() as u64,
        )
    });
    let assets = loaded.workspace.skills.iter().flat_map(|s| {
        s.assets.iter().map(|a| {
            let path = Cow::Owned(format!("{}/{}", s.dir, a.path));
            match &a.data {
                crate::model::AssetData::Bytes(b) => (path, &b[..], None, a.size),
                // Hashed when read: its bytes are not held.
                crate::model::AssetData::File(f) => (path, &[][..], Some(f.sha256), a.size),
            }
        })
    });
    let inputs: Vec<Input<'_>> = texts.chain(assets).collect();
    let hashed: Vec<[u8; 32]> = inputs
        .par_iter()
        .map(|(_, data, known, _)| known.unwrap_or_else(|| Sha256::digest(data).into()))
        .collect();
    if let Some(cache) = digests {
        cache.0 = loaded
            .texts
            .values()
            .zip(&hashed)
            .map(|(text, digest)| (address(text), (text.clone(), *digest)))
            .collect();
    }
    let all = inputs
        .iter()
        .zip(&hashed)
        .map(|((path, _, _, len), digest)| (&**path, *digest, *len));
    fold_inputs(all)
}

/// The input hash of the files (path, sha256, length) in the order [`input_hash`] takes them,
/// and the bytes of the distinct ones.
pub(super) fn fold_inputs<'p>(
    inputs: impl Iterator<Item = (&'p str, [u8; 32], u64)>,
) -> (String, u64) {
    let mut h = Sha256::new();
    let mut distinct: FxHashSet<[u8; 32]> = FxHashSet::default();
    let mut bytes = 0u64;
    for (path, digest, len) in inputs {
        h.update(path.as_bytes());
        h.update([0]);
        h.update(digest);
        if distinct.insert(digest) {
            bytes += len;
        }
    }
    (format!("{:x}", h.finalize()), bytes)
}
