"""Every page fits a 1440 and a 1024 px wide window, measured in headless Chromium: each metric shows its
figure whole (no "19,919,22…"), each input its value or placeholder, nothing in the main block reaches
past the window's right edge unless a frame inside it clips it to scroll, and each table's frame lies
inside the window, its columns scrolling within it."""

from __future__ import annotations

import pytest

from dashboards.pages import PAGES
from tests.dashboards.servers import settled

WIDTHS = (1440, 1024)
#: What overflows, measured in the page: metric values cut (their text wider than their box), inputs whose
#: value (or placeholder) is wider than their box, elements
#: whose visible part (after the frames below the main block that clip them) passes the right edge, and
#: table frames reaching past it.
MEASURE = """() => {
  const edge = window.innerWidth + 0.5;
  const block = document.querySelector('[data-testid="stMainBlockContainer"]');
  const cut = [...document.querySelectorAll('[data-testid="stMetricValue"]')]
    .filter(value => [value, ...value.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 0.5))
    .map(value => value.innerText);
  const clipped = e => {
    let right = e.getBoundingClientRect().right;
    for (let up = e.parentElement; up && up !== block; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible') right = Math.min(right, up.getBoundingClientRect().right);
    }
    return right;
  };
  const past = [...block.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().width > 1 && clipped(e) > edge)
    .map(e => e.closest('[data-testid]')?.dataset.testid ?? e.tagName);
  const ruler = document.createElement('canvas').getContext('2d');
  const inputs = [...block.querySelectorAll('input[type="text"], input[type="number"]')].filter(input => {
    const style = getComputedStyle(input);
    ruler.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return ruler.measureText(input.value || input.placeholder).width > room + 0.5;
  }).map(input => input.getAttribute('aria-label'));
  const tables = [...document.querySelectorAll('[data-testid="stDataFrame"]')]
    .filter(frame => frame.getBoundingClientRect().right > edge).length;
  const page = document.documentElement.scrollWidth - window.innerWidth;
  return {cut, inputs, past: [...new Set(past)], tables, page};
}"""


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_window(server, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    overflows = {}
    for index, (name, title, _) in enumerate(PAGES):
        page.goto(f"{server}/{name.removesuffix('.py') if index else ''}")  # the first page is the default, at /
        page.wait_for_selector(f"h1:has-text('{title}')", timeout=60_000)
        settled(page)
        page.wait_for_timeout(500)  # the charts are embedded once the run is over
        measured = page.evaluate(MEASURE)
        if measured["cut"] or measured["inputs"] or measured["past"] or measured["tables"] or measured["page"] > 0:
            overflows[title] = measured
    page.close()
    assert overflows == {}, f"at {width} px: {overflows}"
