"""HTML to PDF: weasyprint (pip install 'tco[pdf]') or, failing that, headless Chromium.

Both honour the report's print CSS: @page size, margins, and page numbers in the margin boxes
(Chromium since version 131). Neither is allowed to fetch anything: the report is
self-contained, weasyprint gets a URL fetcher that refuses every URL but the font files below,
and Chromium runs with networking features off and a throw-away profile.

An English PDF by weasyprint is set in the DejaVu Sans files matplotlib ships (a dependency, so
present wherever tco is), not in whichever fonts the machine has: the example PDF committed in
reports/ is then the same file on every machine (`make report` leaves the tree clean). Text in
no DejaVu face (a Chinese name) falls back to the machine's fonts. A Chinese PDF is set in the
machine's Chinese fonts, which the package cannot ship.
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
        if '<html lang="en"' not in html[:4000]:  # the page's own language (report.html.j2)
            return HTML(string=html, url_fetcher=_refuse).write_pdf()
        from weasyprint import CSS
        from weasyprint.text.fonts import FontConfiguration

        from .charts import CSS_FONTS

        css, files = _pinned_fonts()
        fetch = _fetch_only(files)
        fonts = FontConfiguration()
        # the charts name their fonts in SVG style attributes, which the stylesheet cannot reach
        html = html.replace(f"font-family: {CSS_FONTS['en']}",
                            f"font-family: 'tco sans', {CSS_FONTS['en']}")
        return HTML(string=html, url_fetcher=fetch).write_pdf(
            stylesheets=[CSS(string=css, url_fetcher=fetch, font_config=fonts)],
            font_config=fonts)
    finally:
        log.setLevel(level)


# (family, weight, style, file in matplotlib's mpl-data/fonts/ttf)
_FACES = [("tco sans", w, s, f"DejaVuSans{suffix}.ttf") for w, s, suffix in (
    ("normal", "normal", ""), ("bold", "normal", "-Bold"), ("normal", "italic", "-Oblique"),
    ("bold", "italic", "-BoldOblique"))] + [
    ("tco mono", w, "normal", f"DejaVuSansMono{suffix}.ttf")
    for w, suffix in (("normal", ""), ("bold", "-Bold"))]
_SANS = '"tco sans", "Noto Sans CJK SC", "Source Han Sans SC", sans-serif'
_MONO = '"tco mono", "Noto Sans Mono CJK SC", monospace'


def _pinned_fonts() -> tuple[str, dict[str, Path]]:
    """A user stylesheet putting matplotlib's DejaVu files first for every text of the report
    (its own rules and the charts' are overridden with !important), and the files by URL."""
    import matplotlib

    ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    rules, files = [], {}
    for family, weight, style, name in _FACES:
        url = (ttf / name).as_uri()
        files[url] = ttf / name
        rules.append(f'@font-face {{ font-family: "{family}"; font-weight: {weight}; '
                     f'font-style: {style}; src: url("{url}"); }}')
    rules += [
        f"body {{ font-family: {_SANS} !important; }}",
        f".cand-id, .inputs .path, .live-cli code {{ font-family: {_MONO} !important; }}",
        "@page { " + " ".join(f"@{box} {{ font-family: {_SANS} !important; }}"
                              for box in ("bottom-left", "bottom-right")) + " }",
    ]
    return "\n".join(rules), files


def _fetch_only(files: dict[str, Path]) -> object:
    """A weasyprint URL fetcher that reads the font `files` (by URL) and refuses every other
    URL. Newer weasyprint releases take a response object (weasyprint.urls.URLFetcherResponse)
    from a fetcher, older ones (63, .ci/oldest.txt) a dict."""
    try:
        from weasyprint.urls import URLFetcherResponse
    except ImportError:
        URLFetcherResponse = None

    def fetch(url: str, *args: object, **kwargs: object) -> object:
        if url not in files:
            return _refuse(url)
        data = files[url].read_bytes()
        if URLFetcherResponse is not None:
            return URLFetcherResponse(url, data, {"Content-Type": "font/ttf"})
        return {"string": data, "mime_type": "font/ttf", "redirected_url": url}

    return fetch


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
