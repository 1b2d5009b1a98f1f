"""Bug: the integer hook of the strict parser has no length guard, so an integer literal of more than 4300 digits
hits Python's int() digit limit (ValueError, not a JSONDecodeError) and escapes the decoder: the call is answered
internal_error instead of invalid_json (number_out_of_range)."""
from correct import cp, serve


def _parse_int(text):
    if text == "-0":
        return -0.0
    value = int(text)  # the bug: no guard for more digits than any double holds
    if not -(2 ** 63) <= value <= 2 ** 64 - 1:
        try:
            return float(value)
        except OverflowError:
            raise cp._OutOfRange(text) from None
    return value


cp._parse_int = _parse_int

if __name__ == "__main__":
    serve(__file__)
