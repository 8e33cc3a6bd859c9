// The only module that talks to the Rust backend: typed wrappers of its commands.
import { invoke as invokeTauri } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";

export interface Diag {
  severity: "error" | "warning";
  code: string;
  file: string;
  line: number;
  column: number;
  message: string;
  help: string | null;
  /** A content-safety finding's level; absent for other codes. */
  safety?: "low" | "medium" | "high" | "critical" | null;
}

/** Where one trigger example of the skill being edited goes first (leave-one-out). */
export interface ExampleRoute {
  example: string;
  line: number;
  first: string | null;
  own: boolean;
  pulled: string[];
  standing: string | null;
}

/** A draft's check: its diagnostics and where its skill's examples go. */
export interface DraftCheck {
  diagnostics: Diag[];
  examples: ExampleRoute[];
}

export interface SkillRow {
  file: string;
  name: string;
  namespace: string;
  category: string;
  client: string;
  description: string;
}

export interface Overview {
  root: string;
  skills: SkillRow[];
  clients: string[];
  locales: string[];
  tiers: string[];
  consumers: string[];
  categories: string[];
  fields: FieldInfo[];
  /** The check's errors (warnings are counted). */
  diagnostics: Diag[];
  warnings: number;
}

export interface FileState { file: string; text: string; hash: string }

/** A place both sides changed: both versions are kept in the text, between markers. */
export interface MergeConflict { place: string; line: number; base: string; ours: string; theirs: string }
export interface Merged { text: string; conflicts: MergeConflict[] }
export type Saved = { status: "saved"; hash: string } | { status: "conflict"; disk: FileState };

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Parts {
  fields: [string, Json][];
  head: string;
  body: string;
  error: string | null;
}

export interface Link { name: string; file: string | null; client: string }
export interface Composition { dependencies: Link[]; augments: Link[]; blocks: Link[]; imports: Link[] }
export interface Relations {
  link: Link;
  qualified_name: string;
  variant_of: Link | null;
  variants: { link: Link; when: string[]; priority: number }[];
  overridden_by: Link[];
  overrides: Link | null;
  toggled_by: { client: string; enabled: boolean }[];
  uses: Composition;
  used_by: Composition;
  hidden_by: string[];
  locales: string[];
  missing_locales: string[];
  variables: string[];
  sources: [number, string, string][];
  reach: Reach;
  /** The Claude Code plugin it comes from (its skills are named `<plugin>:<skill>`). */
  plugin: { name: string; version: string | null; description: string | null; author: string | null; manifest: string } | null;
  /** The outside repository it was brought in from (`external:` in workspace.yaml). */
  external: { git: string; rev: string; path: string; into: string; trust: boolean; commit: string | null } | null;
}

/** Who an edit of a skill reaches (`studio/src/relations/reach.rs`). */
export interface Reach {
  clients: number;
  /** Clients that get this text in every bundle they have. */
  getting: number;
  global: boolean;
  own_version: Link[];
  turned_off: string[];
  replaced_when: { link: Link; when: string[]; priority: number }[];
  /** Clients that get this text in some bundles and another text in the others. */
  partly: ClientShare[];
  /** Clients that never get this text (a variant, or the base, takes its place). */
  instead: ClientShare[];
  /** Run-time conditions of this text, in words. */
  conditions: string[];
}
/** What one client's visitors get, text by text, and where (`always`, `in tier fast`, …). */
export interface ClientShare { client: string; shares: { text: Link; this: boolean; place: string }[] }

/** One character per cell: T/t toggled on/off, E/e default_enabled on/off, D on by default, - absent. */
export interface Toggles { clients: string[]; skills: string[]; categories: string[]; cells: string[] }
export interface ToggleChange { client: string; skill: string; value: boolean | null }
/** What the toggles view is filtered by, as typed (`studio/src/session/bulk.rs`). */
export interface ToggleFilter { clients: string; skills: string; category: string }
/** The rows and columns a filter keeps, by index. */
export interface Selection { clients: number[]; skills: number[] }
/** A bulk edit to confirm: the toggles that change, how many per client, cells already so. */
export interface BulkPlan { changes: ToggleChange[]; clients: [string, number][]; unchanged: number }
/** A toggle edit written: client files changed, and the number that undoes it byte for byte. */
export interface Applied { files: number; undo: number }

