#!/usr/bin/env python3
"""Drives headless Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe:
the browser reads commands on descriptor 3 and writes answers on 4, each a JSON text ended by a
NUL byte), for StudioBrowserTests: opens the studio's URL, runs scenario.js in the page (it acts
as a person would, by the DOM, and returns what it saw), and takes screenshots at a desktop and a
phone width. Needs nothing but Python's standard library and Debian's chromium.

    drive.py CHROMIUM URL SCENARIO.js OUTPUT-FOLDER     # prints the findings as one JSON object

helpers.js, beside this script, is evaluated in the page first: what scenarios share.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile


class Browser:
    def __init__(self, chromium, profile):
        commands_read, self.commands = os.pipe()
        self.answers, answers_write = os.pipe()

        def descriptors():
            # The ends may sit on 3 or 4 themselves: move both above first.
            read_end, write_end = os.dup(commands_read), os.dup(answers_write)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             "--user-data-dir=" + profile, "--hide-scrollbars", "about:blank"],
            # 3 and 4 are made by dup2 before exec; listing them keeps them from being closed.
            pass_fds=(3, 4), preexec_fn=descriptors,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_read)
        os.close(answers_write)
        self.next_id = 0
        self.buffer = b""
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self.read()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.answers, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def wait_for(self, method, session):
        for index, event in enumerate(self.events):
            if event.get("method") == method and event.get("sessionId") == session:
                del self.events[index]
                return event
        while True:
            event = self.read()
            if event.get("method") == method and event.get("sessionId") == session:
                return event
            self.events.append(event)

    def close(self):
        try:
            self.send("Browser.close")
        except RuntimeError:
            pass
        self.process.wait(timeout=30)


def main():
    chromium, url, scenario_path, output = sys.argv[1:5]
    scenario = open(scenario_path, encoding="utf-8").read()
    helpers = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers.js"), encoding="utf-8").read()
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(chromium, profile)
        try:
            target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            browser.send("Page.enable", session=session)
            browser.send("Runtime.enable", session=session)
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session)
            browser.send("Page.navigate", {"url": url}, session)
            browser.wait_for("Page.loadEventFired", session)
            browser.send("Runtime.evaluate", {"expression": helpers}, session)
            result = browser.send("Runtime.evaluate", {
                "expression": scenario, "awaitPromise": True, "returnByValue": True, "timeout": 120000}, session)
            if "exceptionDetails" in result:
                raise RuntimeError("the scenario failed: " + json.dumps(result["exceptionDetails"]))
            found = result["result"]["value"]
            shots = {}
            for name, width, height, mobile in [("desktop", 1280, 900, False), ("phone", 390, 844, True)]:
                browser.send("Emulation.setDeviceMetricsOverride",
                             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}, session)
                layout = browser.send("Runtime.evaluate", {
                    "expression": "JSON.stringify({scrollWidth: document.documentElement.scrollWidth, "
                                  "innerWidth: window.innerWidth, "
                                  "stacked: document.getElementById('run-pane').getBoundingClientRect().top > "
                                  "document.getElementById('editor-pane').getBoundingClientRect().bottom - 1})",
                    "returnByValue": True}, session)
                png = base64.b64decode(browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"])
                path = os.path.join(output, f"studio-{name}.png")
                with open(path, "wb") as file:
                    file.write(png)
                shots[name] = {"path": path, "layout": json.loads(layout["result"]["value"])}
            found["screenshots"] = shots
            print(json.dumps(found))
        finally:
            browser.close()


if __name__ == "__main__":
    main()
