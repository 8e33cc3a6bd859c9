"""Signed artifacts: `ARTIFACT.minisig` in minisign's format (Ed25519 over the BLAKE2b-512 of
the file), checked with a minisign public key. Ed25519 comes from PyCA's `cryptography`,
imported only when a signature is checked (`pip install skillc-runtime[signatures]`).

A signature or key file is read only when it is a regular file of at most 64 KiB (a minisign
one is under 1 KiB): a named pipe or a device is refused at once instead of waited on. Lines
are split as minisign splits them: at "\n" only, a trailing "\r" dropped."""

import os
import stat
from typing import BinaryIO, Tuple

# The most a signature or public key file may hold.
SMALL_FILE_CAP = 64 * 1024


class SignatureError(ValueError):
    """The artifact has no valid signature for the public key it was opened with."""


def signature_path(path: str) -> str:
    """Where an artifact's signature is: `ARTIFACT.minisig` beside it."""
    return f"{path}.minisig"


def read_regular(path: str, cap=None) -> bytes:
    """The bytes of the regular file at `path` (at most `cap`), read once. Opened non-blocking,
    so a named pipe is refused instead of waited on; the open file is checked, not the path.
    Raises OSError (FileNotFoundError when nothing is there) or SignatureError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SignatureError(f"{path} is not a regular file (a named pipe, a device or a folder)")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read() if cap is None else f.read(cap + 1)
    finally:
        os.close(fd)
    if cap is not None and len(data) > cap:
        raise SignatureError(f"{path} is larger than {cap // 1024} KiB (a minisign signature or key is under 1 KiB)")
    return data


def _lines(text):
    """Lines as minisign reads them: split at "\n", a trailing "\r" dropped (never at U+2028,
    as `str.splitlines` would)."""
    return [l[:-1] if l.endswith("\r") else l for l in text.split("\n")]


def _b64(line, what):
    import base64
    import binascii
    try:
        return base64.b64decode(line.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError(f"it is not {what}") from None


def read_public_key(key: str) -> Tuple[bytes, bytes]:
    """A minisign public key ((key id, 32 key bytes)) from a `.pub` file's path, its text, or
    the key line alone."""
    text = key
    if os.path.lexists(key):
        try:
            text = read_regular(key, SMALL_FILE_CAP).decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise SignatureError(f"cannot read the public key {key}: {e}") from None
    lines = [l for l in _lines(text.strip()) if l.strip()]
    raw = _b64(lines[-1] if lines else "", "a minisign public key")
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


def verify_bytes(data: bytes, path: str, key: Tuple[bytes, bytes]) -> None:
    """Checks `data` (the bytes of the artifact at `path`) against `path.minisig` with `key`
    (from `read_public_key`); raises SignatureError saying why not."""
    import hashlib
    sig_path = signature_path(path)
    try:
        text = read_regular(sig_path, SMALL_FILE_CAP).decode("utf-8")
    except FileNotFoundError:
        raise SignatureError(f"{path} has no signature ({sig_path} does not exist); sign it with `skillc build ... --sign KEY`") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SignatureError(f"cannot read {sig_path}: {e}") from None
    lines = _lines(text)
    damaged = f"{sig_path} is not a minisign signature: damaged or truncated"
    if len(lines) < 4 or not lines[2].startswith("trusted comment: "):
        raise SignatureError(damaged)
    try:
        sig = _b64(lines[1], "a minisign signature")
        global_sig = _b64(lines[3], "a minisign signature")
    except SignatureError:
        raise SignatureError(damaged) from None
    if len(sig) != 74 or len(global_sig) != 64:
        raise SignatureError(damaged)
    if sig[:2] != b"ED":
        raise SignatureError(f"{sig_path} is minisign's legacy kind of signature; sign with `minisign -S -H` or `skillc build --sign`")
    key_id, public = key
    if sig[2:10] != key_id:
        raise SignatureError(f"{path} was signed with another key than the one given")
    if not _ed25519_verify(public, sig[10:], hashlib.blake2b(data, digest_size=64).digest()):
        raise SignatureError(f"the signature {sig_path} does not match {path}: the file was changed after it was signed, or the signature is another file's")
    trusted = lines[2][len("trusted comment: "):].encode()
    if not _ed25519_verify(public, global_sig, sig[10:] + trusted):
        raise SignatureError(f"the trusted comment of {sig_path} was changed after it was signed")


def verify_file(f: BinaryIO, path: str, key: Tuple[bytes, bytes]) -> None:
    """Checks the open file `f` (the artifact at `path`) against `path.minisig`: the bytes
    read from `f` (see `verify_bytes`)."""
    verify_bytes(f.read(), path, key)
