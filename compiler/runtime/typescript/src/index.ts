// skillc-runtime for TypeScript: catalogs, prompts and routes from a skillc artifact, read-only.
//
//   const artifact = await Artifact.open("out.db");
//   const catalog = artifact.catalog({ client: "example.com", context: { page_url: "/en-gb/x" } });
//   const prompt = artifact.prompt({ client: "example.com", select: ["SK1", "pricing"] });
//
// The same answers as the Rust runtime (catalog texts, SK ids, reasons, sources, tokens); CI
// compares them on every parity request. A new artifact renamed over the path is served from
// the next call on (one stat a call).

import { DEFAULT_MAX_BUNDLES, engine, Snapshot, stampOf } from "./artifact.js";
import { readPublicKey, signaturePath, type PublicKey } from "./signature.js";
import { catalog, prompt, type Catalog, type Format, type Prompt } from "./answer.js";
import { contextFromObject, type Context } from "./context.js";
import { meaningOf } from "./meaning.js";
import { heldByIndex, route, routeTokens, routingRules, speltForMeaning, type Route } from "./route.js";
import { gloss, glossaryOf } from "./glossary.js";
import { routedText, withRoutedText, type Turn } from "./history.js";
import type { SqlJsStatic } from "sql.js";

export { ArtifactError, DEFAULT_MAX_BUNDLES, RequestError, SCHEMA_VERSION } from "./artifact.js";
export { SignatureError, signaturePath } from "./signature.js";
export type { SourceRef } from "./artifact.js";
export { removalWords } from "./answer.js";
export type { Catalog, CatalogSkill, Format, Prompt, PromptSkill, Removed } from "./answer.js";
export { ContextError, contextFromObject, contextFromPairs } from "./context.js";
export type { Context } from "./context.js";
export { routeTokens, type RoutingRules } from "./route.js";
export type { Candidate, Route } from "./route.js";
export { fragmentSignals, joinFragment } from "./history.js";
export type { Turn } from "./history.js";

/** Which bundle, for which consumer, in which context. Omitted: global, defaults, none. */
export interface Request {
  client?: string | null;
  locale?: string | null;
  tier?: string | null;
  consumer?: string | null;
  /** `{page_url, turn, <skill>_availability, any key}`, or a parsed [`Context`]. */
  context?: Record<string, string | number | boolean> | Context;
}

function toContext(c: Request["context"]): Context {
  if (c && c.availability instanceof Map && c.values instanceof Map) return c as Context;
  return contextFromObject(c as Record<string, string | number | boolean> | undefined);
}

/** An opened artifact that follows its path. */
export class Artifact {
  private snap: Snapshot;
  private refusedStamp?: string;
  private refusedWhy?: string;

  /** The stamps of the file and, with a key, of its signature, when `snap` was loaded. */
  private stamps: string;

  private constructor(
    private readonly SQL: SqlJsStatic,
    readonly path: string,
    private readonly key: PublicKey | undefined,
    private kept: number,
  ) {
    // Taken before loading: a swap in between is seen, and loaded, by the next call.
    this.stamps = this.stampsNow() ?? "";
    this.snap = Snapshot.load(SQL, path, key);
    this.snap.maxBundles = kept;
  }

  /**
   * How many bundles this artifact keeps loaded at most (0: none; 64 unless `open` was told
   * otherwise). Setting it lets go of the least recently used beyond it now; a bundle let go
   * is loaded again on its next request.
   */
  get maxBundles(): number {
    return this.kept;
  }

  set maxBundles(n: number) {
    this.kept = n;
    this.snap.maxBundles = n;
    this.snap.trim();
  }

  /** Lets go of what this artifact keeps of a bundle; a later request loads it again. */
  unload(r: Request = {}): void {
    const snap = this.current();
    snap.unload(r.client ?? "", r.locale ?? snap.defaultLocale, r.tier ?? snap.defaultTier);
  }

  /**
   * Opens the artifact at `path` (throws ArtifactError when it cannot be read). With
   * `publicKey` (a minisign `.pub` file's path, its text or its key line), only an artifact
   * whose signature `path.minisig` verifies is served, on open and on every swap (throws
   * SignatureError on open; a swap that fails is `refused`). `maxBundles`: how many bundles
   * it keeps loaded at most (64 by default; see the getter).
   */
  static async open(path: string, options: { publicKey?: string; maxBundles?: number } = {}): Promise<Artifact> {
    const key = options.publicKey === undefined ? undefined : readPublicKey(options.publicKey);
    return new Artifact(await engine(), path, key, options.maxBundles ?? DEFAULT_MAX_BUNDLES);
  }