export interface BuildSummary {
  written: boolean; errors: number; warnings: number; diagnostics: Diag[]; bundles: number; bytes: number;
  release: string | null;
}

export interface PreviewRequest {
  client: string; locale: string; tier: string; consumer: string; page_url: string; turn: string;
  selected: string[]; format: string; context: [string, string][];
  /** A visitor's message to route (empty: none). */
  message: string;
  /** The digest of the catalog the page shows: the answer leaves it out if unchanged. */
  known_catalog: string;
  /** The visitor's earlier messages, oldest first: [text, seconds before `message`]. */
  history: [string, number][];
}
export interface BudgetMeter {
  tokens: number; chars: number; budget: number | null; level: string; cut: string | null;
  /** What each client tool the workspace declares under `targets:` lists of the catalog. */
  targets: TargetMeter[];
}
/** A client tool's listing of a catalog, against its character budget. */
export interface TargetMeter {
  target: string;
  skills: number;
  /** Characters of names and descriptions, each description as the tool cuts it. */
  listed: number;
  budget: { total: number; per_description: number | null; source: string } | null;
  /** Descriptions past the tool's cut: [skill, characters]. */
  cut: [string, number][];
  /** About how many descriptions it leaves out to fit. */
  dropped: number;
}
export interface CatalogSkill {
  id: string; name: string; qualified_name: string; category: string; description: string; triggers: string[];
  /** The Claude Code plugin it comes from, when it is a plugin's skill. */
  plugin?: { name: string; version: string | null; description: string | null; author: string | null };
}
export interface Preview {
  /** Without its text and skills when `catalog_kept` (the request's `known_catalog`). */
  catalog: { client: string | null; locale: string; tier: string; skills: CatalogSkill[]; text: string; tokens: number };
  catalog_digest: string;
  catalog_kept: boolean;
  prompt: {
    skills: { name: string; resolved: string; reason: string }[];
    removed: { name: string; reason: string }[];
    sources: { sid: number; url: string; title: string | null }[];
    text: string;
    tokens: number;
  };
  skill_tokens: Record<string, number>;
  budget: BudgetMeter;
  /** The route of the request's message, when it has one, with the settings it was cut by. */
  route: Route | null;
  routing: { top_k: number; min_score: number; hybrid_min_score: number; confident: number };
}

/** `skillc route --format json`. */
export interface Route {
  message: string; client: string | null; locale: string; tier: string; consumer: string | null;
  method: string; confident: boolean;
  /** What was routed instead of the message: a follow-up joined to the messages before it. */
  routed_text?: string;
  candidates: { id: string; name: string; qualified_name: string; score: number; matched: string[] }[];
}

export interface BundleDiff {
  client: string; locale: string; tier: string;
  added: string[]; removed: string[]; changed: { name: string; fields: string[] }[]; catalogs: string[];
}
export interface Diff { added_bundles: string[]; removed_bundles: string[]; bundles: BundleDiff[]; unchanged: number }

/** A skill file's change as a document: fields from what to what, paragraphs gone and new. */
export interface DocChange { fields: { key: string; before: string | null; after: string | null }[]; removed: string[]; added: string[] }
/** A client's version or a variant beside the shared skill it stands in for. */
export interface Beside { shared_name: string; shared_file: string; kind: "variant" | "client"; when: string[]; change: DocChange | null }
/** A commit that changed the workspace: a release. */
export interface Release { commit: string; author: string; date: string; message: string }
/** One commit that changed a file: who, when, its message, and what it changed. */
export interface Version { commit: string; author: string; date: string; message: string; path: string; change: DocChange | null }
export interface FileChange { path: string; status: "added" | "changed" | "removed"; diff: string; document: DocChange | null }
export interface ImpactGroup { change: string; count: number; clients: [string, number][]; bundles: string[] }
export interface NewWarning { code: string; file: string; line: number; message: string }
export interface Impact { groups: ImpactGroup[]; changed: number; unchanged: number; problem: string | null; new_warnings: NewWarning[] }
export interface FailingCase { name: string; file: string; line: number; failures: string[] }
/** What stands in the way of publishing: the build's errors and the failing test cases. */
export interface Blockers { errors: Diag[]; failing_cases: FailingCase[]; findings: Diag[] }
export interface Review { not_a_repository: string | null; head: string | null; files: FileChange[]; impact: Impact; token: string; blockers: Blockers }

