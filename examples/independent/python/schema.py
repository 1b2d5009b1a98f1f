"""A small JSON Schema 2020-12 validator for the keyword subset the conformance app's catalog uses.

No coercion: "integer" accepts only Python ints (not bools, not floats) within 64 bits.
Violations are reported without the offending values.
"""
import ipaddress
import re

INT_MIN = -(2 ** 63)
INT_MAX = 2 ** 64 - 1

_re_cache = {}


def _compile(pattern):
    r = _re_cache.get(pattern)
    if r is None:
        p = pattern
        if p.endswith("$") and not p.endswith("\\$"):
            p = p[:-1] + r"\Z"
        r = re.compile(p)
        _re_cache[pattern] = r
    return r


def _esc(k):
    return str(k).replace("~", "~0").replace("/", "~1")


def type_name(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "unknown"


def _is_type(v, t):
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool) and INT_MIN <= v <= INT_MAX
    if t == "number":
        return (isinstance(v, (int, float)) and not isinstance(v, bool))
    if t == "string":
        return isinstance(v, str)
    if t == "array":
        return isinstance(v, list)
    if t == "object":
        return isinstance(v, dict)
    return False


_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z")
_LOCAL = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*\Z")


def is_email(s):
    if s.count("@") != 1:
        return False
    local, domain = s.split("@")
    if not local or not domain or len(local) > 64:
        return False
    if not _LOCAL.match(local):
        return False
    if domain.startswith("[") and domain.endswith("]"):
        try:
            ipaddress.ip_address(domain[1:-1].removeprefix("IPv6:"))
            return True
        except ValueError:
            return False
    labels = domain.split(".")
    if len(labels) < 2:
        return False
    return all(_LABEL.match(l) for l in labels)


_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+\Z")


def is_uri(s):
    return bool(_URI.match(s))


def _eq(a, b):
    # JSON equality without bool/int confusion
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if a is None or b is None:
        return a is b
    return type_name(a) == type_name(b) and a == b if not isinstance(a, (int, float)) else (
        isinstance(b, (int, float)) and a == b)


def validate(schema, inst, path="", out=None, check_formats=True):
    """Return a list of violations {path, keyword, message}."""
    if out is None:
        out = []
    if not isinstance(schema, dict):
        return out
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_is_type(inst, x) for x in types):
            out.append({"path": path, "keyword": "type",
                        "message": "the value is not of type " + " or ".join(types)})
            return out
    if "enum" in schema:
        if not any(_eq(inst, e) for e in schema["enum"]):
            out.append({"path": path, "keyword": "enum", "message": "the value is not one of the allowed values"})
    if "const" in schema:
        if not _eq(inst, schema["const"]):
            out.append({"path": path, "keyword": "const", "message": "the value is not the required constant"})
    if isinstance(inst, str):
        ln = len(inst)
        if "minLength" in schema and ln < schema["minLength"]:
            out.append({"path": path, "keyword": "minLength",
                        "message": "the value is shorter than %d characters" % schema["minLength"]})
        if "maxLength" in schema and ln > schema["maxLength"]:
            out.append({"path": path, "keyword": "maxLength",
                        "message": "the value is longer than %d characters" % schema["maxLength"]})
        if "pattern" in schema and not _compile(schema["pattern"]).search(inst):
            out.append({"path": path, "keyword": "pattern", "message": "the value does not match the pattern"})
        fmt = schema.get("format")
        if fmt and check_formats:
            ok = True
            if fmt == "email":
                ok = is_email(inst)
            elif fmt == "uri":
                ok = is_uri(inst)
            if not ok:
                out.append({"path": path, "keyword": "format", "message": "the value is not a valid " + fmt})
    if isinstance(inst, (int, float)) and not isinstance(inst, bool):
        if "minimum" in schema and inst < schema["minimum"]:
            out.append({"path": path, "keyword": "minimum", "message": "the value is below the minimum %s" % schema["minimum"]})
        if "maximum" in schema and inst > schema["maximum"]:
            out.append({"path": path, "keyword": "maximum", "message": "the value is above the maximum %s" % schema["maximum"]})
    if isinstance(inst, dict):
        props = schema.get("properties", {})
        for r in schema.get("required", []):
            if r not in inst:
                out.append({"path": path, "keyword": "required", "message": "required member %r is missing" % r,
                            "_missing": path + "/" + _esc(r)})
        ap = schema.get("additionalProperties", True)
        if ap is False:
            for k in inst:
                if k not in props:
                    out.append({"path": path, "keyword": "additionalProperties",
                                "message": "a member that is not allowed is present",
                                "_unexpected": path + "/" + _esc(k)})
        for k, sub in props.items():
            if k in inst:
                validate(sub, inst[k], path + "/" + _esc(k), out, check_formats)
    if isinstance(inst, list) and "items" in schema:
        for idx, v in enumerate(inst):
            validate(schema["items"], v, path + "/" + str(idx), out, check_formats)
    return out


def project(schema, value):
    """Keep only the members the schema declares (recursively for object schemas with properties)."""
    if not isinstance(schema, dict) or not isinstance(value, dict):
        return value
    props = schema.get("properties")
    if props is None:
        return value
    out = {}
    for k, v in value.items():
        if k in props:
            out[k] = project(props[k], v)
    return out
