"""The layering of ../shared/DESIGN.md holds: the import-linter contracts in pyproject.toml ([tool.importlinter]) are
kept — imports point down only, no module or package imports its way back into itself (function-local imports
count), no web framework below server/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_import_contract_is_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache", str(REPO / "pyproject.toml")], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    report = done.stdout + done.stderr
    assert "Contracts: 4 kept, 0 broken." in report, report[-4000:]
    assert done.returncode == 0, report[-4000:]
