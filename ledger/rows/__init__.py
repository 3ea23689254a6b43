"""The ledger's row modules, one per table (or family of tables): each reads and writes its rows and nothing else."""
