"""Headless Chromium for report tests: screenshots, and the natural size of every <img>.

Chromium comes from Debian (`apt-get install chromium`; `.ci/run` installs it). Without it the
tests skip, unless BLOATLAB_REQUIRE_BROWSER=1 (as in CI), when they fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

REPO = Path(__file__).parent.parent
ARTIFACTS = REPO / "test-artifacts"

# Flags that keep Chromium quiet on a machine without network: no background fetches, no
# component updates, no first-run UI, a fresh profile per call.
_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]

# Appended to a copy of the page: once everything has loaded, write what each <img> decoded to.
_PROBE = (
    '<script>window.addEventListener("load", () => {'
    "const sizes = [...document.images].map(i => [i.naturalWidth, i.naturalHeight, i.complete]);"
    'const out = document.createElement("pre"); out.id = "probe";'
    "out.textContent = JSON.stringify(sizes); document.body.appendChild(out);});</script>"
)


def chromium() -> str:
    for name in (os.environ.get("BLOATLAB_CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return str(shutil.which(name))
    if os.environ.get("BLOATLAB_REQUIRE_BROWSER") == "1":
        pytest.fail("Chromium is required (BLOATLAB_REQUIRE_BROWSER=1) but not installed")
    pytest.skip("Chromium is not installed (apt-get install chromium)")


def _run(args: list[str]) -> str:
    with tempfile.TemporaryDirectory(prefix="bloatlab-chromium-") as profile:
        done = subprocess.run(
            [chromium(), *_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    if done.returncode != 0:
        raise AssertionError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def image_sizes(page: Path) -> list[tuple[int, int, bool]]:
    """(naturalWidth, naturalHeight, complete) of every <img> once the page has loaded."""
    probe = page.with_name(f".probe-{page.name}")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"))
    try:
        dom = _run(["--virtual-time-budget=15000", "--dump-dom", probe.as_uri()])
    finally:
        probe.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the page did not finish loading in Chromium"
    return [tuple(size) for size in json.loads(found.group(1))]  # type: ignore[misc]


def screenshot(page: Path, name: str, *, height: int = 4000) -> Path:
    """A full-width screenshot of `page` in test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    out = ARTIFACTS / f"{name}.png"
    out.unlink(missing_ok=True)
    _run([f"--window-size=1400,{height}", f"--screenshot={out}", page.as_uri()])
    assert out.is_file() and out.stat().st_size > 0
    return out


def is_blank(png: Path) -> bool:
    """True if the picture is one flat colour (or nearly: under 0.5 % of pixels differ)."""
    pixels = image.imread(png)[..., :3]
    background = np.median(pixels.reshape(-1, 3), axis=0)
    differs = np.abs(pixels - background).sum(axis=-1) > 0.05
    return bool(differs.mean() < 0.005)
