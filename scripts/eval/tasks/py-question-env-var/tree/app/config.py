import os
from pathlib import Path

_DEFAULT_DB = Path.home() / ".local" / "share" / "todo" / "todo.db"


def load():
    """The settings, from the environment with defaults."""
    return {
        "db_path": Path(os.environ.get("TODO_STORE_FILE", _DEFAULT_DB)),
        "log_level": os.environ.get("TODO_LOG", "info"),
        "color": os.environ.get("NO_COLOR") is None,
    }
