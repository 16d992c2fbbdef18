"""Reports how much of conformance/api-cases.json the Python suite ran."""

from __future__ import annotations

import sys
from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    runner = sys.modules.get("test_api_cases")
    if runner is not None:
        terminalreporter.write_line(runner.SUMMARY)
