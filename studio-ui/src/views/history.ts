// The open file's history: each commit that changed it (who, when, its message) with what it
// changed, read as Review reads a change, and "Bring back this version": the old text goes
// into the editor as an unsaved edit, saved, reviewed and published like any other (undo
// takes it back).
import { api, type Version } from "../api";
import { byId, el } from "../dom";
import { fail, say } from "../status";
import { documentView } from "./review";

export interface HistoryHooks {
  /** The file open in the editor, if any. */
  file(): string | null;
  /** Puts `text` into the editor as the person's own edit. */
  useText(text: string): Promise<void>;
}

const when = (date: string) => date.replace("T", " ").replace(/:\d\d([+-]\d\d:\d\d|Z)$/, "");

export class HistoryPanel {
  constructor(private readonly hooks: HistoryHooks) {
    byId("history").addEventListener("click", () => this.toggle().catch(fail));
  }

  /** Hides the panel (another file was opened). */
  close(): void {
    byId("history-panel").hidden = true;
  }

  private async toggle(): Promise<void> {
    const panel = byId("history-panel");
    const file = this.hooks.file();
    if (!panel.hidden || !file) { panel.hidden = true; return; }
    panel.hidden = false;
    panel.replaceChildren(el("p", { class: "hint" }, "Reading its history…"));
    const versions = await api.fileHistory(file);
    // Another skill opened meanwhile: this history is not its (and would bring back into it a
    // version of another file).
    if (this.hooks.file() !== file) return;
    panel.replaceChildren(el("h3", {}, "History ", el("small", { class: "tech" }, file)),
      ...(versions.length ? versions.map((v, k) => this.version(file, v, k === 0))
        : [el("p", { class: "empty" }, "No history: the workspace is not in git, or this file was never published.")]));
  }

  private version(file: string, v: Version, newest: boolean): HTMLElement {
    const what = el("details", { class: "history-change" }, el("summary", {}, "What it changed"),
      ...(v.change ? documentView(v.change) : [el("p", { class: "empty" }, "Not a readable SKILL.md on one side.")]));
    const back = newest ? el("small", {}, " · the last published version") : el("button", {
      class: "small", "data-bring-back": v.commit,
      onclick: () => api.versionText(file, v.commit).then(async (text) => {
        if (this.hooks.file() !== file) return;
        await this.hooks.useText(text);
        say(`The text of ${v.commit.slice(0, 7)} is in the editor: save it to keep it, or undo.`, "good");
      }).catch(fail),
    }, "Bring back this version");
    return el("div", { class: "history-version", "data-commit": v.commit },
      el("p", {}, el("b", {}, v.message), el("br", {}),
        el("small", {}, `${when(v.date)} · ${v.author} · ${v.commit.slice(0, 7)}`), " ", back), what);
  }
}
