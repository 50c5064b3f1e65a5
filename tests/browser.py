"""A real browser for the report tests: the system's headless Chromium (Debian packages
`chromium` and `chromium-driver`) driven through Selenium, never a downloaded browser.

`page_problems(driver, path)` loads a page and lists what a reader would see broken: console
errors (and failed loads, which Chromium logs as errors), images that did not render
(zero natural size), and internal links — ``#anchor`` to an element that does not exist,
or a relative file that is not there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

CHROMIUM = os.environ.get("LASTMILE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("LASTMILE_CHROMEDRIVER", "/usr/bin/chromedriver")
ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,1000",
)


def unavailable() -> str | None:
    """Why no browser can be driven here, or None when one can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install '.[dev]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (Path(path).is_file() or shutil.which(path)):
            return f"{path} not found (apt-get install -y {package})"
    return None


def chromium() -> Iterator[Any]:
    """A headless Chromium session (a generator for a pytest fixture)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for arg in ARGS:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


_IMAGES = """return Array.from(document.images).map(
    i => [i.getAttribute('alt') || i.src.slice(0, 40), i.complete, i.naturalWidth,
          i.naturalHeight]);"""
_LINKS = """return Array.from(document.querySelectorAll('a[href]')).map(
    a => a.getAttribute('href'));"""


def page_problems(driver: Any, path: Path) -> list[str]:
    """Everything broken on the page at `path` (empty when it is sound)."""
    driver.get(path.resolve().as_uri())
    driver.execute_script("return document.readyState")
    problems = []
    for entry in driver.get_log("browser"):
        if entry.get("level") in ("SEVERE", "ERROR"):
            problems.append(f"console: {entry.get('message')}")
    images = driver.execute_script(_IMAGES)
    for name, complete, width, height in images:
        if not complete or width == 0 or height == 0:
            problems.append(f"image {name!r} did not render ({width}x{height})")
    for href in driver.execute_script(_LINKS):
        problem = _link_problem(driver, path, href)
        if problem:
            problems.append(problem)
    return problems


def _link_problem(driver: Any, page: Path, href: str) -> str | None:
    url = urlparse(href)
    if url.scheme in ("http", "https", "mailto", "data"):
        return None
    if not url.path:
        anchor = unquote(url.fragment)
        found = driver.execute_script(
            "return document.getElementById(arguments[0]) !== null", anchor
        )
        return None if found else f"link {href!r}: no element with id {anchor!r}"
    target = (page.parent / unquote(url.path)).resolve()
    return None if target.exists() else f"link {href!r}: {target} does not exist"
