"""A deterministic generated corpus for the differential splitter tests."""

from __future__ import annotations

import random

WORDS = (
    "the of and to in is was for on with as by at from data model chunk split text file "
    "python splitter overlap separator header section paragraph retrieval index vector"
).split()


def prose(rng: random.Random, paragraphs: int) -> str:
    out = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(rng.randint(1, 6)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(1, 18))]
            sentences.append(" ".join(words).capitalize() + rng.choice([".", "!", "?", ""]))
        out.append(rng.choice([" ", "\n", "  "]).join(sentences))
    return rng.choice(["\n\n", "\n\n\n", "\n \n"]).join(out)


def python_code(rng: random.Random, functions: int) -> str:
    lines = ["import os", ""]
    for i in range(functions):
        if rng.random() < 0.3:
            lines += [f"class C{i}:", f"    def m{i}(self, x):", "        return x * 2", ""]
        lines += [
            f"def f{i}(a, b={i}):",
            f'    """{" ".join(rng.choice(WORDS) for _ in range(8))}"""',
        ]
        for j in range(rng.randint(1, 5)):
            lines.append(f"    if a > {j}:\n        b += {j}  # {rng.choice(WORDS)}")
        lines += ["    return b", "", ""]
    return "\n".join(lines)


def markdown(rng: random.Random, sections: int) -> str:
    out = []
    for _ in range(sections):
        level = rng.randint(1, 4)
        out.append(
            "#" * level + " " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        )
        out.append(prose(rng, rng.randint(0, 3)))
        if rng.random() < 0.3:
            out.append("```python\n# not a header\nx = 1\n```")
        if rng.random() < 0.2:
            out.append("- item one\n- item two\n\n---\n")
    return "\n".join(out)


def html(rng: random.Random, sections: int) -> str:
    parts = ["<!DOCTYPE html><html><head><title>T</title><style>p {}</style></head><body>"]
    for _ in range(sections):
        tag = rng.choice(["h1", "h2", "h3", "h4", "p", "div", "ul"])
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
        if tag == "ul":
            parts.append("<ul><li>" + words + "</li><li>two &amp; three</li></ul>")
        elif tag == "div":
            parts.append(f"<div><p>{words}</p><span>{rng.choice(WORDS)}</span> tail</div>")
        else:
            parts.append(f"<{tag}>{words}</{tag}>")
        if rng.random() < 0.2:
            parts.append("<!-- a comment --><br>")
    parts.append("</body></html>")
    return "\n".join(parts)


def corpus(seed: int = 7) -> dict[str, list[str]]:
    rng = random.Random(seed)
    return {
        "prose": [prose(rng, rng.randint(1, 40)) for _ in range(25)],
        "python": [python_code(rng, rng.randint(1, 25)) for _ in range(15)],
        "markdown": [markdown(rng, rng.randint(1, 25)) for _ in range(20)],
        "html": [html(rng, rng.randint(1, 40)) for _ in range(20)],
    }
