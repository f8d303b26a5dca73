"""HTML to PDF: weasyprint (pip install 'tco[pdf]') or, failing that, headless Chromium.

Both honour the report's print CSS: @page size, margins, and page numbers in the margin boxes
(Chromium since version 131). Neither is allowed to fetch anything: the report is
self-contained, weasyprint gets a URL fetcher that refuses every URL, and Chromium runs with
networking features off and a throw-away profile.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import TcoError

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run")
TIMEOUT_S = 180


def chromium() -> str | None:
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


def has_weasyprint() -> bool:
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError):  # OSError: the package is there but pango is missing
        return False
    return True


def html_to_pdf(html: str, engine: str = "auto") -> bytes:
    """engine: "weasyprint", "chromium", or "auto" (weasyprint when installed)."""
    if engine == "auto":
        engine = "weasyprint" if has_weasyprint() else "chromium" if chromium() else ""
        if not engine:
            raise TcoError("writing PDF needs weasyprint (pip install 'tco[pdf]') or Chromium; "
                           "neither is installed")
    if engine == "weasyprint":
        return _weasyprint(html)
    if engine == "chromium":
        return _chromium(html)
    raise TcoError(f"unknown PDF engine '{engine}'; expected weasyprint, chromium or auto")


def _refuse(url: str, *args: object, **kwargs: object) -> dict[str, object]:
    raise ValueError(f"the report must not load {url!r}")


def _weasyprint(html: str) -> bytes:
    if not has_weasyprint():
        raise TcoError("weasyprint is not installed (pip install 'tco[pdf]')")
    import logging

    from weasyprint import HTML

    # weasyprint reads the charts' SVG style attributes as CSS first and logs each SVG
    # property as unknown before its SVG renderer applies them; those warnings are noise.
    log = logging.getLogger("weasyprint")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        return HTML(string=html, url_fetcher=_refuse).write_pdf()
    finally:
        log.setLevel(level)


def _chromium(html: str) -> bytes:
    exe = chromium()
    if exe is None:
        raise TcoError("Chromium is not installed; install it or weasyprint to write PDF")
    with tempfile.TemporaryDirectory(prefix="tco-pdf-") as tmp:
        page, out = Path(tmp) / "report.html", Path(tmp) / "report.pdf"
        page.write_text(html, encoding="utf-8")
        cmd = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp}/profile", "--no-pdf-header-footer",
               f"--print-to-pdf={out}", page.as_uri()]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise TcoError(f"Chromium did not finish printing within {TIMEOUT_S} s") from None
        if proc.returncode != 0 or not out.is_file() or out.stat().st_size == 0:
            tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
            raise TcoError(f"Chromium could not print the report to PDF: {tail[0]}")
        return out.read_bytes()
