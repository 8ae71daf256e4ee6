"""Headless Chromium for the page's checks: Debian's chromium and
chromedriver driven by selenium, with a fresh profile each, no network
beyond loopback, and screenshots saved under target/ui-screenshots/."""

from __future__ import annotations

import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

SHOTS = Path(__file__).resolve().parents[2] / "target" / "ui-screenshots"


class Browser:
    def __init__(self) -> None:
        self.profile = tempfile.TemporaryDirectory()
        opts = Options()
        opts.binary_location = "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", f"--user-data-dir={self.profile.name}", "--window-size=1280,900"):
            opts.add_argument(arg)
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        self.driver.set_page_load_timeout(30)

    def get(self, url: str) -> None:
        self.driver.get(url)

    def click(self, element) -> None:
        """Clicks what navigates, and waits for the next page to load."""
        self.navigating(element.click)

    def navigating(self, act) -> None:
        """Does `act`, then waits until a new document has loaded (the old
        one carries a mark the new one lacks)."""
        self.js("window.__memcap_old_page = true")
        act()

        def loaded(d) -> bool:
            try:
                return d.execute_script(
                    "return window.__memcap_old_page === undefined && document.readyState === 'complete'")
            except WebDriverException:  # the document is being replaced
                return False

        WebDriverWait(self.driver, 20).until(loaded)

    def text(self) -> str:
        return self.driver.find_element(By.TAG_NAME, "body").text

    def find(self, css: str):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def link(self, text: str):
        return self.driver.find_element(By.PARTIAL_LINK_TEXT, text)

    def js(self, script: str):
        return self.driver.execute_script(script)

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        height = self.js("return Math.min(document.documentElement.scrollHeight, 2400)") or 900
        self.driver.set_window_size(1280, max(900, int(height)))
        self.driver.save_screenshot(str(path))
        self.driver.set_window_size(1280, 900)
        return path

    def scripts_ran(self) -> list[str]:
        """What a hostile note could have done, seen from inside the page:
        a flag its script would set, and any script, handler, style or
        javascript:/data: link left in the document."""
        return self.js("""
            const found = [];
            if (window.__xss !== undefined) found.push('a script ran: ' + window.__xss);
            if (document.title.includes('pwned')) found.push('the title changed');
            document.querySelectorAll('script').forEach(s => found.push('script element'));
            document.querySelectorAll('iframe,object,embed,form[action^="javascript"]').forEach(e => found.push(e.tagName));
            document.querySelectorAll('*').forEach(e => {
                for (const a of e.attributes) {
                    if (a.name.startsWith('on')) found.push('handler ' + a.name + ' on ' + e.tagName);
                    if (a.name === 'style') found.push('style on ' + e.tagName);
                    if (['href','src','action','xlink:href','formaction'].includes(a.name)
                        && /^\\s*(javascript|data|vbscript):/i.test(a.value)) found.push(a.name + '=' + a.value);
                }
            });
            return found;
        """)

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            self.profile.cleanup()

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
