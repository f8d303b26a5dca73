"""No English left in the zh report and workbook of a scenario with a per-token API option
(issue 14's gap: the zh text said "API") and of one with a leased option (issue 13), by the
rule of tests/test_no_english.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_no_english import _leftovers, _zh_outputs, html_texts, quoted_text, workbook_texts

ROOT = Path(__file__).parents[1]


def _quoted(result, catalog) -> list[str]:
    """What the tool quotes, the per-token API options' and portfolios' ids and names too (a
    provider's product name, such as "DeepInfra API, Llama 3.3 70B", is quoted as it is), and
    each word of a name, which a chart wraps over lines."""
    names = {a.info.name for a in result.api_options} | {p.name for p in result.portfolios}
    names |= {c.info.name for c in result.candidates}
    extra = names | {a.id for a in result.api_options} | {p.id for p in result.portfolios}
    extra |= {w.strip(",()") for n in names for w in n.split()
              if len(w.strip(",()")) > 2 and w.strip(",()")[0].isalpha()}
    return sorted(set(quoted_text(result, catalog)) | extra, key=len, reverse=True)


@pytest.mark.parametrize("scenario", [ROOT / "tco" / "scenarios" / "train-and-serve.yaml",
                                      ROOT / "tests" / "data" / "lease_hand.yaml"])
def test_no_english_left(tmp_path_factory, scenario):
    result, catalog, out = _zh_outputs(tmp_path_factory, scenario, [], scenario.stem)
    texts = html_texts(out / "report.zh.html") + workbook_texts(out / "workbook.zh.xlsx")
    left = _leftovers(texts, _quoted(result, catalog))
    assert not left, "\n".join(f"{v[0]}: {k!r} -> {v[1:]}" for k, v in left.items())
    if result.api_options:  # the words the tool writes about an API are Chinese
        assert any("按词元计费的接口服务" in t for _w, t in texts)
