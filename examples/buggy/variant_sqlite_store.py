#!/usr/bin/env python3
"""Correct, written another way: idempotency records and kept task answers live in a SQLite file shared by
every process of the machine (WAL, a busy timeout), each key prefixed by the session, and the executor
declares `durable_store`. Claims insert with `INSERT OR IGNORE`; every transition is an `UPDATE ... WHERE key =
? AND state = ? AND epoch = ?`, applied only when one row changed.

Where it ships: the embedded default of most single-machine executors (the reference's own `sqlite:PATH`).

Permitted by docs/protocol.md: "`durable_store` | your idempotency records survive a restart of your process.
Crash scenarios must then pass" and "If your idempotency store outlives your process (a database file,
PostgreSQL, Redis), keep the records of different sessions apart, e.g. by prefixing every key with the
session".

Expected: passes every check under --profile all, the crash scenarios included.
"""

import json
import os
import sqlite3
import tempfile
import threading

from correct import cp, serve

PATH = os.path.join(tempfile.gettempdir(), "callproof-variant-sqlite-store.sqlite3")
SCHEMA = """
CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, fingerprint TEXT, state TEXT, epoch INTEGER,
    attempts INTEGER, lease INTEGER, deadline INTEGER, outcome TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS task_finals (key TEXT PRIMARY KEY, answer TEXT) WITHOUT ROWID;
"""
COLUMNS = ("fingerprint", "state", "epoch", "attempts", "lease", "deadline", "outcome")


class Database:
    def __init__(self, session):
        self.prefix = session + "\x1f"
        self.lock = threading.Lock()
        self.connection = sqlite3.connect(PATH, timeout=10, isolation_level=None, check_same_thread=False)
        with self.lock:
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=FULL")
            self.connection.executescript(SCHEMA)

    def run(self, sql, parameters):
        with self.lock:
            cursor = self.connection.execute(sql, parameters)
            return cursor.fetchone(), cursor.rowcount


class Records:
    """The example's `records` mapping (get, set) backed by the file."""

    def __init__(self, database):
        self.database = database

    def get(self, key):
        row, _ = self.database.run("SELECT %s FROM records WHERE key = ?" % ", ".join(COLUMNS),
                                   (self.database.prefix + key,))
        if row is None:
            return None
        record = cp.Record(row[0], row[4], row[5])
        record.state, record.epoch, record.attempts = row[1], row[2], row[3]
        record.outcome = None if row[6] is None else json.loads(row[6])
        return record

    def __setitem__(self, key, record):
        self.database.run("INSERT OR IGNORE INTO records (key, %s) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                          % ", ".join(COLUMNS),
                          (self.database.prefix + key, record.fingerprint, record.state, record.epoch,
                           record.attempts, record.lease, record.deadline, None))

    def compare_and_set(self, key, version, state, outcome, changes):
        assignments = ["state = ?", "outcome = ?"] + ["%s = ?" % name for name in changes]
        values = [state, None if outcome is None else json.dumps(outcome)] + list(changes.values())
        _, changed = self.database.run("UPDATE records SET %s WHERE key = ? AND state = ? AND epoch = ?"
                                       % ", ".join(assignments),
                                       values + [self.database.prefix + key, version[0], version[1]])
        return changed == 1


class TaskFinals:
    """The example's `task_finals` mapping (get, setdefault) backed by the file."""

    def __init__(self, database):
        self.database = database

    def name(self, key):
        return self.database.prefix + json.dumps(list(key))

    def get(self, key):
        row, _ = self.database.run("SELECT answer FROM task_finals WHERE key = ?", (self.name(key),))
        return None if row is None else json.loads(row[0])

    def setdefault(self, key, answer):
        self.database.run("INSERT OR IGNORE INTO task_finals (key, answer) VALUES (?, ?)",
                          (self.name(key), json.dumps(answer)))
        return self.get(key)


ORIGINAL_INIT = cp.Executor.__init__
ORIGINAL_WIRE_SEND = cp.Wire.send


def init(self, hello):
    ORIGINAL_INIT(self, hello)
    database = Database(hello["session"])
    self.records, self.task_finals = Records(database), TaskFinals(database)


def compare_and_set(self, key, version, state, outcome, **changes):
    return self.records.compare_and_set(key, version, state, outcome, changes)


def wire_send(self, message):
    if message.get("type") == "capabilities":
        message = dict(message, features=sorted(set(message["features"]) | {"durable_store"}))
    ORIGINAL_WIRE_SEND(self, message)


cp.Executor.__init__ = init
cp.Executor.compare_and_set = compare_and_set
cp.Wire.send = wire_send

if __name__ == "__main__":
    serve(__file__)
