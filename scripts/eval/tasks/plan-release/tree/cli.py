import argparse

from version import VERSION


def main(argv=None):
    parser = argparse.ArgumentParser(prog="notes", description="Keeps short notes.")
    parser.add_argument("text", nargs="*", help="the note to add")
    args = parser.parse_args(argv)
    if args.text:
        with open("notes.txt", "a") as f:
            f.write(" ".join(args.text) + "\n")
        print("noted")


if __name__ == "__main__":
    main()
