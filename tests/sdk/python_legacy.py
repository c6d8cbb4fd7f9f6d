"""The official Python SDK 2.x client (`mcp`) in legacy mode (the 2025-11-25 initialize
handshake and an Mcp-Session-Id session) against this server.

Usage: python_legacy.py <mcp url>. Prints one JSON object (what it saw) on stdout and
exits 0, or prints the error on stderr and exits 1. tests/sdk/python-legacy.test.mjs
runs it and asserts on the output.
"""

import asyncio
import json
import sys
import traceback

import mcp.types as types
from mcp import Client
from mcp.client import ClientRequestContext

elicitations: list[dict] = []


async def on_elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    elicitations.append(params.model_dump(mode="json", by_alias=True, exclude_none=True))
    return types.ElicitResult(action="accept", content={"username": "guido", "email": "guido@example.com"})


def texts(result: types.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def main(url: str) -> dict:
    async with Client(
        url,
        mode="legacy",
        client_info=types.Implementation(name="sdk-python-test", version="1.0.0"),
        elicitation_callback=on_elicit,
        read_timeout_seconds=60,
    ) as client:
        out: dict = {
            "protocolVersion": client.protocol_version,
            "serverInfo": client.server_info.model_dump(mode="json", by_alias=True) if client.server_info else None,
            "capabilities": client.server_capabilities.model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        tools = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.extend(t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        out["tools"] = [{"name": t["name"], "execution": t.get("execution")} for t in tools]

        greet = await client.call_tool("greet", {"name": "Guido"})
        out["greet"] = {"isError": bool(greet.is_error), "texts": texts(greet)}

        asked = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        out["elicitation"] = {"isError": bool(asked.is_error), "texts": texts(asked), "requests": elicitations}

        # A call longer than the server's wait: a handle, then job_status (docs/hosts.md).
        pending = await client.call_tool("process_batch", {"items": 5, "delayMs": 1000, "label": "py"})
        handle = (pending.structured_content or {}).get("job")
        final, status = None, None
        for _ in range(20):
            read = await client.call_tool("job_status", {"job": handle, "waitSeconds": 3})
            status = (read.meta or {}).get("mcp-tasks-edge/job", {}).get("status")
            if status not in ("working", "input_required"):
                final = read
                break
        out["job"] = {
            "pending": pending.structured_content,
            "isError": bool(pending.is_error),
            "status": status,
            "texts": texts(final) if final else [],
        }
        return out


if __name__ == "__main__":
    try:
        result = asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=120))
    except BaseException:  # noqa: BLE001 - report everything, including exception groups
        traceback.print_exc()
        sys.exit(1)
    print(json.dumps(result))
