// The status line in the header: the one place messages to the user appear.
import { byId } from "./dom";
import { errorText } from "./api";

export function say(text: string, tone: "good" | "bad" | "" = ""): void {
  const s = byId("build-status");
  s.textContent = text;
  s.className = tone;
}

export function fail(e: unknown): void {
  say(errorText(e), "bad");
}
