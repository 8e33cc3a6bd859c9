package dev.skillc.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A skillc artifact opened read-only: catalogs, prompts and routes, the same answers as the
 * Rust runtime (catalog texts, {@code SKn} ids, reasons, sources, tokens, scores); CI compares
 * them on every parity request.
 *
 * <pre>{@code
 * try (Artifact a = Artifact.open("out.db")) {
 *     Catalog c = a.catalog(Request.global().client("example.com"), Format.MARKDOWN);
 *     Prompt p = a.prompt(Request.global().client("example.com"), List.of("SK1", "pricing"));
 *     Route r = a.route(Request.global(), "How much does the pro plan cost?");
 * }
 * }</pre>
 *
 * <p>A new artifact renamed over the path is served from the next call on: each call compares
 * the path's file (device, inode, size, modification time) with the one opened, whose open
 * connection keeps it readable until then. A new file that cannot be opened leaves the previous
 * one in service, and {@link #refused()} says why. Calls are serialized: one {@code Artifact}
 * can be shared by threads.
 *
 * <p>Opened with a minisign public key ({@link #open(String, String)}), only an artifact whose
 * signature {@code ARTIFACT.minisig} verifies is served, on open and on every swap; checking
 * needs Bouncy Castle ({@code org.bouncycastle:bcprov-jdk18on}) for BLAKE2b. What is served is
 * a private temporary copy of the bytes checked, so a write into the file in place is not.
 */
public final class Artifact implements AutoCloseable {
    /** The schema version this runtime reads (the one {@code skillc build} writes). */
    public static final int SCHEMA_VERSION = 13;

    private final String path;
    private final Signature.Key key;
    private Snapshot snap;
    private String stamp;
    private String refusedStamp;
    private String refusedWhy;
    /** How many bundles an artifact keeps loaded unless told otherwise ({@link #setMaxBundles}). */
    public static final int DEFAULT_MAX_BUNDLES = Snapshot.DEFAULT_MAX_BUNDLES;

    private int maxBundles = DEFAULT_MAX_BUNDLES;

    private Artifact(String path, Signature.Key key) {
        this.path = path;
        this.key = key;
        // Taken before opening: a swap in between is seen, and opened, by the next call.
        this.stamp = stamps();
        this.snap = load();
    }

    /** How many bundles this artifact keeps loaded at most (64 unless set). */
    public synchronized int maxBundles() {
        return maxBundles;
    }

    /**
     * Keeps at most {@code max} bundles loaded (0: none), letting go of the least recently used
     * first, now and from then on; a bundle let go is loaded again on its next request.
     */
    public synchronized void setMaxBundles(int max) {
        maxBundles = max;
        snap.maxBundles = max;
        snap.trim();
    }

    /** Lets go of what this artifact keeps of a bundle; a later request loads it again. */
    public synchronized void unload(Request r) {
        Snapshot s = current();
        s.bundles.remove(rowOf(s, r).id());
    }

    /** Opens the artifact at {@code path}; {@link ArtifactException} when it cannot be read. */
    public static Artifact open(String path) {
        return new Artifact(path, null);
    }

    /** Opens the artifact at {@code path}; {@link ArtifactException} when it cannot be read. */
    public static Artifact open(Path path) {
        return new Artifact(path.toString(), null);
    }

    /**
     * Opens the artifact at {@code path} if its signature {@code path.minisig} verifies with
     * {@code publicKey} (a minisign {@code .pub} file's path, its text or its key line);
     * {@link SignatureException} when it does not.
     */
    public static Artifact open(String path, String publicKey) {
        return new Artifact(path, Signature.readPublicKey(publicKey));
    }

    /**
     * The file at the path, opened; with a key, only once its signature verified, and then from
     * a private copy of exactly the bytes checked: a later write into the file (same inode) is
     * never served.
     */
    private Snapshot load() {
        if (key == null) return Snapshot.open(path);
        Snapshot.requireFile(path);
        Path copy;
        try {
            copy = Files.createTempFile("skillc-verified-", ".db"); // owner-only on POSIX
        } catch (IOException e) {
            throw new SignatureException("cannot make a private copy of `" + path + "` to check: " + e.getMessage());
        }
        try {
            Signature.verifiedCopy(path, key, copy);
            return Snapshot.open(copy.toString(), path);
        } finally {
            // Once open, the copy is read through its open file: its name can go at once (where
            // the system allows removing an open file; elsewhere when the JVM exits).
            try {
                Files.deleteIfExists(copy);
            } catch (IOException e) {
                copy.toFile().deleteOnExit();
            }
        }
    }

    /** What identifies the files now: the artifact's stamp, and its signature's with a key. */
    private String stamps() {
        String file = stampOf(path);
        if (file == null || key == null) return file;
        String sig = stampOf(Signature.pathOf(path));
        return file + "|" + (sig == null ? "none" : sig);
    }

    /** What identifies a file: device, inode, size, modification time; null when nothing is there. */
    private static String stampOf(String path) {
        try {
            Map<String, Object> a = Files.readAttributes(Path.of(path), "unix:dev,ino,size,lastModifiedTime");
            return a.get("dev") + ":" + a.get("ino") + ":" + a.get("size") + ":" + a.get("lastModifiedTime");
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** The snapshot to answer from: the open one, or the new file at the path when it opens. */
    private Snapshot current() {
        String now = stamps();
        if (now == null || now.equals(stamp) || now.equals(refusedStamp)) return snap;
        try {
            Snapshot next = load();
            next.maxBundles = maxBundles;
            snap.close();
            snap = next;
            stamp = now;
            refusedStamp = null;
            refusedWhy = null;
        } catch (SkillcException e) {
            refusedStamp = now;
            refusedWhy = e.getMessage();
        }
        return snap;
    }

    /** The path this artifact follows. */
    public String path() {
        return path;
    }

    /** Why the file now at the path is not served, when it could not be opened; else null. */
    public synchronized String refused() {
        current();
        return refusedWhy;
    }

    /** The label of {@code skillc build --release-label}, or null. */
    public synchronized String release() {
        return current().manifest.get("release");
    }

    /** A manifest value, or null. */
    public synchronized String manifest(String key) {
        return current().manifest.get(key);
    }

    private static Bundle bundleOf(Snapshot snap, Request r) {
        return snap.bundle(rowOf(snap, r));
    }

    /** The bundle a request names, the default locale and tier where it names none. */
    private static Snapshot.BundleRow rowOf(Snapshot snap, Request r) {
        return snap.findBundle(r.client() == null ? "" : r.client(),
            r.locale() == null ? snap.defaultLocale() : r.locale(), r.tier() == null ? snap.defaultTier() : r.tier());
    }

    private static Context contextOf(Request r) {
        return r.context() == null ? Context.empty() : r.context();
    }

    /** The catalog of a bundle in a format. The result is shared between calls that ask the same. */
    public synchronized Catalog catalog(Request r, Format format) {
        Snapshot s = current();
        return Catalog.of(s, bundleOf(s, r), r.consumer(), contextOf(r), format);
    }

    /** The catalog of a bundle in markdown. */
    public Catalog catalog(Request r) {
        return catalog(r, Format.MARKDOWN);
    }

    /** The assembled prompt for the selected skills (names, qualified names or {@code SKn} ids). */
    public synchronized Prompt prompt(Request r, List<String> select) {
        Snapshot s = current();
        return Selection.prompt(s, bundleOf(s, r), r.consumer(), contextOf(r), select);
    }

    /**
     * The skills the catalog shows, ranked for {@code message} (docs/routing.md): by words and
     * the artifact's built-in meaning when it carries it ({@code hybrid}), else by words.
     */
    public Route route(Request r, String message) {
        return route(r, message, null, null);
    }

    /**
     * The skills the catalog shows, ranked for {@code message}: at most {@code top} (null: the
     * workspace's {@code top_k}); by words and vectors ({@code hybrid}) when {@code queryVector},
     * the message's embedding from the artifact's {@code embedding_model}, is given. Without
     * one, an artifact carrying the meaning table of its model (the built-in one, {@code
     * static-minilm-v1}) makes the vector from the routed text, and the route is hybrid too.
     */
    public synchronized Route route(Request r, String message, Integer top, float[] queryVector) {
        Snapshot s = current();
        return Router.route(s, bundleOf(s, r), r.consumer(), contextOf(r), message, top, queryVector);
    }

    /**
     * {@link #route(Request, String, Integer, float[])} with the visitor's recent messages
     * ({@code history}, oldest first): a fragment of the conversation is routed joined to the
     * messages it continues, and the answer's {@code routedText} says so (docs/routing.md,
     * "Fragments"). {@code time} is the message's, in seconds (null: now).
     */
    public Route route(Request r, String message, Integer top, float[] queryVector, List<Fragments.Turn> history,
                       Double time) {
        String routed = history == null || history.isEmpty() ? null
            : Fragments.join(message, time != null ? time : System.currentTimeMillis() / 1000.0, history);
        if (routed == null) return route(r, message, top, queryVector);
        return route(r, routed, top, queryVector).joined(message, routed);
    }

    /** A text's words as this artifact's routing index holds them (its manifest's {@code routing_rules}). */
    public synchronized List<String> routeTokens(String text) {
        return Router.tokens(text, Router.Rules.of(current()));
    }

    /** Closes the file. */
    @Override
    public synchronized void close() {
        snap.close();
    }
}
