// The Diff tab: what changed for each client, language and plan between the last two builds.
import { api, errorText } from "../api";
import { byId } from "../dom";

export async function showDiff(): Promise<void> {
  try {
    const d = await api.diff();
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
    byId("diff").textContent = lines.join("\n");
  } catch (e) {
    byId("diff").textContent = errorText(e);
  }
}
