// "New skill": asks what a content person knows (its name, who it is for, its category, what
// it does and what visitors say that should pick it) and the studio puts it where the
// workspace's layout expects it.
import { api, type Overview } from "../api";
import { el } from "../dom";
import { fail } from "../status";

export interface NewSkillContext {
  overview: Overview;
  /** The client and category of the open skill, offered first. */
  client: string;
  category: string;
  /** The skill was created: open it. */
  created(file: string): Promise<void>;
}

/** Opens the form after `anchor` (once: a second click closes it). */
export function toggleNewSkillForm(anchor: HTMLElement, ctx: NewSkillContext): void {
  const open = document.getElementById("new-skill-form");
  if (open) { open.remove(); return; }
  const o = ctx.overview;
  const name = el("input", { id: "new-skill-name", placeholder: "refund-policy", spellcheck: "false" });
  const client = el("select", { id: "new-skill-client" },
    el("option", { value: "" }, "Every client"),
    ...o.clients.map((c) => el("option", { value: c }, `Only ${c}`)));
  client.value = ctx.client;
  const category = el("select", { id: "new-skill-category" },
    el("option", { value: "" }, "(no category)"), ...o.categories.map((c) => el("option", { value: c }, c)));
  category.value = ctx.category;
  const description = el("textarea", { id: "new-skill-description", rows: 3,
    placeholder: "What it does and when to use it, e.g. Answer refund questions from the refund policy." });
  const triggers = el("textarea", { id: "new-skill-triggers", rows: 3, placeholder: "One per line, e.g. Can I get my money back?" });
  const form = el("div", { id: "new-skill-form", class: "new-skill" },
    el("label", {}, "Name", name),
    el("label", {}, "For", client),
    el("label", {}, "Category", category),
    el("label", {}, "What it does", description),
    el("label", {}, "What visitors say that should pick it", triggers),
    el("div", { class: "inline" },
      el("button", { id: "new-skill-create", class: "primary", onclick: () => {
        api.createSkill({
          name: name.value.trim(), client: client.value || null, category: category.value,
          description: description.value.trim(),
          trigger_examples: triggers.value.split("\n").map((t) => t.trim()).filter(Boolean),
        }).then(async (file) => { form.remove(); await ctx.created(file); }).catch(fail);
      } }, "Create"),
      el("button", { onclick: () => form.remove() }, "Cancel")));
  anchor.after(form);
  name.focus();
}
