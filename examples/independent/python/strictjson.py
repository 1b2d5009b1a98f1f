"""Strict RFC 8259 decoding with byte positions, written for the callproof/1 conformance app.

parse(data: bytes, max_depth) -> value, or raises DecodeError(code, details).
Numbers: integer literals -> int; anything with a fraction or exponent -> float; "-0" -> float -0.0
(so an integer field refuses it as a type).
"""


class DecodeError(Exception):
    def __init__(self, code, details):
        super().__init__(code)
        self.code = code
        self.details = details


WS = b" \t\n\r"
_DOUBLE_MAX = int(1.7976931348623157e308)  # the largest finite double, as an integer


def _pos(data, off):
    line = data.count(b"\n", 0, off) + 1
    last_nl = data.rfind(b"\n", 0, off)
    col = off - (last_nl + 1) + 1
    return line, col


def _json_err(data, off, hint=None):
    if off < 0:
        off = 0
    line, col = _pos(data, off)
    d = {"line": line, "column": col, "offset": off}
    if hint:
        d["hint"] = hint
    return DecodeError("invalid_json", d)


def _pointer(path):
    out = ""
    for p in path:
        s = str(p).replace("~", "~0").replace("/", "~1")
        out += "/" + s
    return out


class _Obj:
    __slots__ = ("d", "key", "start")

    def __init__(self, start):
        self.d = {}
        self.key = None
        self.start = start


def _hint_at(data, i):
    """Recognise the cause of an unexpected byte where a value was expected."""
    rest = data[i:i + 16]
    for lit in (b"True", b"False", b"None"):
        if rest.startswith(lit):
            return "python_literal"
    for lit in (b"NaN", b"Infinity", b"nan", b"inf"):
        if rest.startswith(lit):
            return "non_finite_number"
    c = data[i:i + 1]
    if c == b"'":
        return "single_quotes"
    if c == b"/":
        return "comment"
    if c == b"\xef" and rest.startswith(b"\xef\xbb\xbf"):
        return "byte_order_mark"
    if c and c[0] < 0x20:
        return "control_character"
    return None


