"""mxconform.vectors: golden vector files (vectors/README.md) from Python.

    vf = mxconform.vectors.read("vectors/convert/e2m1_from_fp32.csv")
    for row in vf.rows:                      # dicts of the row's text fields
        if row["rounding"] == "rne":
            row["observed"] = f"{my_encode(int(row['in'], 16)):02x}"
    result = vf.check()                      # the verdicts of `mxconform check`
    vf.write("mine.csv")

check() and fill_reference() call the CLI's own checker (tools/src/check.cpp)
through the binding, so verdicts are those of `mxconform check`.
"""
import os

from . import _core

__all__ = ["VectorFile", "read", "parse", "check", "check_file", "fill_reference"]


class VectorFile:
    """Header lines, columns and rows of one vector file; rows are dicts of text fields."""

    def __init__(self, name, header_lines, columns, rows):
        self.name = name
        self.header_lines = header_lines  # every '#' line, as is
        self.columns = columns
        self.rows = rows

    @property
    def header(self):
        """'# key: value' lines as a dict."""
        out = {}
        for line in self.header_lines:
            body = line.lstrip("#").strip()
            if ": " in body and not line.startswith("##"):
                k, v = body.split(": ", 1)
                out.setdefault(k, v)
        return out

    @property
    def kind(self):
        return self.header.get("kind", "")

    def input_columns(self):
        first = next((c for c in self.columns if c == "expected" or c.startswith("expected_")), None)
        return self.columns[: self.columns.index(first)] if first else []

    def observed_columns(self):
        return [c for c in self.columns if c == "observed" or c.startswith("observed_")]

    def text(self):
        lines = list(self.header_lines) + [",".join(self.columns)]
        for r in self.rows:
            lines.append(",".join(r[c] for c in self.columns))
        return "\n".join(lines) + "\n"

    def write(self, path):
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w", newline="\n") as f:
            f.write(self.text())
        os.replace(tmp, path)

    def check(self, max_errors=20, require_all=False):
        """The CLI's verdict: dict(rows, filled, unfilled, mismatches, bad_expected, ok, messages)."""
        return _core.check_content(self.name, self.text(), max_errors, require_all)

    def fill_reference(self):
        """A copy with every observed field set to the reference's answer (mxconform fill)."""
        return parse(_core.fill_content(self.name, self.text()), self.name)


def parse(content, name="<string>"):
    """A VectorFile from a file's text. Structure errors raise ParseError (name:line: reason);
    field contents are validated by check()."""
    if not isinstance(content, str):
        raise _core.InvalidArgument(f"{name}: content must be str")
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head = []
    while len(head) < len(lines) and lines[len(head)].startswith("#"):
        head.append(lines[len(head)])
    if len(head) >= len(lines):
        raise _core.ParseError(f"{name}:{len(head) + 1}: missing column line after the '#' header")
    columns = lines[len(head)].split(",")
    rows = []
    for n, line in enumerate(lines[len(head) + 1:], start=len(head) + 2):
        fields = line.split(",")
        if len(fields) != len(columns):
            raise _core.ParseError(f"{name}:{n}: {len(fields)} fields, expected {len(columns)}")
        rows.append(dict(zip(columns, fields)))
    return VectorFile(name, head, columns, rows)


def read(path):
    """A VectorFile from a path (ParseError when it cannot be read)."""
    try:
        with open(path, newline="") as f:
            content = f.read()
    except OSError as ex:
        raise _core.ParseError(f"{path}: cannot read: {ex.strerror}") from ex
    except UnicodeDecodeError as ex:
        raise _core.ParseError(f"{path}: not ASCII text ({ex.reason})") from ex
    return parse(content, path)


def check_file(path, max_errors=20, require_all=False):
    """`mxconform check PATH` as a dict (the file is read as is, byte for byte)."""
    try:
        with open(path, "rb") as f:
            content = f.read().decode("latin-1")
    except OSError as ex:
        raise _core.ParseError(f"{path}: cannot read: {ex.strerror}") from ex
    return _core.check_content(path, content, max_errors, require_all)


def check(vf, max_errors=20, require_all=False):
    """check() of a VectorFile or of a path."""
    if isinstance(vf, VectorFile):
        return vf.check(max_errors, require_all)
    return check_file(vf, max_errors, require_all)


def fill_reference(vf):
    return vf.fill_reference()
