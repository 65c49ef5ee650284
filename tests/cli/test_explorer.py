"""The cost explorer (`tri cost PROG --html OUT.html`, tri.commands.cost_explorer).

Without a browser: the page is written at every level through the command line, needs
nothing from the network, shows the figures `tri cost --json` gives for the same run, a
line's TASM, at -O2 and -O3 what changed against -O1, with `--compare` the comparison;
bad uses are usage errors.

In a real browser (Debian's chromium and chromium-driver, driven by selenium; nothing is
downloaded): the page loads without console errors, the bars and figures shown are the
JSON's, clicking a line shows its TASM, whose runs add up to the line's cycles; the
screenshot is kept in `artifacts/` (or $TRI_ARTIFACTS).  Without Chromium the browser test
says so and skips; `.ci/run` installs it.
"""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_helpers import HEIGHT_NAMES, tri

FIB = "tests/programs/valid/fib.tri"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


class Page(HTMLParser):
    """The parts of the page the tests read: every element's attributes by id and class,
    and the text of elements with an id."""

    def __init__(self, text: str):
        super().__init__()
        self.bars: dict[str, int] = {}
        self.ids: dict[str, str] = {}
        self.lines: list[dict] = []
        self.sources: list[str] = []  # every src= and href=
        self.sections: list[str] = []
        self._open: list[str | None] = []
        self.feed(text)

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        for name in ("src", "href"):
            if name in attributes:
                self.sources.append(attributes[name])
        if "table-bar" in attributes.get("class", ""):
            self.bars[attributes["data-table"]] = int(attributes["data-rows"])
        if tag == "tr" and "line" in attributes.get("class", "").split():
            self.lines.append(attributes)
        if tag == "section":
            self.sections.append(attributes["id"])
        self._open.append(attributes.get("id"))
        self.ids.setdefault(attributes.get("id") or "", "")

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for identifier in self._open:
            if identifier:
                self.ids[identifier] = self.ids.get(identifier, "") + data


def explore(capsys, tmp_path, *options, name="page.html"):
    page = tmp_path / name
    code, out, err = tri(capsys, "cost", FIB, "--input", "30", "--html", page, *options)
    return code, page, err


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_the_page_shows_the_runs_figures_at_every_level(capsys, tmp_path, level):
    code, page, err = explore(capsys, tmp_path, f"-O{level}")
    assert code == 0 and f"explorer: {page}" in err
    text = page.read_text(encoding="utf-8")
    code, out, _ = tri(capsys, "cost", FIB, "--input", "30", f"-O{level}", "--json")
    report = json.loads(out)
    parsed = Page(text)
    assert parsed.bars == report["heights"] and sorted(parsed.bars) == sorted(HEIGHT_NAMES)
    assert int(parsed.ids["padded"]) == report["padded_height"]
    assert int(parsed.ids["cycles"]) == report["cycles"]
    assert int(parsed.ids["slack"]) == report["slack"]
    assert parsed.ids["output"] == ", ".join(str(value) for value in report["output"])
    assert ("optimizer" in parsed.sections) == (level >= 2)
    assert not [source for source in parsed.sources if "//" in source]  # offline
    assert "<script src" not in text and len(text) < 100_000


def test_each_lines_rows_and_tasm_are_its_annotation(capsys, tmp_path):
    code, page, _ = explore(capsys, tmp_path)
    text = page.read_text(encoding="utf-8")
    tasm = json.loads(re.search(r'id="tasm-data">(.*?)</script>', text, re.S).group(1))
    code, out, _ = tri(capsys, "cost", FIB, "--input", "30", "--annotate", "--json")
    annotated = {
        (Path(entry["file"]).resolve(), entry["line"]): entry for entry in json.loads(out)["lines"]
    }
    lines = Page(text).lines
    files = []  # the page's file order: the entry file first
    for line in lines:
        if line["data-file"] not in files:
            files.append(line["data-file"])
    assert Path(files[0]).resolve() == Path(FIB).resolve()
    checked = 0
    for line in lines:
        key = (Path(line["data-file"]).resolve(), int(line["data-line"]))
        instructions = tasm.get(line["data-key"], [])
        if key in annotated:  # the runs of a line's instructions are its processor rows
            assert (
                sum(visits for _, _, visits in instructions) == annotated[key]["rows"]["processor"]
            )
            checked += 1
        else:
            assert not instructions
    assert checked == len(annotated)


