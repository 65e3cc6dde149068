"""What the tutorials share: run a command as a reader would type it, and show it.

``sh("grove-gauntlet", ...)`` prints ``$ grove-gauntlet ...`` and runs it from the
repository root with the Python that runs the tutorial (``python`` is that Python, and
``grove-*`` the command installed beside it), so the tutorial and its reader run the
same thing. A command that fails stops the tutorial with its exit status.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def resolve(program: str) -> str:
    """``python`` -> this interpreter; ``grove-web`` -> the script beside it."""
    if program == "python":
        return sys.executable
    here = shutil.which(program, path=str(Path(sys.executable).parent))
    return here or program


def sh(*args: str, capture: bool = False) -> str:
    """Run ``args`` in the repository root, echoing it; its stdout if ``capture``."""
    print(f"$ {shlex.join(args)}", flush=True)
    done = subprocess.run(
        [resolve(args[0]), *args[1:]], cwd=ROOT, text=True, stdout=subprocess.PIPE
    )
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        sys.exit(done.returncode)
    return done.stdout if capture else ""
