//! Digests of content, below every phase: the SHA-256 that names files, blobs and inputs, and a
//! fast in-process hash for values looked up many times a rebuild.

use sha2::{Digest as _, Sha256};

/// The SHA-256 of `data`, in hex (blob names, the input hash, package markers).
pub fn hash(data: &[u8]) -> String {
    format!("{:x}", Sha256::digest(data))
}

/// A SHA-256 as [`hash`] writes it.
pub(crate) fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A hash of `value`, for types that compute theirs once and hash as it (cards, entry keys:
/// looked up tens of thousands of times a rebuild). Within one process only.
pub(crate) fn content_digest<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    value.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_writes_what_hash_writes() {
        let digest: [u8; 32] = sha2::Sha256::digest(b"abc").into();
        assert_eq!(super::hex(&digest), super::hash(b"abc"));
    }

    use sha2::Digest as _;
}
