import { strict as assert } from "node:assert";
import { test } from "node:test";
import { LeveledChannel, parseClientLine, parseServerLine, pipLogLines } from "../src/logChannel";

function fakeLog() {
  const lines: string[] = [];
  const at = (level: string) => (text: string) => lines.push(`${level} ${text}`);
  const log = {
    name: "evalens",
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    show: () => undefined,
    hide: () => undefined,
  };
  return { log: log as never, lines };
}

test("the client's own lines lose their timestamp and keep their level", () => {
  assert.deepEqual(parseClientLine("[Warn  - 12:00:01 PM] Connection lost"), { level: "warn", text: "Connection lost" });
  assert.deepEqual(parseClientLine("[Error - 1:02:03 PM] Request failed"), { level: "error", text: "Request failed" });
  assert.equal(parseClientLine("INFO evalens.server: hello"), undefined);
});

test("a server that exits with code 0 after a restart is not an error", () => {
  assert.deepEqual(parseClientLine("[Error - 12:00:01 PM] Server process exited with code 0."), {
    level: "info",
    text: "Server process exited with code 0.",
  });
  assert.equal(parseClientLine("[Error - 12:00:01 PM] Server process exited with code 1.")?.level, "error");
});

test("server stderr: Python logging levels, a traceback keeps its record's level", () => {
  assert.deepEqual(parseServerLine("WARNING evalens.server.run: slow", undefined), { level: "warn", text: "evalens.server.run: slow" });
  const first = parseServerLine("ERROR evalens.server: validation failed", undefined);
  assert.equal(parseServerLine("Traceback (most recent call last):", first.level).level, "error");
});

test("chunks are split into lines and each lands once at its level", () => {
  const { log, lines } = fakeLog();
  const ch = new LeveledChannel(log);
  ch.append("INFO evalens.server: start");
  ch.append("ed\nWARNING pygls: x\n");
  ch.appendLine("[Error - 12:00:01 PM] Server process exited with code 0.");
  assert.deepEqual(lines, ["info evalens.server: started", "warn pygls: x", "info Server process exited with code 0."]);
});

test("pip: stdout is info, stderr of a failed install is an error", () => {
  const out = pipLogLines("Collecting evalens\n", "error: externally-managed-environment\n", true);
  assert.deepEqual(out, [
    { level: "info", text: "Collecting evalens" },
    { level: "error", text: "error: externally-managed-environment" },
  ]);
  assert.equal(pipLogLines("", "WARNING: the script is not on PATH", false)[0].level, "warn");
});
