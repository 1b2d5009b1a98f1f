#!/usr/bin/env python3
"""Correct, written another way: every error message is a sentence in French with typographic punctuation and a
symbol outside the Basic Multilingual Plane ("l’opération n’a pas été appliquée — réessayez plus tard ⏳ 🔁"),
written to the wire as raw UTF-8.

Where it ships: executors localized for their users; messages are "a sentence for people".

Permitted by docs/errors.md: "**Match on `code` and `details`, never on `message`.** The message is a sentence
for people; its wording may change in any release." and docs/protocol.md: "a JSON object on a single line,
UTF-8". The messages carry no secret, value or downstream text.

Expected: passes every check under --profile all. A false-positive probe for checks that compare or scan
messages (no-secret-leak, resource-refusal-uniform, task-refusal-uniform) and for the line reader's UTF-8.
"""

import json
import sys

from correct import cp, serve

FRENCH = {
    "invalid_json": "les arguments ne sont pas du JSON valide — corrigez-les ✍️",
    "invalid_arguments": "les arguments ne respectent pas la structure attendue — corrigez-les ✍️",
    "schema_violation": "les arguments ne correspondent pas au schéma de l’outil 📐",
    "tool_not_found": "aucun outil ne porte exactement ce nom 🔎",
    "unauthorized": "l’identité de l’appelant n’est pas valide 🔐",
    "forbidden": "cette action n’est pas autorisée 🚫",
    "approval_required": "cette opération demande l’accord de l’utilisateur ✋",
    "business_rejected": "une règle métier a refusé la demande 📋",
    "idempotency_conflict": "cette demande métier a déjà été faite avec d’autres arguments ⚠️",
    "operation_in_progress": "une autre tentative de cette demande est en cours — patientez ⏳",
    "dependency_unavailable": "le service en aval est indisponible ; rien n’a été appliqué — réessayez 🔁",
    "rate_limited": "le service en aval limite le débit — réessayez plus tard ⏳",
    "timeout_not_started": "le délai est écoulé avant l’envoi de la demande ⌛",
    "timeout_unknown": "la demande est partie et son issue est inconnue 🤷",
    "output_invalid": "la réponse de l’outil ne respecte pas son contrat 🧾",
    "internal_error": "l’exécuteur a échoué de façon inattendue 💥",
    "retry_budget_exhausted": "cette demande a échoué trop souvent ; les nouvelles tentatives s’arrêtent 🛑",
}

ORIGINAL_BODY = cp.Refusal.body


def body(self):
    answer = ORIGINAL_BODY(self)
    answer["message"] = FRENCH[self.code]
    return answer


def send(self, message):
    line = json.dumps(message, allow_nan=False, ensure_ascii=False, separators=(",", ":")) + "\n"
    with self.lock:
        sys.stdout.buffer.write(line.encode("utf-8"))
        sys.stdout.flush()


cp.Refusal.body = body
cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
