def mean(values):
    """Arithmetic mean of a non-empty list of numbers."""
    return sum(values) / len(values)


def median(values):
    """Middle value of a non-empty list (mean of the two middle ones when the length is even)."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[mid]
    return (ordered[mid] + ordered[mid + 1]) / 2
