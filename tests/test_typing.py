"""The package is mypy-clean in strict mode (pyproject's [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_mypy_strict_is_clean() -> None:
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=root, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
