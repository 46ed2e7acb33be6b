"""Server messages shown inline follow the UI language (issue 34): in Chinese, an error code of errors.py is shown
with its Chinese message and the server's detail (the file) kept; in English the server's text as sent.

The request: the Communication view of the Level0 rank, whose communication.json profiler Level0 does not write
(../shared/fixtures/ascend; the server answers `{"missing": {"error_code": "50546084", "error_msg": ...}}`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.test_ascend_ui import LEVEL0, _open, _output

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_missing_profiler_file_is_said_in_chinese_with_the_file_name(ascend_ui_server: str, page: Any,
                                                                     screenshot: Callable[..., Path]) -> None:
    assert not (_output(LEVEL0, 0) / "communication.json").exists()
    page.add_init_script("localStorage.setItem('milang', 'zh-cn')")
    _open(page, ascend_ui_server, f"train_id={LEVEL0}&tab=communication")
    missing = page.get_by_test_id("ascend-missing")
    missing.wait_for()
    text = missing.inner_text()
    assert "未找到文件：<communication.json of rank 0>" in text, text
    assert "The file" not in text and "not found." not in text, text
    screenshot(page, "zh-missing-profiler-file")


def test_the_message_follows_the_language_switch(ascend_ui_server: str, page: Any) -> None:
    page.add_init_script("localStorage.setItem('milang', 'en-us')")
    _open(page, ascend_ui_server, f"train_id={LEVEL0}&tab=communication")
    missing = page.get_by_test_id("ascend-missing")
    missing.wait_for()
    assert "The file <communication.json of rank 0> (written at profiler Level1" in missing.inner_text()
    assert not CJK.search(missing.inner_text())
    # the header's language switch: the message already shown changes, without a new request
    page.get_by_test_id("lang-zh").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=ascend-missing]').innerText.includes('未找到文件：<communication.json')")
    page.get_by_test_id("lang-en").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=ascend-missing]').innerText.includes('The file <communication.json')")
