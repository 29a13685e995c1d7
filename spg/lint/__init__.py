"""The claim checker behind ``spg lint``: claim-set findings for patent drafters (structure, antecedent basis,
statutory form), suppressions and reports. Depends on forest, parse and data only (and docx, for Word input); metrics may read it."""

from spg.lint.check import LintResult, find_all, lint
from spg.lint.finding import Finding
from spg.lint.text import lint_lines, report_json, report_lines, tree_lines

__all__ = ["Finding", "LintResult", "find_all", "lint", "lint_lines", "report_json", "report_lines", "tree_lines"]
