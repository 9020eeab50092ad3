"""Who may see and do what: tenant scoping and role checks shared by every view."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import TypeVar

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest

from runs.models import Membership, Tenant

ModelT = TypeVar("ModelT", bound=Model)


def membership_of(user) -> Membership | None:
    if not user.is_authenticated:
        return None
    try:
        return user.membership
    except Membership.DoesNotExist:
        return None


def tenant_of(request: HttpRequest) -> Tenant:
    membership = membership_of(request.user)
    if membership is None:
        raise PermissionDenied("Your account is not a member of any tenant.")
    return membership.tenant


def has_role(user, *roles: str) -> bool:
    if user.is_authenticated and user.is_superuser and Membership.Role.ADMIN in roles:
        return True
    membership = membership_of(user)
    return membership is not None and membership.role in roles


def require_role(*roles: str) -> Callable:
    """Login required, then one of `roles`; anyone else gets 403."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        @login_required
        def wrapped(request: HttpRequest, *args, **kwargs):
            if not has_role(request.user, *roles):
                raise PermissionDenied(role_refusal(request.user))
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


# As the home page says it to someone in no tenant (templates/runs/no_membership.html).
NO_MEMBERSHIP = (
    "Your account is not a member of any tenant. Ask an administrator to add you as an "
    "analyst, reviewer or admin."
)


def role_refusal(user) -> str:
    """Why a role check refused `user`, naming their role when they have one (the refusal
    page shows it as it is; other refusals say their own reason)."""
    membership = membership_of(user)
    if membership is None:
        return NO_MEMBERSHIP
    return f"Your role does not allow this. It is not part of what {membership.role}s do in Atlas."


def get_for_tenant(
    queryset: QuerySet[ModelT], tenant: Tenant, tenant_field: str = "tenant", **lookup
) -> ModelT:
    """The object if it belongs to `tenant`; another tenant's object is a 404, never a 403."""
    try:
        return queryset.get(**{tenant_field: tenant}, **lookup)
    except queryset.model.DoesNotExist:
        raise Http404("No such object.") from None


def roles_label(roles: Iterable[str]) -> str:
    return " or ".join(roles)
