// The Tests tab: the workspace's `skillc test` cases, run against each build; a failing case
// says what was expected and what was seen, and opens the preview of its request.
import { api, errorText, type TestRun } from "../api";
import { byId, el } from "../dom";

export class TestsView {
  /** The outcomes of the last run (against the last build written), none before the first. */
  last: TestRun | null = null;
  /** How many runs have been shown: a view that waits for a build knows a fresh one came. */
  runs = 0;

  constructor(private readonly previewRequest: (r: TestRun["outcomes"][number]["case"]["request"]) => void) {}

  /** Runs the cases against the last build and shows the outcome (the tab's label too). */
  async refresh(): Promise<void> {
    const tab = byId("tests-tab");
    try {
      this.render(await api.testCases());
    } catch (e) {
      tab.textContent = "Tests";
      byId("ts-summary").textContent = errorText(e);
    }
  }

  private render(run: TestRun): void {
    this.last = run;
    this.runs += 1;
    const failed = run.outcomes.filter((o) => o.failures.length > 0);
    const passed = run.outcomes.length - failed.length;
    const tab = byId("tests-tab");
    tab.textContent = run.outcomes.length ? `Tests ${passed}/${run.outcomes.length}` : "Tests";
    tab.className = tab.className.replace(/\b(pass|fail)\b/g, "").trim();
    if (run.outcomes.length) tab.classList.add(failed.length || run.problems.length ? "fail" : "pass");
    const summary = byId("ts-summary");
    summary.className = failed.length || run.problems.length ? "bad" : "good";
    summary.textContent = run.outcomes.length === 0 && run.problems.length === 0
      ? "No cases yet: add a tests/*.yaml file (see the README's `skillc test`)."
      : `${passed} passed, ${failed.length} failed` + (run.problems.length ? `; ${run.problems.length} problems in case files` : "");
    byId("ts-problems").replaceChildren(...run.problems.map((d) =>
      el("li", { class: "error" }, `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`)));
    // Failing cases first, each with what did not hold.
    const ordered = [...failed, ...run.outcomes.filter((o) => o.failures.length === 0)];
    byId("ts-cases").replaceChildren(...ordered.map((o) => {
      const ok = o.failures.length === 0;
      return el("li", { class: ok ? "pass" : "fail", "data-case": o.case.name },
        el("span", { class: "mark" }, ok ? "✓" : "✗"), " ",
        el("b", {}, o.case.name), " ", el("small", {}, `${o.case.file}:${o.case.line}`),
        ok ? "" : el("ul", {}, ...o.failures.map((f) => el("li", {}, f))),
        ok ? "" : el("button", { class: "preview-case", onclick: () => this.previewRequest(o.case.request) }, "Preview this request"));
    }));
  }
}
