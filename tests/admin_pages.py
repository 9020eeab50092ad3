"""Addresses of Django admin pages, for the admin tests."""

from __future__ import annotations

from django.urls import reverse


def admin_url(model, view: str, *args) -> str:
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)
