"""Routing's stage 0 (docs/routing.md, "Fragments"): a fragment of a message joined to the
recent messages it continues before it is routed, as the Rust runtime's
`route::history` does, with its words and thresholds (`_fragment_words.py`, written by its
tests) and on its cases (compiler/runtime/fragment-cases.json)."""

from typing import Any, List, Mapping, Optional, Sequence

from . import _fragment_words as W
from ._words import _WORD, _words

_FINAL_MARKS = tuple(W.FINAL_MARKS)


def _lower_words(text: str) -> List[str]:
    return _words(text.lower())


def _starts_lowercase(text: str) -> bool:
    """Whether the text's first letter or digit is a letter that uppercasing changes and
    lowercasing does not."""
    m = _WORD.search(text)
    if m is None:
        return False
    c = m.group()[0]
    return c.upper() != c and c.lower() == c


def _incomplete(text: str) -> bool:
    end = text.rstrip(W.SPACES + W.CLOSERS)
    finished = end.endswith(_FINAL_MARKS) and not end.endswith("...") and not end.endswith("\u2026")
    words = _lower_words(text)
    return not finished or (bool(words) and words[-1] in W.CONNECTORS)


def _close(earlier: float, later: float) -> bool:
    return later - earlier <= W.WINDOW_SECONDS


def fragment_signals(message: str, time: float, previous: Optional[Mapping[str, Any]] = None) -> List[str]:
    """The signals of fragmentation that hold for `message`, sent at `time` (seconds), after
    `previous` (the last earlier message, `{"text", "time"}`), by name."""
    words = _lower_words(message)
    held = [
        len(words) <= W.SHORT_WORDS,
        any(w in W.BACK_REFERENCES for w in words),
        (bool(words) and words[0] in W.CONTINUATIONS) or " ".join(words[:2]) in W.CONTINUATION_PAIRS,
        _starts_lowercase(message),
        previous is not None and _incomplete(previous["text"]),
        previous is not None and _close(previous["time"], time),
    ]
    return [name for name, h in zip(W.SIGNALS, held) if h]


def _is_fragment(message: str, time: float, history: Sequence[Mapping[str, Any]]) -> bool:
    has_word = _WORD.search(message) is not None
    return has_word and len(fragment_signals(message, time, history[-1] if history else None)) >= W.MIN_SIGNALS


def join_fragment(message: str, time: float, history: Sequence[Mapping[str, Any]]) -> Optional[str]:
    """The text to route for `message`, sent at `time` after `history` (earlier messages,
    oldest first, each `{"text": str, "time": seconds}`), when it is a fragment that joins;
    None: route it alone."""
    if not _is_fragment(message, time, history):
        return None
    start, following = len(history), time
    while start > 0 and len(history) - start < W.MAX_CONTEXT:
        previous = history[start - 1]
        if not _close(previous["time"], following):
            break
        start -= 1
        following = previous["time"]
        if not _is_fragment(previous["text"], previous["time"], history[:start]):
            break
    if start == len(history):
        return None
    parts = [t["text"].strip(W.SPACES) for t in history[start:]] + [message.strip(W.SPACES)]
    return " ".join(p for p in parts if p)


def _checked(history: Sequence[Any]) -> List[Mapping[str, Any]]:
    out = []
    for n, turn in enumerate(history):
        ok = isinstance(turn, Mapping) and isinstance(turn.get("text"), str)
        time = turn.get("time") if ok else None
        if not ok or isinstance(time, bool) or not isinstance(time, (int, float)):
            raise ValueError(f"history item {n + 1}: each message is a mapping with a string `text` and a `time` "
                             "in seconds")
        out.append(turn)
    return out


def routed_text(message: str, history: Optional[Sequence[Any]], time: Optional[float]) -> Optional[str]:
    """What `Artifact.route` routes instead of `message`, given its history and time (now when
    None)."""
    if not history:
        return None
    import time as clock

    return join_fragment(message, clock.time() if time is None else time, _checked(history))


def with_routed_text(route: Mapping[str, Any], message: str, routed: str) -> Any:
    """A route of the routed text, as the answer for `message`: `routed_text` after it."""
    out = {"message": message, "routed_text": routed}
    out.update((k, v) for k, v in route.items() if k != "message")
    return out
