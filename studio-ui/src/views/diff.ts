// The Diff tab: what changed for each client, language and plan, between the last two builds
// or between any two releases (each published commit, built from its own files), and rolling
// the workspace back to a release as unpublished changes for Review.
import { api, errorText, type Diff, type Release } from "../api";
import { byId, el } from "../dom";
import { fail, say } from "../status";
import { Turns } from "../turns";

/** What the Diff tab asks of the rest of the window. */
export const diffHooks = {
  /** Files changed on disk by a roll back: the workspace is read and built again. */
  changed: (): void => undefined,
};

/** The comparison as lines a person reads. */
function diffText(d: Diff): string {
  const lines: string[] = [];
  for (const b of d.added_bundles) lines.push(`+ new version: ${b}`);
  for (const b of d.removed_bundles) lines.push(`- version no longer built: ${b}`);
  for (const b of d.bundles) {
    lines.push(`${b.client || "no client (global)"}, ${b.locale}, ${b.tier}`);
    for (const s of b.added) lines.push(`  + ${s}`);
    for (const s of b.removed) lines.push(`  - ${s}`);
    for (const s of b.changed) lines.push(`  ~ ${s.name}: ${s.fields.join(", ")}`);
    if (b.catalogs.length) lines.push(`  catalogs changed: ${b.catalogs.join(", ")}`);
  }
  lines.push(`${d.bundles.length} versions changed (client, language, plan), ${d.unchanged} unchanged`);
  return lines.join("\n");
}

const BUILDS = "";
const label = (r: Release) => `${r.commit.slice(0, 7)} · ${r.date.slice(0, 10)} · ${r.message}`;

/** Fills the release choices, keeping what was chosen. */
async function fillReleases(): Promise<Release[]> {
  const releases = await api.releases();
  byId("rl-controls").hidden = releases.length === 0;
  for (const [id, first] of [["rl-old", "the build before the last"], ["rl-new", "the last build"]] as const) {
    const sel = byId<HTMLSelectElement>(id);
    const old = sel.value;
    sel.replaceChildren(el("option", { value: BUILDS }, first), ...releases.map((r) => el("option", { value: r.commit }, label(r))));
    if ([...sel.options].some((o) => o.value === old)) sel.value = old;
  }
  return releases;
}

/** A turn for each diff asked for: only the last one asked is drawn (comparing two releases
 * takes seconds, and a comparison asked before must not replace the one chosen since). */
const diffs = new Turns();

/** The diff of the last two builds, unless another diff was asked for meanwhile. */
async function showBuilds(): Promise<void> {
  await diffs.drawLatest(() => api.diff(), (d) => { byId("diff").textContent = diffText(d); });
}

async function compare(): Promise<void> {
  const [old, neu] = [byId<HTMLSelectElement>("rl-old").value, byId<HTMLSelectElement>("rl-new").value];
  byId("rl-note").textContent = "";
  if (old === BUILDS || neu === BUILDS) {
    if (old !== neu) byId("rl-note").textContent = "Choose two releases, or leave both on the builds.";
    await showBuilds();
    return;
  }
  const turn = diffs.take();
  byId("diff").textContent = "Building both releases from their own files…";
  const d = await api.compareReleases(old, neu);
  if (!diffs.isLatest(turn)) return;
  byId("diff").textContent = diffText(d);
  byId("rl-note").textContent = `From ${old.slice(0, 7)} to ${neu.slice(0, 7)}.`;
}

/** Asks in the page (no window dialog), then rolls back. */
function rollBack(): void {
  const commit = byId<HTMLSelectElement>("rl-old").value;
  if (commit === BUILDS) { say("Choose the release to go back to under From.", "bad"); return; }
  const go = el("button", { id: "rl-roll-back-yes", class: "primary", onclick: () => {
    api.rollBack(commit).then(() => {
      byId("rl-note").textContent = `The workspace is back to ${commit.slice(0, 7)}: Review & publish shows the changes.`;
      diffHooks.changed();
    }).catch(fail);
  } }, "Roll back");
  const cancel = el("button", { onclick: () => { byId("rl-note").textContent = ""; } }, "Cancel");
  byId("rl-note").replaceChildren(`Put every file of the workspace back as release ${commit.slice(0, 7)} has them? ` +
    "Nothing is published until you do so in Review & publish. ", go, " ", cancel);
}

let wired = false;

export async function showDiff(): Promise<void> {
  if (!wired) {
    wired = true;
    byId("rl-compare").addEventListener("click", () => compare().catch((e) => { byId("diff").textContent = errorText(e); }));
    byId("rl-roll-back").addEventListener("click", rollBack);
  }
  try {
    await fillReleases();
    const chosen = byId<HTMLSelectElement>("rl-old").value !== BUILDS && byId<HTMLSelectElement>("rl-new").value !== BUILDS;
    if (!chosen) await showBuilds();
  } catch (e) {
    byId("diff").textContent = errorText(e);
  }
}
