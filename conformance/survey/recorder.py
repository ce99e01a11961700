"""conformance/survey/recorder.py - records one survey worker's casts (issue 8 point 3).

A worker converts the fixed inputs (inputs.py) with one library and hands
every result to a Recorder. The Recorder
  - times the call and keeps its output codes, deduplicated by content
    (identical outputs of two casts are stored once),
  - turns any exception into an entry with status 'error' and a one-line
    message (a missing dtype, an unsupported cast, out of memory), so the
    next cast still runs,
  - checks that the result is a function of the input value alone (issue 14
    point 2): the same inputs reversed, shifted by one element (another
    alignment), one at a time as size-1 arrays, as scalars/0-d arrays and as
    a strided view where the library has one, must give the same codes;
    every disagreement becomes a finding with the input bits and both codes,
  - writes result.json + blobs.npz into the worker's folder.
"""

import hashlib
import json
import os
import time

import numpy as np

import inputs as survey_inputs


def one_line(ex, limit=600):
    msg = f"{type(ex).__name__}: {ex}"
    msg = " ".join(msg.split())
    return msg if len(msg) <= limit else msg[:limit] + " ..."


def hexbits(v, source):
    width = 8 if source == "fp32" else 4
    return f"0x{int(v):0{width}x}"


def sample_indices(bits, source, k=40):
    """Inputs worth converting one at a time: specials of both signs and an even spread."""
    sign = 0x80000000 if source == "fp32" else 0x8000
    if source == "fp32":
        special = survey_inputs.SPECIAL_BITS + [0x43E80000, 0x43F00000, 0x47700000, 0x47800000,
                                                0x40D00000, 0x40F00000, 0x41E00000, 0x00000001,
                                                0x00400000, 0x3F800000, 0x3FC00000, 0x7F7FFFFF]
    elif source == "bf16":
        special = [0x0000, 0x7F80, 0x7FC0, 0x7F81, 0x7FFF, 0x7FA0, 0x43E8, 0x0001, 0x3F80, 0x3FC0]
    else:
        special = [0x0000, 0x7C00, 0x7E00, 0x7C01, 0x7FFF, 0x7D00, 0x5F40, 0x0001, 0x3C00, 0x3E00]
    want = set()
    for s in special:
        want.add(s)
        want.add(s | sign)
    idx = [int(i) for i in np.nonzero(np.isin(bits, np.array(sorted(want), dtype=bits.dtype)))[0]]
    idx += [int(i) for i in np.linspace(0, bits.size - 1, k).astype(np.int64)]
    return sorted(set(idx))


