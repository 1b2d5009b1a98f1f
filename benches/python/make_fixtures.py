"""Writes the benchmark payloads under benches/fixtures/ (deterministic; rerun only to change them).

The payloads are create_order arguments as a model would emit them: compact JSON, members in schema order
(not sorted, so canonicalisation has work to do), a few non-ASCII and escaped characters. One ~4 KiB and one
~64 KiB order, valid against benches/fixtures/create_order.schema.json.
"""

import json
import pathlib

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"

ADJECTIVES = ["Compact", "Heavy-duty", "Organic", "Wireless", "Recycled", "Stainless", "Ergonomic", "Vintage"]
NOUNS = ["kettle", "desk lamp", "yoga mat", "headphones", "notebook", "water bottle", "chef's knife", "backpack"]
TAGS = ["kitchen", "office", "outdoor", "gift", "eco", "sale", "new", "bundle", "café", "audio"]


def line_item(index: int) -> dict:
    title = f"{ADJECTIVES[index % len(ADJECTIVES)]} {NOUNS[(index * 3) % len(NOUNS)]}, model {index:04d}"
    if index % 7 == 3:
        title += ' "limited edition"'
    return {
        "sku": f"SKU-{(index * 7919) % 1_000_000:06d}",
        "title": title,
        "quantity": 1 + (index * 13) % 9,
        "unit_price": 499 + (index * 1_237) % 25_000,
        "discount": None if index % 3 else (index * 17) % 500,
        "gift_wrap": index % 5 == 0,
        "tags": [TAGS[(index + step) % len(TAGS)] for step in range(index % 4)],
    }


def order(items: int) -> dict:
    return {
        "order_id": "ord_7Hq2Lx9Pz",
        "currency": "EUR",
        "customer": {
            "customer_id": "cus_41Ab8Zr",
            "name": "Zoë Martín-Okafor",
            "email": "zoe.martin-okafor@example.com",
            "loyalty_tier": "gold",
        },
        "shipping_address": {
            "line1": "12 Rue de la Paix",
            "line2": None,
            "city": "Paris",
            "postal_code": "75002",
            "country": "FR",
        },
        "line_items": [line_item(index) for index in range(items)],
        "note": "Leave with the concierge.\nCall before delivery if the gate is closed.",
        "requested_delivery": "2026-12-04",
    }


def compact(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sized(target_bytes: int) -> str:
    """The largest order whose text is at most target_bytes long."""
    items = 1
    while len(compact(order(items + 1)).encode()) <= target_bytes:
        items += 1
    return compact(order(items))


def main() -> None:
    for name, target in [("create_order_4k.json", 4 * 1024), ("create_order_64k.json", 64 * 1024)]:
        (FIXTURES / name).write_text(sized(target), encoding="utf-8")


if __name__ == "__main__":
    main()