export interface CaseRequest {
  client: string | null; locale: string | null; tier: string | null; consumer: string | null;
  context: [string, string][]; select: string[];
  message: string | null;
  /** Earlier messages: [text, seconds before the message]. */
  history: [string, number][];
}
export interface Outcome { case: { name: string; file: string; line: number; request: CaseRequest }; failures: string[] }
export interface TestRun { outcomes: Outcome[]; problems: Diag[] }

/** Messages that should reach `expected` and reached `got` first (`null`: no skill). */
export interface Confusion { expected: string; got: string | null; count: number; examples: string[] }

/** `skillc eval`'s figures of one bundle. */
export interface BundleEval {
  client: string | null; locale: string; tier: string; positives: number; negatives: number;
  recall_at_1: number; recall_at_k: number; mrr: number; false_fire: number;
  confusions: Confusion[]; k: number; examples: number; cases: number;
}

/** The Routing view: figures per bundle, and the examples that route elsewhere (W119). */
export interface RoutingView { bundles: BundleEval[]; clients: number; elsewhere: Diag[] }

/** A frontmatter field the compiler knows: how its value is written and what it is for. */
export interface FieldInfo {
  name: string;
  shape: "text" | "bool" | "int" | "name" | "names" | "texts" | "words" | "map" | "structured";
  portable: boolean;
  shared: boolean;
  about: string;
}

/** A skill's translations: each of the workspace's other locales and its state. */
export interface Translations {
  name: string; default_file: string; default_locale: string; digest: string;
  /** Each other locale; `serving`: the clients whose visitors are served it. */
  locales: {
    locale: string; file: string; state: "untranslated" | "current" | "stale" | "unmarked" | "missing"; serving: string[];
  }[];
  open_locale: string | null;
}

/** The workspace's settings page (workspace.yaml), as the compiler reads it. */
export interface WorkspacePage {
  file: string; locales: string[]; default_locale: string;
  tiers: { name: string; catalog_token_budget: number | null }[];
  /** Client tools declared under `targets:`, and every one skillc knows. */
  targets: string[]; known_targets: string[];
  /** `targets:` written as a list of names: an edit writes the whole list. */
  targets_as_list: boolean;
  /** Each routing key: as written (null: the default) and its default in words. */
  routing: { key: string; written: Json | null; default: string }[];
  consumers: string[];
  /** What is wrong in workspace.yaml. */
  diagnostics: Diag[];
}

/** A client's page: its settings as the compiler reads them. */
export interface ClientPage {
  client: string; file: string; locales: string[] | null; tiers: string[] | null;
  all_locales: string[]; all_tiers: string[]; flags: Json;
  vars: { section: string; name: string; value: string | null }[];
  toggles: [string, boolean][]; own_skills: [string, string][];
  variants: { name: string; file: string; variant_of: string; when: string[]; applies: boolean }[];
}

/** A skill to create: where the studio puts it follows from its client and category. */
export interface NewSkill { name: string; client: string | null; category: string; description: string; trigger_examples: string[] }

/** Something deleted or discarded, restorable until it is published. */
export interface Trashed { id: string; path: string; label: string }

/** An error from a command: its kind, message and the diagnostics that explain it. */
export interface StudioError { kind: string; message: string; diagnostics: Diag[] }

export function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (e && typeof e === "object" && "message" in e) return String((e as { message: unknown }).message);
  return JSON.stringify(e);
}

/** The last commands run, with when each started and ended (performance.now, ms): what the
 * benchmark reads to say where a save's time goes. */
export const trace: [string, number, number][] = [];
(window as unknown as { __studioTrace: typeof trace }).__studioTrace = trace;

