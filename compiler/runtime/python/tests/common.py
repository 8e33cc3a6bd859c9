"""What the runtime's tests share: the repository and the `skillc` they build with, and the
sample workspace built by it."""

import os
import subprocess
from pathlib import Path

# SKILLC_REPO: the repository, when this file runs from elsewhere against an installed package.
ROOT = Path(os.environ.get("SKILLC_REPO") or Path(__file__).resolve().parents[4])
SKILLC = os.environ.get("SKILLC", str(ROOT / "target" / "debug" / "skillc"))


def sample_artifact(directory: Path, name: str = "sample.db") -> Path:
    """The sample workspace built by skillc into `directory`."""
    out = directory / name
    subprocess.run([SKILLC, "build", str(ROOT / "skills"), "-o", str(out)], check=True, capture_output=True)
    return out
