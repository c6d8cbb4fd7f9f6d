"""An MCP server written as a Python author writes one: the official Python SDK's
`MCPServer` (mcp 2.x, in .venv-sdk) or, run by the SDK 1.x (.venv-sdk1), its `FastMCP`,
both installed by `make setup`; over streamable HTTP, synchronous, without tasks. The
gateway tests put it behind the gateway, unchanged (tests/e2e/gateway-python.test.mjs,
docs/gateway.md).

Usage: python_upstream.py PORT. Prints one JSON line per event on stdout:
{"event": "ready"} once it listens, then {"event": "call", "tool": ..., "args": ...} when a
call starts and {"event": "ended", "tool": ..., "label": ..., "outcome": ...} when it ends
("completed", "cancelled"), so the test sees what reached the upstream.

Tools:
  lookup {key}            answers at once; readOnlyHint; structured {key, value}
  report {seconds, label} works `seconds` s, reporting progress each second; no hints
                          (not repeatable); structured {pages, label}
  survey {label}          asks one question ("Which colour?", an elicitation), then answers
                          with the colour, or the action when the person did not accept;
                          structured {label, answer}
  pick {label}            (SDK 2.x) the same question asked by a resolver (`Resolve`,
                          `Elicit`): by MRTR at 2026-07-28 (an input_required result, the call
                          made again with the answer and its requestState), mid-call at
                          2025-11-25; structured {label, answer}
"""

import asyncio
import json
import sys

import uvicorn
from pydantic import BaseModel, Field

try:  # the SDK 2.x
    from mcp.server.mcpserver import Context, MCPServer as Server
    from mcp_types import ToolAnnotations
except ImportError:  # the SDK 1.x, as most Python servers that exist are written
    from mcp.server.fastmcp import Context, FastMCP as Server
    from mcp.types import ToolAnnotations


def event(**fields):
    print(json.dumps(fields), flush=True)


server = Server("python-upstream")


class Found(BaseModel):
    key: str
    value: str


class Report(BaseModel):
    pages: int
    label: str


class Colour(BaseModel):
    colour: str = Field(description="A colour")


class Survey(BaseModel):
    label: str
    answer: str


@server.tool(
    title="Look a key up",
    description="Answers at once.",
    annotations=ToolAnnotations(readOnlyHint=True),
)
async def lookup(key: str) -> Found:
    event(event="call", tool="lookup", args={"key": key})
    return Found(key=key, value=f"value-of-{key}")


@server.tool(title="Render a report", description="Renders a report page by page (slow).")
async def report(seconds: int, ctx: Context, label: str = "") -> Report:
    event(event="call", tool="report", args={"seconds": seconds, "label": label})
    try:
        for page in range(1, seconds + 1):
            await asyncio.sleep(1)
            await ctx.report_progress(page, seconds, f"page {page} of {seconds}")
    except asyncio.CancelledError:
        event(event="ended", tool="report", label=label, outcome="cancelled")
        raise
    event(event="ended", tool="report", label=label, outcome="completed")
    return Report(pages=seconds, label=label)


@server.tool(title="Ask a question", description="Asks which colour, then answers with it.")
async def survey(label: str, ctx: Context) -> Survey:
    event(event="call", tool="survey", args={"label": label})
    answered = await ctx.elicit("Which colour?", Colour)
    answer = answered.data.colour if answered.action == "accept" else answered.action
    event(event="ended", tool="survey", label=label, outcome="completed", answer=answer)
    return Survey(label=label, answer=answer)


try:  # the SDK 2.x's own way of asking: a resolver, which asks by MRTR at 2026-07-28
    from typing import Annotated

    from mcp.server.mcpserver import Elicit, Resolve

    def ask_colour(label: str) -> Elicit[Colour]:
        return Elicit("Which colour?", Colour)

    @server.tool(title="Pick a colour", description="Asks which colour, in any revision.")
    async def pick(label: str, colour: Annotated[Colour, Resolve(ask_colour)]) -> Survey:
        event(event="call", tool="pick", args={"label": label})
        event(event="ended", tool="pick", label=label, outcome="completed", answer=colour.colour)
        return Survey(label=label, answer=colour.colour)

except ImportError:  # the SDK 1.x has no resolvers
    pass


async def main(port: int):
    app = server.streamable_http_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    served = uvicorn.Server(config)
    task = asyncio.create_task(served.serve())
    while not served.started:
        await asyncio.sleep(0.05)
    event(event="ready")
    await task


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
