"""--frame-ancestors: checked CSP sources, and the headers that follow from it."""

from __future__ import annotations

import pytest

from mindinsight_clone.config import SettingError, settings_for_tests
from mindinsight_clone.server.security import SECURITY_HEADERS, response_headers


def test_default_headers_refuse_framing_by_others() -> None:
    headers = response_headers(settings_for_tests())
    assert headers["X-Frame-Options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self';" in headers["Content-Security-Policy"]


def test_allowed_pages_join_frame_ancestors_and_x_frame_options_goes() -> None:
    headers = response_headers(settings_for_tests(frame_ancestors="http://localhost:*   vscode-webview:"))
    assert "X-Frame-Options" not in headers
    assert "frame-ancestors 'self' http://localhost:* vscode-webview:;" in headers["Content-Security-Policy"]
    assert SECURITY_HEADERS["X-Frame-Options"] == "SAMEORIGIN"  # the shared default is left alone


@pytest.mark.parametrize("value", ["*", "'none'", "http://x; script-src *", "localhost", "http://a b'"])
def test_sources_that_could_change_the_policy_are_refused(value: str) -> None:
    with pytest.raises(SettingError, match="frame_ancestors"):
        settings_for_tests(frame_ancestors=value)
