import os

# Where the relay listens unless RELAY_PORT says otherwise.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7421

MAX_CLIENTS = 64


def port():
    return int(os.environ.get("RELAY_PORT", DEFAULT_PORT))
