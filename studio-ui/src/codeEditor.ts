// CodeMirror 6 editors for a SKILL.md (markdown with YAML frontmatter) or its body alone, with
// the compiler's diagnostics as underlines and completion of the names a skill refers to.
import { EditorView, basicSetup } from "codemirror";
import { EditorState, type Extension } from "@codemirror/state";
import { markdown } from "@codemirror/lang-markdown";
import { yamlFrontmatter } from "@codemirror/lang-yaml";
import { setDiagnostics, lintGutter, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { autocompletion, type CompletionContext, type CompletionResult, type Completion } from "@codemirror/autocomplete";
import type { Diag } from "./api";

/** What completion offers; refreshed by the views as the workspace changes. */
export interface Vocabulary {
  skills: string[];
  categories: string[];
  clients: string[];
  locales: string[];
  tiers: string[];
  fields: string[];
  variables: string[];
  sources: [number, string, string][];
}

export const emptyVocabulary = (): Vocabulary => ({
  skills: [], categories: [], clients: [], locales: [], tiers: [], fields: [], variables: [], sources: [],
});

const SKILL_KEYS = ["dependencies", "augments", "blocks", "imports", "import", "variant_of", "next_skill"];

const options = (labels: string[], type: string): Completion[] => labels.map((label) => ({ label, type }));

/** The frontmatter key a line's value belongs to: its own key, or the key above a `- item`. */
function keyOf(doc: EditorState["doc"], lineNo: number): string | null {
  for (let n = lineNo; n >= 1; n--) {
    const text = doc.line(n).text;
    const m = /^([A-Za-z_][\w.-]*)\s*:/.exec(text);
    if (m) return m[1];
    if (n !== lineNo && !/^\s+|^-/.test(text)) return null;
  }
  return null;
}

function inFrontmatter(doc: EditorState["doc"], lineNo: number): boolean {
  if (doc.line(1).text.trim() !== "---") return false;
  for (let n = 2; n <= doc.lines; n++) if (doc.line(n).text.trim() === "---") return lineNo < n;
  return true;
}

function complete(vocab: () => Vocabulary, withFrontmatter: boolean) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const v = vocab();
    const variable = ctx.matchBefore(/\{\{\s*[\w.]*$/);
    if (variable) {
      const from = variable.from + variable.text.search(/[\w.]*$/);
      return { from, options: options(v.variables, "variable") };
    }
    const source = ctx.matchBefore(/\[\[S:\d*$/);
    if (source) {
      return {
        from: source.from + 4,
        options: v.sources.map(([sid, title, url]) => ({ label: String(sid), detail: title || url, type: "constant" })),
      };
    }
    const line = ctx.state.doc.lineAt(ctx.pos);
    if (!withFrontmatter || !inFrontmatter(ctx.state.doc, line.number)) return null;
    const before = line.text.slice(0, ctx.pos - line.from);
    if (/^[A-Za-z_][\w-]*$/.test(before) || before === "") {
      const word = ctx.matchBefore(/[\w-]*/);
      return { from: word ? word.from : ctx.pos, options: options(v.fields, "property") };
    }
    const key = keyOf(ctx.state.doc, line.number);
    const word = ctx.matchBefore(/[\w.-]*/);
    const from = word ? word.from : ctx.pos;
    if (key && SKILL_KEYS.includes(key)) return { from, options: options(v.skills, "function") };
    if (key === "category") return { from, options: options(v.categories, "keyword") };
    if (key === "tiers" || /\btier\b/.test(before)) return { from, options: options(v.tiers, "keyword") };
    if (/\blocale\b/.test(before)) return { from, options: options(v.locales, "keyword") };
    if (/\bclient\b/.test(before)) return { from, options: options(v.clients, "keyword") };
    return null;
  };
}

export interface CodeEditor {
  view: EditorView;
  text(): string;
  /** Replaces the whole text without reporting it as the user's edit. */
  setText(text: string): void;
  /** Shows another file's text: its own undo history comes back when it was open before in
   * this session with the same text (a save keeps it), else it starts without one. */
  load(text: string, key: string): void;
  /** Underlines diagnostics; `firstLine` is the file line of the editor's first line. */
  showDiagnostics(diags: Diag[], firstLine: number): void;
  jumpTo(line: number, column: number): void;
}

export function createEditor(
  parent: HTMLElement, kind: "source" | "body", vocab: () => Vocabulary, onChange: (text: string) => void,
): CodeEditor {
  let quiet = false;
  const language: Extension = kind === "source" ? yamlFrontmatter({ content: markdown() }) : markdown();
  const extensions: Extension[] = [
    basicSetup,
    language,
    lintGutter(),
    EditorView.lineWrapping,
    autocompletion({ override: [complete(vocab, kind === "source")] }),
    EditorView.updateListener.of((u) => { if (u.docChanged && !quiet) onChange(u.state.doc.toString()); }),
    EditorView.contentAttributes.of({ "aria-label": kind === "source" ? "SKILL.md source" : "Body", spellcheck: "false" }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc: "", extensions }) });
  /** Each file's last state (its text and undo history), by key. */
  const states = new Map<string, EditorState>();
  let current = "";
  // The window tests replace the text as typing does, through the view on its element.
  Object.assign(parent, { cm: view });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text: string) {
      if (text === view.state.doc.toString()) return;
      quiet = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      quiet = false;
    },
    load(text: string, key: string) {
      if (current) states.set(current, view.state);
      current = key;
      const kept = states.get(key);
      quiet = true;
      view.setState(kept && kept.doc.toString() === text ? kept : EditorState.create({ doc: text, extensions }));
      quiet = false;
    },
    showDiagnostics(diags: Diag[], firstLine: number) {
      const doc = view.state.doc;
      const marks: CmDiagnostic[] = [];
      for (const d of diags) {
        const n = d.line - firstLine + 1;
        if (n < 1 || n > doc.lines) continue;
        const line = doc.line(n);
        const from = Math.min(line.from + Math.max(0, d.column - 1), line.to);
        const to = from < line.to ? line.to : Math.min(from + 1, doc.length);
        marks.push({ from, to, severity: d.severity, message: `${d.code}: ${d.message}${d.help ? `\n${d.help}` : ""}` });
      }
      view.dispatch(setDiagnostics(view.state, marks));
    },
    jumpTo(line: number, column: number) {
      const doc = view.state.doc;
      const l = doc.line(Math.min(Math.max(1, line), doc.lines));
      const at = Math.min(l.from + Math.max(0, column - 1), l.to);
      view.dispatch({ selection: { anchor: at, head: l.to }, scrollIntoView: true });
      view.focus();
    },
  };
}