def parse(data, max_depth=64):
    n = len(data)
    if n == 0:
        raise _json_err(data, 0, "truncated")
    if data.startswith(b"\xef\xbb\xbf"):
        raise _json_err(data, 0, "byte_order_mark")
    # validate UTF-8 up front, position of the first bad byte
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = data[e.start:e.start + 3]
        hint = "lone_surrogate" if len(bad) >= 1 and bad[0] == 0xED else None
        raise _json_err(data, e.start, hint)

    i = 0
    stack = []  # containers: list or _Obj
    path = []   # json pointer components for current position (keys / indices)
    result = None
    have_result = False

    def skip_ws(i):
        while i < n and data[i] in WS:
            i += 1
        return i

    def truncated():
        return _json_err(data, n - 1, "truncated")

    def parse_string(i):
        # data[i] == '"'
        start = i
        i += 1
        buf = []
        seg_start = i
        while True:
            if i >= n:
                raise truncated()
            c = data[i]
            if c == 0x22:
                buf.append(data[seg_start:i].decode("utf-8"))
                return "".join(buf), i + 1
            if c == 0x5C:
                buf.append(data[seg_start:i].decode("utf-8"))
                if i + 1 >= n:
                    raise truncated()
                e = data[i + 1]
                simple = {0x22: '"', 0x5C: "\\", 0x2F: "/", 0x62: "\b", 0x66: "\f", 0x6E: "\n", 0x72: "\r", 0x74: "\t"}
                if e in simple:
                    buf.append(simple[e])
                    i += 2
                elif e == 0x75:
                    cp, i2 = read_u(i)
                    if 0xD800 <= cp <= 0xDBFF:
                        # need a low surrogate escape next
                        if i2 >= n:
                            raise truncated()
                        if data[i2:i2 + 2] == b"\\u" or (i2 + 1 >= n and data[i2] == 0x5C):
                            if i2 + 1 >= n:
                                raise truncated()
                            cp2, i3 = read_u(i2)
                            if 0xDC00 <= cp2 <= 0xDFFF:
                                buf.append(chr(0x10000 + ((cp - 0xD800) << 10) + (cp2 - 0xDC00)))
                                i = i3
                            else:
                                raise _json_err(data, i2, "lone_surrogate")
                        else:
                            raise _json_err(data, i2, "lone_surrogate")
                    elif 0xDC00 <= cp <= 0xDFFF:
                        raise _json_err(data, i, "lone_surrogate")
                    else:
                        buf.append(chr(cp))
                        i = i2
                else:
                    raise _json_err(data, i + 1, None)
                seg_start = i
                continue
            if c < 0x20:
                raise _json_err(data, i, "control_character")
            i += 1

    def read_u(i):
        # data[i] == '\\', data[i+1] == 'u'
        j = i + 2
        for k in range(4):
            if j + k >= n:
                raise truncated()
            ch = data[j + k]
            if not (0x30 <= ch <= 0x39 or 0x41 <= ch <= 0x46 or 0x61 <= ch <= 0x66):
                raise _json_err(data, j + k, None)
        return int(data[j:j + 4].decode("ascii"), 16), j + 4

    def parse_number(i):
        start = i
        if data[i] == 0x2D:
            i += 1
            if i >= n:
                raise truncated()
            if not (0x30 <= data[i] <= 0x39):
                h = _hint_at(data, i)
                raise _json_err(data, i, h)
        if data[i] == 0x30:
            i += 1
        elif 0x31 <= data[i] <= 0x39:
            while i < n and 0x30 <= data[i] <= 0x39:
                i += 1
        else:
            raise _json_err(data, i, _hint_at(data, i))
        is_float = False
        if i < n and data[i] == 0x2E:
            i += 1
            if i >= n:
                raise truncated()
            if not (0x30 <= data[i] <= 0x39):
                raise _json_err(data, i, None)
            while i < n and 0x30 <= data[i] <= 0x39:
                i += 1
            is_float = True
        if i < n and data[i] in (0x65, 0x45):
            i += 1
            if i >= n:
                raise truncated()
            if data[i] in (0x2B, 0x2D):
                i += 1
                if i >= n:
                    raise truncated()
            if not (0x30 <= data[i] <= 0x39):
                raise _json_err(data, i, None)
            while i < n and 0x30 <= data[i] <= 0x39:
                i += 1
            is_float = True
        lit = data[start:i].decode("ascii")
        if is_float:
            v = float(lit)
            if v in (float("inf"), float("-inf")):
                raise _json_err(data, start, "number_out_of_range")
            return v, i
        if lit == "-0":
            return -0.0, i
        # An integer no double holds is out of range as 1e400 is (and past 4300 digits int() itself refuses it).
        if len(lit) > 330 or abs(int(lit)) > _DOUBLE_MAX:
            raise _json_err(data, start, "number_out_of_range")
        return int(lit), i

    def attach(value, i):
        nonlocal result, have_result
        if not stack:
            result = value
            have_result = True
            return
        top = stack[-1]
        if isinstance(top, list):
            top.append(value)
        else:
            top.d[top.key] = value
            top.key = None

    def read_key(i):
        # at i: expect a string key, then ':'
        if data[i] != 0x22:
            raise _json_err(data, i, _hint_at(data, i))
        kstart = i
        k, i = parse_string(i)
        top = stack[-1]
        if k in top.d:
            line, col = _pos(data, kstart)
            raise DecodeError("invalid_arguments", {
                "reason": "duplicate_key", "path": _pointer(path + [k]),
                "line": line, "column": col, "offset": kstart})
        i = skip_ws(i)
        if i >= n:
            raise truncated()
        if data[i] != 0x3A:
            raise _json_err(data, i, _hint_at(data, i))
        top.key = k
        top.d[k] = None  # placeholder keeps duplicates visible
        path.append(k)
        return i + 1

    # state machine: expect 'value', 'after_value'
    state = "value"
    while True:
        i = skip_ws(i)
        if state == "value":
            if i >= n:
                raise truncated()
            c = data[i]
            if c == 0x7B or c == 0x5B:
                if len(stack) + 1 > max_depth:
                    raise DecodeError("invalid_arguments", {
                        "reason": "too_deep", "limit": max_depth, "path": _pointer(path),
                        "line": _pos(data, i)[0], "column": _pos(data, i)[1], "offset": i})
                if c == 0x7B:
                    obj = _Obj(i)
                    stack.append(obj)
                    i = skip_ws(i + 1)
                    if i >= n:
                        raise truncated()
                    if data[i] == 0x7D:
                        stack.pop()
                        attach(obj.d, i)
                        i += 1
                        state = "after_value"
                        continue
                    # expect key
                    i = read_key(i)
                    state = "value"
                    continue
                else:
                    lst = []
                    stack.append(lst)
                    i = skip_ws(i + 1)
                    if i >= n:
                        raise truncated()
                    if data[i] == 0x5D:
                        stack.pop()
                        attach(lst, i)
                        i += 1
                        state = "after_value"
                        continue
                    path.append(0)
                    state = "value"
                    continue
            if c == 0x22:
                s, i = parse_string(i)
                attach(s, i)
                state = "after_value"
                continue
            if c == 0x2D or 0x30 <= c <= 0x39:
                v, i = parse_number(i)
                attach(v, i)
                state = "after_value"
                continue
            lit_done = False
            for lit, val in ((b"true", True), (b"false", False), (b"null", None)):
                if data[i] == lit[0]:
                    for k in range(len(lit)):
                        if i + k >= n:
                            raise truncated()
                        if data[i + k] != lit[k]:
                            raise _json_err(data, i + k, None)
                    attach(val, i)
                    i += len(lit)
                    lit_done = True
                    break
            if lit_done:
                state = "after_value"
                continue
            # unexpected byte where a value was expected
            hint = _hint_at(data, i)
            if hint is None and c in (0x5D, 0x7D) and stack:
                # a closing bracket right after a comma: trailing comma
                j = i - 1
                while j >= 0 and data[j] in WS:
                    j -= 1
                if j >= 0 and data[j] == 0x2C:
                    hint = "trailing_comma"
            raise _json_err(data, i, hint)
        else:  # after_value
            if not stack:
                if i < n:
                    raise _json_err(data, i, _hint_at(data, i) or "trailing_characters")
                return result
            if i >= n:
                raise truncated()
            top = stack[-1]
            c = data[i]
            if isinstance(top, list):
                if c == 0x2C:
                    path[-1] += 1
                    i += 1
                    state = "value"
                    continue
                if c == 0x5D:
                    stack.pop()
                    path.pop()
                    attach(top, i)
                    i += 1
                    state = "after_value"
                    continue
                raise _json_err(data, i, _hint_at(data, i))
            else:
                if c == 0x2C:
                    path.pop()
                    i = skip_ws(i + 1)
                    if i >= n:
                        raise truncated()
                    if data[i] == 0x7D:
                        raise _json_err(data, i, "trailing_comma")
                    i = read_key(i)
                    state = "value"
                    continue
                if c == 0x7D:
                    stack.pop()
                    path.pop()
                    attach(top.d, i)
                    i += 1
                    state = "after_value"
                    continue
                raise _json_err(data, i, _hint_at(data, i))

    # unreachable


