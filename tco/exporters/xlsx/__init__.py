"""The procurement workbook (docs/workbook.md): the model as live spreadsheet formulas.

    workbook.py  the file: sheets in order, defined names, printing; the quick worksheet
    layout.py    where every input, quantity and defined name goes, decided first
    names.py     the defined-name rule
    styles.py    cell styles and number formats
    summary.py   Summary: rankings, recommendation, charts
    inputs.py    Assumptions and Catalog
    model.py     Model and CashFlows: every quantity as a formula with its value
    notes.py     Sensitivity, MonteCarlo and Methodology
"""

from .workbook import QUICK_SUPPORTED, generation_date, workbook_bytes, write_workbook

__all__ = ["QUICK_SUPPORTED", "generation_date", "workbook_bytes", "write_workbook"]
