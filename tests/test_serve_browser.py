"""``spg serve`` in a real browser: headless Debian Chromium driven by Selenium through chromium-driver (Playwright
cannot download its browsers here). A drafter pastes claims and sees the findings, suppresses one with a click, opens
a file, and drafts from a description, watching whole claims appear (the real embedded model: ``slow``).

scripts/test.sh installs chromium and chromium-driver (apt-get) when they are missing; there a missing browser is a
failure, elsewhere a skip (tests/conftest.py, requirement_missing).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import real_model_threads, requirement_missing

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    requirement_missing("selenium (the dev extra)", module_level=True)
import uvicorn  # noqa: E402
from test_generate_cli import DISAGREEING, POINTER  # noqa: E402
from test_serve import CLAIMS, DOCX_CLAIMS, start_server, stop  # noqa: E402
from tiny import tiny_tokenizer  # noqa: E402

from spg.docx import read_docx  # noqa: E402
from spg.forest import Claim, Forest  # noqa: E402
from spg.generation.config import GenerateConfig  # noqa: E402
from spg.generation.generator import tagged_result  # noqa: E402
from spg.generation.pointer_decode import Generated  # noqa: E402
from spg.linearize import STRUCTURE_TOKENS, cite_parents  # noqa: E402
from spg.parse import claim_parents, parse_claims  # noqa: E402
from spg.serve.app import Settings, build_app  # noqa: E402
from spg.serve.drafter import Drafter  # noqa: E402

BROWSER, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
WAIT = 30  # seconds an element may take to appear (a loaded 2-core machine)


def chromium() -> webdriver.Chrome:
    """Headless Chromium at a desktop size, through the system's chromium-driver (never downloaded)."""
    if BROWSER is None or DRIVER is None:
        requirement_missing("chromium and chromium-driver (scripts/test.sh installs them with apt-get)")
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,900",
                 "--disable-extensions", "--no-first-run"):
        options.add_argument(flag)
    try:
        return webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    except WebDriverException as e:
        pytest.fail(f"chromium did not start: {e.msg}")


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-browser")
    # Every core for the server, as a user's gets: it drafts with the real model, but starts with the module's first
    # test (a fast one), so it would inherit the one thread conftest gives the tiny-model tests.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OMP_NUM_THREADS", real_model_threads())
        proc, url = start_server(folder, "--max-new-tokens", "256")
    yield url, folder
    stop(proc)


def wait_for(driver, condition, timeout: float = WAIT):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))


def open_page(driver, url: str) -> None:
    driver.get(url + "/")
    wait_for(driver, lambda d: d.find_element(By.ID, "server-info").text)  # the script ran and asked the server


def claim_blocks(driver, panel: str):
    return driver.find_elements(By.CSS_SELECTOR, f"#{panel} .claim")


def test_pasted_claims_show_their_tree_and_findings_as_they_are_typed(browser, server):
    url, _ = server
    open_page(browser, url)
    box = browser.find_element(By.ID, "claims")
    box.send_keys(CLAIMS)
    wait_for(browser, lambda d: len(claim_blocks(d, "check-result")) == 3)
    antecedent = browser.find_element(By.CSS_SELECTOR, '#check-result li[data-rule="antecedent"]')
    assert "lever" in antecedent.text
    assert browser.find_element(By.CSS_SELECTOR, "#check-result .tree").text.startswith("1 A chair")
    # typing on re-checks: a fourth claim appears without any button
    box.send_keys("4. The chair of claim 3, wherein the back is tall.\n")
    wait_for(browser, lambda d: len(claim_blocks(d, "check-result")) == 4)
    assert "4 claims" in browser.find_element(By.ID, "check-status").text


def test_a_click_suppresses_a_finding_and_save_writes_the_file(browser, tmp_path):
    proc, url = start_server(tmp_path)  # a server of its own: what it saves applies to every later check
    try:
        suppress_and_save(browser, url, tmp_path)
    finally:
        stop(proc)


