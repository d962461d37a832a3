import sys

from app import db


def main():
    conn = db.connect()
    conn.execute("create table if not exists todo (text)")
    for text in sys.argv[1:]:
        conn.execute("insert into todo values (?)", (text,))
    conn.commit()


if __name__ == "__main__":
    main()