def test_the_optimizer_section_shows_what_changed(capsys, tmp_path):
    code, page, _ = explore(capsys, tmp_path, "-O2")
    text = page.read_text(encoding="utf-8")
    code, out, _ = tri(capsys, "cost", FIB, "--input", "30", "-O1", "--json")
    o1 = json.loads(out)
    section = text[text.index('<section id="optimizer">') :]
    assert f"cycles\n{o1['cycles']} → " in section
    assert section.count('<details class="block">') >= 1


def test_the_compare_view_marks_a_worse_figure(capsys, tmp_path):
    baseline = tmp_path / "base.json"
    code, _, _ = tri(capsys, "cost", FIB, "--input", "10", "--save", baseline)
    assert code == 0
    code, page, _ = explore(capsys, tmp_path, "--compare", baseline)  # input 30: more cycles
    assert code == 0
    section = page.read_text(encoding="utf-8").split('<section id="compare">')[1]
    row = re.search(r"<td class=\"name code\">cycles</td>.*?</tr>", section, re.S).group(0)
    assert 'class="worse"' in row


def test_bad_uses_are_usage_errors(capsys, tmp_path):
    code, _, err = tri(capsys, "cost", "tests/programs/gcd.tasm", "--html", tmp_path / "x.html")
    assert code == 2 and "--html needs Trident source" in err
    code, _, err = explore(capsys, tmp_path / "missing", name="page.html")
    assert code == 2 and "error: --html" in err and "Traceback" not in err


def test_a_failed_run_has_a_page_with_its_failure(capsys, tmp_path):
    page = tmp_path / "failed.html"
    code, _, _ = tri(capsys, "cost", FIB, "--input", "100001", "--html", page)
    assert code == 1
    assert "failed:" in Page(page.read_text(encoding="utf-8")).ids["error"]


# --- in a real browser -----------------------------------------------------------------------


def browser():
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip(f"no Chromium here ({CHROMIUM}, {CHROMEDRIVER}): .ci/run installs it")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1700",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def test_the_page_in_a_real_browser(capsys, tmp_path):
    from selenium.webdriver.common.by import By

    code, page, _ = explore(capsys, tmp_path, "-O2")
    assert code == 0
    code, out, _ = tri(capsys, "cost", FIB, "--input", "30", "-O2", "--annotate", "--json")
    report = json.loads(out)
    driver = browser()
    try:
        driver.get(page.resolve().as_uri())
        bars = {
            bar.get_attribute("data-table"): int(
                bar.find_element(By.CSS_SELECTOR, "text + rect + text").text
            )
            for bar in driver.find_elements(By.CSS_SELECTOR, "g.table-bar")
        }
        assert bars == report["heights"]
        assert int(driver.find_element(By.ID, "padded").text) == report["padded_height"]
        assert int(driver.find_element(By.ID, "cycles").text) == report["cycles"]
        loop = max(report["lines"], key=lambda entry: entry["rows"]["processor"])
        row = next(
            row
            for row in driver.find_elements(By.CSS_SELECTOR, "tr.line")
            if Path(row.get_attribute("data-file")).resolve() == Path(loop["file"]).resolve()
            and int(row.get_attribute("data-line")) == loop["line"]
        )
        row.click()
        assert "selected" in row.get_attribute("class")
        shown = driver.find_elements(By.CSS_SELECTOR, "#panel-tasm tr.instruction")
        assert shown
        visits = [
            int(item.find_element(By.CLASS_NAME, "visits").text.rstrip("×")) for item in shown
        ]
        assert sum(visits) == loop["rows"]["processor"]
        title = driver.find_element(By.ID, "panel-title").text
        assert title.startswith(f"{row.get_attribute('data-file')}:{loop['line']}: ")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, errors
        artifacts = Path(os.environ.get("TRI_ARTIFACTS", "artifacts"))
        artifacts.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(artifacts / "explorer.png"))
    finally:
        driver.quit()


def test_the_page_lists_the_runs_hints(capsys, tmp_path):
    code, page, _ = explore(capsys, tmp_path)  # input 30: the cascade table, H0005
    code, out, _ = tri(capsys, "cost", FIB, "--input", "30", "--hints", "--json")
    codes = [hint["code"] for hint in json.loads(out)["hints"]]
    shown = re.findall(r'class="hint" data-code="(H\d+)"', page.read_text(encoding="utf-8"))
    assert shown == codes and codes
