"""No file of the repository names a path on a development machine: the catalog cites public
sources, the docs link within the repository, and the example outputs (made from both) carry
neither. A reader of any of them (or of a workbook made from them) can check every citation."""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Built in pieces so that this file does not match itself: a slash, then work/, root/ or a
# home folder, after anything but a name character (so "docs/work/" or "x.root/" do not count).
MACHINE_PATH = re.compile("(^|[^A-Za-z0-9_.])/" + r"(work|root|home/[a-z][^/\s]*)" + "/")
# Notes of a development machine that are not public sources, by name.
PRIVATE_NOTES = re.compile("|".join(["reference-data" + r"\.md", "money" + "-review",
                                      "mfu" + "-sources"]))


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an sdist): the files are checked in the repository")
    return [ROOT / name for name in out.decode().split("\0") if name]


def _texts(path: Path) -> list[tuple[str, str]]:
    """(where, text) of a file: an xlsx's XML members one by one (they are compressed), any
    other file whole (a binary one byte for byte)."""
    where = str(path.relative_to(ROOT))
    if path.suffix == ".xlsx" and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return [(f"{where}:{m}", z.read(m).decode("utf-8", "replace"))
                    for m in z.namelist() if m.endswith((".xml", ".rels"))]
    return [(where, path.read_bytes().decode("latin-1"))]


def test_the_machine_path_pattern_finds_what_it_must():
    root = "/"  # joined below, so that this file names no such path itself
    found = [s for s in (f"see {root}work/x.md", f"{root}root/.cache", f"({root}home/ann/n)",
                         f"`{root}work/a`") if MACHINE_PATH.search(s)]
    assert len(found) == 4
    assert not [s for s in ("docs/work/x", "a.root/b", "https://x.org/work/", "/homework/")
                if MACHINE_PATH.search(s)]


def test_no_tracked_file_names_a_machine_path_or_a_private_note():
    bad = []
    for path in _tracked():
        if not path.is_file():
            continue
        for where, text in _texts(path):
            for n, line in enumerate(text.splitlines(), 1):
                if MACHINE_PATH.search(line) or PRIVATE_NOTES.search(line):
                    bad.append(f"{where}:{n}: {line.strip()[:120]}")
    assert not bad, "\n".join(bad[:20])
