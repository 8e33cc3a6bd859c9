// The Edit tab: a skill's frontmatter as a form, its body and its whole source in CodeMirror,
// the body rendered as markdown, live diagnostics, saves that never overwrite a change made on
// disk, and the relations panel.
import MarkdownIt from "markdown-it";
import { api, type Diag, type Json, type Parts } from "../api";
import { byId, el } from "../dom";
import { createEditor, type CodeEditor, type Vocabulary } from "../codeEditor";
import { fail, say } from "../status";
import { renderReach, renderRelations } from "./relations";

// Raw HTML in a body is shown as text, never run: the preview is of markdown only.
const md = new MarkdownIt({ html: false, linkify: false });

export interface EditorHooks {
  vocabulary(): Vocabulary;
  /** The skill's own completions (variables, sources) became known. */
  learn(variables: string[], sources: [number, string, string][]): void;
  open(file: string): void;
  saved(): Promise<void>;
}

type FieldKind = "bool" | "number" | "list" | "string" | "json";

export class SkillEditor {
  file: string | null = null;
  dirty = false;
  private base: string | null = null;
  private text = "";
  private parts: Parts | null = null;
  private mode: "form" | "source" = "form";
  private checking = false;
  private checkAgain = false;
  private fieldEdits: Promise<void> = Promise.resolve();
  /** Form inputs typed into but not yet applied (debounced), by field. */
  private pending = new Map<string, () => void>();
  private discardArmed = 0;
  private discardWarnings = 0;
  private readonly body: CodeEditor;
  private readonly source: CodeEditor;

