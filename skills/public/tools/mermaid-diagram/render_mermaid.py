"""The render_mermaid tool (stored as an asset)."""


class RenderMermaidTool:
    def __init__(self, render_timeout: float = 30.0) -> None:
        self.render_timeout = render_timeout
