// "Beside the shared one": a client's own version of a skill, or a variant, read against the
// shared skill it stands in for: what it changes (fields before and after, paragraphs that go
// and come) and, for a variant, when it is used, in words.
import { api } from "../api";
import { byId, el } from "../dom";
import { fail } from "../status";
import { documentView } from "./review";

export class BesidePanel {
  constructor(private readonly file: () => string | null, private readonly open: (file: string) => void) {
    byId("beside").addEventListener("click", () => this.toggle().catch(fail));
  }

  private async toggle(): Promise<void> {
    const panel = byId("beside-panel");
    const file = this.file();
    if (!panel.hidden || !file) { panel.hidden = true; return; }
    panel.hidden = false;
    const b = await api.besideShared(file);
    if (this.file() !== file) return;  // another skill opened meanwhile
    if (!b) {
      panel.replaceChildren(el("p", { class: "empty" },
        "This skill stands in for no other: it is not a client's own version or a variant of a shared skill."));
      return;
    }
    const shared = el("a", { href: "#", "data-open": b.shared_file, onclick: (e: Event) => { e.preventDefault(); this.open(b.shared_file); } }, b.shared_name);
    const used = b.kind === "variant"
      ? (b.when.length ? `Used instead of it where all of these hold: ${b.when.join("; ")}.` : "A variant with no conditions: used wherever it is built.")
      : "Its client gets this text instead of the shared one.";
    panel.replaceChildren(el("h3", {}, "Beside ", shared, " ", el("small", { class: "tech" }, b.shared_file)),
      el("p", { id: "beside-when" }, used),
      el("p", { class: "hint" }, "Before: the shared text; after: this one."),
      ...(b.change ? documentView(b.change) : [el("p", { class: "empty" }, "One of the two is not a readable SKILL.md.")]));
  }
}