class Recorder:
    def __init__(self, worker, deadline):
        self.worker = worker
        self.deadline = deadline
        self.entries = []
        self.blobs = {}
        self.findings = []
        self.versions = {}
        self.notes = []
        self.folder = None  # set by autosave(): partial results survive a kill
        self.extra = {}
        self._saved = 0.0

    def autosave(self, folder, extra):
        self.folder, self.extra = folder, dict(extra)

    def _maybe_save(self):
        if self.folder and time.time() - self._saved > 8:
            self.save(self.folder, dict(self.extra, status="partial"))
            self._saved = time.time()

    # ---- bookkeeping ---------------------------------------------------------
    def time_left(self):
        return self.deadline - time.time()

    def version(self, key, value):
        self.versions[key] = value

    def note(self, text):
        self.notes.append(" ".join(str(text).split()))

    def _blob(self, codes):
        codes = np.ascontiguousarray(codes)
        h = hashlib.sha256(codes.dtype.str.encode() + codes.tobytes()).hexdigest()[:20]
        self.blobs.setdefault(h, codes)
        return h

    def _entry(self, library, backend, source, target, mode, api, dtype_name):
        return {"id": f"{library}/{backend}/{source}/{target}/{mode}", "library": library,
                "backend": backend, "source": source, "target": target, "mode": mode,
                "api": api, "target_dtype": dtype_name}

    def unsupported(self, library, backend, source, target, mode, api, dtype_name, reason):
        e = self._entry(library, backend, source, target, mode, api, dtype_name)
        e.update(status="unsupported", error=" ".join(str(reason).split()))
        self.entries.append(e)

    # ---- one cast ------------------------------------------------------------
    def cast(self, *, library, backend, source, target, mode, api, dtype_name, run, bits,
             run_scalar=None, run_strided=None, check=True, min_left=8.0):
        """run(bits) -> codes (same length) is the library call; bits is the
        whole input array of the source type. Returns the codes or None."""
        e = self._entry(library, backend, source, target, mode, api, dtype_name)
        self.entries.append(e)
        if self.time_left() < min_left:
            e.update(status="skipped", error="time budget of this worker used up")
            return None
        t0 = time.time()
        try:
            codes = np.asarray(run(bits))
            if codes.shape != bits.shape:
                raise ValueError(f"output shape {codes.shape} for input shape {bits.shape}")
            if codes.dtype not in (np.uint8, np.uint16):
                raise ValueError(f"output codes of dtype {codes.dtype}, expected uint8/uint16")
        except Exception as ex:  # noqa: BLE001 - every failure is data here
            e.update(status="error", error=one_line(ex), seconds=round(time.time() - t0, 4))
            return None
        e.update(status="ok", seconds=round(time.time() - t0, 4), blob=self._blob(codes),
                 code_dtype=codes.dtype.name, count=int(codes.size))
        if check:
            e["consistency"] = self._consistency(e, run, bits, codes, run_scalar, run_strided)
        self._maybe_save()
        return codes

    def _compare(self, e, variant, bits, idx, full, got, out):
        bad = np.nonzero(full[idx] != got)[0]
        out[variant] = {"compared": int(len(idx)), "differ": int(bad.size)}
        if bad.size:
            ex = [{"input": hexbits(bits[idx[b]], e["source"]), "in_array": int(full[idx[b]]),
                   variant: int(got[b])} for b in bad[:3]]
            out[variant]["examples"] = ex
            self.findings.append({
                "kind": "not a function of the input value alone", "entry": e["id"],
                "variant": variant, "differ": int(bad.size), "compared": int(len(idx)),
                "examples": ex, "api": e["api"]})

    def _consistency(self, e, run, bits, full, run_scalar, run_strided):
        out = {}
        n = bits.size
        every = np.arange(n, dtype=np.int64)
        variants = [("reversed", lambda: run(bits[::-1].copy())[::-1], every),
                    ("offset1", lambda: run(bits[1:].copy()), every[1:])]
        if run_strided is not None:
            variants.append(("strided", lambda: run_strided(bits), every))
        for name, fn, idx in variants:
            if self.time_left() < 5:
                out[name] = {"skipped": "time budget"}
                continue
            try:
                self._compare(e, name, bits, idx, full, np.asarray(fn()), out)
            except Exception as ex:  # noqa: BLE001
                out[name] = {"error": one_line(ex)}
        sidx = np.array(sample_indices(bits, e["source"]), dtype=np.int64)
        singles = [("size1", lambda i: np.asarray(run(bits[i:i + 1].copy()))[0])]
        if run_scalar is not None:
            singles.append(("scalar", lambda i: run_scalar(bits[i])))
        for name, fn in singles:
            if self.time_left() < 5:
                out[name] = {"skipped": "time budget"}
                continue
            try:
                got = np.array([int(fn(int(i))) for i in sidx], dtype=np.int64)
                self._compare(e, name, bits, sidx, full.astype(np.int64), got, out)
            except Exception as ex:  # noqa: BLE001
                out[name] = {"error": one_line(ex)}
        return out

    def compare_entries(self, a_id, b_id, kind):
        """Record a finding when two entries of the same inputs differ (jit vs eager)."""
        ea = next((x for x in self.entries if x["id"] == a_id and x.get("blob")), None)
        eb = next((x for x in self.entries if x["id"] == b_id and x.get("blob")), None)
        if not ea or not eb or ea["blob"] == eb["blob"]:
            return
        a, b = self.blobs[ea["blob"]], self.blobs[eb["blob"]]
        bits = survey_inputs.source_bits(ea["source"])
        bad = np.nonzero(a != b)[0]
        self.findings.append({
            "kind": kind, "entry": a_id, "other": b_id, "differ": int(bad.size),
            "compared": int(a.size),
            "examples": [{"input": hexbits(bits[i], ea["source"]), a_id: int(a[i]), b_id: int(b[i])}
                         for i in bad[:3]]})

    # ---- output --------------------------------------------------------------
    def save(self, folder, extra=None):
        """Write blobs.npz then result.json, each replaced atomically (the
        parent may kill a worker at any moment and reads what is there)."""
        os.makedirs(folder, exist_ok=True)
        tmp = os.path.join(folder, "blobs.tmp.npz")
        np.savez(tmp, **self.blobs)
        os.replace(tmp, os.path.join(folder, "blobs.npz"))
        doc = {"worker": self.worker, "versions": self.versions, "entries": self.entries,
               "findings": self.findings, "notes": self.notes}
        if extra:
            doc.update(extra)
        tmp = os.path.join(folder, "result.tmp.json")
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        os.replace(tmp, os.path.join(folder, "result.json"))
