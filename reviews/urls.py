from __future__ import annotations

from django.urls import path

from reviews.views import audit, clarifications, escalations, new_items, queue

urlpatterns = [
    path("", queue.queue, name="reviews-queue"),
    path("items/<int:item_id>/", queue.item_detail, name="reviews-item"),
    path("items/<int:item_id>/claim/", queue.claim, name="reviews-claim"),
    path("items/<int:item_id>/release/", queue.release, name="reviews-release"),
    path("items/<int:item_id>/decide/", queue.decide, name="reviews-decide"),
    path("questions/", clarifications.clarifications, name="reviews-clarifications"),
    path("questions/<int:item_id>/answer/", clarifications.answer, name="reviews-answer"),
    path("escalations/", escalations.escalations, name="reviews-escalations"),
    path("escalations/<int:item_id>/", escalations.conflict, name="reviews-conflict"),
    path("escalations/<int:item_id>/resolve/", escalations.resolve, name="reviews-resolve"),
    path("escalations/<int:item_id>/extend/", escalations.extend, name="reviews-extend"),
    path("escalations/<int:item_id>/close/", escalations.close, name="reviews-close"),
    path("audit/", audit.audit, name="reviews-audit"),
    path("audit.csv", audit.audit_csv, name="reviews-audit-csv"),
    path("new/<slug:page>/", new_items.new_items, name="reviews-new-items"),
]
