"""The corpus report of ``spg lint --out DIR``: findings per 1,000 claims by rule and by kind of document (US grant,
US application, EP, other), read from the claim-set table a batch at a time (memory flat however many records),
written into ``DIR`` as a Markdown table (``report.md``), a plot (``report.png``) and a page holding both
(``report.html``)."""

from __future__ import annotations

import base64
import io
from collections import Counter
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from spg.files import write_artefact
from spg.lint.corpus import KINDS, TABLES, rule_columns, run_restatement
from spg.lint.html import CSS

ALL = "all"


@dataclass
class Rates:
    """Per kind of document: records, claims, records that could not be linted, and findings per rule."""

    records: Counter = field(default_factory=Counter)
    claims: Counter = field(default_factory=Counter)
    bad: Counter = field(default_factory=Counter)
    findings: dict[str, Counter] = field(default_factory=dict)  # kind → rule → findings
    columns: dict[str, str] = field(default_factory=rule_columns)  # rule → its count's column in the run's table

    @property
    def kinds(self) -> list[str]:
        """The kinds with records, in a fixed order, then all of them together."""
        return [k for k in KINDS if self.records[k]] + [ALL]

    @property
    def rules(self) -> list[str]:
        """The rules with a finding, in the order the checker lists them."""
        return [r for r in self.columns if self.findings.get(ALL, Counter())[r]]

    def per_1000(self, kind: str, rule: str) -> float:
        return 1000 * self.findings[kind][rule] / self.claims[kind] if self.claims[kind] else 0.0


def read_rates(out: str | Path) -> Rates:
    """The rates of a finished run's claim-set table."""
    import pyarrow.dataset as ds

    rates = Rates(columns=rule_columns(run_restatement(out)))
    columns = ["kind", "claims", "bad", *rates.columns.values()]
    for batch in ds.dataset(Path(out) / TABLES[0], format="parquet").to_batches(columns=columns):
        data = batch.to_pydict()
        for i, kind in enumerate(data["kind"]):
            for key in (kind, ALL):
                rates.records[key] += 1
                rates.claims[key] += data["claims"][i]
                rates.bad[key] += data["bad"][i] is not None
                found = rates.findings.setdefault(key, Counter())
                for rule, column in rates.columns.items():
                    found[rule] += data[column][i]
    return rates


def markdown(rates: Rates) -> str:
    kinds = rates.kinds
    lines = [
        "# Findings per 1,000 claims, by rule and kind of document",
        "",
        "| | " + " | ".join(kinds) + " |",
        "| --- |" + " ---: |" * len(kinds),
        "| records | " + " | ".join(f"{rates.records[k]:,}" for k in kinds) + " |",
        "| claims | " + " | ".join(f"{rates.claims[k]:,}" for k in kinds) + " |",
        "| bad records | " + " | ".join(f"{rates.bad[k]:,}" for k in kinds) + " |",
    ]
    lines += [f"| {rule} | " + " | ".join(f"{rates.per_1000(k, rule):.2f}" for k in kinds) + " |"
              for rule in rates.rules]
    return "\n".join(lines) + "\n"


def plot(rates: Rates) -> bytes:
    """A PNG: one group of bars per rule, one bar per kind of document."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds, rules = [k for k in rates.kinds if k != ALL] or [ALL], rates.rules
    height = 0.8 / len(kinds)
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.2 * max(len(rules), 1) * max(len(kinds), 1) ** 0.5))
    for i, kind in enumerate(kinds):
        ax.barh([r + i * height for r in range(len(rules))], [rates.per_1000(kind, rule) for rule in rules],
                height=height, label=kind)
    ax.set_yticks([r + 0.4 - height / 2 for r in range(len(rules))], rules)
    ax.invert_yaxis()
    ax.set_xlabel("findings per 1,000 claims")
    ax.set_title(f"spg lint over {rates.records[ALL]:,} claim sets ({rates.claims[ALL]:,} claims)")
    ax.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def html(rates: Rates, png: bytes) -> str:
    kinds = rates.kinds
    head = "".join(f"<th>{escape(k)}</th>" for k in kinds)
    rows = [("records", [f"{rates.records[k]:,}" for k in kinds]), ("claims", [f"{rates.claims[k]:,}" for k in kinds]),
            ("bad records", [f"{rates.bad[k]:,}" for k in kinds])]
    rows += [(rule, [f"{rates.per_1000(k, rule):.2f}" for k in kinds]) for rule in rates.rules]
    body = "".join(f"<tr><td class=rule>{escape(name)}</td>" + "".join(f"<td class=n>{v}</td>" for v in values)
                   + "</tr>" for name, values in rows)
    image = base64.b64encode(png).decode()
    return (f"<!doctype html><html><head><meta charset=utf-8><title>spg lint: corpus report</title>"
            f"<style>{CSS}</style></head><body><main><h1>Findings per 1,000 claims</h1>"
            f"<p class=sub>by rule and kind of document, from the claim-set table of spg lint --out</p>"
            f"<table><tr><th></th>{head}</tr>{body}</table>"
            f"<h2>Plot</h2><img alt='findings per 1,000 claims by rule and kind' src='data:image/png;base64,{image}'>"
            "</main></body></html>\n")


def write_report(out: str | Path) -> Rates:
    """``report.md``, ``report.png`` and ``report.html`` in ``out`` (spg's folder), from its tables."""
    out = Path(out)
    rates = read_rates(out)
    png = plot(rates)
    write_artefact(out / "report.md", markdown(rates))
    write_artefact(out / "report.png", png)
    write_artefact(out / "report.html", html(rates, png))
    return rates
