// Saves of a form, one at a time. A form whose every edit writes a file and answers with the
// page as it now stands (Settings, a client's page) sends its saves through one of these:
// each starts once the one before has answered, so the file is written in the order the user
// made the edits, and only the last answer draws the form (one that came back late would draw
// a page older than the file).
import { fail } from "./status";

export class Saves<Page> {
  private chain: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** Runs `save` after the saves asked before it; then `answered(page, last)`, with the page
   * it answered (null when it failed, the failure said on the status line) and whether no
   * save asked after it is waiting (the moment to draw the form). */
  run(save: () => Promise<Page>, answered: (page: Page | null, last: boolean) => void): void {
    this.waiting += 1;
    this.chain = this.chain.then(async () => {
      let page: Page | null = null;
      try {
        page = await save();
      } catch (e) {
        fail(e);
      }
      this.waiting -= 1;
      answered(page, this.waiting === 0);
    }).catch(fail);
  }
}
