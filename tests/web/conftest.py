"""Fixtures of the web tests: the matchmaker fixtures (real ``lanqi serve`` and
``lanqi bot`` processes), and a headless Chromium driven by Selenium (Debian's
``/usr/bin/chromium`` and ``/usr/bin/chromedriver``: nothing is downloaded).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.matchmaker.conftest import lanqi, mm, names, tour  # noqa: F401 - fixtures

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()) or shutil.which("zbarimg") is None,
    reason="needs Debian's chromium, chromium-driver and zbar-tools (.ci/run installs them)",
)


@pytest.fixture
def browser() -> Iterator[Callable[..., Any]]:
    """``browser(width, height)``: a headless Chromium window of that size; all are
    closed after the test."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    drivers: list[Any] = []

    def make(width: int = 1280, height: int = 900) -> Any:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--window-size={width},{height}",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        # the page itself is width x height (the window's size counts its frame)
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        drivers.append(driver)
        return driver

    try:
        yield make
    finally:
        for driver in drivers:
            driver.quit()