function invoke<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  const start = performance.now();
  const done = () => {
    trace.push([cmd, start, performance.now()]);
    if (trace.length > 200) trace.shift();
  };
  const p = invokeTauri<T>(cmd, args);
  p.then(done, done);
  return p;
}

export const api = {
  openWorkspace: (path: string) => invoke<Overview>("open_workspace", { path }),
  overview: () => invoke<Overview>("overview"),
  readFile: (file: string) => invoke<FileState>("read_file", { file }),
  checkDraft: (file: string, text: string) => invoke<DraftCheck>("check_draft", { file, text }),
  saveFile: (file: string, text: string, base: string | null) => invoke<Saved>("save_file", { file, text, base }),
  mergeTexts: (file: string, base: string, mine: string, theirs: string) =>
    invoke<Merged>("merge_texts", { file, base, mine, theirs }),
  decompose: (text: string) => invoke<Parts>("decompose", { text }),
  setField: (text: string, field: string, value: Json | undefined) =>
    invoke<string>("set_field", { text, field, value: value === undefined ? null : value }),
  relations: (file: string) => invoke<Relations>("relations", { file }),
  translations: (file: string) => invoke<Translations>("translations", { file }),
  createTranslation: (file: string, locale: string) => invoke<string>("create_translation", { file, locale }),
  createSkill: (skill: NewSkill) => invoke<string>("create_skill", { skill }),
  renameSkill: (file: string, name: string) => invoke<string>("rename_skill", { file, name }),
  deleteSkill: (file: string) => invoke<Trashed>("delete_skill", { file }),
  removed: () => invoke<Trashed[]>("removed"),
  restore: (id: string) => invoke<string>("restore", { id }),
  discard: (file: string) => invoke<void>("discard", { file }),
  exportPackage: (file: string) => invoke<string>("export_package", { file }),
  importPackage: (path: string) => invoke<string>("import_package", { path }),
  clientPage: (client: string) => invoke<ClientPage>("client_page", { client }),
  setClientValue: (client: string, path: string[], value: Json | undefined) =>
    invoke<ClientPage>("set_client_value", { client, path, value: value === undefined ? null : value }),
  besideShared: (file: string) => invoke<Beside | null>("beside_shared", { file }),
  releases: () => invoke<Release[]>("releases"),
  compareReleases: (old: string, neu: string) => invoke<Diff>("compare_releases", { old, new: neu }),
  rollBack: (commit: string) => invoke<void>("roll_back", { commit }),
  fileHistory: (file: string) => invoke<Version[]>("file_history", { file }),
  versionText: (file: string, commit: string) => invoke<string>("version_text", { file, commit }),
  workspacePage: () => invoke<WorkspacePage>("workspace_page"),
  setWorkspaceValue: (path: string[], value: Json | undefined) =>
    invoke<WorkspacePage>("set_workspace_value", { path, value: value === undefined ? null : value }),
  toggles: () => invoke<Toggles>("toggles"),
  setToggles: (changes: ToggleChange[]) => invoke<Applied>("set_toggles", { changes }),
  undoToggles: (undo: number) => invoke<number>("undo_toggles", { undo }),
  selectToggles: (filter: ToggleFilter) => invoke<Selection>("select_toggles", { filter }),
  planToggles: (filter: ToggleFilter, value: boolean | null) => invoke<BulkPlan>("plan_toggles", { filter, value }),
  casesBrokenSince: (before: string[]) => invoke<Outcome[]>("cases_broken_since", { before }),
  build: () => invoke<BuildSummary>("build"),
  preview: (request: PreviewRequest) => invoke<Preview>("preview", { request }),
  diff: () => invoke<Diff>("diff"),
  review: () => invoke<Review>("review"),
  testCases: () => invoke<TestRun>("test_cases"),
  routing: () => invoke<RoutingView>("routing"),
  saveRouteCase: (request: PreviewRequest, name: string, routesTo: string[]) =>
    invoke<string>("save_route_case", { request, name, routesTo }),
  publish: (token: string, files: string[], message: string, anyway: string | null) => invoke<string>("publish", { token, files, message, anyway }),
  on: <T>(event: string, handler: (payload: T) => void) => listen<T>(event, (e) => handler(e.payload)),
};
