"""Tool provider for the mermaid-diagram package (seed 004 shape; stored, never run by skillc)."""

from typing import Any, Optional


class MermaidToolProvider:
    @property
    def provider_name(self) -> str:
        return "mermaid"

    @property
    def supported_tools(self) -> list[str]:
        return ["render_mermaid"]

    def create_tool(self, tool_name: str, context: Any, tool_config: Optional[dict] = None):
        from .render_mermaid import RenderMermaidTool

        config = tool_config or {}
        return RenderMermaidTool(render_timeout=config.get("timeout", 30.0))