def suppress_and_save(browser, url: str, folder: Path) -> None:
    open_page(browser, url)
    browser.find_element(By.ID, "claims").send_keys(CLAIMS)
    item = '#check-result li[data-rule="antecedent"][data-claim="2"]'
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, item))
    browser.find_element(By.CSS_SELECTOR, item + " button.suppress").click()
    wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, item))
    wait_for(browser, lambda d: "1 suppressed" in d.find_element(By.ID, "check-status").text)
    assert "antecedent in claim 2" in browser.find_element(By.ID, "suppression-list").text
    assert not (folder / ".spg-lint.yaml").exists()  # nothing written until Save
    browser.find_element(By.ID, "save-suppressions").click()
    wait_for(browser, lambda d: "saved to" in d.find_element(By.ID, "check-status").text
             or (folder / ".spg-lint.yaml").exists())
    assert "antecedent" in (folder / ".spg-lint.yaml").read_text()
    # a claim inserted before claim 2: the suppression, keyed by claim 2's words, stays on it as claim 3
    box = browser.find_element(By.ID, "claims")
    box.clear()
    box.send_keys("1. A chair comprising a seat and a back.\n2. The chair of claim 1, wherein the handle is blue.\n"
                  "3. The chair of claim 1, wherein the lever is red.\n"
                  "4. The chair of claims 1 and 3, wherein the seat is soft.\n")
    wait_for(browser, lambda d: len(claim_blocks(d, "check-result")) == 4)
    shown = browser.find_elements(By.CSS_SELECTOR, '#check-result li[data-rule="antecedent"]')
    assert [li.get_attribute("data-claim") for li in shown] == ["2"] and "handle" in shown[0].text
    assert "1 suppressed" in browser.find_element(By.ID, "check-status").text


def test_an_opened_text_file_replaces_the_claims_and_a_bad_one_changes_nothing(browser, server, tmp_path):
    url, _ = server
    open_page(browser, url)
    good = tmp_path / "stool.txt"
    good.write_text("1. A stool comprising a seat.\n2. The stool of claim 1, wherein the seat is round.\n")
    browser.find_element(By.ID, "claims-file").send_keys(str(good))
    wait_for(browser, lambda d: len(claim_blocks(d, "check-result")) == 2)
    assert browser.find_element(By.ID, "claims").get_attribute("value").startswith("1. A stool")
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"1. A st\xf6ol.\n")
    browser.find_element(By.ID, "claims-file").send_keys(str(bad))
    wait_for(browser, lambda d: d.find_element(By.ID, "message").is_displayed())
    assert "latin1.txt line 1: byte 0xf6 is not UTF-8" in browser.find_element(By.ID, "message").text
    assert browser.find_element(By.ID, "claims").get_attribute("value").startswith("1. A stool")  # kept


