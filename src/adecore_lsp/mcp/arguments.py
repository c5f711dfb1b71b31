"""Tools that refuse arguments they do not take, for every tool of ``adecore-lsp mcp``.

The SDK builds each tool's arguments as a pydantic model that drops what it does not know,
so ``fix`` called with ``path`` instead of ``paths`` would fix the whole root. Here every
tool's ``inputSchema`` says ``additionalProperties: false``, and a call naming an argument
that its tool does not take is a tool error naming it (and the arguments it takes) before
anything runs: the SDK does not check a call against the schema it published.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Tool as ListedTool

from .state import State

# Internal to the library: nothing here is public API.
__all__: list[str] = []


class StrictServer(MCPServer[State]):
    """The SDK's ``MCPServer`` whose tools take the arguments their schema lists and no other."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._taken: dict[str, tuple[str, ...]] | None = None

    async def list_tools(self) -> list[ListedTool]:
        """The tools, each schema closed to arguments it does not list."""
        return [closed(tool) for tool in await super().list_tools()]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[State, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Refuse an argument the tool does not take, then call it as the SDK does.

        Raises:
            ToolError: an unknown argument, named, with the arguments the tool takes.
        """
        if self._taken is None:
            self._taken = {tool.name: taken(tool) for tool in await super().list_tools()}
        accepted = self._taken.get(name)
        if accepted is not None:
            unknown = [key for key in arguments if key not in accepted]
            if unknown:
                raise ToolError(refusal(name, unknown, accepted))
        return await super().call_tool(name, arguments, context)


def closed(tool: ListedTool) -> ListedTool:
    """``tool`` with ``additionalProperties: false`` in its input schema."""
    schema = {**tool.input_schema, "additionalProperties": False}
    return tool.model_copy(update={"input_schema": schema})


def taken(tool: ListedTool) -> tuple[str, ...]:
    """The arguments ``tool`` takes, in the order its schema lists them."""
    properties = tool.input_schema.get("properties")
    return tuple(properties) if isinstance(properties, Mapping) else ()


def refusal(name: str, unknown: Iterable[str], accepted: tuple[str, ...]) -> str:
    """Why a call was refused: each unknown argument (with the known one it may have meant),
    and what the tool takes."""
    said = []
    for key in unknown:
        close = difflib.get_close_matches(key, accepted, n=1)
        said.append(f"`{key}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
    what = "the argument" if len(said) == 1 else "the arguments"
    takes = ", ".join(f"`{key}`" for key in accepted) or "none"
    return (
        f"{name} does not take {what} {', '.join(said)}; nothing was done. "
        f"The arguments {name} takes: {takes}."
    )
