"""The drafter's desk tools in ``spg serve``'s page, in headless Chromium (tests/test_serve_browser.py's setup): the
claim count with its fee triggers, the term map whose links jump to a claim, and the Renumber button."""

from __future__ import annotations

from test_serve import start_server, stop
from test_serve_browser import By, browser, open_page, wait_for  # noqa: F401  (browser: the module's fixture)

FORWARD = ("1. A grinder comprising a burr defining a grinding gap.\n"
           "2. The grinder of claim 3, further comprising a cup below the grinding gap.\n"
           "3. The grinder of claim 1, wherein the burr is steel.\n"
           "4. The grinder of claim 1 or 3, further comprising a timer.\n")


def test_terms_link_to_their_claims_and_renumber_rewrites_the_editor(browser, tmp_path):  # noqa: F811
    proc, url = start_server(tmp_path)
    try:
        open_page(browser, url)
        browser.find_element(By.ID, "claims").send_keys(FORWARD)
        wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#check-result .claim")) == 4)
        fees = browser.find_element(By.CSS_SELECTOR, "#check-result ul.fees").text
        assert "37 CFR 1.16(j)" in fees  # claim 4 is multiple dependent
        row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#check-result table.terms tr")
                   if r.text.startswith("burr"))
        assert row.find_elements(By.TAG_NAME, "td")[2].text == "3"
        # a click on a referring claim's number scrolls the report (the page's output pane) to that claim
        pane = "document.querySelector('#check .output')"
        assert browser.execute_script(f"return {pane}.scrollTop") == 0
        row.find_elements(By.TAG_NAME, "td")[2].find_element(By.TAG_NAME, "a").click()
        shown = (f"const box = {pane}.getBoundingClientRect(), claim = document.getElementById('claim-3')"
                 ".getBoundingClientRect(); return claim.top >= box.top && claim.bottom <= box.bottom")
        wait_for(browser, lambda d: d.execute_script(f"return {pane}.scrollTop") > 0 and d.execute_script(shown))
        # within this tab's report: the Draft tab's report has claims of the same numbers
        assert browser.execute_script("return location.hash") == ""
        browser.find_element(By.ID, "renumber").click()
        wait_for(browser, lambda d: d.find_element(By.ID, "claims").get_property("value").startswith(
            "1. A grinder comprising a burr defining a grinding gap.\n2. The grinder of claim 1, wherein"))
        assert browser.find_element(By.ID, "claims").get_property("value").splitlines()[2:] == [
            "3. The grinder of claim 2, further comprising a cup below the grinding gap.",
            "4. The grinder of claim 1 or 2, further comprising a timer."]
    finally:
        stop(proc)
