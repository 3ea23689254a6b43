"""`tourney serve`: the league in a browser and over a JSON API (FastAPI, Jinja2, served by uvicorn).

Top of the import table (docs/architecture.md): it may import every other package, and nothing
imports it; the command line starts it by name (``web.app:create_app``). docs/web.md runs it.
"""
