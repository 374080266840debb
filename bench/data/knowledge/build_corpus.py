"""Build ``docs.jsonl``, the document set of ``bench/knowledge_eval.py``, from text found offline.

Sources, all on a Debian machine with CPython 3.11 and nothing downloaded:

- Python standard library modules: the module docstring, then one ``##`` section per
  public class or function with its docstring (``py:<module>``);
- man pages of common commands, rendered by ``man`` (``man:<name>``), sections kept as
  ``##`` headings;
- licence texts from ``/usr/share/common-licenses`` (``license:<name>``);
- Chinese documents written for this set (``zh_docs.json``, ``zh:<slug>``).

Each document is capped at ``MAX_CHARS`` so one long manual does not dominate.
The output is committed; rebuild it only to change the set (the queries in
``queries.json`` name documents by id, so check them after a rebuild)::

    .venv/bin/python bench/data/knowledge/build_corpus.py
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MAX_CHARS = 8000
MIN_CHARS = 300

SKIPPED_MODULES = {
    "this",
    "antigravity",
    "idlelib",
    "tkinter",
    "turtle",
    "turtledemo",
    "lib2to3",
    "ensurepip",
    "venv",
    "pydoc_data",
    "test",
    "xxsubtype",
    "xxlimited",
    "xxlimited_35",
    "xx",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "msilib",
    "winreg",
    "winsound",
    "msvcrt",
    "nt",
    "encodings",
}
SUBMODULES = [
    "os.path",
    "email.message",
    "email.utils",
    "urllib.parse",
    "urllib.request",
    "http.client",
    "http.server",
    "http.cookies",
    "json.decoder",
    "logging.handlers",
    "logging.config",
    "concurrent.futures",
    "xml.etree.ElementTree",
    "xml.dom.minidom",
    "importlib.resources",
    "importlib.metadata",
    "asyncio.queues",
    "asyncio.locks",
    "asyncio.subprocess",
    "multiprocessing.pool",
    "unittest.mock",
    "collections.abc",
    "email.mime.text",
    "sqlite3.dbapi2",
    "ctypes.util",
    "dataclasses",
    "enum",
    "functools",
    "pathlib",
    "shutil",
    "textwrap",
    "zipfile",
    "tarfile",
    "gzip",
    "bz2",
    "base64",
    "binascii",
    "hmac",
    "ipaddress",
    "logging",
    "queue",
    "selectors",
    "signal",
    "threading",
    "traceback",
    "weakref",
    "contextlib",
    "abc",
    "numbers",
    "decimal",
    "fractions",
    "math",
    "cmath",
    "bisect",
    "glob",
    "filecmp",
    "shlex",
    "netrc",
    "mailbox",
    "html.parser",
    "html",
    "webbrowser",
    "zoneinfo",
    "datetime",
    "argparse",
    "warnings",
]
MAN_PAGES = [
    "ls",
    "cp",
    "mv",
    "rm",
    "mkdir",
    "chmod",
    "chown",
    "ln",
    "find",
    "grep",
    "sed",
    "awk",
    "sort",
    "uniq",
    "cut",
    "tr",
    "head",
    "tail",
    "wc",
    "tar",
    "gzip",
    "xz",
    "zip",
    "unzip",
    "ssh",
    "scp",
    "rsync",
    "curl",
    "wget",
    "git",
    "ps",
    "top",
    "kill",
    "nice",
    "df",
    "du",
    "mount",
    "free",
    "uname",
    "date",
    "cron",
    "crontab",
    "env",
    "xargs",
    "tee",
    "diff",
    "patch",
    "make",
    "gcc",
    "gdb",
    "strace",
    "ping",
    "ip",
    "ss",
    "nc",
    "dig",
    "openssl",
    "gpg",
    "sudo",
    "su",
    "passwd",
    "useradd",
    "groupadd",
    "systemctl",
    "journalctl",
    "less",
    "man",
    "bash",
    "nohup",
    "timeout",
    "watch",
    "split",
    "join",
    "paste",
    "comm",
    "md5sum",
    "sha256sum",
    "base64",
    "od",
    "stat",
    "touch",
    "file",
    "which",
    "ln",
    "readlink",
    "realpath",
    "basename",
    "dirname",
    "sleep",
    "seq",
    "yes",
    "printf",
    "echo",
    "hostname",
    "id",
    "groups",
    "whoami",
    "uptime",
    "lsof",
    "psql",
    "sqlite3",
    "python3",
    "pip",
    "perl",
    "vim",
    "nano",
    "tmux",
    "screen",
    "htop",
]
LICENSES = [
    "Apache-2.0",
    "Artistic",
    "BSD",
    "CC0-1.0",
    "GFDL-1.3",
    "GPL-2",
    "GPL-3",
    "LGPL-2.1",
    "LGPL-3",
    "MPL-1.1",
    "MPL-2.0",
]


def _clip(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    cut = text.rfind("\n\n", 0, MAX_CHARS)
    return text[: cut if cut > MAX_CHARS // 2 else MAX_CHARS].rstrip()


def _first_paragraphs(doc: str, limit: int = 600) -> str:
    doc = inspect.cleandoc(doc)
    paragraphs = [paragraph.strip() for paragraph in doc.split("\n\n") if paragraph.strip()]
    kept: list[str] = []
    for paragraph in paragraphs:
        if kept and sum(len(part) for part in kept) + len(paragraph) > limit:
            break
        kept.append(paragraph)
    return "\n\n".join(kept)


def python_module(name: str) -> dict[str, Any] | None:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            module = importlib.import_module(name)
    except Exception:
        return None
    parts = [f"# {name}", inspect.cleandoc(module.__doc__ or "").strip()]
    public = getattr(module, "__all__", None) or [member for member in dir(module) if not member.startswith("_")]
    for member_name in sorted(set(public)):
        member = getattr(module, member_name, None)
        if not (inspect.isclass(member) or inspect.isfunction(member) or inspect.isbuiltin(member)):
            continue
        if getattr(member, "__module__", name) not in (name, None) and not name.startswith(
            str(getattr(member, "__module__", "")).split(".")[0]
        ):
            continue
        doc = getattr(member, "__doc__", None)
        if not doc or len(doc.strip()) < 20:
            continue
        kind = "class" if inspect.isclass(member) else "function"
        parts.append(f"## {member_name} ({kind})\n\n{_first_paragraphs(doc)}")
    text = _clip("\n\n".join(part for part in parts if part))
    if len(text) < MIN_CHARS:
        return None
    return {"id": f"py:{name}", "title": f"Python module {name}", "source": f"pydoc:{name}", "lang": "en", "text": text}


def man_page(name: str) -> dict[str, Any] | None:
    environment = {**os.environ, "MANWIDTH": "80", "MAN_KEEP_FORMATTING": "0", "LANG": "C.UTF-8"}
    result = subprocess.run(["man", "-P", "cat", name], capture_output=True, text=True, env=environment, check=False)
    if result.returncode != 0 or not result.stdout.strip():
        return None
    plain = re.sub(".\x08", "", result.stdout)  # overstrike bold and underline
    lines = plain.splitlines()[1:-1]  # drop the header and footer lines
    out: list[str] = []
    for line in lines:
        if re.fullmatch(r"[A-Z][A-Z0-9 ,/-]+", line.strip()) and not line.startswith(" "):
            out.append(f"\n## {line.strip().title()}\n")
        else:
            out.append(re.sub(r"^ {7}", "", line.replace("\u2010", "-")))
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
    text = _clip(f"# {name}\n\n{body}")
    if len(text) < MIN_CHARS:
        return None
    return {"id": f"man:{name}", "title": f"{name} manual page", "source": f"man:{name}", "lang": "en", "text": text}


def license_text(name: str) -> dict[str, Any] | None:
    path = Path("/usr/share/common-licenses") / name
    if not path.exists():
        return None
    text = _clip(path.read_text(encoding="utf-8", errors="replace"))
    return {"id": f"license:{name}", "title": f"{name} licence", "source": str(path), "lang": "en", "text": text}


def main() -> None:
    warnings.simplefilter("ignore")
    documents: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(document: dict[str, Any] | None) -> None:
        if document is not None and document["id"] not in seen:
            seen.add(document["id"])
            documents.append(document)

    for name in sorted(sys.stdlib_module_names):
        if not name.startswith("_") and name not in SKIPPED_MODULES:
            add(python_module(name))
    for name in SUBMODULES:
        add(python_module(name))
    for name in MAN_PAGES:
        add(man_page(name))
    for name in LICENSES:
        add(license_text(name))
    for document in json.loads((HERE / "zh_docs.json").read_text(encoding="utf-8")):
        add(
            {**document, "id": f"zh:{document['slug']}", "lang": "zh", "source": f"zh:{document['slug']}"}
            | {"slug": None}
        )
    for document in documents:
        document.pop("slug", None)
    with (HERE / "docs.jsonl").open("w", encoding="utf-8") as output:
        for document in documents:
            output.write(json.dumps(document, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for document in documents:
        prefix = document["id"].split(":")[0]
        counts[prefix] = counts.get(prefix, 0) + 1
    print(f"wrote {len(documents)} documents to {HERE / 'docs.jsonl'}: {counts}")


if __name__ == "__main__":
    main()
