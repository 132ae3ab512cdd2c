"""Numbers of a schemathesis run from its NDJSON report: requests by status, by phase, the money path.

Exits non-zero when any answer was a 5xx, whatever the checks said, so a crash can never pass.
"""

import collections
import json
import pathlib
import sys

MONEY_PATH = [
    ("POST", "/api/v1/users"),
    ("POST", "/api/v1/auth/login"),
    ("POST", "/api/v1/transactions"),
    ("GET", "/api/v1/transactions/{id}"),
    ("POST", "/api/v1/transactions/{referenceId}/reversals"),
]


def main(report_dir: str) -> int:
    reports = sorted(pathlib.Path(report_dir).glob("*.ndjson"))
    if not reports:
        print(f"no NDJSON report in {report_dir}", file=sys.stderr)
        return 1
    by_status = collections.Counter()
    by_phase = collections.Counter()
    by_operation = collections.defaultdict(collections.Counter)
    failed_checks = collections.Counter()
    links = set()
    lines = (line for report in reports for line in report.open())
    for line in lines:
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if finished is None:
            continue
        recorder = finished["recorder"]
        for case_id, interaction in recorder.get("interactions", {}).items():
            response = interaction.get("response")
            if response is None:
                continue
            status = response["status_code"]
            by_status[status] += 1
            by_phase[finished["phase"]] += 1
            case = recorder["cases"].get(case_id, {}).get("value", {})
            by_operation[(case.get("method"), recorder_label_path(recorder["label"], case))][status] += 1
            if recorder["cases"].get(case_id, {}).get("is_transition_applied"):
                links.add(recorder["label"])
        for checks in recorder.get("checks", {}).values():
            for check in checks:
                if check["status"] == "failure":
                    failed_checks[check["name"]] += 1
    total = sum(by_status.values())
    server_errors = sum(n for status, n in by_status.items() if status >= 500)
    print(f"fuzz: {total} requests; by status {dict(sorted(by_status.items()))}; by phase {dict(by_phase)}")
    print(f"fuzz: 5xx answers {server_errors}; failed checks {dict(failed_checks) or 0}")
    for method, path in MONEY_PATH:
        counts = by_operation.get((method, path), {})
        print(f"fuzz: {method} {path}: {dict(sorted(counts.items())) or 'never called'}")
    return 1 if server_errors else 0


def recorder_label_path(label: str, case: dict) -> str:
    # Stateful scenarios are labelled by their chain; the case itself names its operation.
    parts = label.split(" ", 1)
    if len(parts) == 2 and parts[1].startswith("/") and "->" not in label:
        return parts[1]
    return case.get("path", label)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
