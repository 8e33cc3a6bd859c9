// The Edit tab: a skill's frontmatter as a form, its body and its whole source in CodeMirror,
// the body rendered as markdown, live diagnostics, saves that never overwrite a change made on
// disk, and the relations panel.
import MarkdownIt from "markdown-it";
import { api, type Diag, type ExampleRoute, type FieldInfo, type FileState, type Json, type Parts, type Translations } from "../api";
import { fieldInput } from "./fieldInput";
import { byId, el } from "../dom";
import { createEditor, type CodeEditor, type Vocabulary } from "../codeEditor";
import { fail, say } from "../status";
import { Turns } from "../turns";
import { renderReach, renderRelations } from "./relations";
import { renderDefaultBeside, renderTranslations } from "./translations";

// Raw HTML in a body is shown as text, never run: the preview is of markdown only.
const md = new MarkdownIt({ html: false, linkify: false });

export interface EditorHooks {
  vocabulary(): Vocabulary;
  /** The skill's own completions (variables, sources) became known. */
  learn(variables: string[], sources: [number, string, string][]): void;
  open(file: string): void;
  saved(): Promise<void>;
  /** The skill's name and client (empty for every client), when the list knows the file. */
  describe(file: string): { name: string; client: string } | null;
  /** The fields the compiler knows, with their shapes and explanations. */
  fields(): FieldInfo[];
}

export class SkillEditor {
  file: string | null = null;
  dirty = false;
  private base: string | null = null;
  /** The text `base` is the hash of: what this editor and the disk last agreed on, the base
   * of a three-way merge when both change it. */
  private baseText = "";
  private text = "";
  private parts: Parts | null = null;
  private mode: "form" | "source" = "form";
  private checking = false;
  private checkAgain = false;
  private fieldEdits: Promise<void> = Promise.resolve();
  /** The last save asked for, written or not yet: the next one waits for it. */
  private writing: Promise<void> = Promise.resolve();
  /** Form inputs typed into but not yet applied (debounced), by field. */
  private pending = new Map<string, () => void>();
  /** The open skill's translations (when it is a skill or one of its translations). */
  private translations: Translations | null = null;
  /** The file the side panel shows the relations of. */
  private sideFile: string | null = null;
  /** Answers the question "save, discard or stay?" asked before leaving unsaved edits. */
  private leaving: ((go: boolean) => void) | null = null;
  /** A turn for each open asked: an open's answer is shown only if no later one was asked. */
  private readonly opening = new Turns();
  /** The last open whose read has answered: below the latest turn while one is on its way. */
  private settled = 0;
  private readonly body: CodeEditor;
  private readonly source: CodeEditor;

