"""Build hook: building the package from a clone also builds the web UI (needs Node.js + npm).

Everything else is declared in pyproject.toml. A wheel carries the built UI, so installing a wheel
needs no Node. Set MINDINSIGHT_CLONE_SKIP_UI=1 to skip the UI build (the server then says how to build it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithUI(build_py):
    def run(self) -> None:
        script = ROOT / "scripts" / "build_frontend"
        dist = ROOT / "mindinsight_clone" / "ui" / "dist" / "index.html"
        wanted = os.environ.get("MINDINSIGHT_CLONE_SKIP_UI") != "1" and (ROOT / "frontend" / "package.json").exists()
        stale = not dist.exists() or os.environ.get("MINDINSIGHT_CLONE_REBUILD_UI") == "1"
        if wanted and stale and script.exists():
            print("building the web UI (scripts/build_frontend)", file=sys.stderr)
            subprocess.run([str(script)], check=True, cwd=ROOT)
        super().run()


setup(cmdclass={"build_py": BuildWithUI})
