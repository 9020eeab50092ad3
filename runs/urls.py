from __future__ import annotations

from django.urls import path

from runs.views import case_edits, cases, documents, live, packets, traces
from runs.views import metrics as metrics_views

urlpatterns: list = [
    path("cases/", cases.case_list, name="runs-case-list"),
    path("cases/new/", cases.case_new, name="runs-case-new"),
    path("cases/<int:case_id>/", cases.case_detail, name="runs-case-detail"),
    path("cases/<int:case_id>/rerun/", cases.case_rerun, name="runs-case-rerun"),
    path("cases/<int:case_id>/correct/", case_edits.case_correct, name="runs-case-correct"),
    path(
        "cases/<int:case_id>/documents/",
        cases.case_attach_document,
        name="runs-case-attach-document",
    ),
    path(
        "cases/<int:case_id>/documents/<int:document_id>/",
        documents.document_file,
        name="runs-document",
    ),
    path(
        "cases/<int:case_id>/documents/<int:document_id>/sensitive/",
        documents.mark_sensitive,
        name="runs-document-mark-sensitive",
    ),
    path(
        "cases/<int:case_id>/documents/<int:document_id>/sensitive/confirm/",
        documents.confirm_sensitive,
        name="runs-document-confirm-sensitive",
    ),
    path("runs/<int:run_id>/cancel/", live.run_cancel, name="runs-run-cancel"),
    path("runs/<int:run_id>/answer/", live.run_answer, name="runs-run-answer"),
    path("runs/<int:run_id>/steps/", cases.run_steps_earlier, name="runs-run-steps"),
    path("runs/<int:run_id>/packet/", packets.packet, name="runs-packet"),
    path("runs/<int:run_id>/packet.json", packets.packet_json, name="runs-packet-json"),
    path("runs/", traces.trace_list, name="runs-trace-list"),
    path("runs/export.jsonl", traces.export_jsonl, name="runs-export-jsonl"),
    path("runs/<int:run_id>/trace/", traces.trace, name="runs-trace"),
    path("runs/<int:run_id>/trace/steps/", traces.trace_steps, name="runs-trace-steps"),
    path("runs/<int:run_id>/trace.json", traces.trace_json, name="runs-trace-json"),
    path("metrics/", metrics_views.dashboard, name="runs-metrics"),
]
