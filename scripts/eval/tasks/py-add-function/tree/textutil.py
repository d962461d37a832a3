"""Small text helpers."""


def title_case(text):
    """Capitalises the first letter of every word."""
    return " ".join(word[:1].upper() + word[1:] for word in text.split())


def truncate(text, width):
    """Cuts text to at most width characters, ending with "..." when cut."""
    if len(text) <= width:
        return text
    return text[: max(width - 3, 0)] + "..."
