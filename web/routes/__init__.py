"""The routers, one module per resource; each has ``api`` (JSON under /api) and ``pages`` (HTML)."""
