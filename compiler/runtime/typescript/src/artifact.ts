// Opening an artifact and loading what a request needs of it: the manifest, categories,
// consumers, and a bundle's skills with their catalog texts (schema: docs/artifact.md).
//
// The SQLite binding is sql.js, SQLite compiled to WebAssembly: it installs from the npm
// registry alone (no native build, no download at install time) and runs on any Node >= 18.
// It reads the whole file into memory, which is also what makes a swap safe: a file renamed
// over the path is read whole, never half of one and half of the other.

import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, type BigIntStats } from "node:fs";
import { inflateSync } from "node:zlib";
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from "sql.js";

import { compileCondition, type Compiled, type Condition, type Context } from "./context.js";
import { SignatureError, verifyBytes, type PublicKey } from "./signature.js";

/** The schema version this runtime reads (the one `skillc build` writes). */
export const SCHEMA_VERSION = 13;

/** The request names a bundle, consumer or skill that was not built (the CLI exits 1). */
export class RequestError extends Error {
  override name = "RequestError";
}

/** The file is missing, is not a skillc artifact, or has another schema version (exit 2). */
export class ArtifactError extends Error {
  override name = "ArtifactError";
}

/** Run-time fields of a skill (the `entry.record` JSON). */
export interface SkillRecord {
  resolved_file?: string;
  priority?: number;
  exclusive?: boolean;
  conditions?: Condition[];
  dependencies?: string[];
  augments?: string[];
  blocks?: string[];
  imports?: string[];
  cited?: number[];
  [field: string]: unknown;
}

/** A skill of a loaded bundle. */
export interface Skill {
  entry: number;
  name: string;
  qualifiedName: string;
  resolvedName: string;
  category: string;
  catalogVisible: boolean;
  alwaysOn: boolean;
  unavailable: string | null;
  promptPrefix: string;
  promptBody: boolean;
  promptSuffix: string;
  promptTokens: number;
  description: string;
  triggers: string[];
  card: number;
  /** The body's blob: its content hash's bytes (`entry.body`). */
  bodyHash: Uint8Array;
  body?: string;
  rawRecord: string;
  record?: SkillRecord;
  conditions?: Compiled[];
}

/** A category's texts, each with its token count. */
export interface Category {
  position: number;
  catalogHeader: [string, number];
  promptHeading: [string, number];
  uncertainty: [string, number];
}

/** A source of the pool. */
export interface SourceRef {
  sid: number;
  url: string;
  title: string;
}

/** A bundle's catalog texts of one stored format: card to (text, tokens). */
type CardTexts = Map<number, [string, number]>;

/** How many bundles an artifact keeps loaded unless told otherwise (`maxBundles`): a process
 * serving many clients would otherwise hold every bundle it ever loaded (about 7.5 MB each with
 * its routing index on the reference workload's 1,000-skill catalogs). */
export const DEFAULT_MAX_BUNDLES = 64;

/** A loaded bundle: its skills in catalog order and their indexes. */
export interface Bundle {
  id: number;
  client: string;
  locale: string;
  tier: string;
  level: string;
  skills: Skill[];
  byName: Map<string, number>;
  byQualified: Map<string, number>;
  /** Names (qualified and short) the build turned off for this bundle's client. */
  disabled: Set<string>;
  augmentedBy?: number[][];
  /** The catalog-visible skills with run-time conditions (what a catalog's outcome depends on). */
  conditional?: Skill[];
  fragments: Map<string, CardTexts>;
  /** Its catalogs, by consumer, format and the outcome of its skills' conditions. */
  catalogs: Map<string, unknown>;
}

interface BundleRow {
  id: number;
  client: string;
  locale: string;
  tier: string;
  base: number | null;
  level: string;
}

let sqlJs: Promise<SqlJsStatic> | undefined;

/** The SQLite engine, compiled once per process. */
/** The most clients an error names (a workspace of 500 clients named them all, 10 KB). */
export const CLIENTS_NAMED = 20;

