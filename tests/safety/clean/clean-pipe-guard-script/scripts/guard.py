"""Refuses risky shell commands before the agent runs them."""
import re
import sys

RISKY = [
    # pipe-to-shell: curl/wget | sh and friends
    (re.compile(r"\b(?:curl|wget)\b.*\|\s*(?:ba)?sh\b"), "pipes a download into a shell (curl | sh)"),
    (re.compile(r"\brm\s+-rf\s+/(?:\s|$)"), "removes the root folder"),
]


def main():
    command = sys.stdin.read()
    for pattern, why in RISKY:
        if pattern.search(command):
            print(f"refused: {why}")
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
