// A skill's translations in the side panel: each locale present, stale or missing, one click
// to open it or start it from the default text; and, while a translation is open, the default
// text beside it to translate from.
import MarkdownIt from "markdown-it";
import { api, type Translations } from "../api";
import { el } from "../dom";

const md = new MarkdownIt({ html: false, linkify: false });

const STATE_WORDS: Record<string, string> = {
  untranslated: "not translated yet: still the default text, word for word",
  current: "up to date",
  stale: "out of date: the default text changed since it was translated",
  unmarked: "not marked as up to date: save it once it matches the default",
  missing: "missing: visitors get the default text",
};

/** The list of the skill's locales, each with what can be done about it. */
export function renderTranslations(t: Translations, open: (file: string) => void, create: (locale: string) => void): HTMLElement {
  const items = t.locales.map((l) => {
    const words = el("span", { class: `tr-state ${l.state}` }, STATE_WORDS[l.state] ?? l.state);
    const who = serving(l.serving, l.state, t.default_locale);
    if (l.state === "missing") {
      return el("li", { "data-locale": l.locale }, el("b", {}, l.locale), " ", words, " ",
        el("button", { class: "small", "data-create-translation": l.locale, onclick: () => create(l.locale) }, "Create from the default"), who);
    }
    const link = el("a", { href: "#", "data-open": l.file, onclick: (e: Event) => { e.preventDefault(); open(l.file); } }, l.locale);
    return el("li", { "data-locale": l.locale, class: t.open_locale === l.locale ? "open" : "" }, el("b", {}, link), " ", words, who);
  });
  const def = t.open_locale
    ? el("p", {}, "Default (", t.default_locale, "): ", el("a", { href: "#", "data-open": t.default_file, onclick: (e: Event) => { e.preventDefault(); open(t.default_file); } }, t.name))
    : null;
  return el("div", { class: "rel translations" }, el("h4", {}, "Translations"), def ?? "", el("ul", {}, ...items));
}

/** Clients named before the rest are counted. */
const SHOWN_CLIENTS = 8;

/** Whose visitors are served a locale, and what they read of this skill in it. */
function serving(clients: string[], state: string, defaultLocale: string): HTMLElement {
  // A few names, then a count: on a workspace of 500 clients the list would fill the panel.
  const names = clients.length > SHOWN_CLIENTS
    ? `${clients.slice(0, SHOWN_CLIENTS).join(", ")} and ${(clients.length - SHOWN_CLIENTS).toLocaleString("en")} more clients`
    : clients.join(", ");
  const who = clients.length ? `${names} and visitors of no client` : "Only visitors of no client (no client serves it)";
  const what = state === "missing" || state === "untranslated" ? `the default (${defaultLocale}) text` : "this translation";
  return el("div", { class: "tr-serving" }, `${clients.length ? "Visitors of " : ""}${who} get ${what}.`);
}

/** The default text beside an open translation: its description, trigger examples and body. */
export async function renderDefaultBeside(t: Translations): Promise<HTMLElement> {
  const file = await api.readFile(t.default_file);
  const parts = await api.decompose(file.text);
  const field = (k: string) => parts.fields.find(([key]) => key === k)?.[1];
  const description = field("description");
  const triggers = field("trigger_examples");
  const body = el("div", { class: "rendered" });
  body.innerHTML = md.render(parts.body);
  return el("div", { class: "default-beside", id: "default-beside" },
    el("h4", {}, `The default text (${t.default_locale}) to translate from`),
    typeof description === "string" ? el("p", { class: "description" }, description) : "",
    Array.isArray(triggers) ? el("ul", { class: "triggers" }, ...triggers.map((x) => el("li", {}, String(x)))) : "",
    body);
}