  constructor(private readonly hooks: EditorHooks) {
    const vocab = () => hooks.vocabulary();
    this.body = createEditor(byId("body"), "body", vocab, (b) => this.bodyChanged(b));
    this.source = createEditor(byId("source"), "source", vocab, (t) => { this.text = t; this.markDirty(); });
    byId("mode-form").addEventListener("click", () => this.setMode("form").catch(fail));
    byId("mode-source").addEventListener("click", () => this.setMode("source").catch(fail));
    byId("save").addEventListener("click", () => this.save().catch(fail));
    byId("discard-edits").addEventListener("click", () => this.askDiscard());
    byId("merge-both").addEventListener("click", () => this.mergeWithDisk().catch(fail));
    byId("keep-mine").addEventListener("click", () => this.save(true).catch(fail));
    byId("load-theirs").addEventListener("click", () => { if (this.file) this.open(this.file, true).catch(fail); });
    // Ctrl+S (Cmd+S on a Mac) saves the open skill wherever the focus is, as in any editor;
    // the window's own "save page" is never what a content person means here.
    document.addEventListener("keydown", (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== "s") return;
      e.preventDefault();
      if (this.hasUnsaved()) this.save().catch(fail);
    });
  }

  /** Whether the open file has edits not saved (typed a moment ago included). */
  hasUnsaved(): boolean {
    return this.file !== null && (this.dirty || this.pending.size > 0);
  }

  /** Saves the open skill's edits, if any (the preview's "Save and preview"). */
  async saveNow(): Promise<void> {
    if (this.hasUnsaved()) await this.save();
  }

  /** Whether the open skill may be left: at once without unsaved edits, else once the user
   * chose to save or discard them (staying answers no). */
  mayLeave(): Promise<boolean> {
    if (!this.dirty || !this.file) return Promise.resolve(true);
    this.leaving?.(false);
    const box = byId("leave");
    let resolve: (go: boolean) => void = () => undefined;
    const answer = new Promise<boolean>((r) => { resolve = r; });
    const mine = (go: boolean) => {
      // Only the question still asked hides the box (a newer one may have replaced it).
      if (this.leaving === mine) { box.hidden = true; this.leaving = null; }
      resolve(go);
    };
    this.leaving = mine;
    const choose = (go: boolean) => () => mine(go);
    box.replaceChildren(el("span", {}, el("b", {}, `${this.file} has unsaved changes.`), " Save them before you go?"),
      el("button", { id: "leave-save", class: "primary", onclick: () => {
        this.save().then(() => mine(!this.dirty)).catch(fail);
      } }, "Save"),
      el("button", { id: "leave-discard", onclick: choose(true) }, "Discard them"),
      el("button", { id: "leave-stay", onclick: choose(false) }, "Stay"));
    box.hidden = false;
    return answer;
  }

  /** "Discard…", then one confirmation: the file as saved comes back. */
  private askDiscard(): void {
    const box = byId("discard-box");
    const file = this.file;
    if (!file) return;
    const back = () => box.replaceChildren(el("button", { id: "discard-edits", class: "small", onclick: () => this.askDiscard() }, "Discard…"));
    box.replaceChildren("Lose them? ",
      el("button", { id: "discard-confirm", class: "small danger", onclick: () => {
        back();
        this.open(file, true).then(() => say("Edits discarded: the skill is as saved.")).catch(fail);
      } }, "Discard edits"),
      el("button", { class: "small", onclick: back }, "Keep"));
  }

  async open(file: string, force = false): Promise<boolean> {
    if (!force && file !== this.file && !(await this.mayLeave())) return false;
    // Two opens in flight (two quick clicks, or a reload from disk and a click): the last one
    // asked is the one shown, whichever file is read first.
    const ticket = this.opening.take();
    let f: FileState;
    try {
      f = await api.readFile(file);
    } finally {
      if (this.opening.isLatest(ticket)) this.settled = ticket;
    }
    if (!this.opening.isLatest(ticket)) return false;
    this.showTitle(file);
    this.file = file; this.base = f.hash; this.text = f.text; this.baseText = f.text;
    if (this.translations && !this.translations.locales.some((l) => l.file === file) && this.translations.default_file !== file) this.translations = null;
    byId("saved-reach").hidden = true;
    byId("history-panel").hidden = true;
    byId("beside-panel").hidden = true;
    this.setDirty(false);
    this.showConflict(false);
    byId("editor-empty").hidden = true; byId("editor").hidden = false;
    await this.render(true);
    this.scheduleCheck();
    this.loadRelations();
    return true;
  }

  /** The skill's name and whose it is first; its file beside, for those who need it. */
  private showTitle(file: string): void {
    const t = this.translations;
    const translation = t && t.open_locale && t.locales.some((l) => l.file === file) ? t : null;
    const d = this.hooks.describe(translation ? translation.default_file : file);
    const whose = translation ? ` · its ${translation.open_locale} translation`
      : !d ? "" : d.client ? ` · ${d.client}'s own skill` : " · every client";
    byId("editor-title").replaceChildren(d?.name ?? file, el("small", { class: "whose" }, whose), " ",
      el("small", { class: "tech" }, file));
  }

  /** Replaces the whole text as the person's own edit (unsaved, undoable): an earlier
   * version brought back from the history. */
  async useText(text: string): Promise<void> {
    // Through the source editor (hidden or not), so that its undo takes it back; the form
    // is then drawn from the new text.
    const view = this.source.view;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    await this.render();
  }

  close(): void {
    this.file = null; this.sideFile = null; this.setDirty(false);
    byId("editor").hidden = true; byId("editor-empty").hidden = false;
  }

  /** The file changed on disk: reload it, or show the conflict when there are unsaved edits. */
  async diskChanged(): Promise<void> {
    const file = this.file;
    // A skill asked for and on its way: the file shown is being left (or read again anyway).
    if (!file || this.settled !== this.opening.latest) return;
    const base = this.base, opens = this.opening.latest;
    const disk = await api.readFile(file);
    // Stale when, meanwhile, a skill was asked for (a click waiting for its own read) or this
    // one was saved: the read may be from before that, and a change on disk after it comes as
    // an event of its own. Reloading then would bring back a file no longer wanted.
    if (this.file !== file || this.base !== base || !this.opening.isLatest(opens) || disk.hash === base) return;
    if (this.dirty) this.showConflict(true);
    else await this.open(file, true);
  }

  /** Draws the side panel: a skill's relations and translations, or, for an open translation,
   * the default text beside it. After a save, also says whom the saved text reaches. */
  private loadRelations(saved = false): void {
    const file = this.file;
    if (!file) return;
    const open = (f: string) => this.hooks.open(f);
    const create = (locale: string) => {
      api.createTranslation(file, locale).then((f) => { say(`Started the ${locale} text from the default: translate it, then save.`, "good"); open(f); }).catch(fail);
    };
    const panel = byId("relations");
    // Another skill's panel goes at once: its buttons (create a translation, open a variant)
    // act on that skill, and on a big workspace this one's answer takes seconds.
    if (this.sideFile !== file) {
      panel.replaceChildren(el("p", { class: "empty" }, "Reading what this skill is tied to…"));
      this.sideFile = file;
    }
    const shown = (nodes: HTMLElement[]) => { if (this.file === file) panel.replaceChildren(...nodes); };
    api.translations(file).then(async (t) => {
      if (this.file !== file) return;
      this.translations = t;
      this.showTitle(file);
      const list = renderTranslations(t, open, create);
      // A translation is written beside its default text: the side panel widens to hold it,
      // and the form offers only what a translation holds.
      byId("relations-pane").classList.toggle("beside", !!t.open_locale);
      byId("side-title").textContent = t.open_locale ? "Translating" : "Relations";
      if (t.open_locale) {
        for (const id of ["rename", "delete", "save"]) byId(id).hidden = false;
        byId("read-only").hidden = true;
      }
      if (t.open_locale && this.pending.size === 0) this.renderForm();
      if (t.open_locale) {
        if (saved) this.noteSaved(el("b", {}, "Saved."));
        shown([await renderDefaultBeside(t), list]);
        return;
      }
      const r = await api.relations(file);
      if (this.file !== file) return;
      this.hooks.learn(r.variables, r.sources);
      // An outside repository's skill is changed, renamed, deleted and translated there, not
      // here: the buttons that would try are not offered (the panel says where it comes from).
      for (const id of ["rename", "delete", "save"]) byId(id).hidden = !!r.external;
      byId("read-only").hidden = !r.external;
      shown(r.external ? [renderRelations(r, open)] : [renderRelations(r, open), list]);
      if (saved) this.noteSaved(el("b", {}, "Saved. "), renderReach(r.reach, r.link, open));
    // An answer about a file no longer open (renamed, or left) says nothing of the open one.
    }).catch((e) => {
      if (saved && this.file === file) this.noteSaved(el("b", {}, "Saved."));
      shown([el("p", { class: "empty side-error" }, String(e.message ?? e))]);
    });
  }

  /** The note above the form about the last save (none: hidden). It is shown from the click
   * on: shown only once whom the save reaches is known (after the build, seconds later on a
   * big workspace), it moved the form down under a pointer already on its way elsewhere. */
  private noteSaved(...what: (string | HTMLElement)[]): void {
    const note = byId("saved-reach");
    note.replaceChildren(...what);
    note.hidden = what.length === 0;
  }

  /** After a build: a side panel left on an error (asked while the workspace was still being
   * opened or checked) is drawn again, so that it never stays empty of its buttons. */
  afterBuild(): void {
    if (this.file && byId("relations").querySelector(".side-error")) this.loadRelations();
  }

  private async setMode(mode: "form" | "source"): Promise<void> {
    this.mode = mode;
    await this.render();
  }

  /** Draws the open file; `opened`: it was just opened (each editor shows that file's text
   * with the undo history it had in this session, when it had one). */
  private async render(opened = false): Promise<void> {
    this.parts = await api.decompose(this.text);
    if (this.parts.error) this.mode = "source";
    byId("mode-form").classList.toggle("active", this.mode === "form");
    byId("mode-source").classList.toggle("active", this.mode === "source");
    byId("form").hidden = this.mode !== "form";
    byId("body-pane").hidden = this.mode !== "form";
    byId("source").hidden = this.mode !== "source";
    if (opened && this.file) {
      this.source.load(this.text, this.file);
      this.body.load(this.parts.body, this.file);
    } else {
      this.source.setText(this.text);
      this.body.setText(this.parts.body);
    }
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
    const translating = this.translating();
    this.shownFields().forEach(([key, value]) => form.append(this.fieldRow(key, value)));
    const present = new Set(parts.fields.map(([k]) => k));
    const translatable = ["description", "trigger_examples", "when_to_use"];
    const known = this.hooks.fields().filter((f) => !present.has(f.name) && (!translating || translatable.includes(f.name)));
    const select = el("select", { id: "add-field-name", "aria-label": "Field to add" },
      ...known.map((f) => el("option", { value: f.name, title: f.about }, `${f.name}: ${f.about}`)));
    form.append(el("div", { class: "add-field" }, select, el("button", {
      id: "add-field",
      onclick: () => {
        // The new field's row waits in the form; the first valid value writes it.
        if (!select.value || form.querySelector(`[data-field="${select.value}"]`)) return;
        const row = this.fieldRow(select.value, emptyOf(this.fieldInfo(select.value)));
        select.parentElement?.before(row);
        row.querySelector<HTMLElement>("input, textarea, select")?.focus();
      },
    }, "Add field")));
  }

  /** Whether the open file is a translation of a skill. */
  private translating(): boolean {
    return !!this.translations?.open_locale && this.translations.default_file !== this.file;
  }

  /** The fields the form shows: all, except a translation's `translated_from` mark, which is
   * the studio's to keep (set on every save). */
  private shownFields(): [string, Json][] {
    const all = this.parts && !this.parts.error ? this.parts.fields : [];
    return this.translating() ? all.filter(([key]) => key !== "translated_from") : all;
  }

  private fieldInfo(key: string): FieldInfo | undefined {
    return this.hooks.fields().find((f) => f.name === key);
  }

  private fieldRow(key: string, value: Json): HTMLElement {
    const info = this.fieldInfo(key);
    const vocab = this.hooks.vocabulary();
    let timer = 0;
    const apply = () => {
      clearTimeout(timer);
      this.pending.delete(key);
      const v = input.read();
      // A form redrawn for another text (a reload, another skill) drops what was typed in it;
      // a value not of the field's shape yet (half-typed JSON, an empty number) waits.
      row.classList.toggle("invalid", v === undefined);
      if (input.element.isConnected && v !== undefined) {
        row.dataset.written = "yes";
        this.editField(key, v);
      }
    };
    const changed = () => {
      clearTimeout(timer);
      this.pending.set(key, apply);
      timer = window.setTimeout(apply, 120);
    };
    const input = fieldInput(info, key, value, { skills: vocab.skills, categories: vocab.categories }, changed);
    input.element.dataset.field = key;
    const remove = el("button", { class: "icon", title: `Remove ${key}`, onclick: () => {
      if (row.dataset.written === "no") row.remove();
      else this.editField(key, undefined);
    } }, "×");
    const label = el("label", { title: info?.about ?? "" }, key, info ? el("small", { class: "about" }, info.about) : "");
    const row = el("div", { class: "field" }, label, input.element, remove);
    const inText = this.parts?.fields.some(([k]) => k === key) ?? false;
    row.dataset.written = inText ? "yes" : "no";
    return row;
  }

  /** One field changed in the form: the compiler's lossless edit touches only its lines. */
  private editField(key: string, value: Json | undefined): void {
    this.fieldEdits = this.fieldEdits.then(async () => {
      try {
        this.text = await api.setField(this.text, key, value);
        this.parts = await api.decompose(this.text);
        this.source.setText(this.text);
        const present = byId("form").querySelectorAll('.field[data-written="yes"]');
        // Adding or removing a field redraws the form; an edited field keeps its input (and focus).
        if (present.length !== this.shownFields().length) this.renderForm();
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
    // Said in its place rather than taken away: the form would move up under the pointer.
    if (!byId("saved-reach").hidden) this.noteSaved("Edited since the last save.");
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
          const checked = await api.checkDraft(file, this.text);
          if (file === this.file) {
            this.showDiagnostics(checked.diagnostics.filter((d) => d.file === file));
            this.showExampleRoutes(checked.examples);
          }
        } catch (e) { fail(e); }
      } while (this.checkAgain);
      this.checking = false;
    };
    run().catch(fail);
  }

  private showDiagnostics(all: Diag[]): void {
    // Portability notes (P…) matter only when the skills go to other tools: folded, and not
    // underlined in the text, so that names chosen on purpose do not read as mistakes.
    const mine = all.filter((d) => !d.code.startsWith("P"));
    const portability = all.filter((d) => d.code.startsWith("P"));
    const ul = byId("diagnostics");
    ul.replaceChildren();
    if (!mine.length) ul.append(el("li", { class: "ok" }, "No problems in this file."));
    const item = (d: Diag) => el("li", { class: d.severity, "data-line": d.line, onclick: () => this.jumpTo(d.line, d.column) },
      d.message, " ", el("small", { class: "tech" }, `line ${d.line} · ${d.severity} ${d.code}`),
      d.help ? el("div", { class: "help" }, d.help) : "");
    for (const d of mine) ul.append(item(d));
    if (portability.length) {
      ul.append(el("li", { class: "portability" }, el("details", {},
        el("summary", {}, `${portability.length} portability ${portability.length === 1 ? "note" : "notes"}: they matter only if these skills are used by other tools (agentskills.io)`),
        el("ul", {}, ...portability.map(item)))));
    }
    this.source.showDiagnostics(mine, 1);
    const headLines = this.parts && !this.parts.error ? this.parts.head.split("\n").length : 1;
    this.body.showDiagnostics(mine, headLines);
  }

  /** Where each trigger example goes first: a content person sees, while typing a
   *  description or an example, which examples another skill now takes. */
  private showExampleRoutes(routes: ExampleRoute[]): void {
    const section = byId("example-routes");
    section.hidden = routes.length === 0;
    const away = routes.filter((r) => !r.own).length;
    byId("example-routes").querySelector("h3")!.textContent = away
      ? `Where its trigger examples go: ${away} of ${routes.length} reach another skill or none`
      : `Where its trigger examples go: all ${routes.length} reach this skill first`;
    byId("example-route-list").replaceChildren(...routes.map((r) => {
      const where = r.own ? "reaches this skill first"
        : r.first === null ? "reaches no skill (every score is under the cut)"
        : `goes to ${r.first} first${r.pulled.length ? `, pulled by ${r.pulled.join(", ")}` : ""} (${(r.standing ?? "").replace(/`/g, "")})`;
      return el("li", {
        class: r.own ? "own" : "away",
        "data-line": r.line,
        title: r.line ? `line ${r.line}` : "",
        onclick: () => { if (r.line) void this.jumpTo(r.line, 1); },
      }, el("q", {}, r.example), " ", where);
    }));
  }

  /** Shows the open file's text at `line`, `column`. */
  async jumpTo(line: number, column: number): Promise<void> {
    if (this.mode !== "source") await this.setMode("source");
    this.source.jumpTo(line, column);
  }

  /** Saves the open text: over the version this editor last read or wrote, or, with
   * `overwrite` (the user chose "keep mine"), over whatever the disk holds. Saves are written
   * in the order asked: each waits for the one before it, so that it starts from the version
   * that one wrote and is not refused as a conflict with it (two saves a moment apart). */
  private save(overwrite = false): Promise<void> {
    // What was typed a moment ago is saved too.
    for (const apply of [...this.pending.values()]) apply();
    this.noteSaved(el("b", {}, "Saving…"));
    const written = this.writing.then(() => this.write(overwrite));
    this.writing = written.then(() => undefined, () => undefined);
    return written.then(async (saved) => {
      if (!saved) { this.noteSaved(); return; }
      this.noteSaved(el("b", {}, "Saved. "), "Whom it reaches is told once the workspace is built…");
      // The build and the preview first (what the user waits for), then whom the save reached.
      await this.hooks.saved();
      this.loadRelations(true);
    }, (e) => { this.noteSaved(); throw e; });
  }

  /** Writes the open text; whether it was written (not refused as a conflict). */
  private async write(overwrite: boolean): Promise<boolean> {
    await this.fieldEdits;
    if (!this.file) return false;
    // Saving a translation says it follows today's default text (no longer stale).
    const t = this.translations;
    let marked = false;
    if (t?.open_locale && t.locales.some((l) => l.file === this.file) && !this.parts?.error) {
      const text = await api.setField(this.text, "translated_from", t.digest);
      marked = text !== this.text;
      this.text = text;
      this.source.setText(this.text);
    }
    const r = await api.saveFile(this.file, this.text, overwrite ? null : this.base);
    if (r.status === "conflict") { this.showConflict(true); return false; }
    this.base = r.hash;
    this.baseText = this.text;
    this.setDirty(false);
    this.showConflict(false);
    // What was saved differs from what was last checked only by a translation's mark.
    if (marked) this.scheduleCheck();
    say("Saved", "good");
    return true;
  }

  /** A colleague's change on disk and the unsaved edits here, merged three-way from the text
   * both started from: by field, list item and paragraph. Where both changed one place, both
   * versions stay in the text, marked, and the source shows them. Nothing is written until
   * saved. */
  private async mergeWithDisk(): Promise<void> {
    const file = this.file;
    if (!file) return;
    for (const apply of [...this.pending.values()]) apply();
    await this.fieldEdits;
    const disk = await api.readFile(file);
    const m = await api.mergeTexts(file, this.baseText, this.text, disk.text);
    if (this.file !== file) return;
    this.base = disk.hash; this.baseText = disk.text; this.text = m.text;
    this.showConflict(false);
    await this.render(true);
    this.setDirty(true);
    this.scheduleCheck();
    if (!m.conflicts.length) {
      say("Merged: their change and yours are both here. Save to write them.", "good");
      return;
    }
    const places = m.conflicts.map((c) => `${c.place} (line ${c.line})`).join(", ");
    say(`Merged, but both of you changed ${places}: both versions are kept between <<<<<<< and >>>>>>> lines. Keep one, then save.`, "bad");
    await this.setMode("source");
  }

  private showConflict(shown: boolean): void {
    byId("conflict").hidden = !shown;
  }
}

/** The value a newly added field starts from, by its shape (written only once edited). */
function emptyOf(f: FieldInfo | undefined): Json {
  switch (f?.shape) {
    case "bool": return false;
    case "int": return "";
    case "names": case "texts": return [];
    case "map": return {};
    case "structured": return "";
    default: return "";
  }
}
