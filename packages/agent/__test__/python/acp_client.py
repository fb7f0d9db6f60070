#!/usr/bin/env python3
"""A scripted ACP client built on the official Python SDK (PyPI
`agent-client-protocol`), driving toolcall-stream-agent over real stdio pipes.

    python acp_client.py PLAN.json RECORD.jsonl

PLAN.json (written by __test__/e2e-python-client.test.mjs):
    {"agent": {"command": "...", "args": [...], "env": {...}},
     "connections": [{"label": "...", "fs": null | {"readTextFile": bool, "writeTextFile": bool},
                      "extraArgs": [...],  # appended to the agent's command line
                      "steps": [{"op": "new_session" | "set_mode" | "prompt" | "close_session", ...}]}]}

A prompt step has `text` or `blocks` (ACP content blocks), `answers` (the
option kinds to pick, in order, for its permission requests) and `cancelOn`
(a toolCallId: send session/cancel when that card appears); any step may say
`expectError` (the agent must answer with an error).

Each connection launches the agent (acp.spawn_agent_process), initializes
(with the `fs` capability, or with none at all), and runs its steps in order.
Every message the agent writes is checked against the SDK's pydantic models
(schema v1) for what it is, strictly: it must validate, and the model must
give back exactly the message that came in. The SDK's generated models salvage
a malformed optional field to its default and drop a malformed list item
(`x-deserialize-default-on-error`, acp/_deserialize.py), and ignore unknown
fields; a client would then silently lose what the agent sent, so here each of
those is a failure, but for the fields of NEWER_THAN_SDK (ACP's tool name,
which this release predates and whose value `_meta` carries too), recorded as
`newer_than_sdk`. The SDK's own routing must also hand every update to the
client's handlers without logging an error.

RECORD.jsonl gets one JSON object per line: `wire` (every message in both
directions, in arrival order), `delivered` (an update as the SDK handed it to
session_update), `fs_write` / `fs_read` (served from disk, as an editor would),
`step` (each step's parsed result or error), `newer_than_sdk` (a field of
NEWER_THAN_SDK the models ignored), `invalid` (a validation failure)
and `sdk_error` (an error the SDK logged). The exit code is 0 only if nothing
was invalid, the SDK logged no error and every step ran as planned.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import acp
from acp import schema as S
from acp.stdio import spawn_agent_process
from pydantic import BaseModel, ValidationError

# What each agent -> client message is, by method (requests and notifications).
INCOMING = {
    "session/update": S.SessionNotification,
    "session/request_permission": S.RequestPermissionRequest,
    "fs/write_text_file": S.WriteTextFileRequest,
    "fs/read_text_file": S.ReadTextFileRequest,
}
# What the response to each client -> agent request is.
RESPONSES = {
    "initialize": S.InitializeResponse,
    "session/new": S.NewSessionResponse,
    "session/set_mode": S.SetSessionModeResponse,
    "session/prompt": S.PromptResponse,
    "session/close": S.CloseSessionResponse,
}


class Recorder:
    def __init__(self, path: str) -> None:
        self.out = open(path, "w", encoding="utf-8")
        self.failures = 0
        self.start = time.monotonic()

    def write(self, kind: str, **fields: Any) -> None:
        line = {"kind": kind, "t": round((time.monotonic() - self.start) * 1000, 3), **fields}
        self.out.write(json.dumps(line) + "\n")
        self.out.flush()

    def fail(self, kind: str, **fields: Any) -> None:
        self.failures += 1
        self.write(kind, **fields)
        print(f"acp_client: {kind}: {json.dumps(fields)[:2000]}", file=sys.stderr)


# Optional fields of ACP schema v1 newer than this SDK release, which its
# models ignore (a client of it reads what they carry elsewhere): ACP's tool
# name (the Tool Call Name RFD, in @agentclientprotocol/sdk 2.4.0's schema),
# whose value is also in `_meta.toolName` / `_meta.tool_name`. Each is
# recorded as `newer_than_sdk` and allowed; anything else dropped fails.
NEWER_THAN_SDK = {"$.update.name", "$.toolCall.name"}


def first_difference(sent: Any, parsed: Any, where: str = "$", newer: list[str] | None = None) -> str | None:
    """Where the model's dump differs from the message as sent, or None.
    A field of NEWER_THAN_SDK the model dropped is appended to `newer` instead."""
    if isinstance(sent, dict) and isinstance(parsed, dict):
        for key in sent.keys() | parsed.keys():
            if key not in parsed and f"{where}.{key}" in NEWER_THAN_SDK and newer is not None:
                newer.append(f"{where}.{key}")
                continue
            if key not in parsed:
                return f"{where}.{key} was dropped by the model (unknown or salvaged field)"
            if key not in sent:
                return f"{where}.{key} was added by the model"
            diff = first_difference(sent[key], parsed[key], f"{where}.{key}", newer)
            if diff:
                return diff
        return None
    if isinstance(sent, list) and isinstance(parsed, list):
        if len(sent) != len(parsed):
            return f"{where}: {len(sent)} items sent, {len(parsed)} kept (invalid items skipped)"
        for i, (a, b) in enumerate(zip(sent, parsed)):
            diff = first_difference(a, b, f"{where}[{i}]")
            if diff:
                return diff
        return None
    if sent != parsed or type(sent) is not type(parsed):
        return f"{where}: sent {json.dumps(sent)[:200]}, the model gives {json.dumps(parsed)[:200]}"
    return None


def strict_errors(payload: Any, model: type[BaseModel], newer: list[str] | None = None) -> str | None:
    """None if `payload` is a valid `model` that round-trips exactly (but for
    NEWER_THAN_SDK fields, listed in `newer`), else why not."""
    try:
        parsed = model.model_validate(payload)
    except ValidationError as err:
        return f"{model.__name__}: {err}"
    dumped = parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)
    diff = first_difference(payload, dumped, newer=newer)
    return f"{model.__name__}: {diff}" if diff else None


class Wire:
    """Observes both directions of one connection: records, and checks what the agent sent."""

    def __init__(self, rec: Recorder, label: str) -> None:
        self.rec = rec
        self.label = label
        self.request_methods: dict[Any, str] = {}
        self.responses: list[dict[str, Any]] = []

    def __call__(self, event: Any) -> None:
        msg = event.message
        direction = "in" if event.direction.value == "incoming" else "out"
        self.rec.write("wire", conn=self.label, dir=direction, msg=msg)
        if direction == "out":
            if "method" in msg and "id" in msg:
                self.request_methods[msg["id"]] = msg["method"]
            return
        if msg.get("jsonrpc") != "2.0":
            self.rec.fail("invalid", conn=self.label, msg=msg, error='no "jsonrpc": "2.0"')
        if "method" in msg:
            model = INCOMING.get(msg["method"])
            if model is None:
                self.rec.fail("invalid", conn=self.label, msg=msg, error=f"unexpected method {msg['method']}")
                return
            newer: list[str] = []
            error = strict_errors(msg.get("params"), model, newer)
            if error:
                self.rec.fail("invalid", conn=self.label, msg=msg, error=error)
            for field in newer:
                params = msg.get("params") or {}
                holder = params.get("update") if field.startswith("$.update.") else params.get("toolCall")
                self.rec.write(
                    "newer_than_sdk",
                    conn=self.label,
                    method=msg["method"],
                    field=field,
                    toolCallId=holder.get("toolCallId"),
                    value=holder.get("name"),
                )
        else:
            # Checked once every request is known (a response may overtake
            # the observer call for its own request).
            self.responses.append(msg)

    def check_responses(self) -> None:
        for msg in self.responses:
            method = self.request_methods.get(msg.get("id"))
            if method is None:
                self.rec.fail("invalid", conn=self.label, msg=msg, error="a response to no request of this client")
                continue
            if ("result" in msg) == ("error" in msg):
                self.rec.fail("invalid", conn=self.label, msg=msg, error="a response needs exactly one of result, error")
                continue
            if "error" in msg:
                error = strict_errors(msg["error"], S.Error)
            else:
                error = strict_errors(msg["result"], RESPONSES[method])
            if error:
                self.rec.fail("invalid", conn=self.label, method=method, msg=msg, error=error)


class ScriptedClient:
    """The editor side: answers permission requests as the step says, serves fs from disk."""

    def __init__(self, rec: Recorder, label: str) -> None:
        self.rec = rec
        self.label = label
        self.conn: Any = None
        self.answers: list[str] = []
        self.cancel_on: str | None = None
        self.cancelled: set[str] = set()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def request_permission(
        self, session_id: str, tool_call: S.ToolCallUpdate, options: list[S.PermissionOption], **kwargs: Any
    ) -> S.RequestPermissionResponse:
        if not self.answers:
            self.rec.fail("unexpected", conn=self.label, what="permission request", toolCallId=tool_call.tool_call_id)
            return S.RequestPermissionResponse(outcome=S.DeniedOutcome(outcome="cancelled"))
        answer = self.answers.pop(0)
        if answer == "cancelled":
            return S.RequestPermissionResponse(outcome=S.DeniedOutcome(outcome="cancelled"))
        option = next(o for o in options if o.kind == answer)
        return S.RequestPermissionResponse(outcome=S.AllowedOutcome(outcome="selected", option_id=option.option_id))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.rec.write(
            "delivered",
            conn=self.label,
            sessionId=session_id,
            type=type(update).__name__,
            sessionUpdate=update.session_update,
        )
        # Cancel the moment the named call's card appears (as a user would, seeing it).
        if (
            self.cancel_on is not None
            and isinstance(update, S.ToolCallStart)
            and update.tool_call_id == self.cancel_on
            and session_id not in self.cancelled
        ):
            self.cancelled.add(session_id)
            await self.conn.cancel(session_id=session_id)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> S.WriteTextFileResponse:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        self.rec.write("fs_write", conn=self.label, sessionId=session_id, path=path, chars=len(content))
        return S.WriteTextFileResponse()

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> S.ReadTextFileResponse:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise acp.RequestError.resource_not_found(path) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            text = "".join(lines[start : start + limit if limit is not None else None])
        self.rec.write("fs_read", conn=self.label, sessionId=session_id, path=path, chars=len(text))
        return S.ReadTextFileResponse(content=text)


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True) if model is not None else None


async def run_connection(rec: Recorder, agent: dict[str, Any], spec: dict[str, Any]) -> None:
    label = spec["label"]
    wire = Wire(rec, label)
    client = ScriptedClient(rec, label)
    sessions: dict[str, str] = {}
    async with spawn_agent_process(
        client,
        agent["command"],
        *agent["args"],
        *spec.get("extraArgs", []),
        env=agent.get("env"),
        # The agent's diagnostics go to this process's stderr (the test shows them on a failure).
        transport_kwargs={"stderr": None},
        observers=[wire],
    ) as (conn, process):
        fs = spec.get("fs")
        capabilities = (
            S.ClientCapabilities(
                fs=S.FileSystemCapabilities(read_text_file=fs["readTextFile"], write_text_file=fs["writeTextFile"])
            )
            if fs
            else None
        )
        init = await conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=capabilities,
            client_info=S.Implementation(name="toolcall-stream-python-client", version=acp_version()),
        )
        rec.write("step", conn=label, op="initialize", result=dump(init))
        for index, step in enumerate(spec["steps"]):
            op = step["op"]
            fields: dict[str, Any] = {"conn": label, "index": index, "op": op, "name": step.get("name")}
            try:
                if op == "new_session":
                    result = await conn.new_session(cwd=step["cwd"], mcp_servers=[])
                    sessions[step["session"]] = result.session_id
                elif op == "set_mode":
                    result = await conn.set_session_mode(session_id=sessions[step["session"]], mode_id=step["mode"])
                elif op == "prompt":
                    client.answers = list(step.get("answers", []))
                    client.cancel_on = step.get("cancelOn")
                    # Content blocks as the SDK's models (resource links, embedded resources), or one text block.
                    blocks = step.get("blocks") or [{"type": "text", "text": step["text"]}]
                    content = S.PromptRequest.model_validate({"sessionId": "-", "prompt": blocks}).prompt
                    result = await conn.prompt(session_id=sessions[step["session"]], prompt=content)
                    if client.answers:
                        rec.fail("unused", conn=label, index=index, what="permission answers", answers=client.answers)
                elif op == "close_session":
                    result = await conn.close_session(session_id=sessions[step["session"]])
                else:
                    raise ValueError(f"unknown step {op}")
                rec.write("step", **fields, sessionId=sessions.get(step.get("session")), result=dump(result))
                if step.get("expectError"):
                    rec.fail("unexpected", **fields, what="the step succeeded, an error was expected")
            except acp.RequestError as err:
                error = {"code": err.code, "message": str(err), "data": err.data}
                rec.write("step", **fields, sessionId=sessions.get(step.get("session")), error=error)
                if not step.get("expectError"):
                    rec.fail("unexpected", **fields, what="the agent answered with an error", error=error)
            except ValidationError as err:
                # The SDK refused the agent's response to this step.
                rec.fail("invalid", **fields, error=str(err))
    wire.check_responses()
    rec.write("exit", conn=label, code=process.returncode)
    if process.returncode != 0:
        rec.fail("unexpected", conn=label, what=f"the agent exited with {process.returncode}")


def acp_version() -> str:
    from importlib.metadata import version

    return version("agent-client-protocol")


class FailOnError(logging.Handler):
    """An error the SDK logs (an update its router could not parse, a failed handler) fails the run."""

    def __init__(self, rec: Recorder) -> None:
        super().__init__(logging.ERROR)
        self.rec = rec

    def emit(self, record: logging.LogRecord) -> None:
        self.rec.fail("sdk_error", message=self.format(record))


async def main() -> int:
    plan = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    rec = Recorder(sys.argv[2])
    logging.getLogger().addHandler(FailOnError(rec))
    rec.write("sdk", version=acp_version(), protocolVersion=acp.PROTOCOL_VERSION, python=sys.version.split()[0])
    for spec in plan["connections"]:
        await run_connection(rec, plan["agent"], spec)
    rec.write("done", failures=rec.failures)
    return 1 if rec.failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
