"""Signed artifacts: `ARTIFACT.minisig` in minisign's format (Ed25519 over the BLAKE2b-512 of
the file), checked with a minisign public key. Ed25519 comes from PyCA's `cryptography`,
imported only when a signature is checked (`pip install skillc-runtime[signatures]`)."""

import os
from typing import BinaryIO, Tuple


class SignatureError(ValueError):
    """The artifact has no valid signature for the public key it was opened with."""


def signature_path(path: str) -> str:
    """Where an artifact's signature is: `ARTIFACT.minisig` beside it."""
    return f"{path}.minisig"


def _b64_line(text, n, what):
    import base64
    import binascii
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    try:
        return [base64.b64decode(l, validate=True) for l in lines[n:n + 1]][0]
    except (IndexError, binascii.Error, ValueError):
        raise SignatureError(f"it is not {what}") from None


def read_public_key(key: str) -> Tuple[bytes, bytes]:
    """A minisign public key ((key id, 32 key bytes)) from a `.pub` file's path, its text, or
    the key line alone."""
    text = key
    if os.path.exists(key):
        with open(key, encoding="utf-8") as f:
            text = f.read()
    lines = [l for l in text.strip().splitlines() if l.strip()]
    raw = _b64_line(lines[-1] if lines else "", 0, "a minisign public key")
    if len(raw) != 42 or raw[:2] != b"Ed":
        raise SignatureError("the public key is not a minisign Ed25519 key")
    return raw[2:10], raw[10:]


def _ed25519_verify(public, signature, message):
    try:
        from cryptography.exceptions import InvalidSignature  # type: ignore[import-not-found,unused-ignore]
        from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # type: ignore[import-not-found,unused-ignore]
            Ed25519PublicKey,
        )
    except ImportError:
        raise SignatureError("checking signatures needs the `cryptography` package: pip install cryptography") from None
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
        return True
    except InvalidSignature:
        return False


def verify_file(f: BinaryIO, path: str, key: Tuple[bytes, bytes]) -> None:
    """Checks the open file `f` (the artifact at `path`) against `path.minisig` with `key` (from
    `read_public_key`); raises SignatureError saying why not."""
    import hashlib
    sig_path = signature_path(path)
    try:
        with open(sig_path, encoding="utf-8") as s:
            text = s.read()
    except FileNotFoundError:
        raise SignatureError(f"{path} has no signature ({sig_path} does not exist); sign it with `skillc build ... --sign KEY`") from None
    lines = [l.rstrip("\r") for l in text.splitlines()]
    damaged = f"{sig_path} is not a minisign signature: damaged or truncated"
    if len(lines) < 4 or not lines[2].startswith("trusted comment: "):
        raise SignatureError(damaged)
    try:
        sig = _b64_line(text, 1, "a minisign signature")
        global_sig = _b64_line(text, 3, "a minisign signature")
    except SignatureError:
        raise SignatureError(damaged) from None
    if len(sig) != 74 or len(global_sig) != 64:
        raise SignatureError(damaged)
    if sig[:2] != b"ED":
        raise SignatureError(f"{sig_path} is minisign's legacy kind of signature; sign with `minisign -S -H` or `skillc build --sign`")
    key_id, public = key
    if sig[2:10] != key_id:
        raise SignatureError(f"{path} was signed with another key than the one given")
    h = hashlib.blake2b(digest_size=64)
    for chunk in iter(lambda: f.read(1 << 16), b""):
        h.update(chunk)
    if not _ed25519_verify(public, sig[10:], h.digest()):
        raise SignatureError(f"the signature {sig_path} does not match {path}: the file was changed after it was signed, or the signature is another file's")
    trusted = lines[2][len("trusted comment: "):].encode()
    if not _ed25519_verify(public, global_sig, sig[10:] + trusted):
        raise SignatureError(f"the trusted comment of {sig_path} was changed after it was signed")
