package dev.skillc.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Signed artifacts: {@code ARTIFACT.minisig} beside the artifact, in minisign's format (Ed25519
 * over the BLAKE2b-512 of the file). The JDK has Ed25519; BLAKE2b comes from Bouncy Castle,
 * an optional dependency loaded only when an artifact is opened with a key.
 *
 * <p>What is served is what was checked: the artifact is copied once into a private temporary
 * file while it is hashed, and the copy is what SQLite opens, so a later write into the file in
 * place is never served. A signature or key file is read only when it is a regular file of at
 * most 64 KiB (a minisign one is under 1 KiB): a named pipe or a device is refused, not waited on.
 */
final class Signature {
    private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]+={0,2}");
    /** An Ed25519 key as SubjectPublicKeyInfo: this fixed prefix, then the 32 key bytes. */
    private static final byte[] SPKI_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");

    /** A minisign public key: its id and the Ed25519 key. */
    record Key(byte[] id, PublicKey key) {}

    /** The most a signature or public key file may hold. */
    static final int SMALL_FILE_CAP = 64 * 1024;

    private Signature() {}

    /** Why {@code file} cannot be read as a small file, or null when it can (it may be missing). */
    private static String notSmall(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        if (!a.isRegularFile()) return "it is not a regular file (a named pipe, a device or a folder)";
        if (a.size() > SMALL_FILE_CAP) {
            return "it is larger than " + SMALL_FILE_CAP / 1024 + " KiB (a minisign signature or key is under 1 KiB)";
        }
        return null;
    }

    /**
     * The text of a small regular file (a signature, a public key). Checked before it is opened
     * (Java cannot open without waiting on a pipe), and never read past the cap.
     */
    private static String readSmall(Path file) throws IOException {
        String why = notSmall(file);
        if (why != null) throw new IOException(why);
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(SMALL_FILE_CAP + 1);
            if (bytes.length > SMALL_FILE_CAP) throw new IOException("it grew past " + SMALL_FILE_CAP / 1024 + " KiB");
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    static String pathOf(String artifact) {
        return artifact + ".minisig";
    }

    private static byte[] base64(String line) {
        if (line == null || !BASE64.matcher(line.strip()).matches()) return null;
        try {
            return Base64.getDecoder().decode(line.strip());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** A public key from a {@code .pub} file's path, its text, or the key line alone. */
    static Key readPublicKey(String source) {
        String text = source;
        Path file = null;
        try {
            file = Path.of(source);
        } catch (InvalidPathException e) {
            // not a path: the text itself
        }
        if (file != null && Files.exists(file)) {
            try {
                text = readSmall(file);
            } catch (IOException e) {
                throw new SignatureException("cannot read the public key `" + source + "`: " + e.getMessage());
            }
        }
        List<String> kept = text.strip().lines().filter(l -> !l.isBlank()).toList();
        byte[] raw = kept.isEmpty() ? null : base64(kept.get(kept.size() - 1));
        if (raw == null || raw.length != 42 || raw[0] != 'E' || raw[1] != 'd') {
            throw new SignatureException("the public key is not a minisign Ed25519 key (`skillc keygen` writes one as `<name>.pub`)");
        }
        byte[] spki = Arrays.copyOf(SPKI_PREFIX, SPKI_PREFIX.length + 32);
        System.arraycopy(raw, 10, spki, SPKI_PREFIX.length, 32);
        try {
            PublicKey key = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(spki));
            return new Key(Arrays.copyOfRange(raw, 2, 10), key);
        } catch (GeneralSecurityException e) {
            throw new SignatureException("the public key cannot be read: " + e.getMessage());
        }
    }

    private static boolean ed25519(PublicKey key, byte[] message, byte[] signature) {
        try {
            java.security.Signature s = java.security.Signature.getInstance("Ed25519");
            s.initVerify(key);
            s.update(message);
            return s.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** The BLAKE2b-512 of a stream, read in pieces, each also written to {@code out}. */
    private static byte[] blake2b(InputStream in, OutputStream copy) throws IOException {
        org.bouncycastle.crypto.digests.Blake2bDigest digest = new org.bouncycastle.crypto.digests.Blake2bDigest(512);
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = in.read(buffer)) > 0; ) {
            digest.update(buffer, 0, n);
            copy.write(buffer, 0, n);
        }
        byte[] out = new byte[64];
        digest.doFinal(out, 0);
        return out;
    }

    /**
     * Copies the artifact at {@code path} into {@code copy} while hashing it, and checks what was
     * copied against {@code path.minisig}; throws {@link SignatureException} why not. The copy
     * holds exactly the bytes whose signature verified.
     */
    static void verifiedCopy(String path, Key key, Path copy) {
        String sigPath = pathOf(path);
        String text;
        try {
            text = readSmall(Path.of(sigPath));
        } catch (NoSuchFileException e) {
            throw new SignatureException("`" + path + "` has no signature (`" + sigPath
                + "` does not exist); sign it with `skillc build … --sign KEY`");
        } catch (IOException e) {
            throw new SignatureException("cannot read `" + sigPath + "`: " + e.getMessage());
        }
        // Lines as minisign reads them: split at "\n", a "\r" before it dropped.
        String[] l = text.split("\r?\n", -1);
        byte[] sig = l.length > 1 ? base64(l[1]) : null;
        byte[] global = l.length > 3 ? base64(l[3]) : null;
        if (sig == null || sig.length != 74 || global == null || global.length != 64 || !l[2].startsWith("trusted comment: ")) {
            throw new SignatureException("`" + sigPath + "` is not a minisign signature: damaged or truncated");
        }
        if (sig[0] != 'E' || sig[1] != 'D') {
            throw new SignatureException("`" + sigPath + "` is minisign's legacy kind of signature; sign with "
                + "`minisign -S -H` or `skillc build --sign`");
        }
        if (!Arrays.equals(Arrays.copyOfRange(sig, 2, 10), key.id())) {
            throw new SignatureException("`" + path + "` was signed with another key than the one given");
        }
        byte[] digest;
        try (InputStream in = Files.newInputStream(Path.of(path)); OutputStream out = Files.newOutputStream(copy)) {
            digest = blake2b(in, out);
        } catch (IOException e) {
            throw new SignatureException("cannot read `" + path + "`: " + e.getMessage());
        } catch (NoClassDefFoundError e) {
            throw new SignatureException("checking signatures needs Bouncy Castle (org.bouncycastle:bcprov-jdk18on) "
                + "on the class path, for BLAKE2b");
        }
        byte[] signature = Arrays.copyOfRange(sig, 10, 74);
        if (!ed25519(key.key(), digest, signature)) {
            throw new SignatureException("the signature `" + sigPath + "` does not match `" + path
                + "`: the file was changed after it was signed, or the signature is another file's");
        }
        byte[] trusted = l[2].substring("trusted comment: ".length()).getBytes(StandardCharsets.UTF_8);
        byte[] signed = Arrays.copyOf(signature, 64 + trusted.length);
        System.arraycopy(trusted, 0, signed, 64, trusted.length);
        if (!ed25519(key.key(), signed, global)) {
            throw new SignatureException("the trusted comment of `" + sigPath + "` was changed after it was signed");
        }
    }
}
