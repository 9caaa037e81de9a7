#!/usr/bin/env python3
"""Writes N listing records per manager (zufang, xinfang, ershoufang) as NDJSON, deterministically.

    python3 generate.py N OUTDIR [SEED]

Creates OUTDIR/zufang.ndjson, OUTDIR/xinfang.ndjson and OUTDIR/ershoufang.ndjson. Each manager
uses its own field names, as its API does:

    zufang      id          name          title          imageUrl
    xinfang     xinfang_id  xinfang_name  xinfang_title  xinfang_imageUrl
    ershoufang  esf_id      esf_name      esf_title      esf_imageUrl

Every record also carries fields the property-list reformer drops (price, area, tags array, nested
agent/location objects, a float, a bool, a null), so the tools have to parse whole records, not only
the four kept fields. Key order varies a little between records, as real APIs' does not, but parsers
must not depend on it.

Strings mix ASCII and Chinese of varying lengths; some need JSON escapes on output (quotes,
backslashes, \\n, \\t, \\r, other control characters) and a few are written with \\uXXXX escapes in
the input (\\u00e9, \\u4e0a, a surrogate pair) that `jq -c` writes back unescaped as UTF-8.

Deliberately avoided corner: the DEL character (U+007F). `jq -c` writes it as \\u007f, orjson
writes the raw byte, so outputs would differ in bytes although both are valid JSON. Nothing else
generated here differs between jq 1.6, orjson 3.8 and Reform (checked by run.sh with cmp).
Numbers in the kept `id` fields are integers below 2^53, which every tool prints the same way.
"""
import json
import random
import sys

dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

CN_WORDS = [
    "浦东", "静安", "徐汇", "长宁", "普陀", "虹口", "杨浦", "闵行", "宝山", "嘉定",
    "陆家嘴", "世纪公园", "人民广场", "南京西路", "淮海中路", "张江", "前滩", "五角场",
    "地铁口", "精装修", "南北通透", "拎包入住", "近地铁", "学区房", "满五唯一", "采光好",
    "一室一厅", "两室一厅", "三室两厅", "朝南", "带阳台", "独立卫浴", "随时看房", "业主直租",
    "花园洋房", "小区环境优美", "交通便利", "配套齐全", "新上", "急售", "品质社区", "江景",
]
EN_WORDS = [
    "bright", "quiet", "spacious", "two-room", "studio", "loft", "flat", "near", "metro",
    "line", "park", "view", "renovated", "balcony", "south-facing", "furnished", "garden",
    "river", "new", "cozy", "family", "home", "corner", "top", "floor", "sunny", "unit",
]
COMMUNITIES = [
    "Tomson Riviera", "Yanlord Garden", "Shimao Riviera", "Green City", "Jing'an Century",
    "汤臣一品", "仁恒滨江园", "世茂滨江花园", "绿城", "静安世纪",
]
# Pieces that need escaping on output, or that are escaped in the input. Never U+007F (see above).
ESCAPY = [
    '"luxury"', 'A\\B', 'C:\\path\\to', 'line1\nline2', 'col1\tcol2', 'cr\r', 'bell\u0007',
    'nul\u0001', 'unit\u001f', 'form\u000c', 'back\u0008', '“智能”', 'é', 'naïve café', 'emoji 🏠',
    '100%', '</script>', 'a/b', "it's", '\u2028sep', '¥8,500/月',
]
TAGS = ["地铁", "精装", "南北通透", "满五", "近学校", "metro", "pet-friendly", "new", "电梯", "车位"]
DISTRICTS = ["pudong", "jingan", "xuhui", "changning", "putuo", "hongkou", "yangpu", "minhang"]
IMAGE_HOSTS = ["https://img.example.com", "https://cdn.listings.example.cn", "http://pic.example.net"]

BASE_ID = {"zufang": 1_000_000, "xinfang": 50_000_000, "ershoufang": 7_000_000_000}
ID_MARK = "@@ID@@"  # never produced otherwise
POOL = 20_000

FIELDS = {
    "zufang": ("id", "name", "title", "imageUrl"),
    "xinfang": ("xinfang_id", "xinfang_name", "xinfang_title", "xinfang_imageUrl"),
    "ershoufang": ("esf_id", "esf_name", "esf_title", "esf_imageUrl"),
}


class Rng(random.Random):
    """random.Random with cheaper randint/choice (the stock ones dominate generation time)."""

    def randint(self, a, b):
        return a + int(self.random() * (b - a + 1))

    def choice(self, seq):
        return seq[int(self.random() * len(seq))]


def words(rng, lo, hi):
    """A phrase of lo..hi words, Chinese, English, or mixed."""
    kind = rng.random()
    count = rng.randint(lo, hi)
    if kind < 0.45:
        return "".join(rng.choice(CN_WORDS) for _ in range(count))
    if kind < 0.8:
        return " ".join(rng.choice(EN_WORDS) for _ in range(count)).capitalize()
    return " ".join(rng.choice(CN_WORDS) if rng.random() < 0.5 else rng.choice(EN_WORDS) for _ in range(count))


