// Signed artifacts: `ARTIFACT.minisig` beside the artifact, in minisign's format (Ed25519 over
// the BLAKE2b-512 of the file). Node has both built in (`crypto.verify` with an Ed25519 key,
// the `blake2b512` hash), so checking needs no package. A signature or key file is read only
// when it is a regular file of at most 64 KiB (a minisign one is under 1 KiB): a named pipe or a
// device is refused at once, never waited on (a blocked read would stop every request).

import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from "node:fs";

/** The most a signature or public key file may hold. */
export const SMALL_FILE_CAP = 64 * 1024;

/**
 * Opens `path` for reading without waiting (a named pipe would block an ordinary open until a
 * writer comes) and refuses the open file unless it is a regular file. Throws the system's
 * error (code ENOENT when nothing is there) or one that says what the file is.
 */
export function openRegular(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw Object.assign(new Error(`\`${path}\` is not a regular file (a named pipe, a device or a folder)`), { code: "ENOTREG" });
  }
  return fd;
}

/** The text of a small regular file (a signature, a public key), at most SMALL_FILE_CAP bytes. */
function readSmall(path: string): string {
  const fd = openRegular(path);
  try {
    const buffer = Buffer.alloc(SMALL_FILE_CAP + 1);
    let size = 0;
    for (let n; size < buffer.length && (n = readSync(fd, buffer, size, buffer.length - size, null)) > 0; ) size += n;
    if (size > SMALL_FILE_CAP) {
      throw new Error(`\`${path}\` is larger than ${SMALL_FILE_CAP / 1024} KiB (a minisign signature or key is under 1 KiB)`);
    }
    return buffer.subarray(0, size).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The artifact has no valid signature for the public key it was opened with. */
export class SignatureError extends Error {
  override name = "SignatureError";
}

/** A minisign public key: its id and the Ed25519 key. */
export interface PublicKey {
  id: Buffer;
  key: KeyObject;
}

/** Where an artifact's signature is: `ARTIFACT.minisig`. */
export function signaturePath(path: string): string {
  return `${path}.minisig`;
}

function lines(text: string): string[] {
  return text.split(/\r?\n/);
}

function base64(line: string | undefined): Buffer | undefined {
  if (line === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(line.trim())) return undefined;
  return Buffer.from(line.trim(), "base64");
}

/** A public key from a `.pub` file's path, its text, or the key line alone. */
export function readPublicKey(source: string): PublicKey {
  let text = source;
  if (existsSync(source)) {
    try {
      text = readSmall(source);
    } catch (e) {
      throw new SignatureError(`cannot read the public key: ${(e as Error).message}`);
    }
  }
  const kept = lines(text.trim()).filter((l) => l.trim() !== "");
  const raw = base64(kept[kept.length - 1]);
  if (raw === undefined || raw.length !== 42 || raw.subarray(0, 2).toString("latin1") !== "Ed") {
    throw new SignatureError("the public key is not a minisign Ed25519 key (`skillc keygen` writes one as `<name>.pub`)");
  }
  // An Ed25519 key as SubjectPublicKeyInfo: the fixed prefix, then the 32 key bytes.
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw.subarray(10)]);
  return { id: raw.subarray(2, 10), key: createPublicKey({ key: spki, format: "der", type: "spki" }) };
}

/** Checks `bytes` (the artifact at `path`) against `path.minisig`; throws SignatureError why not. */
export function verifyBytes(path: string, bytes: Uint8Array, key: PublicKey): void {
  const sigPath = signaturePath(path);
  let text: string;
  try {
    text = readSmall(sigPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      throw new SignatureError(`\`${path}\` has no signature (\`${sigPath}\` does not exist); sign it with \`skillc build … --sign KEY\``);
    }
    throw new SignatureError(`cannot read \`${sigPath}\`: ${(e as Error).message}`);
  }
  const l = lines(text);
  const sig = base64(l[1]);
  const global = base64(l[3]);
  const damaged = `\`${sigPath}\` is not a minisign signature: damaged or truncated`;
  if (sig?.length !== 74 || global?.length !== 64 || !l[2]?.startsWith("trusted comment: ")) {
    throw new SignatureError(damaged);
  }
  if (sig.subarray(0, 2).toString("latin1") !== "ED") {
    throw new SignatureError(`\`${sigPath}\` is minisign's legacy kind of signature; sign with \`minisign -S -H\` or \`skillc build --sign\``);
  }
  if (!sig.subarray(2, 10).equals(key.id)) {
    throw new SignatureError(`\`${path}\` was signed with another key than the one given`);
  }
  const digest = createHash("blake2b512").update(bytes).digest();
  if (!verify(null, digest, key.key, sig.subarray(10))) {
    throw new SignatureError(
      `the signature \`${sigPath}\` does not match \`${path}\`: the file was changed after it was signed, or the signature is another file's`,
    );
  }
  const trusted = Buffer.from(l[2].slice("trusted comment: ".length), "utf8");
  if (!verify(null, Buffer.concat([sig.subarray(10), trusted]), key.key, global)) {
    throw new SignatureError(`the trusted comment of \`${sigPath}\` was changed after it was signed`);
  }
}
