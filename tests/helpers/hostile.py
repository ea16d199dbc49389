"""A small dataset of hostile and unusual texts: HTML, scripts, external images, long, non-Latin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EVIL_HOST = "127.0.0.1:9"  # nothing listens there; a request to it is the failure we look for

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
JS_LINK = '<a href="javascript:alert(1)">x</a>'
MD_IMAGE = f"![t](http://{EVIL_HOST}/evil.png)"
NESTED_MD_IMAGE = f"![a [nested] label](http://{EVIL_HOST}/nested.png)"
REFERENCE_IMAGE = f"![ref image][evil]\n\n[evil]: http://{EVIL_HOST}/reference.png"
SHORTCUT_IMAGE = f"![shortcut]\n\n[shortcut]: http://{EVIL_HOST}/shortcut.png"
ANGLE_IMAGE = f"![angle](<http://{EVIL_HOST}/angle bracket.png>)"
IFRAME = f'<iframe src="http://{EVIL_HOST}/frame" onload="window.__pwned=3"></iframe>'
SVG = '<svg onload="window.__pwned=4"><circle r="5"/></svg>'
MD_JS_LINK = "[click me](javascript:window.__pwned=5)"

CJK = "日本語の質問です。中文回答也可以。한국어 문장도 있습니다"
ARABIC = "مرحبا بكم، هذا نص عربي يكتب من اليمين إلى اليسار"
EMOJI = "🎉👍🏽👨‍👩‍👧‍👦🇯🇵"
LONG_END = "FINALWORDOFTHELONGTEXT"
UNBROKEN = "x" * 400  # one 400-character "word", e.g. a pasted hash or URL


def long_text(words: int = 5000) -> str:
    body = " ".join(f"word{i % 97}" for i in range(words - 1))
    return f"{body} {LONG_END}"


def hostile_record() -> dict[str, Any]:
    return {
        "id": "hostile_1",
        "question": f"{SCRIPT} How do I keep my plants alive? {CJK}",
        "profile": [
            {"id": "h1", "category": f"garden {IMG}", "text": f"My first post {MD_IMAGE}"},
            {"id": "h2", "category": "غابة", "text": f"{ARABIC} {NESTED_MD_IMAGE}"},
            {"id": "h3", "category": "emoji", "text": f"{EMOJI} {SVG}"},
        ]
        + [{"id": f"h{i}", "category": "more", "text": f"Later post {i}"} for i in range(4, 14)],
        "rubric_aspects": [
            {"aspect": f"Links {JS_LINK}", "evidence": IFRAME, "reason": MD_JS_LINK},
            {"aspect": CJK, "evidence": ARABIC, "reason": EMOJI},
        ],
        "narrative": f"{ARABIC}\n\n{REFERENCE_IMAGE}\n\n{SHORTCUT_IMAGE}",
        "category": f"gardening {SCRIPT}",
        "chosen": f"{long_text()}\n\n{UNBROKEN}\n\n{MD_IMAGE}",
        "rejected": f"{CJK} {EMOJI}\n\n{ANGLE_IMAGE}\n\n{IMG} {IFRAME} {SCRIPT}",
    }


def write_hostile_dataset(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "Society_and_Culture_test.jsonl"
    path.write_text(json.dumps(hostile_record(), ensure_ascii=False) + "\n", encoding="utf-8")
    return path
