"""JSON logs: recording played games, the log format, import/export, verify, views."""
