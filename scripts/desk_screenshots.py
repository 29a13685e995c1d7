"""The screenshots of the drafter's desk tools (docs/lint.md, docs/serve.md): the claim count with its fee triggers
and the term map in ``spg lint --html``'s report and in spg serve's page after **Renumber**, in headless Chromium (as
the browser tests run it), for docs/examples/desk-demo.txt. Writes docs/images/lint-desk.png and
docs/images/serve-desk.png.

    .venv/bin/python scripts/desk_screenshots.py
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from screenshot_browser import served
from selenium.webdriver.common.by import By

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "docs" / "examples" / "desk-demo.txt"
SECTION = ("[...document.querySelectorAll('{root} h2')].find(h => h.textContent === 'Claim count')"
           ".scrollIntoView({{block: 'start'}})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPO / "docs" / "images"), help="folder for the PNG files")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "desk-demo.html"
        subprocess.run([sys.executable, "-m", "spg.cli", "lint", str(DEMO), "--no-config", "--html", str(report)],
                       check=False, stdout=subprocess.DEVNULL)  # exit 1: the demo has an error to show
        with served(folder, [], 120) as (browser, wait, url):
            browser.get(report.as_uri())
            browser.execute_script(SECTION.format(root="main"))
            browser.save_screenshot(str(out / "lint-desk.png"))

            browser.get(url)
            wait.until(lambda d: d.find_element(By.ID, "server-info").text)
            browser.find_element(By.ID, "claims").send_keys(DEMO.read_text(encoding="utf-8"))
            wait.until(lambda d: "forward-reference" in d.find_element(By.ID, "check-result").text)
            browser.find_element(By.ID, "renumber").click()
            # renumbered: claim 2 now cites claim 1, and the report no longer has the forward reference
            wait.until(lambda d: "forward-reference" not in d.find_element(By.ID, "check-result").text
                       and d.find_elements(By.CSS_SELECTOR, "#check-result .claim"))
            browser.execute_script(SECTION.format(root="#check-result"))
            browser.save_screenshot(str(out / "serve-desk.png"))
            print(f"wrote {out / 'lint-desk.png'} and {out / 'serve-desk.png'}")


if __name__ == "__main__":
    main()
