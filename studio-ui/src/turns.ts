// Answers of the backend come back in any order: it runs commands in parallel, and on a big
// workspace some take seconds. A view that may ask again before an answer arrives (a second
// click, a save, a rebuild) takes a turn for each question and draws an answer only while its
// turn is the latest: an older answer drawn last would show what the view is no longer about,
// and the next edit would start from it.

export class Turns {
  private last = 0;

  /** A new turn: the answers of every turn taken before it are stale from now on. */
  take(): number {
    return ++this.last;
  }

  /** Whether `turn` is still the latest taken. */
  isLatest(turn: number): boolean {
    return turn === this.last;
  }

  /** The latest turn taken (0 before the first). */
  get latest(): number {
    return this.last;
  }

  /** Takes a turn, asks, and hands the answer to `draw` unless another turn was taken
   * meanwhile. */
  async drawLatest<T>(ask: () => Promise<T>, draw: (answer: T) => void): Promise<void> {
    const turn = this.take();
    const answer = await ask();
    if (this.isLatest(turn)) draw(answer);
  }
}