def maybe_escapy(rng, text, rate):
    if rng.random() < rate:
        piece = rng.choice(ESCAPY)
        at = rng.randint(0, len(text))
        return text[:at] + piece + text[at:]
    return text


def encode_string(rng, text):
    """json.dumps-style encoding, but non-ASCII is mostly raw UTF-8 and sometimes a \\uXXXX escape,
    and '/' is sometimes written as '\\/', as some APIs do."""
    if rng.random() >= 0.05 or text.isascii() and "/" not in text:
        return dumps(text)
    out = ['"']
    escape_unicode = True
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "/" and escape_unicode:
            out.append("\\/")
        elif code < 0x20:
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}.get(ch, "\\u%04x" % code))
        elif code > 0x7F and escape_unicode:
            if code > 0xFFFF:
                v = code - 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)))
            else:
                out.append("\\u%04X" % code if rng.random() < 0.5 else "\\u%04x" % code)
        else:
            assert code != 0x7F
            out.append(ch)
    out.append('"')
    return "".join(out)


def encode(rng, value):
    """Kept fields get the varied encoding above; dropped ones plain compact JSON."""
    if isinstance(value, str):
        return encode_string(rng, value)
    return dumps(value)


def record(rng, manager, i):
    kid, kname, ktitle, kimage = FIELDS[manager]
    ident = ID_MARK  # filled in by main(), as a number
    name = maybe_escapy(rng, rng.choice(COMMUNITIES) + " " + words(rng, 1, 3), 0.04)
    title = maybe_escapy(rng, words(rng, 2, 14), 0.06)
    if rng.random() < 0.02:
        title = title * rng.randint(3, 12)  # an occasional long description
    image = "%s/%s/%d/%s/%s.jpg" % (rng.choice(IMAGE_HOSTS), manager, rng.randint(0, 996), ID_MARK, "%016x" % rng.getrandbits(64))
    if rng.random() < 0.01:
        image = image + "?w=640&h=480&note=" + rng.choice(["a b", "“x”", 'q"q', "t\tt"])
    kept = [(kid, ident), (kname, name), (ktitle, title), (kimage, image)]
    dropped = [
        ("price", rng.randint(1500, 90000) if manager == "zufang" else rng.randint(800_000, 90_000_000)),
        ("area", round(rng.uniform(18, 400), 2)),
        ("tags", rng.sample(TAGS, rng.randint(0, 4))),
        ("location", {"city": "shanghai", "district": rng.choice(DISTRICTS),
                      "lat": round(31.0 + rng.random(), 6), "lng": round(121.0 + rng.random(), 6)}),
        ("agent", {"name": words(rng, 1, 2), "phone": "1%010d" % rng.randint(0, 9_999_999_999), "verified": rng.random() < 0.7}),
        ("floor", rng.choice([None, "低楼层", "中楼层", "高楼层", "high", "low"])),
        ("updated_at", "2024-%02d-%02dT%02d:%02d:00+08:00" % (rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59))),
        ("on_sale", rng.random() < 0.9),
    ]
    if rng.random() < 0.3:
        dropped.append(("photos", [{"url": "%s/p/%d.jpg" % (rng.choice(IMAGE_HOSTS), rng.getrandbits(32)), "w": 640, "h": 480}
                                   for _ in range(rng.randint(1, 5))]))
    fields = [(kid, ID_MARK)] + [(k, encode(rng, v)) for k, v in kept[1:]] + [(k, dumps(v)) for k, v in dropped]
    if rng.random() < 0.25:  # some APIs put the kept fields later, or in another order
        rng.shuffle(fields)
    return "{" + ",".join('"%s":%s' % kv for kv in fields) + "}\n"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: generate.py N OUTDIR [SEED]")
    n = int(sys.argv[1])
    outdir = sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    for index, manager in enumerate(("zufang", "xinfang", "ershoufang")):
        rng = Rng(seed * 1000 + index)
        base = BASE_ID[manager]
        # Building a record costs ~100 µs in Python, too slow for millions, so the first POOL records
        # are built in full and later ones reuse their text with a new, increasing id.
        pool = [record(rng, manager, i).split(ID_MARK) for i in range(min(n, POOL))]
        with open("%s/%s.ndjson" % (outdir, manager), "w", encoding="utf-8", newline="\n") as f:
            buf = []
            for i in range(n):
                parts = pool[i % POOL]
                buf.append(str(base + i * 7 + (i * 5) % 7).join(parts))
                if len(buf) >= 8192:
                    f.write("".join(buf))
                    buf.clear()
            f.write("".join(buf))


if __name__ == "__main__":
    main()