/** The clients an error about `asked` names (`clients` sorted): all of them, or past
 * `CLIENTS_NAMED` the nearest to `asked` by edit distance (then by name), in name order, and
 * how many there are (the Rust runtime's `name_clients`). */
export function nameClients(asked: string, clients: string[]): string {
  if (clients.length <= CLIENTS_NAMED) return `clients: ${clients.join(", ")}`;
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const nearest = clients
    .map((c): [number, string] => [editDistance(asked, c), c])
    .sort((x, y) => x[0] - y[0] || byName(x[1], y[1]))
    .slice(0, CLIENTS_NAMED)
    .map(([, c]) => c)
    .sort(byName);
  return `clients (the ${CLIENTS_NAMED} nearest of ${clients.length}): ${nearest.join(", ")}`;
}

/** Levenshtein's distance between `a` and `b`, by characters (code points). */
function editDistance(a: string, b: string): number {
  const bs = Array.from(b);
  const row = Array.from({ length: bs.length + 1 }, (_, j) => j);
  let i = 0;
  for (const ca of a) {
    let diagonal = row[0];
    row[0] = ++i;
    for (let j = 0; j < bs.length; j++) {
      const substituted = diagonal + (ca === bs[j] ? 0 : 1);
      diagonal = row[j + 1];
      row[j + 1] = Math.min(substituted, row[j] + 1, diagonal + 1);
    }
  }
  return row[bs.length];
}

export function engine(): Promise<SqlJsStatic> {
  sqlJs ??= initSqlJs();
  return sqlJs;
}

/** The rows of a query as arrays. */
export function rows(db: Database, sql: string, params: Record<string, SqlValue> | SqlValue[] = []): SqlValue[][] {
  const st = db.prepare(sql);
  try {
    st.bind(params);
    const out: SqlValue[][] = [];
    while (st.step()) out.push(st.get());
    return out;
  } finally {
    st.free();
  }
}

/** What identifies a file: device, inode, size, modification time. */
function stamp(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
}

