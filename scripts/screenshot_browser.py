"""What the screenshot scripts share: ``spg serve`` started on a free port in an empty folder, and headless Chromium
set up as the browser tests run it (Debian's chromium-driver), both stopped when the block ends."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


@contextmanager
def served(folder: str, serve_args: list[str], wait_seconds: float):
    """(browser, wait, url): ``spg serve --port 0 *serve_args`` running in ``folder``, and a 1400×900 browser."""
    server = subprocess.Popen([sys.executable, "-m", "spg.cli", "serve", "--port", "0", *serve_args], cwd=folder,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"}, stderr=subprocess.PIPE, text=True)
    url = server.stderr.readline().split()[2]
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900",
                 "--hide-scrollbars"):
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
    try:
        yield browser, WebDriverWait(browser, wait_seconds, poll_frequency=0.2), url
    finally:
        browser.quit()
        server.terminate()
        server.wait(30)
