"""The screenshots of docs/serve.md: spg serve's Check and Draft tabs in headless Chromium (as its browser tests run
it), written to docs/images/serve-check.png and docs/images/serve-draft.png. The Draft tab drafts the shipped
example description with the shipped model (--max-new-tokens 256), so it takes as long as spg generate does.

    .venv/bin/python scripts/serve_screenshots.py
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from screenshot_browser import served
from selenium.webdriver.common.by import By

REPO = Path(__file__).resolve().parents[1]
CLAIMS = """1. A folding step stool comprising: a front frame and a rear frame joined by a hinge; a lower step pivoted to \
the front frame; and means for locking the frames in an open position.
2. The step stool of claim 1, wherein the lower step is connected to the rear frame by a pair of links.
3. The step stool of claim 2, wherein the upper step is fixed to the top of the front frame.
4. The step stool of claims 1 or 2, further comprising rubber feet on the rear frame.
5. The step stool of claim 4 or 3, wherein the links are made of steel.
6. The step stool of claim 1, wherein the locking lever engages the hinge.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPO / "docs" / "images"), help="folder for the PNG files")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (tempfile.TemporaryDirectory() as folder,
          served(folder, ["--max-new-tokens", "256"], 600) as (browser, wait, url)):
        browser.get(url)
        wait.until(lambda d: d.find_element(By.ID, "server-info").text)
        browser.find_element(By.ID, "claims").send_keys(CLAIMS)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#check-result .claim")) == 6)
        # one suppression, so the picture shows the list the Save button writes
        browser.find_element(By.CSS_SELECTOR, '#check-result li[data-rule="means-plus-function"] button').click()
        wait.until(lambda d: "1 suppressed" in d.find_element(By.ID, "check-status").text)
        # the claim tree and the claims with their findings marked, under the summary
        browser.execute_script("document.querySelector('#check-result .tree').previousElementSibling"
                               ".scrollIntoView({block: 'start'})")
        browser.save_screenshot(str(out / "serve-check.png"))

        browser.find_element(By.ID, "tab-draft").click()
        from spg.cli.generate import example_path

        browser.find_element(By.ID, "description").send_keys(example_path().read_text()[:3000])
        time.sleep(1)
        browser.find_element(By.ID, "draft-button").click()
        wait.until(lambda d: d.find_element(By.ID, "draft-status").text.startswith(("done", "stopped")))
        browser.execute_script("document.querySelector('#draft .output').scrollTop = 0")
        browser.save_screenshot(str(out / "serve-draft.png"))
        print(f"wrote {out / 'serve-check.png'} and {out / 'serve-draft.png'}; the draft: "
              f"{browser.find_element(By.ID, 'draft-status').text}")


if __name__ == "__main__":
    main()
