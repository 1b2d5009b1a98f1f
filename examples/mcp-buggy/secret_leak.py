"""Bug: the warehouse connection error names the database URL, password included."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import control  # noqa: E402

DATABASE_URL = os.environ.get("WAREHOUSE_DB", "postgresql://inventory:Tr0ub4dor-3@db.internal:5432/warehouse")


def sync_warehouse() -> dict:
    raise ConnectionError(f"could not connect to {DATABASE_URL}: timeout after 5 s")  # THE BUG


control.sync_warehouse = sync_warehouse

if __name__ == "__main__":
    control.asyncio.run(control.main())
