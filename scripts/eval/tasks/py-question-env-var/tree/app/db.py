import sqlite3

from app import config


def connect():
    path = config.load()["db_path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    return sqlite3.connect(path)
