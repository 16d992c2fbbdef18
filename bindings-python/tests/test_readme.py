"""Every Python snippet of README.md runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS: List[str] = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_snippets() -> None:
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_runs(snippet: str) -> None:
    scope: Dict[str, Any] = {"__name__": "readme"}
    exec(compile(snippet, str(README), "exec"), scope)
