#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (committed under db/fuzz/seeds and kernels/models/fuzz/seeds) from the
project's own files: small cuts of db/tuned's databases (versions 2 and 1; zstd-compressed
seeds of them too), the model configs of
tests/tuner/models and two GGUF headers. With --vktune PATH it also imports the JSON seeds into
.db images for the database fuzzers.

    tools/fuzz-seeds.py [--vktune build/tools/vktune]
"""
import argparse
import json
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DB_SEEDS = ROOT / "db/fuzz/seeds"
TUNER_SEEDS = ROOT / "kernels/models/fuzz/seeds"
REF = {"run", "device", "problem", "kernel"}


def cut(doc, problems, per_problem):
    """The document restricted to `problems` (indices), `per_problem` measurements each and the
    kernels, runs and devices those rows refer to, re-indexed."""
    cols = doc["columns"]
    keep_p = {p: i for i, p in enumerate(problems)}
    rows = {}
    for section in ("measurements", "ranked", "winners", "coverage"):
        if section not in doc:
            continue
        c = cols[section]
        sel = [r for r in doc[section] if r[c.index("problem")] in keep_p]
        if section == "measurements":
            count = {}
            picked = []
            for r in sel:
                p = r[c.index("problem")]
                if count.get(p, 0) < per_problem:
                    picked.append(r)
                    count[p] = count.get(p, 0) + 1
            sel = picked
        elif section == "ranked":
            sel = sel[: 2 * len(problems)]
        rows[section] = sel
    used = {name: set() for name in REF}
    for section, sel in rows.items():
        c = cols[section]
        for r in sel:
            for name in REF & set(c):
                used[name].add(r[c.index(name)])
    used["problem"] = set(problems)
    plural = {"run": "runs", "device": "devices", "problem": "problems", "kernel": "kernels"}
    remap = {}
    out = {"columns": {s: cols[s] for s in rows}, "format": doc["format"], "version": 2}
    for name, section in plural.items():
        order = problems if name == "problem" else sorted(used[name])
        remap[name] = {old: new for new, old in enumerate(order)}
        out[section] = [dict(doc[section][old]) for old in order]
    for section, sel in rows.items():
        c = cols[section]
        out[section] = [
            [remap[name][v] if name in REF else v for name, v in zip(c, r)] for r in sel]
    # SPIR-V is kilobytes of base64: keep the first 48 bytes of one kernel's, for the decoder.
    spirv = [k["spirv"] for k in out["kernels"] if k.get("spirv")]
    for k in out["kernels"]:
        k["spirv"] = None
    if spirv:
        out["kernels"][0]["spirv"] = spirv[0][:64]
    return out


def v1_document(v2):
    """Version 1 of a version 2 document, as tests/db/fixtures.h (v1_document) writes it."""
    v1 = {k: v for k, v in v2.items() if k not in ("columns", "ranked")}
    v1["version"] = 1

    def ref(column, i):
        if column == "run":
            return v2["runs"][i]["uuid"]
        if column == "problem":
            return v2["problems"][i]
        if column == "kernel":
            return {f: v2["kernels"][i][f] for f in ("variant_key", "source_hash")}
        return {f: v2["devices"][i][f] for f in ("vendor_id", "device_id", "driver_id",
                                                 "driver_version", "pipeline_cache_uuid", "name")}

    for section in ("measurements", "coverage", "winners"):
        if section not in v2:
            continue
        c = v2["columns"][section]
        v1[section] = [{n: ref(n, v) if n in REF else v for n, v in zip(c, r)}
                       for r in v2[section]]
    return v1


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


class Gguf:
    """GGUF header without tensor data (as tests/tuner/gguf_writer.h)."""

    def __init__(self):
        self.kvs, self.tensors, self.nkv, self.nt = b"", b"", 0, 0

    def u32(self, key, v):
        self.kvs += gguf_string(key) + struct.pack("<II", 4, v)
        self.nkv += 1
        return self

    def text(self, key, v):
        self.kvs += gguf_string(key) + struct.pack("<I", 8) + gguf_string(v)
        self.nkv += 1
        return self

    def strings(self, key, values):
        self.kvs += gguf_string(key) + struct.pack("<IIQ", 9, 8, len(values))
        self.kvs += b"".join(gguf_string(v) for v in values)
        self.nkv += 1
        return self

    def linear(self, name, n, k):
        self.tensors += gguf_string(name + ".weight") + struct.pack("<IQQIQ", 2, k, n, 0,
                                                                     self.nt * 64)
        self.nt += 1
        return self

    def bytes(self):
        return b"GGUF" + struct.pack("<IQQ", 3, self.nt, self.nkv) + self.kvs + self.tensors


def words(o, acc):
    """The keys and short strings of a JSON value, and those of the JSON texts it embeds."""
    if isinstance(o, dict):
        for k, v in o.items():
            acc.add(k)
            words(v, acc)
    elif isinstance(o, list):
        for v in o:
            words(v, acc)
    elif isinstance(o, str):
        if is_json_text(o):
            words(json.loads(o), acc)
        elif len(o) < 24:
            acc.add(o)
    return acc


def is_json_text(s):
    return s[:1] in ("{", "[") and s[-1:] in ("}", "]")


def write_dict(path, docs):
    acc = set()
    for d in docs:
        words(d, acc)
    tokens = ['{', '}', '[', ']', ':', ',', 'null', 'true', 'false', '-1', '0', '1e309', '-0.0',
              '4294967296', '18446744073709551616', 'NaN']
    tokens += sorted('"%s"' % a for a in acc
                     if a and all(32 < ord(c) < 127 and c not in '"\\' for c in a))
    lines = ["# libFuzzer dictionary (tools/fuzz-seeds.py): JSON syntax, odd numbers, and the"
             " keys and words of the seed documents."]
    lines += ['"%s"' % t.replace('"', '\\"') for t in tokens]
    write(path, "\n".join(lines) + "\n")


def read_database(name):
    """A shipped database of db/tuned as JSON (they ship zstd-compressed)."""
    text = subprocess.run(["zstd", "-dc", str(ROOT / "db/tuned" / name)], check=True,
                          stdout=subprocess.PIPE).stdout
    return json.loads(text)


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vktune", help="vktune binary: also write .db images of the JSON seeds")
    args = ap.parse_args()
    for d in (DB_SEEDS, TUNER_SEEDS):
        shutil.rmtree(d, ignore_errors=True)

    docs = {}
    lava = read_database("llvmpipe-lavapipe.json.zst")
    docs["lavapipe-v2"] = cut(lava, [0, 1], 2)
    docs["lavapipe-v1"] = v1_document(docs["lavapipe-v2"])
    h100 = read_database("nvidia-h100-80gb-hbm3.winners.json.zst")
    # A q4gsw problem whose winner carries SPIR-V and an rms_norm problem.
    spirv_kernel = min((len(k["spirv"]), i) for i, k in enumerate(h100["kernels"])
                       if k.get("spirv"))[1]
    wc = h100["columns"]["winners"]
    q4 = next(r[wc.index("problem")] for r in h100["winners"]
              if r[wc.index("kernel")] == spirv_kernel)
    norm = next(i for i, p in enumerate(h100["problems"]) if p["op"] == "rms_norm")
    docs["h100-winners"] = cut(h100, [q4, norm], 1)
    for name, doc in docs.items():
        write(DB_SEEDS / "json" / f"{name}.json", json.dumps(doc, separators=(",", ":")))

    write_dict(ROOT / "db/fuzz/json.dict", docs.values())
    # The runtime reads compressed databases too: the same seeds as zstd frames, whole and cut.
    for name in docs:
        frame = subprocess.run(["zstd", "-19", "-c", str(DB_SEEDS / "json" / f"{name}.json")],
                               check=True, stdout=subprocess.PIPE).stdout
        write(DB_SEEDS / "zst" / f"{name}.json.zst", frame)
    write(DB_SEEDS / "zst" / "truncated.json.zst", frame[: len(frame) // 2])

    if args.vktune:
        with tempfile.TemporaryDirectory() as tmp:
            for name in docs:
                db = Path(tmp) / f"{name}.db"
                subprocess.run([args.vktune, "import", "--db", str(db),
                                str(DB_SEEDS / "json" / f"{name}.json")], check=True,
                               stdout=subprocess.DEVNULL)
                # The smallest page size keeps the image a few KB (inputs libFuzzer can mutate).
                subprocess.run(["sqlite3", str(db),
                                "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;"],
                               check=True, stdout=subprocess.DEVNULL)
                write(DB_SEEDS / "db" / f"{name}.db", db.read_bytes())
                if name == "lavapipe-v2":
                    write(DB_SEEDS / "zst" / f"{name}.db.zst",
                          subprocess.run(["zstd", "-19", "-c", str(db)], check=True,
                                         stdout=subprocess.PIPE).stdout)

    for model in sorted((ROOT / "tests/tuner/models").glob("*.json")):
        write(TUNER_SEEDS / "config" / model.name, model.read_bytes())

    write_dict(ROOT / "kernels/models/fuzz/model_config.dict",
               [json.loads(p.read_text()) for p in sorted((TUNER_SEEDS / "config").iterdir())])

    blocks = Gguf()
    for role, n, k in (("attn_q", 64, 64), ("attn_k", 16, 64), ("attn_v", 16, 64),
                       ("attn_output", 64, 64), ("ffn_gate", 128, 64), ("ffn_up", 128, 64),
                       ("ffn_down", 64, 128)):
        blocks.linear(f"blk.0.{role}", n, k)
    blocks.linear("output", 256, 64)
    write(TUNER_SEEDS / "gguf" / "tensors.gguf", blocks.bytes())
    meta = (Gguf().text("general.architecture", "qwen2")
            .u32("qwen2.embedding_length", 64).u32("qwen2.feed_forward_length", 128)
            .u32("qwen2.attention.head_count", 4).u32("qwen2.attention.head_count_kv", 2)
            .u32("qwen2.block_count", 2).strings("tokenizer.ggml.tokens", ["a", "b", "c"]))
    write(TUNER_SEEDS / "gguf" / "metadata.gguf", meta.bytes())


if __name__ == "__main__":
    main()
