"""Where a tournament's games are played: choice.py (the interface: ``--executor local|ray``), local_pool.py (this
machine's worker processes) and ray_executor.py (a Ray cluster; the only module that imports Ray)."""
