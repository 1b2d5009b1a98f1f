"""A team's notes server, written the way the Python SDK 1.x README teaches (FastMCP, type hints, pydantic).

Nothing is tuned for callproof: SDK defaults throughout (mcp 1.30.0, target/python-venv).
    python3 py1_fastmcp_notes.py
"""

import logging
import sys
from datetime import datetime, timezone
from typing import Literal

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("notes")

mcp = FastMCP("notes")

NOTES: dict[int, dict] = {
    1: {"id": 1, "title": "Courses", "body": "pain, fromage, café", "tags": ["maison"], "priority": "low"},
    2: {"id": 2, "title": "Réunion", "body": "préparer la démo", "tags": ["travail"], "priority": "high"},
}


class Note(BaseModel):
    id: int
    title: str
    body: str
    tags: list[str] = []
    priority: Literal["low", "normal", "high"] = "normal"


class SearchResult(BaseModel):
    query: str
    total: int
    notes: list[Note]


class Reminder(BaseModel):
    at: str = Field(description="ISO 8601 date-time")
    repeat_days: int | None = None


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def search_notes(query: str, limit: int = 10, tags: list[str] | None = None) -> SearchResult:
    """Recherche dans les notes (titre et contenu). Returns at most `limit` notes."""
    log.info("search %r limit=%s tags=%s", query, limit, tags)
    found = [Note(**n) for n in NOTES.values() if query.lower() in (n["title"] + n["body"]).lower()]
    if tags:
        found = [n for n in found if set(tags) & set(n.tags)]
    return SearchResult(query=query, total=len(found), notes=found[:limit])


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def get_note(note_id: int) -> Note:
    """Fetch one note by id."""
    if note_id not in NOTES:
        raise ValueError(f"note {note_id} not found")
    return Note(**NOTES[note_id])


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=False))
def current_time() -> str:
    """The server's current time (UTC) — différent à chaque appel."""
    return datetime.now(timezone.utc).isoformat()


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def word_stats(text: str, min_length: int = Field(default=1, ge=1, le=50)) -> dict[str, int]:
    """Count words of at least `min_length` characters."""
    words = [w for w in text.split() if len(w) >= min_length]
    return {"words": len(words), "characters": len(text)}


@mcp.tool()
def create_note(
    title: str = Field(max_length=120),
    body: str = "",
    tags: list[str] = [],
    priority: Literal["low", "normal", "high"] = "normal",
    reminder: Reminder | None = None,
    score: float = 0.5,
) -> Note:
    """Create a note. ✍️"""
    note_id = max(NOTES) + 1
    NOTES[note_id] = {"id": note_id, "title": title, "body": body, "tags": tags, "priority": priority}
    log.info("created note %s (reminder=%s, score=%s)", note_id, reminder, score)
    return Note(**NOTES[note_id])


@mcp.tool(annotations=ToolAnnotations(destructiveHint=True))
def delete_note(note_id: int) -> str:
    """Delete a note."""
    if NOTES.pop(note_id, None) is None:
        raise KeyError(note_id)
    return f"deleted {note_id}"


@mcp.resource("notes://all")
def all_notes() -> str:
    """Every note as text."""
    return "\n".join(f"{n['id']}: {n['title']}" for n in NOTES.values())


@mcp.resource("notes://{note_id}")
def note_resource(note_id: int) -> str:
    """One note."""
    return NOTES[int(note_id)]["body"]


@mcp.prompt()
def summarize(style: str = "short") -> str:
    """Summarise all notes."""
    return f"Summarise these notes in a {style} style."


if __name__ == "__main__":
    log.info("starting notes server")
    mcp.run()