/** The stamp of the file a path names now, if any. */
export function stampOf(path: string): string | undefined {
  try {
    return stamp(statSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}

/** One opened version of the artifact file. */
export class Snapshot {
  readonly manifest: Map<string, string>;
  readonly categories: Map<string, Category>;
  readonly consumers: Map<string, Set<string>>;
  /** Loaded bundles, the least recently used first (a Map keeps the order of insertion). */
  readonly bundles = new Map<number, Bundle>();
  /** How many bundles are kept loaded at most (0: none); see `Artifact.maxBundles`. */
  maxBundles = DEFAULT_MAX_BUNDLES;
  private found = new Map<string, BundleRow>();
  private sources?: Map<number, [SourceRef, string, number]>;

  constructor(
    readonly path: string,
    readonly stamp: string,
    readonly db: Database,
    private readonly fd?: number,
  ) {
    const bad = (why: string) => new ArtifactError(`\`${path}\` is not a readable skillc artifact: ${why}`);
    let version: number;
    let tables: Set<string>;
    try {
      version = Number(rows(db, "PRAGMA user_version")[0][0]);
      tables = new Set(rows(db, "SELECT name FROM sqlite_schema WHERE type = 'table'").map((r) => String(r[0])));
    } catch (e) {
      throw bad((e as Error).message);
    }
    if (!tables.has("manifest")) throw bad("it has no manifest table (not built by skillc)");
    if (version !== SCHEMA_VERSION) {
      throw new ArtifactError(
        `\`${path}\` has schema version ${version}; this runtime reads version ${SCHEMA_VERSION} (rebuild it with a matching skillc)`,
      );
    }
    this.manifest = new Map(rows(db, "SELECT key, value FROM manifest").map(([k, v]) => [String(k), String(v)]));
    // Every answer reads these: an artifact without them is damaged, not a bad request.
    for (const key of ["schema_version", "default_locale", "default_tier", "locales", "tiers"]) {
      if (!this.manifest.has(key)) throw bad(`its manifest has no \`${key}\` (the file is damaged)`);
    }
    this.categories = new Map(
      rows(
        db,
        `SELECT id, position, catalog_header, catalog_header_tokens, prompt_heading,
                prompt_heading_tokens, uncertainty, uncertainty_tokens FROM category`,
      ).map((r) => [
        String(r[0]),
        {
          position: Number(r[1]),
          catalogHeader: [String(r[2]), Number(r[3])],
          promptHeading: [String(r[4]), Number(r[5])],
          uncertainty: [String(r[6]), Number(r[7])],
        },
      ]),
    );
    this.consumers = new Map(rows(db, "SELECT name FROM consumer").map((r) => [String(r[0]), new Set<string>()]));
    for (const [c, q] of rows(db, "SELECT consumer, qualified_name FROM consumer_hidden")) {
      const set = this.consumers.get(String(c)) ?? new Set<string>();
      set.add(String(q));
      this.consumers.set(String(c), set);
    }
  }

  /**
   * Reads and opens the file at `path`. The file stays open while the snapshot is in use: its
   * inode cannot be reused by a later file, so a stamp that differs always means a new file.
   */
  static load(SQL: SqlJsStatic, path: string, key?: PublicKey): Snapshot {
    let fd: number | undefined;
    let db: Database | undefined;
    try {
      // Non-blocking: an artifact that is a named pipe is refused, not waited on.
      fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
      const stats = fstatSync(fd, { bigint: true });
      if (!stats.isFile()) throw Object.assign(new Error("not a file"), { code: "EISDIR" });
      const bytes = readFileSync(fd);
      // The bytes checked are the bytes opened: a swap cannot slip in between.
      if (key !== undefined) verifyBytes(path, bytes, key);
      try {
        db = new SQL.Database(bytes);
      } catch (e) {
        throw new ArtifactError(`\`${path}\` is not a readable skillc artifact: ${(e as Error).message}`);
      }
      return new Snapshot(path, stamp(stats), db, fd);
    } catch (e) {
      db?.close();
      if (fd !== undefined) closeSync(fd);
      if (e instanceof ArtifactError || e instanceof SignatureError) throw e;
      const err = e as NodeJS.ErrnoException;
      const what = err.code === "ENOENT" ? "it does not exist" : err.code === "EISDIR" ? "it is not a file" : err.message;
      throw new ArtifactError(`cannot open artifact \`${path}\`: ${what}`);
    }
  }

  close(): void {
    this.db.close();
    if (this.fd !== undefined) closeSync(this.fd);
  }

  get defaultLocale(): string {
    return this.manifest.get("default_locale") ?? "";
  }

  get defaultTier(): string {
    return this.manifest.get("default_tier") ?? "";
  }

  /** The qualified names a consumer's catalogs leave out; undefined for no consumer. */
  hiddenFor(consumer: string | null | undefined): Set<string> | undefined {
    if (consumer === null || consumer === undefined) return undefined;
    const hidden = this.consumers.get(consumer);
    if (hidden) return hidden;
    const names = [...this.consumers.keys()].sort();
    throw new RequestError(
      names.length === 0
        ? `unknown consumer \`${consumer}\`: this artifact declares no consumers`
        : `unknown consumer \`${consumer}\`; consumers: ${names.join(", ")}`,
    );
  }

  private bundleRow(r: SqlValue[]): BundleRow {
    return {
      id: Number(r[0]),
      client: String(r[1]),
      locale: String(r[2]),
      tier: String(r[3]),
      base: r[4] === null ? null : Number(r[4]),
      level: String(r[5]),
    };
  }

  /** The bundle's row, or the request error naming what exists. */
  findBundle(client: string, locale: string, tier: string): BundleRow {
    const key = JSON.stringify([client, locale, tier]);
    const cached = this.found.get(key);
    if (cached) return cached;
    const columns = "SELECT id, client, locale, tier, base, catalog_level FROM bundle";
    const hit = rows(this.db, `${columns} WHERE client = ? AND locale = ? AND tier = ?`, [client, locale, tier]);
    if (hit.length > 0) {
      const row = this.bundleRow(hit[0]);
      this.found.set(key, row);
      return row;
    }
    const all = rows(this.db, `${columns} ORDER BY id`).map((r) => this.bundleRow(r));
    const ofClient = all.filter((b) => b.client === client);
    const list = (f: (b: BundleRow) => string) => [...new Set(ofClient.map(f))].sort().join(", ");
    const who = client === "" ? "the global bundle" : `client \`${client}\``;
    if (ofClient.length === 0) {
      const clients = [...new Set(all.map((b) => b.client).filter((c) => c !== ""))].sort();
      throw new RequestError(`unknown client \`${client}\`; ${nameClients(client, clients)}`);
    }
    if (!ofClient.some((b) => b.locale === locale)) {
      throw new RequestError(`no bundle for locale \`${locale}\` of ${who}; its locales: ${list((b) => b.locale)}`);
    }
    throw new RequestError(`no bundle for tier \`${tier}\` of ${who}; its tiers: ${list((b) => b.tier)}`);
  }

  /** The names a bundle's slots leave out with a `disabled: …` reason (stored `code: words`). */
  private disabledNames(slots: Map<unknown, unknown[]>): Set<string> {
    const disabled = new Set<string>();
    for (const [name, slot] of slots) {
      if ((slot[0] ?? null) !== null || slot[1] === undefined) continue;
      const text = String(rows(this.db, "SELECT text FROM reason WHERE id = ?", [Number(slot[1])])[0][0]);
      if (!text.startsWith("disabled: ")) continue;
      const q = String(rows(this.db, "SELECT qualified_name FROM name WHERE id = ?", [Number(name)])[0][0]);
      disabled.add(q).add(q.slice(q.lastIndexOf(".") + 1));
    }
    return disabled;
  }

  /** Lets go of the least recently used bundles beyond `maxBundles`. */
  trim(): void {
    for (const id of this.bundles.keys()) {
      if (this.bundles.size <= Math.max(this.maxBundles, 0)) break;
      this.bundles.delete(id);
    }
  }

  /** Lets go of a bundle; its next request loads it again. */
  unload(client: string, locale: string, tier: string): void {
    this.bundles.delete(this.findBundle(client, locale, tier).id);
  }

  /** A bundle, loaded once while it is kept: its own slots over its base's, the entries they name. */
  bundle(client: string, locale: string, tier: string): Bundle {
    const info = this.findBundle(client, locale, tier);
    const loaded = this.bundles.get(info.id);
    if (loaded) {
      this.bundles.delete(info.id); // to the end: the most recently used
      this.bundles.set(info.id, loaded);
      return loaded;
    }
    const slots = new Map<unknown, unknown[]>();
    for (const id of info.base === null ? [info.id] : [info.base, info.id]) {
      const sql = "SELECT l.slots FROM bundle b JOIN slot_list l ON l.id = b.slots WHERE b.id = ?";
      const packed = JSON.parse(String(rows(this.db, sql, [id])[0][0])) as unknown[][];
      for (const slot of packed) slots.set(slot[0], slot.slice(1));
    }
    const wanted = [...slots.values()].map((s) => s[0] ?? null).filter((e) => e !== null);
    // `[name, entry, 1]`: the bundle also finds the entry by its plain name (the build decided).
    const plain = new Set(
      [...slots.values()].filter((s) => (s[0] ?? null) !== null && s[1] === 1).map((s) => s[0]),
    );
    const disabled = this.disabledNames(slots);
    const skills: [string, Skill][] = rows(
      this.db,
      `SELECT e.name, e.qualified_name, e.resolved_name, e.category, e.sort_key,
              e.catalog_visible, e.always_on, e.unavailable, e.prompt_prefix, e.prompt_body,
              e.prompt_suffix, e.prompt_tokens, e.record, c.description, c.triggers, e.body,
              e.card, e.id
       FROM entry e JOIN card c ON c.id = e.card
       WHERE e.id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(wanted)],
    ).map((r) => [
      String(r[4]),
      {
        name: String(r[0]),
        qualifiedName: String(r[1]),
        resolvedName: String(r[2]),
        category: String(r[3]),
        catalogVisible: Boolean(r[5]),
        alwaysOn: Boolean(r[6]),
        unavailable: r[7] === null ? null : String(r[7]),
        promptPrefix: String(r[8]),
        promptBody: Boolean(r[9]),
        promptSuffix: String(r[10]),
        promptTokens: Number(r[11]),
        rawRecord: String(r[12]),
        description: String(r[13]),
        triggers: JSON.parse(String(r[14])) as string[],
        bodyHash: r[15] instanceof Uint8Array ? r[15] : new Uint8Array(),
        card: Number(r[16]),
        entry: Number(r[17]),
      },
    ]);
    skills.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const list = skills.map(([, s]) => s);
    const byQualified = new Map(list.map((s, i) => [s.qualifiedName, i]));
    const byName = new Map(byQualified);
    list.forEach((s, i) => {
      if (!byName.has(s.name)) byName.set(s.name, i);
    });
    list.forEach((s, i) => {
      if (plain.has(s.entry)) byName.set(s.name.slice(s.name.indexOf(":") + 1), i);
    });
    const bundle: Bundle = {
      ...info,
      skills: list,
      byName,
      byQualified,
      disabled,
      fragments: new Map(),
      catalogs: new Map(),
    };
    this.bundles.set(info.id, bundle);
    this.trim();
    return bundle;
  }

  /** A bundle's catalog texts in one stored format, at its budget level (else the full text). */
  cardTexts(bundle: Bundle, format: string): CardTexts {
    const cached = bundle.fragments.get(format);
    if (cached) return cached;
    const texts: CardTexts = new Map();
    const cards = [...new Set(bundle.skills.map((s) => s.card))].sort((a, b) => a - b);
    for (const [card, level, text, tokens] of rows(
      this.db,
      `SELECT f.card, f.level, f.text, f.tokens FROM card_fragment f
       WHERE f.format = ? AND f.level IN ('', ?) AND f.card IN (SELECT value FROM json_each(?))`,
      [format, bundle.level, JSON.stringify(cards)],
    )) {
      if (String(level) === bundle.level || !texts.has(Number(card))) {
        texts.set(Number(card), [String(text), Number(tokens)]);
      }
    }
    bundle.fragments.set(format, texts);
    return texts;
  }

  /** A skill's run-time fields, parsed on first use. */
  record(s: Skill): SkillRecord {
    s.record ??= JSON.parse(s.rawRecord) as SkillRecord;
    return s.record;
  }

  /** Whether every run-time condition of a skill holds (records without any are not parsed). */
  conditionsHold(s: Skill, ctx: Context): boolean {
    if (s.conditions === undefined) {
      s.conditions = s.rawRecord.includes('"conditions"')
        ? (this.record(s).conditions ?? []).map(compileCondition)
        : [];
    }
    return s.conditions.every((c) => c(ctx));
  }

  /** A skill's body, read and inflated on first use. */
  body(s: Skill): string {
    if (s.body !== undefined) return s.body;
    const row = rows(this.db, "SELECT encoding, data FROM blob WHERE hash = ?", [s.bodyHash])[0];
    if (!row) throw new ArtifactError(`\`${this.path}\` is not a readable skillc artifact: the body of \`${s.name}\` is missing`);
    const data = row[1] as Uint8Array;
    const encoding = String(row[0]);
    let bytes: Uint8Array;
    if (encoding === "identity") bytes = data;
    else if (encoding === "zlib") bytes = inflateSync(data);
    else throw new ArtifactError(`\`${this.path}\` is not a readable skillc artifact: unknown blob encoding \`${encoding}\``);
    s.body = Buffer.from(bytes).toString("utf8");
    return s.body;
  }

  /** The sources pool: sid to (reference, prompt fragment, tokens). */
  sourcePool(): Map<number, [SourceRef, string, number]> {
    this.sources ??= new Map(
      rows(this.db, "SELECT sid, url, title, fragment, tokens FROM source").map((r) => [
        Number(r[0]),
        [{ sid: Number(r[0]), url: String(r[1]), title: String(r[2]) }, String(r[3]), Number(r[4])],
      ]),
    );
    return this.sources;
  }
}