  constructor(private readonly hooks: EditorHooks) {
    const vocab = () => hooks.vocabulary();
    this.body = createEditor(byId("body"), "body", vocab, (b) => this.bodyChanged(b));
    this.source = createEditor(byId("source"), "source", vocab, (t) => { this.text = t; this.markDirty(); });
    byId("mode-form").addEventListener("click", () => this.setMode("form").catch(fail));
    byId("mode-source").addEventListener("click", () => this.setMode("source").catch(fail));
    byId("save").addEventListener("click", () => this.save(this.base).catch(fail));
    byId("keep-mine").addEventListener("click", () => this.save(null).catch(fail));
    byId("load-theirs").addEventListener("click", () => { if (this.file) this.open(this.file, true).catch(fail); });
    // Ctrl+S (Cmd+S on a Mac) saves the open skill wherever the focus is, as in any editor;
    // the window's own "save page" is never what a content person means here.
    document.addEventListener("keydown", (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== "s") return;
      e.preventDefault();
      if (this.file && this.dirty) this.save(this.base).catch(fail);
    });
  }

  /** Saves the open skill's edits, if any (the preview's "Save and preview"). */
  async saveNow(): Promise<void> {
    if (this.file && this.dirty) await this.save(this.base);
  }

  /** Whether unsaved edits may be dropped: the first call warns, a second within 10 s agrees. */
  confirmDiscard(): boolean {
    if (!this.dirty || this.discardArmed) { this.discardArmed = 0; return true; }
    const warning = this.discardArmed = ++this.discardWarnings;
    say("Unsaved edits: save them, or click again to discard.", "bad");
    setTimeout(() => { if (this.discardArmed === warning) this.discardArmed = 0; }, 10000);
    return false;
  }

  async open(file: string, force = false): Promise<boolean> {
    if (!force && file !== this.file && !this.confirmDiscard()) return false;
    const f = await api.readFile(file);
    this.file = file; this.base = f.hash; this.text = f.text;
    byId("saved-reach").hidden = true;
    this.setDirty(false);
    this.showConflict(false);
    byId("editor-empty").hidden = true; byId("editor").hidden = false;
    byId("editor-title").textContent = file;
    await this.render();
    this.scheduleCheck();
    this.loadRelations();
    return true;
  }

  close(): void {
    this.file = null; this.setDirty(false);
    byId("editor").hidden = true; byId("editor-empty").hidden = false;
  }

  /** The file changed on disk: reload it, or show the conflict when there are unsaved edits. */
  async diskChanged(): Promise<void> {
    if (!this.file) return;
    const disk = await api.readFile(this.file);
    if (disk.hash === this.base) return;
    if (this.dirty) this.showConflict(true);
    else await this.open(this.file, true);
  }

  /** Draws the relations panel; after a save, also says whom the saved text reaches. */
  private loadRelations(saved = false): void {
    const file = this.file;
    if (!file) return;
    api.relations(file).then((r) => {
      if (this.file !== file) return;
      this.hooks.learn(r.variables, r.sources);
      const open = (f: string) => this.hooks.open(f);
      byId("relations").replaceChildren(renderRelations(r, open));
      if (saved) {
        const note = byId("saved-reach");
        note.replaceChildren(el("b", {}, "Saved. "), renderReach(r.reach, r.link, open));
        note.hidden = false;
      }
    }).catch((e) => byId("relations").replaceChildren(el("p", { class: "empty" }, String(e.message ?? e))));
  }

  private async setMode(mode: "form" | "source"): Promise<void> {
    this.mode = mode;
    await this.render();
  }

  private async render(): Promise<void> {
    this.parts = await api.decompose(this.text);
    if (this.parts.error) this.mode = "source";
    byId("mode-form").classList.toggle("active", this.mode === "form");
    byId("mode-source").classList.toggle("active", this.mode === "source");
    byId("form").hidden = this.mode !== "form";
    byId("body-pane").hidden = this.mode !== "form";
    byId("source").hidden = this.mode !== "source";
    this.source.setText(this.text);
    this.body.setText(this.parts.body);
    this.renderBodyPreview(this.parts.body);
    this.renderForm();
  }

  private renderBodyPreview(body: string): void {
    byId("body-preview").innerHTML = md.render(body);
  }

  private renderForm(): void {
    this.pending.clear();
    const form = byId("form");
    form.replaceChildren();
    const parts = this.parts;
    if (!parts || parts.error) return;
    parts.fields.forEach(([key, value]) => form.append(this.fieldRow(key, value)));
    const present = new Set(parts.fields.map(([k]) => k));
    const known = this.hooks.vocabulary().fields.filter((k) => !present.has(k));
    const select = el("select", { id: "add-field-name", "aria-label": "Field to add" }, ...known.map((k) => el("option", {}, k)));
    form.append(el("div", { class: "add-field" }, select, el("button", {
      onclick: () => this.editField(select.value, ""),
    }, "Add field")));
  }

  private fieldRow(key: string, value: Json): HTMLElement {
    const kind: FieldKind = typeof value === "boolean" ? "bool" : typeof value === "number" ? "number"
      : Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null) ? "list"
      : typeof value === "string" ? "string" : "json";
    let input: HTMLInputElement | HTMLTextAreaElement;
    if (kind === "bool") {
      input = el("input", { type: "checkbox" });
      (input as HTMLInputElement).checked = value as boolean;
    } else if (kind === "number") {
      input = el("input", { type: "number", value: String(value) });
    } else if (kind === "string" && (key === "description" || (value as string).includes("\n"))) {
      input = el("textarea", { rows: 3 }); input.value = value as string;
    } else if (kind === "string") {
      input = el("input", { value: value as string });
    } else if (kind === "list") {
      input = el("textarea", { rows: Math.max(2, (value as Json[]).length), title: "One item per line" });
      input.value = (value as Json[]).join("\n");
    } else {
      input = el("textarea", { rows: 4, class: "json", title: "JSON (any YAML value)" });
      input.value = JSON.stringify(value, null, 2);
    }
    input.dataset.field = key;
    let timer = 0;
    const apply = () => {
      clearTimeout(timer);
      this.pending.delete(key);
      // A form redrawn for another text (a reload, another skill) drops what was typed in it.
      if (input.isConnected) this.editField(key, readInput(input, kind));
    };
    const changed = () => {
      clearTimeout(timer);
      this.pending.set(key, apply);
      timer = window.setTimeout(apply, 120);
    };
    input.addEventListener("input", changed);
    input.addEventListener("change", changed);
    const remove = el("button", { class: "icon", title: `Remove ${key}`, onclick: () => this.editField(key, undefined) }, "×");
    return el("div", { class: "field" }, el("label", {}, key), input, remove);
  }

  /** One field changed in the form: the compiler's lossless edit touches only its lines. */
  private editField(key: string, value: Json | undefined): void {
    this.fieldEdits = this.fieldEdits.then(async () => {
      try {
        this.text = await api.setField(this.text, key, value);
        this.parts = await api.decompose(this.text);
        this.source.setText(this.text);
        const present = [...byId("form").querySelectorAll<HTMLElement>("[data-field]")].map((e) => e.dataset.field);
        // Adding or removing a field redraws the form; an edited field keeps its input (and focus).
        if (present.length !== this.parts.fields.length) this.renderForm();
        this.markDirty();
      } catch (e) {
        fail(e);
      }
    });
  }

  private bodyChanged(body: string): void {
    if (!this.parts || this.parts.error) return;
    this.parts.body = body;
    this.text = this.parts.head + body;
    this.source.setText(this.text);
    this.renderBodyPreview(body);
    this.markDirty();
  }

  private setDirty(dirty: boolean): void {
    this.dirty = dirty;
    byId("dirty").hidden = !dirty;
  }

  private markDirty(): void {
    this.setDirty(true);
    byId("saved-reach").hidden = true;
    this.scheduleCheck();
  }

  /** Checks the text now, or, while a check runs, once more when it ends: diagnostics follow
   *  each keystroke as fast as the check runs, and a burst of typing costs two checks, not one
   *  per key. */
  private scheduleCheck(): void {
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    const run = async (): Promise<void> => {
      do {
        this.checkAgain = false;
        const file = this.file;
        if (!file) break;
        try {
          const diags = await api.checkDraft(file, this.text);
          if (file === this.file) this.showDiagnostics(diags.filter((d) => d.file === file));
        } catch (e) { fail(e); }
      } while (this.checkAgain);
      this.checking = false;
    };
    run().catch(fail);
  }

  private showDiagnostics(mine: Diag[]): void {
    const ul = byId("diagnostics");
    ul.replaceChildren();
    if (!mine.length) ul.append(el("li", { class: "ok" }, "No problems in this file."));
    for (const d of mine) {
      ul.append(el("li", { class: d.severity, "data-line": d.line, onclick: () => this.jumpTo(d.line, d.column) },
        el("b", {}, `${d.severity}[${d.code}]`), ` ${d.line}:${d.column} `, d.message,
        d.help ? el("div", { class: "help" }, d.help) : ""));
    }
    this.source.showDiagnostics(mine, 1);
    const headLines = this.parts && !this.parts.error ? this.parts.head.split("\n").length : 1;
    this.body.showDiagnostics(mine, headLines);
  }

  /** Shows the open file's text at `line`, `column`. */
  async jumpTo(line: number, column: number): Promise<void> {
    if (this.mode !== "source") await this.setMode("source");
    this.source.jumpTo(line, column);
  }

  private async save(base: string | null): Promise<void> {
    if (!this.file) return;
    // What was typed a moment ago is saved too.
    for (const apply of [...this.pending.values()]) apply();
    await this.fieldEdits;
    const r = await api.saveFile(this.file, this.text, base);
    if (r.status === "conflict") { this.showConflict(true); return; }
    this.base = r.hash;
    this.setDirty(false);
    this.showConflict(false);
    say("Saved", "good");
    this.loadRelations(true);
    await this.hooks.saved();
  }

  private showConflict(shown: boolean): void {
    byId("conflict").hidden = !shown;
  }
}

function readInput(input: HTMLInputElement | HTMLTextAreaElement, kind: FieldKind): Json {
  switch (kind) {
    case "bool": return (input as HTMLInputElement).checked;
    case "number": return input.value === "" ? null : Number(input.value);
    case "list": return input.value.split("\n").map((s) => s.trim()).filter(Boolean);
    case "json": try { return JSON.parse(input.value) as Json; } catch { return input.value; }
    default: return input.value;
  }
}
