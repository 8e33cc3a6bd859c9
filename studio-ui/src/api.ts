// The only module that talks to the Rust backend: typed wrappers of its commands.
import { invoke as invokeTauri } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";

// The types the commands take and answer are generated from the Rust ones (ts-rs, see
// studio/src/contract.rs) into generated/types.ts: none is declared here by hand. The command
// wrappers below stay hand-written (a name and its arguments each).
import type {
  RenamePlan,
  Applied, Beside, BundleEval, BuildSummary, BulkPlan, ClientPage, Diff, DraftCheck, FileState, JsonValue, Merged, NewSkill,
  Outcome, Overview, Parts, Preview, PreviewRequest, Relations, Release, Review, RoutingView, Saved, Selection,
  TestRun, ToggleChange, ToggleFilter, Toggles, Translations, Trashed, Version, WorkspacePage,
} from "./generated/types";
export type * from "./generated/types";

/** A JSON value, as a field's or a setting's value is sent and received. */
export type Json = JsonValue;

export function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (e && typeof e === "object" && "message" in e) return String((e as { message: unknown }).message);
  return JSON.stringify(e);
}

/** The last commands run, with when each started and ended (performance.now, ms): what the
 * benchmark reads to say where a save's time goes. */
export const trace: [string, number, number][] = [];
(window as unknown as { __studioTrace: typeof trace }).__studioTrace = trace;

/** Answers held back on purpose, in ms, by command (`read_file`) or by command and the file
 * or client it is about (`read_file:public/a/SKILL.md`, `client_page:acme.com`); and each
 * command held so far. Empty in use: the end-to-end tests set it to see what the page does
 * while an answer is on its way (a busy machine). */
export const late = { ms: {} as Record<string, number>, held: [] as string[] };
(window as unknown as { __studioLate: typeof late }).__studioLate = late;

function invoke<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  const start = performance.now();
  const done = () => {
    trace.push([cmd, start, performance.now()]);
    if (trace.length > 200) trace.shift();
  };
  const what = args?.file ?? args?.client;
  const key = typeof what === "string" ? `${cmd}:${what}` : cmd;
  const wait = late.ms[key] ?? late.ms[cmd];
  if (wait) late.held.push(key);
  const asked = invokeTauri<T>(cmd, args);
  const p = wait ? asked.then((v) => new Promise<T>((r) => setTimeout(() => r(v), wait))) : asked;
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
  renamePlan: (file: string, name: string) => invoke<RenamePlan>("rename_plan", { file, name }),
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
  routingClients: (from: number, count: number) => invoke<BundleEval[]>("routing_clients", { from, count }),
  saveRouteCase: (request: PreviewRequest, name: string, routesTo: string[]) =>
    invoke<string>("save_route_case", { request, name, routesTo }),
  publish: (token: string, files: string[], message: string, anyway: string | null) => invoke<string>("publish", { token, files, message, anyway }),
  on: <T>(event: string, handler: (payload: T) => void) => listen<T>(event, (e) => handler(e.payload)),
};
