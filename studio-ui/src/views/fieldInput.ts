// One frontmatter field in the form, edited as its shape asks: lists as lists (add, remove,
// reorder), switches for yes/no, choices where the workspace knows the values, skill names
// picked from the workspace's. An input reads back `undefined` while what it holds is not a
// value of the field's shape, and the form then writes nothing: it never writes a value the
// compiler would set aside.
import type { FieldInfo, Json } from "../api";
import { el } from "../dom";

/** What the inputs offer to choose from. */
export interface Choices {
  skills: string[];
  categories: string[];
}

export interface FieldInput {
  element: HTMLElement;
  /** The value to write, or `undefined` while the input holds no valid value. */
  read(): Json | undefined;
}

const NAMESPACES = ["public", "internal", "custom"];

/** The datalist of skill names that name inputs offer (one per window, kept current). */
function skillList(skills: string[]): string {
  let list = document.getElementById("skill-names") as HTMLDataListElement | null;
  if (!list) {
    list = el("datalist", { id: "skill-names" });
    document.body.append(list);
  }
  if (list.childElementCount !== skills.length) list.replaceChildren(...skills.map((s) => el("option", { value: s })));
  return "skill-names";
}

/** A choice among `values`, the current one kept even when the workspace does not know it. */
function choice(values: string[], current: string, none: string): FieldInput {
  const all = current && !values.includes(current) ? [current, ...values] : values;
  const select = el("select", {}, el("option", { value: "" }, none), ...all.map((v) => el("option", { value: v }, v)));
  select.value = current;
  return { element: select, read: () => select.value || undefined };
}

/** A list editor: one input per item, with buttons to move it up, down or away, and "Add". */
function listInput(items: string[], names: string | null, changed: () => void): FieldInput {
  const box = el("div", { class: "list-input" });
  const rows = el("ol", {});
  const row = (value: string): HTMLElement => {
    const input = el("input", { value, list: names ?? undefined, "aria-label": "item" });
    const li: HTMLElement = el("li", {}, input,
      el("button", { class: "icon", title: "Move up", onclick: () => { li.previousElementSibling?.before(li); changed(); } }, "↑"),
      el("button", { class: "icon", title: "Move down", onclick: () => { li.nextElementSibling?.after(li); changed(); } }, "↓"),
      el("button", { class: "icon", title: "Remove this item", onclick: () => { li.remove(); changed(); } }, "×"));
    return li;
  };
  rows.append(...(items.length ? items : [""]).map(row));
  box.append(rows, el("button", { class: "small add-item", onclick: () => {
    const li = row("");
    rows.append(li);
    li.querySelector("input")?.focus();
  } }, "+ Add"));
  return {
    element: box,
    read: () => [...rows.querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean),
  };
}

/** A flat mapping as `key: value` lines. */
function mapInput(value: Json): FieldInput {
  const entries = value && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [];
  const area = el("textarea", { rows: Math.max(2, entries.length), title: "One `key: value` per line" });
  area.value = entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join("\n");
  return {
    element: area,
    read: () => {
      const out: Record<string, string> = {};
      for (const line of area.value.split("\n")) {
        if (!line.trim()) continue;
        const at = line.indexOf(":");
        if (at <= 0) return undefined;
        out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      }
      return out;
    },
  };
}

/** Items of a value that should be a list: a list's strings, or a lone string as one item. */
function itemsOf(value: Json): string[] {
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  return typeof value === "string" && value.trim() ? [value] : [];
}

/** The input for `field` holding `value`; `changed` is called on every edit. */
export function fieldInput(field: FieldInfo | undefined, key: string, value: Json, choices: Choices, changed: () => void): FieldInput {
  const shape = field?.shape ?? guessShape(value);
  let input: FieldInput;
  switch (shape) {
    case "bool": {
      const box = el("input", { type: "checkbox", role: "switch", class: "switch" });
      box.checked = value === true;
      input = { element: el("label", { class: "switch-label" }, box, el("span", {}, "")), read: () => box.checked };
      const words = () => { (input.element.lastChild as HTMLElement).textContent = box.checked ? "yes" : "no"; };
      box.addEventListener("change", words);
      words();
      break;
    }
    case "int": {
      const n = el("input", { type: "number", step: 1, value: typeof value === "number" ? String(value) : "" });
      input = { element: n, read: () => (n.value !== "" && Number.isInteger(Number(n.value)) ? Number(n.value) : undefined) };
      break;
    }
    case "names":
      return wire(listInput(itemsOf(value), skillList(choices.skills), changed), changed);
    case "texts":
      return wire(listInput(itemsOf(value), null, changed), changed);
    case "name": {
      const t = el("input", { value: typeof value === "string" ? value : "", list: skillList(choices.skills) });
      input = { element: t, read: () => t.value.trim() || undefined };
      break;
    }
    case "map":
      input = mapInput(value);
      break;
    case "structured": {
      const area = el("textarea", { rows: 4, class: "json", title: "JSON (any YAML value)" });
      area.value = value === "" ? "" : JSON.stringify(value, null, 2);
      input = { element: area, read: () => { try { return JSON.parse(area.value) as Json; } catch { return undefined; } } };
      break;
    }
    default:
      if (key === "category") input = choice(choices.categories, String(value ?? ""), "(no category)");
      else if (key === "namespace") input = choice(NAMESPACES, String(value ?? ""), "(from the folder)");
      else input = textInput(key, value);
  }
  return wire(input, changed);
}

function textInput(key: string, value: Json): FieldInput {
  const text = typeof value === "string" ? value : value === null ? "" : String(value);
  const long = key === "description" || text.includes("\n");
  const t = long ? el("textarea", { rows: 3 }) : el("input", {});
  t.value = text;
  // An empty text is still a text: the check then says what is missing.
  return { element: t, read: () => t.value };
}

function wire(input: FieldInput, changed: () => void): FieldInput {
  input.element.addEventListener("input", changed);
  input.element.addEventListener("change", changed);
  return input;
}

function guessShape(value: Json): string {
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "int";
  if (Array.isArray(value)) return "texts";
  return typeof value === "string" ? "text" : "structured";
}