  /** What identifies the files now: the artifact's stamp, and its signature's with a key. */
  private stampsNow(): string | undefined {
    const file = stampOf(this.path);
    if (file === undefined || this.key === undefined) return file;
    return `${file}|${stampOf(signaturePath(this.path)) ?? "none"}`;
  }

  /**
   * The snapshot to answer from: the one open when the file at the path is the same, else the
   * new file. A new file that cannot be opened (or, with a key, whose signature does not
   * verify), or a path that names nothing, leaves the previous snapshot in service (see
   * `refused`).
   */
  private current(): Snapshot {
    const now = this.stampsNow();
    if (now === undefined || now === this.stamps || now === this.refusedStamp) return this.snap;
    try {
      const next = Snapshot.load(this.SQL, this.path, this.key);
      next.maxBundles = this.kept;
      this.snap.close();
      this.snap = next;
      this.stamps = now;
      this.refusedStamp = this.refusedWhy = undefined;
    } catch (e) {
      this.refusedStamp = now;
      this.refusedWhy = (e as Error).message;
    }
    return this.snap;
  }

  /** Why the file now at the path is not served, when it could not be opened. */
  get refused(): string | undefined {
    this.current();
    return this.refusedWhy;
  }

  /** The label of `skillc build --release-label`, or null. */
  get release(): string | null {
    return this.current().manifest.get("release") ?? null;
  }

  /** A manifest value. */
  manifest(key: string): string | undefined {
    return this.current().manifest.get(key);
  }

  private bundleOf(snap: Snapshot, r: Request) {
    return snap.bundle(r.client ?? "", r.locale ?? snap.defaultLocale, r.tier ?? snap.defaultTier);
  }

  /** The catalog of a bundle (markdown unless a format is given). */
  catalog(r: Request & { format?: Format } = {}): Catalog {
    const snap = this.current();
    const ctx = toContext(r.context);
    return catalog(snap, this.bundleOf(snap, r), r.consumer ?? null, ctx, r.format ?? "markdown");
  }

  /** The assembled prompt for the selected skills (names, qualified names or `SKn` ids). */
  prompt(r: Request & { select: string[] }): Prompt {
    const snap = this.current();
    const ctx = toContext(r.context);
    return prompt(snap, this.bundleOf(snap, r), r.consumer ?? null, ctx, r.select);
  }

  /** The skills the catalog shows, ranked for `message` (docs/routing.md); by words and
   * vectors (`hybrid`) when `queryVector` (the message's embedding from the artifact's model)
   * is given, or else when the artifact carries its model's meaning table (the built-in
   * model), which makes the vector of the routed text.
   * With `history` (the visitor's recent messages, oldest first, `{text, time}` in seconds), a
   * fragment is routed joined to the messages it continues and `routed_text` says so;
   * `time` is the message's (now by default). */
  route(r: Request & { message: string; top?: number; queryVector?: number[]; history?: Turn[]; time?: number }): Route {
    const routed = routedText(r.message, r.history, r.time);
    const snap = this.current();
    const ctx = toContext(r.context);
    const bundle = this.bundleOf(snap, r);
    const text = routed ?? r.message;
    // Its words in other languages read in English, for its words and meaning alike.
    const words = glossaryOf(snap);
    const read = (words && gloss(words, text, (w) => heldByIndex(snap, bundle, w))) ?? text;
    // Without a vector of the caller's, the artifact's built-in meaning makes one (hybrid).
    const meaning = r.queryVector === undefined ? meaningOf(snap) : null;
    const spelt = meaning ? speltForMeaning(snap, bundle, read, (p) => meaning.row(p)) : undefined;
    const vector = r.queryVector ?? meaning?.vector(spelt ?? read);
    const answer = { ...route(snap, bundle, r.consumer ?? null, ctx, read, r.top, vector), message: text };
    return routed === undefined ? answer : withRoutedText(answer, r.message, routed);
  }

  /** A text's words as this artifact's routing index holds them (its manifest's
   * `routing_rules`: stopwords, suffixes). */
  routeTokens(text: string): string[] {
    return routeTokens(text, routingRules(this.current()));
  }

  /** Closes the file's database. */
  close(): void {
    this.snap.close();
  }
}
