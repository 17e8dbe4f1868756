"""The browser pages of ``python -m agents.apps.web`` in a real browser: headless Chromium driven by Selenium.

Plays a whole game against ``random`` by clicking (the page deals it on load), checks the end screen against the engine's
outcome for the same seed and the same choices, replays a public rule case to its end, and
saves a screenshot of each page under pytest's tmp dir. With ``WEB_SCREENSHOTS=docs/screenshots``
in the environment it also writes ``table.png`` and ``replay.png`` there (the README's pictures)::

    WEB_SCREENSHOTS=docs/screenshots python -m pytest -q tests/web/test_web_browser.py

Skips (saying why) without Flask, Selenium, ``/usr/bin/chromium`` or ``/usr/bin/chromedriver``
(Debian: ``apt-get install -y chromium chromium-driver``).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the web app needs Flask: pip install -e '.[web]'")
pytest.importorskip("selenium", reason="the browser test needs Selenium: pip install -e '.[web]'")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.apps.web.app import create_app  # noqa: E402
from schnapsen_env.engine import GameState  # noqa: E402
from schnapsen_env.rules import Rules  # noqa: E402
from schnapsen_env.seeding import OPPONENT_STREAM, derive_seed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CASE = ROOT / "tests" / "cases" / "close-02-wins-3-though-opponent-wins-later.json"
SEED = 11

if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
    pytest.skip(
        f"browser tests need {CHROMIUM} and {CHROMEDRIVER} (Debian: apt-get install -y chromium chromium-driver)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def server():
    app = create_app(opponent="random", variant="schnapsen")
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    thread.join(5)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
        "--lang=en-US",
    ):
        opts.add_argument(arg)
    try:
        # Chromium's own temporary folders (org.chromium.Chromium.*) go under the test's TMPDIR, not /tmp
        env = {**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("chromium"))}
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER, env=env), options=opts)
    except WebDriverException as e:
        pytest.skip(f"cannot start headless Chromium: {str(e).splitlines()[0]}")
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def save_shot(driver, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    # the whole page: a viewport as tall as the document (headless Chrome's window size is not its viewport)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": max(700, min(height, 2000)), "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        assert driver.save_screenshot(str(path)), f"no screenshot {path}"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert path.stat().st_size > 1000
    out = os.environ.get("WEB_SCREENSHOTS")
    if out and name in ("table.png", "replay.png"):  # the README's two pictures
        Path(out).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(out) / name)


def body_attr(driver, name: str) -> str:
    return driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}") or ""


def test_play_a_whole_game_by_clicking(server, browser, tmp_path):
    start = time.monotonic()
    browser.get(f"{server}/?delay=0&seed={SEED}&opponent=random")
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: body_attr(d, "version") == "1")  # the page deals a game on load
    assert browser.find_element(By.ID, "variant").get_attribute("value") == "schnapsen"
    chosen: list[int] = []
    shot_taken = False
    for _ in range(60):
        state = body_attr(browser, "state")
        if state == "over":
            break
        assert state == "play", state
        # only legal actions are clickable: every enabled card and every action button
        buttons = [
            b for b in browser.find_elements(By.CSS_SELECTOR, "#hand button.card, #actions button") if b.is_enabled()
        ]
        assert buttons, "the player is to move but nothing is clickable"
        hand = browser.find_elements(By.CSS_SELECTOR, "#hand button.card")
        assert all(b.text for b in hand)
        assert any("of" in b.text for b in hand), "English card names are shown"
        # a card when one can be played, else the first other action (exchange/close/marriage)
        target = next((b for b in buttons if "card" in b.get_attribute("class")), buttons[0])
        chosen.append(int(target.get_attribute("data-action")))
        version = body_attr(browser, "version")
        target.click()
        wait.until(lambda d, v=version: body_attr(d, "version") != v)
        if len(chosen) == 3 and not shot_taken:
            save_shot(browser, tmp_path, "table.png")
            shot_taken = True
    assert body_attr(browser, "state") == "over"
    if not shot_taken:
        save_shot(browser, tmp_path, "table.png")
    save_shot(browser, tmp_path, "table-end.png")

    # the engine, same seed, same choices, the opponent seeded from the seed's opponent stream
    state = GameState.from_seed(Rules.preset("schnapsen"), seed=SEED)
    opponent = make_agent("random")
    opponent.reset(derive_seed(SEED, OPPONENT_STREAM))
    mine = iter(chosen)
    while not state.is_terminal:
        if state.current_player == 0:
            state.apply(next(mine))
        else:
            state.apply(opponent.act(state.information_set(state.current_player)))
    assert next(mine, None) is None
    o = state.outcome
    details = browser.find_element(By.ID, "result-details")
    assert int(details.get_attribute("data-winner")) == o.winner
    assert int(details.get_attribute("data-points")) == o.game_points
    assert details.get_attribute("data-reason") == o.reason
    headline = browser.find_element(By.ID, "result-headline").text
    who = "You win" if o.winner == 0 else "The opponent wins"
    assert headline.startswith(f"{who} {o.game_points} game point"), headline
    assert f"Eyes: you {o.eyes[0]}, opponent {o.eyes[1]}" in details.text
    assert browser.find_element(By.ID, "result-explanation").text
    assert browser.find_element(By.ID, "score-you").text == str(o.game_points if o.winner == 0 else 0)
    assert time.monotonic() - start < 60


def test_replay_a_rule_case_to_its_end(server, browser, tmp_path):
    expected = json.loads(CASE.with_name(CASE.name.replace(".json", ".expected.json")).read_text())
    n_actions = len(json.loads(CASE.read_text())["actions"])
    browser.get(f"{server}/replay")
    wait = WebDriverWait(browser, 20)
    browser.find_element(By.ID, "replay-file").send_keys(str(CASE))
    wait.until(lambda d: body_attr(d, "state") == "step")
    assert browser.find_element(By.ID, "step-info").text == f"step 0 / {n_actions}"
    # both hands shown at the deal
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand-0 .card")) == 5
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand-1 .card")) == 5
    for k in range(1, n_actions + 1):
        browser.find_element(By.ID, "next").click()
        assert browser.find_element(By.ID, "step-info").text == f"step {k} / {n_actions}"
        assert browser.find_element(By.ID, "step-action").text.startswith(f"Action {k}: player ")
    browser.find_element(By.ID, "prev").click()
    assert browser.find_element(By.ID, "step-info").text == f"step {n_actions - 1} / {n_actions}"
    browser.find_element(By.ID, "next").click()
    assert body_attr(browser, "state") == "end"
    assert json.loads(browser.find_element(By.ID, "result-line").text) == expected
    save_shot(browser, tmp_path, "replay.png")


def test_replay_shows_the_cli_error_for_a_bad_record(server, browser, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"deck": ["AH"], "dealer": 0}')
    browser.get(f"{server}/replay")
    browser.find_element(By.ID, "replay-file").send_keys(str(bad))
    WebDriverWait(browser, 20).until(lambda d: body_attr(d, "state") == "error")
    text = browser.find_element(By.ID, "replay-error").text
    assert '"error": "invalid_record"' in text and "deck must hold 20 cards" in text