def test_an_opened_docx_is_checked_and_offers_the_commented_copy(browser, server, tmp_path):
    from docx_files import claims_document

    url, _ = server
    open_page(browser, url)
    path = tmp_path / "chair.docx"
    path.write_bytes(claims_document(DOCX_CLAIMS, "auto"))  # Word's automatic numbering: no number in the text
    browser.find_element(By.ID, "claims-file").send_keys(str(path))
    wait_for(browser, lambda d: len(claim_blocks(d, "check-result")) == 3)
    assert browser.find_elements(By.CSS_SELECTOR, '#check-result li[data-rule="antecedent"][data-claim="2"]')
    assert "chair.docx" in browser.find_element(By.CSS_SELECTOR, "#check-result h1").text
    button = browser.find_element(By.ID, "download-docx")
    wait_for(browser, lambda d: button.is_enabled())
    # the JSON download is spg lint --json's for the document, paragraphs included (the page's saveBlob, watched)
    browser.execute_script("saveBlob = (blob) => blob.text().then((text) => { window.savedJson = text; });")
    browser.find_element(By.ID, "download-json").click()
    downloaded = json.loads(wait_for(browser, lambda d: d.execute_script("return window.savedJson")))
    cli = subprocess.run([sys.executable, "-m", "spg.cli", "lint", "--json", "--no-config", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert downloaded == json.loads(cli.stdout) and downloaded["claims"][0]["paragraph"] is not None
    browser.find_element(By.ID, "claims").send_keys(" ")  # edited since it was opened: no commented copy of it
    wait_for(browser, lambda d: not button.is_enabled())


def test_the_commented_copy_of_a_9_mb_docx_downloads(browser, server, tmp_path):
    """Issue 42: a document just under the request limit opens; its commented copy comes back too (the page asks for
    the kept document by token; sent back in base64 it was over the limit: 413)."""
    import io
    import time

    import docx as python_docx
    from docx_files import claims_document, with_parts

    url, _ = server
    open_page(browser, url)
    browser.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    path = tmp_path / "big.docx"
    path.write_bytes(with_parts(claims_document(DOCX_CLAIMS, "auto"), 1, 9 * 2**20, kind="photo"))
    browser.find_element(By.ID, "claims-file").send_keys(str(path))
    button = browser.find_element(By.ID, "download-docx")
    wait_for(browser, lambda d: button.is_enabled())
    button.click()
    copy = tmp_path / "big.commented.docx"
    wait_for(browser, lambda d: copy.is_file() or d.find_element(By.ID, "message").text, timeout=120)
    assert not browser.find_element(By.ID, "message").text
    time.sleep(1)  # the download is renamed into place once written
    assert any("lever" in c.text for c in python_docx.Document(io.BytesIO(copy.read_bytes())).comments)


def test_an_opened_description_docx_fills_the_draft_tab(browser, server, tmp_path):
    import docx as python_docx
    from docx_files import saved

    url, _ = server
    open_page(browser, url)
    browser.find_element(By.ID, "tab-draft").click()
    document = python_docx.Document()
    document.add_paragraph("A folding stool has a seat and three legs.")
    path = tmp_path / "stool.docx"
    path.write_bytes(saved(document))
    browser.find_element(By.ID, "description-file").send_keys(str(path))
    wait_for(browser, lambda d: d.find_element(By.ID, "description").get_attribute("value").strip())
    assert browser.find_element(By.ID, "description").get_attribute("value").strip() == (
        "A folding stool has a seat and three legs.")
    assert "stool.docx" in browser.find_element(By.ID, "description-source").text


@pytest.mark.slow  # the shipped model drafts on the CPU
def test_a_draft_shows_whole_claims_as_they_are_decoded(browser, server):
    url, _ = server
    open_page(browser, url)
    browser.find_element(By.ID, "tab-draft").click()
    from spg.cli.generate import example_path

    browser.find_element(By.ID, "description").send_keys(Path(example_path()).read_text()[:3000])
    browser.find_element(By.ID, "draft-button").click()
    status = browser.find_element(By.ID, "draft-status")
    seen: list[list[str]] = []

    def streaming(d) -> bool:
        try:
            texts = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#draft-result .claim .text")]
        except StaleElementReferenceException:  # the page rendered the next claim meanwhile: read it again
            return False
        if texts and status.text.startswith("drafting"):
            seen.append(texts)
        return status.text.startswith(("done", "stopped"))

    wait_for(browser, streaming, timeout=300)
    assert status.text.startswith("done"), browser.find_element(By.ID, "message").text
    final = tree_of(browser, "draft-result")
    assert seen, "no claim was shown before the draft was done"
    assert final
    # every claim shown while decoding was whole: the same text the finished draft has for it, once its "of claim N"
    # names the pointer's parent (spg.linearize.cite_parents; the claims stream in as the model writes them)
    for texts in seen:
        for shown, (num, done, parents) in zip(texts, final, strict=False):
            assert cite_parents(Forest.from_claims([Claim(num, shown, parents)])).claims[0].text == done
    assert not browser.find_element(By.ID, "draft-txt").get_attribute("disabled")


class DisagreeingSPG:
    """Stands in for an SPG model whose words and pointer disagree (issue 42): its output goes through the
    generator's own reading (spg.generation.generator.tagged_result), as a real draft's does."""

    mode = "spg"

    def __init__(self):
        self.tokenizer = tiny_tokenizer()
        self.tokenizer.add_tokens(list(STRUCTURE_TOKENS), special_tokens=True)  # the drafter's streamer reads tags

    def __call__(self, docs, streamer=None):
        return [{"id": docs[0].id, **tagged_result(Generated([], DISAGREEING, POINTER)), "new_tokens": 60,
                 "cut_by_budget": ""}]


@pytest.fixture
def scripted_server(tmp_path):
    """``spg serve``'s app on a port of its own, in this process, drafting with :class:`DisagreeingSPG`."""
    app = build_app(Settings(suppression_file=tmp_path / ".spg-lint.yaml"),
                    Drafter(GenerateConfig(), load=lambda config: DisagreeingSPG()))
    sock = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)
    sock.close()


def downloaded(folder: Path, pattern: str) -> Path:
    """The file a click saved into ``folder`` (Chromium writes ``*.crdownload`` until it is whole)."""
    return wait_for(None, lambda _: next((p for p in folder.glob(pattern) if p.suffix != ".crdownload"), None))


def tree_of(driver, panel: str) -> list[tuple[int, str, tuple[int, ...]]]:
    """(number, text, parents) of each claim the page shows in ``panel``, the parents as its label says them."""
    rows = []
    for block in claim_blocks(driver, panel):
        label = block.find_element(By.CSS_SELECTOR, ".label").text
        parents = tuple(int(n) for n in label.removeprefix("depends on").replace(",", " ").split()) \
            if label.startswith("depends on") else ()
        rows.append((int(block.get_attribute("id").removeprefix("claim-")), block.find_element(By.CSS_SELECTOR, ".text").text,
                     parents))
    return rows


def test_a_drafts_text_word_and_json_downloads_say_what_its_tree_says(browser, scripted_server, tmp_path):
    def rows(text: str) -> list[tuple[int, str, tuple[int, ...]]]:
        return [(c.num, c.text, c.parents) for c in parse_claims(text).claims]

    folder = tmp_path / "downloads"
    folder.mkdir()
    browser.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    open_page(browser, scripted_server)
    browser.find_element(By.ID, "tab-draft").click()
    browser.find_element(By.ID, "description").send_keys("A chair has a seat and a back, both red.")
    browser.find_element(By.ID, "draft-button").click()
    status = browser.find_element(By.ID, "draft-status")
    wait_for(browser, lambda d: status.text.startswith(("done", "stopped")) or d.find_element(By.ID, "message").text)
    assert status.text.startswith("done"), (status.text, browser.find_element(By.ID, "message").text)
    tree = tree_of(browser, "draft-result")
    assert [parents for _, _, parents in tree] == [(), (1,), (1,), (1,), (2,)]  # the pointer's
    assert all(claim_parents(text, num) == parents for num, text, parents in tree), tree  # the words say the same
    browser.find_element(By.ID, "draft-txt").click()
    assert rows(downloaded(folder, "*.claims.txt").read_text()) == tree
    browser.find_element(By.ID, "draft-docx").click()
    assert rows(read_docx(downloaded(folder, "claims.docx").read_bytes(), "claims.docx").claims_text) == tree
    browser.find_element(By.ID, "draft-to-check").click()
    wait_for(browser, lambda d: len(claim_blocks(d, "check-result")) == len(tree))
    assert tree_of(browser, "check-result") == tree
    browser.find_element(By.ID, "download-json").click()
    report = json.loads(downloaded(folder, "*.lint.json").read_text())
    assert [(c["num"], tuple(c["parents"])) for c in report["claims"]] == [(num, parents) for num, _, parents in tree]
