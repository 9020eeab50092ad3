"""Runtime policy: what the model may do, decided without reading its rationale."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field


class TenantPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approval_cost_threshold_usd: Decimal = Field(default=Decimal("0.50"), ge=0)
    forbidden_tools: list[str] = Field(default_factory=list)
