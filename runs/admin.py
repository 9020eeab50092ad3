"""Django admin for the runs app, and for user accounts.

A tenant's admins (staff with the admin role) see only their tenant's rows and change
nothing; a superuser sees every tenant, may edit tenants and memberships, and
removes a membership when someone leaves a tenant. User accounts
and groups belong to no tenant, so only a superuser manages them, whatever permissions a
tenant admin's groups hold. Runs, events,
observations, tool calls and decisions are never edited here: statuses change only through
`actions.py`, and the audit trail is append-only.

What tools, documents and people's answers put into a row (a tool's result, an
observation, an event's data, a review item's summary) is shown with personal data
redacted, as the trace page shows it, to every admin, a superuser too: the admin leaves
no record of what it shows, while a document itself is downloaded from its case, where
each download is recorded (DocumentDownload).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import reduce

from django import forms
from django.contrib import admin
from django.contrib.admin.views.main import SEARCH_VAR, ChangeList
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.fields.files import FieldFile
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest
from django.utils.functional import cached_property

from atlas.runtime.money import budget_dollars, dollars
from atlas.runtime.redaction import redact, redact_value
from atlas.runtime.tools.registry import default_registry
from runs.access import has_role, membership_of
from runs.case_fields import clean_jurisdiction
from runs.models import (
    Case,
    CaseEdit,
    Document,
    DocumentDownload,
    Membership,
    Observation,
    PendingUpload,
    Run,
    Tenant,
    ToolCall,
    TraceEvent,
)
from runs.views.trace_steps import clip

# As much of a redacted value as a detail page shows: a document's text can be megabytes,
# and only what is shown is redacted.
SHOWN_CHARS = 20_000


class TenantScopedAdmin(admin.ModelAdmin):
    """Rows of the viewer's tenant (all rows for a superuser); view-only for tenant admins."""

    tenant_path = "tenant"
    superuser_may_edit = False
    show_full_result_count = False  # no second COUNT(*) over millions of events
    # Fields that can hold personal data from documents, tools or people's answers: shown
    # redacted, and not searched for a term that could be personal data.
    redacted_fields: tuple[str, ...] = ()
    # Lookups of fields that can hold personal data and name a row (in its __str__: a page's
    # title and breadcrumbs, a link to it), redacted in the row a page reads; only an
    # admin that changes nothing sets them, as the row is then never saved.
    redacted_in_name: tuple[str, ...] = ()

    def __init__(self, model, admin_site) -> None:
        super().__init__(model, admin_site)
        if self.redacted_fields or self.redacted_in_name:  # pages that say it is redacted
            self.change_form_template = "admin/redacted_change_form.html"
            self.change_list_template = "admin/redacted_change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        membership = membership_of(request.user)
        if membership is None:
            return queryset.none()
        return queryset.filter(**{self.tenant_path: membership.tenant})

    # Money columns a detail page shows as money where they cannot be edited, by field
    # name: an amount spent (atlas.runtime.money.dollars) or one someone set.
    money_fields: dict[str, Callable[[Decimal], str]] = {}
    # Lists a detail page shows as words where they cannot be edited ("KP, IR, MM").
    list_fields: tuple[str, ...] = ()

    def get_fields(self, request: HttpRequest, obj=None) -> list:
        # Django adds the read-only fields last; one shown instead of a field takes its place.
        shown_instead = self._shown_instead(request, obj).values()
        return [name for name in super().get_fields(request, obj) if name not in shown_instead]

    def get_fieldsets(self, request: HttpRequest, obj=None) -> list:
        shown_instead = self._shown_instead(request, obj)
        return [
            (title, {**options, "fields": _swapped(options["fields"], shown_instead)})
            for title, options in super().get_fieldsets(request, obj)
        ]

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple:
        fields = tuple(super().get_readonly_fields(request, obj))
        return (*fields, *self._shown_instead(request, obj).values())

    def _shown_instead(self, request: HttpRequest, obj=None) -> dict[str, Callable]:
        """Fields a detail page shows through a function, by field name: people for a
        tenant admin, and money where the row cannot be changed (an input keeps the exact
        amount)."""
        shown = {} if request.user.is_superuser else dict(self._people_unlinked)
        shown |= self._redacted_shown
        if self.has_change_permission(request, obj):
            return shown
        return shown | self._money_shown | self._lists_shown

    @cached_property
    def _redacted_shown(self) -> dict[str, Callable]:
        return {
            name: _shown_redacted(self.model._meta.get_field(name)) for name in self.redacted_fields
        }

    def get_list_display(self, request: HttpRequest):
        return [
            self._redacted_shown.get(name, name) if isinstance(name, str) else name
            for name in super().get_list_display(request)
        ]

    def get_object(self, request: HttpRequest, object_id: str, from_field=None):
        row = super().get_object(request, object_id, from_field)
        return with_names_redacted(row, self.redacted_in_name)

    def get_search_fields(self, request: HttpRequest) -> tuple:
        fields = tuple(super().get_search_fields(request))
        if not could_be_personal_data(request.GET.get(SEARCH_VAR, "")):
            return fields
        # A row found would tell that the number searched for is in it.
        personal = {*self.redacted_fields, *self.redacted_in_name}
        return tuple(name for name in fields if name.lstrip("=^@") not in personal)

    @cached_property
    def _lists_shown(self) -> dict[str, Callable]:
        return {name: _shown_as_list(self.model._meta.get_field(name)) for name in self.list_fields}

    @cached_property
    def _money_shown(self) -> dict[str, Callable]:
        return {
            name: _shown_as_money(self.model._meta.get_field(name), words)
            for name, words in self.money_fields.items()
        }

    @cached_property
    def _people_unlinked(self) -> dict[str, Callable]:
        """A read-only foreign key links to its row's admin page, and a tenant admin may not
        open user accounts: a person is named instead, by field name."""
        return {
            field.name: _named_not_linked(field)
            for field in self.model._meta.fields
            if field.is_relation
            and field.related_model is get_user_model()
            and field.name not in (self.exclude or ())
        }

    def get_list_filter(self, request: HttpRequest):
        filters = super().get_list_filter(request)
        if request.user.is_superuser:
            return filters
        # A tenant admin sees one tenant; a tenant filter would list every tenant's name.
        return tuple(f for f in filters if f != "tenant")

    def _is_admin(self, request: HttpRequest) -> bool:
        return request.user.is_active and has_role(request.user, Membership.Role.ADMIN)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._is_admin(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._is_admin(request)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.superuser_may_edit and request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.superuser_may_edit and request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


def _swapped(fields, shown_instead: dict[str, Callable]) -> list:
    """A fieldset's fields, a name (or a line of names) replaced by what shows it."""
    return [
        _swapped(name, shown_instead)
        if isinstance(name, (list, tuple))
        else shown_instead.get(name, name)
        for name in fields
    ]


def _shown_as_money(field, words: Callable[[Decimal], str]) -> Callable:
    def amount(obj) -> str:
        return words(getattr(obj, field.name))

    amount.__name__ = field.name
    amount.short_description = field.verbose_name
    return amount


def _shown_as_list(field) -> Callable:
    def items(obj) -> str:
        return ", ".join(map(str, getattr(obj, field.name) or [])) or "none"

    items.__name__ = field.name
    items.short_description = field.verbose_name
    return items


def could_be_personal_data(term: str) -> bool:
    """Every kind of personal data redaction hides holds a digit, or an @ for an e-mail."""
    return any(char.isdigit() or char == "@" for char in term)


def redacted(value: object) -> str:
    """A stored value with personal data redacted, as the trace page shows it: text as it
    is, anything else as JSON, the first `SHOWN_CHARS` characters only."""
    if isinstance(value, FieldFile):
        value = value.name  # stored under a safe form of the uploaded name
    if value is None or value == "":
        return "-"
    shown = clip(redact_value(value, chars_shown=SHOWN_CHARS), SHOWN_CHARS)[0]
    stored_chars = clip(value, 0)[1]
    if stored_chars <= SHOWN_CHARS:
        return shown
    return f"{shown}\n\n({stored_chars:,} characters stored; the first {SHOWN_CHARS:,} shown)"


def _shown_redacted(field) -> Callable:
    def value(obj) -> str:
        return redacted(getattr(obj, field.name))

    value.__name__ = field.name
    value.short_description = field.verbose_name
    value.admin_order_field = field.name
    return value


def with_names_redacted(row, lookups: tuple[str, ...]):
    """`row` with personal data redacted in the fields `lookups` reach (`document__original_name`
    through its document), for display only: it must not be saved."""
    if row is None:
        return row
    for lookup in lookups:
        *path, name = lookup.split("__")
        holder = reduce(getattr, path, row)
        setattr(holder, name, redact(getattr(holder, name)))
    return row


def _named_not_linked(field) -> Callable:
    def person(obj):
        return getattr(obj, field.name)

    person.__name__ = field.name
    person.short_description = field.verbose_name
    return person


class ReadOnlyAdmin(TenantScopedAdmin):
    """Audit records: nobody adds, changes or deletes them, not even a superuser."""

    superuser_may_edit = False


class ShownColumnsChangeList(ChangeList):
    """Rows read with only their admin's `list_columns`: a changelist shows a page of a
    run's events or observations, and each row's run read whole would bring its state,
    megabytes for a long run, once per row."""

    def get_queryset(self, request: HttpRequest, exclude_parameters=None) -> QuerySet:
        queryset = super().get_queryset(request, exclude_parameters)
        return queryset.only(*self.model_admin.list_columns)


class ListsShownColumns:
    """A changelist that reads `list_columns` alone (the detail page still reads a row
    whole)."""

    list_columns: tuple[str, ...] = ()

    def get_changelist(self, request: HttpRequest, **kwargs) -> type[ChangeList]:
        return ShownColumnsChangeList


class RunRowAdmin(ListsShownColumns, ReadOnlyAdmin):
    """Audit rows of a run, listed with the run named as `Run.__str__` names it."""

    tenant_path = "run__tenant"
    list_select_related = ("run",)
    RUN_NAME = ("run", "run__subject_name", "run__status")


TOOLS = list(default_registry())
WHEN_A_POLICY_CHANGE_APPLIES = (
    "A change applies to runs started after it, and to a run under way from the next time "
    "it resumes (after an approval, an answer, or a worker taking it over)."
)


class TenantPolicyForm(forms.ModelForm):
    """The tenant's policy as the runtime reads it (atlas.runtime.policy.TenantPolicy): a
    threshold the runtime refuses (a negative one) or a tool list it cannot read would
    stop every run of the tenant, so neither is saved."""

    approval_cost_threshold_usd = forms.DecimalField(
        label="Approval cost threshold (USD)",
        min_value=0,
        max_digits=10,
        decimal_places=4,
        help_text=(
            "A tool call estimated to cost more than this waits for a reviewer's approval; "
            "at 0 every call waits for one. Tools cost "
            + ", ".join(f"{tool.name} {budget_dollars(tool.price_usd)}" for tool in TOOLS)
            + "."
        ),
        error_messages={
            "required": "Enter a threshold in US dollars, such as 0.50.",
            "invalid": "Enter a threshold in US dollars as a plain number, such as 0.50.",
            "min_value": (
                "The threshold cannot be negative; enter 0 to have every tool call wait for "
                "a reviewer's approval."
            ),
            "max_digits": "Enter at most 6 digits before the decimal point and 4 after it.",
            "max_whole_digits": "Enter a threshold below $1,000,000.",
            "max_decimal_places": "Enter at most 4 decimal places (a hundredth of a cent).",
        },
        widget=forms.NumberInput(attrs={"min": "0", "step": "0.0001"}),
    )
    forbidden_tools = forms.MultipleChoiceField(
        choices=[(tool.name, tool.name) for tool in TOOLS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=(
            "The agent may not use a tool ticked here: it is not offered to the model and a "
            "call to it is denied by policy."
        ),
        error_messages={"invalid_choice": "%(value)s is not one of Atlas's tools."},
    )

    high_risk_jurisdictions = forms.CharField(
        label="High-risk jurisdictions",
        required=False,
        help_text=(
            "Countries, by ISO code or name, separated by commas (the default is FATF's call "
            "for action: KP, IR, MM). A subject registered in one (or a company a person "
            "subject directs, or a business a declared source of wealth or funds names), or "
            "living in one or with a director or beneficial owner living in one, by a registry "
            "record or a document, is not rated low, and its packet asks for enhanced due "
            "diligence. Leave empty for none."
        ),
        widget=forms.TextInput(attrs={"size": "60", "autocapitalize": "characters"}),
    )

    class Meta:
        model = Tenant
        fields = (
            "name",
            "slug",
            "approval_cost_threshold_usd",
            "forbidden_tools",
            "high_risk_jurisdictions",
            "nationality_counts",
        )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        codes = self.initial.get("high_risk_jurisdictions")
        if isinstance(codes, list):
            self.initial["high_risk_jurisdictions"] = ", ".join(codes)

    def clean_forbidden_tools(self) -> list[str]:
        ticked = set(self.cleaned_data["forbidden_tools"])
        return [tool.name for tool in TOOLS if tool.name in ticked]

    def clean_high_risk_jurisdictions(self) -> list[str]:
        """Each country read as the case form reads one (runs.case_fields), by its code or
        its name: "ir, Myanmar; KP" is IR, MM and KP."""
        codes, refused = [], []
        for entry in _countries_listed(self.cleaned_data["high_risk_jurisdictions"]):
            try:
                codes.append(clean_jurisdiction(entry, in_a_list=True))
            except ValidationError as error:
                refused += error.messages
        if refused:
            raise forms.ValidationError(refused)
        return list(dict.fromkeys(code for code in codes if code))


def _countries_listed(text: str) -> list[str]:
    """The countries a list gives, split at commas, semicolons and new lines; codes may also
    be split at spaces ("IR MM KP"), names not ("United Kingdom")."""
    entries = []
    for entry in re.split(r"[,;\n]+", text):
        words = entry.split()
        entries += words if all(len(word) <= 3 for word in words) else [" ".join(words)]
    return entries


@admin.register(Tenant)
class TenantAdmin(TenantScopedAdmin):
    tenant_path = "pk"
    superuser_may_edit = True
    form = TenantPolicyForm
    fieldsets = (
        (None, {"fields": ("name", "slug")}),
        (
            "Policy",
            {
                "fields": (
                    "approval_cost_threshold_usd",
                    "forbidden_tools",
                    "high_risk_jurisdictions",
                    "nationality_counts",
                ),
                "description": WHEN_A_POLICY_CHANGE_APPLIES,
            },
        ),
    )
    list_display = ("name", "slug", "approval_threshold", "forbidden_tools", "created_at")
    money_fields = {"approval_cost_threshold_usd": budget_dollars}
    list_fields = ("forbidden_tools", "high_risk_jurisdictions")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}

    @admin.display(description="Approval cost threshold", ordering="approval_cost_threshold_usd")
    def approval_threshold(self, tenant: Tenant) -> str:
        return budget_dollars(tenant.approval_cost_threshold_usd)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset = admin.ModelAdmin.get_queryset(self, request)
        if request.user.is_superuser:
            return queryset
        membership = membership_of(request.user)
        return queryset.filter(pk=membership.tenant_id) if membership else queryset.none()


@admin.register(Membership)
class MembershipAdmin(TenantScopedAdmin):
    superuser_may_edit = True
    list_display = ("user", "role", "tenant")
    list_filter = ("role", "tenant")
    search_fields = ("^user__username", "user__first_name", "user__last_name", "tenant__name")
    list_select_related = ("user", "tenant")
    raw_id_fields = ("user",)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Removing someone from a tenant deletes no record of what they did: cases, runs
        # and decisions point at the account, which stays (AccountAdmin deletes none).
        return request.user.is_active and request.user.is_superuser

    def save_model(self, request: HttpRequest, obj: Membership, form, change: bool) -> None:
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            _admits_to_the_admin(obj.user, obj.role == Membership.Role.ADMIN)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        with transaction.atomic():
            super().delete_model(request, obj)
            _admits_to_the_admin(obj.user, False)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        with transaction.atomic():
            users = [membership.user for membership in queryset.select_related("user")]
            super().delete_queryset(request, queryset)
            for user in users:
                _admits_to_the_admin(user, False)


def _admits_to_the_admin(user, tenant_admin: bool) -> None:
    """Django's admin lets in staff only: a tenant's admin is staff, and someone no longer
    one is not (a superuser always is), so a role changed here counts at once."""
    is_staff = tenant_admin or user.is_superuser
    if user.is_staff != is_staff:
        user.is_staff = is_staff
        user.save(update_fields=["is_staff"])


class NamesRedactedFormSet(BaseInlineFormSet):
    """A case's documents, each with its name redacted (a row is titled with it too); the
    inline is read-only, so none is saved."""

    def get_queryset(self) -> list[Document]:
        if not hasattr(self, "_names_redacted"):
            self._names_redacted = [
                with_names_redacted(document, ("original_name",))
                for document in super().get_queryset()
            ]
        return self._names_redacted


class DocumentInline(admin.TabularInline):
    model = Document
    formset = NamesRedactedFormSet
    fields = ("original_name", "content_type", "size", "sensitive", "sha256", "uploaded_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Case)
class CaseAdmin(TenantScopedAdmin):
    list_display = (
        "id",
        "subject_name",
        "subject_type",
        "jurisdiction",
        "tenant",
        "created_by",
        "created_at",
    )
    list_filter = ("subject_type", "tenant", "created_at")
    # A jurisdiction is a two-letter code: "gb" means GB, not every code with a G or B in it.
    search_fields = ("subject_name", "=jurisdiction", "notes", "=id")
    redacted_fields = ("notes",)
    list_select_related = ("tenant", "created_by")
    date_hierarchy = "created_at"
    inlines = [DocumentInline]


@admin.register(Document)
class DocumentAdmin(TenantScopedAdmin):
    tenant_path = "case__tenant"
    list_display = (
        "original_name",
        "case",
        "content_type",
        "size",
        "sensitive",
        "uploaded_by",
        "uploaded_at",
    )
    list_filter = ("sensitive", "content_type")
    # A hash is quoted from its start, as far as someone copied it.
    search_fields = ("original_name", "^sha256", "case__subject_name")
    redacted_fields = ("original_name", "file")
    redacted_in_name = ("original_name",)
    list_select_related = ("case", "uploaded_by")
    # Who marked it and when are said in one line, which names the uploader for a document
    # marked as it was uploaded (the two columns are empty then).
    exclude = ("sensitive_marked_by", "sensitive_marked_at")
    readonly_fields = ("marked_sensitive",)

    @admin.display(description="Marked sensitive")
    def marked_sensitive(self, document: Document) -> str:
        if not document.sensitive:
            return "No"
        if document.sensitive_marked_by is None:
            who, when, how = document.uploaded_by, document.uploaded_at, "as it was uploaded"
        else:
            who, when, how = (
                document.sensitive_marked_by,
                document.sensitive_marked_at,
                "after the upload",
            )
        name = who.get_full_name() or who.get_username()
        return f"By {name}, {how}, {when:%Y-%m-%d %H:%M} UTC"


@admin.register(PendingUpload)
class PendingUploadAdmin(ReadOnlyAdmin):
    """Documents kept for a new-case form sent again within the hour; the sweep clears them."""

    list_display = ("original_name", "user", "content_type", "size", "created_at")
    list_filter = ("content_type",)
    search_fields = ("original_name", "^sha256", "^user__username")
    redacted_fields = ("original_name", "file")
    redacted_in_name = ("original_name",)
    list_select_related = ("user",)


@admin.register(Run)
class RunAdmin(ListsShownColumns, TenantScopedAdmin):
    list_display = (
        "id",
        "case",
        "status",
        "termination_reason",
        "closed_by_reviewer",
        "risk_rating",
        "model_name",
        "prompt_version",
        "policy_version",
        "iterations",
        "tokens",
        "cost",
        "elapsed",
        "created_at",
    )
    list_columns = (
        "case",
        "case__subject_name",
        "case__subject_type",
        "elapsed_seconds",
        "cost_usd",
        *(name for name in list_display[2:] if name not in ("elapsed", "cost")),
    )
    list_filter = (
        "status",
        "termination_reason",
        # packet_approved covers both a sign-off and a case closed as it stood.
        "closed_by_reviewer",
        "risk_rating",
        "model_name",
        "prompt_version",
        "policy_version",
        "tenant",
    )
    search_fields = ("=id", "subject_name", "case__subject_name", "user_status", "last_error")
    redacted_fields = ("user_status", "last_error", "scenario")
    list_select_related = ("case",)
    date_hierarchy = "created_at"
    exclude = ("state", "elapsed_seconds")
    readonly_fields = ("elapsed",)
    money_fields = {"cost_usd": dollars}  # as the trace pages give it

    @admin.display(ordering="elapsed_seconds")
    def elapsed(self, run: Run) -> str:
        return f"{run.elapsed_seconds:.1f}s"  # as the trace pages give it

    @admin.display(ordering="cost_usd")
    def cost(self, run: Run) -> str:
        return dollars(run.cost_usd)  # as the trace pages give it


@admin.register(TraceEvent)
class TraceEventAdmin(RunRowAdmin):
    list_display = ("run", "seq", "step", "type", "timestamp", "duration_ms")
    list_columns = (*RunRowAdmin.RUN_NAME, *list_display[1:])
    list_filter = ("type",)
    search_fields = ("=run__id", "type")
    ordering = ("-run_id", "seq")
    redacted_fields = ("data",)


@admin.register(Observation)
class ObservationAdmin(RunRowAdmin):
    list_display = ("run", "step", "source", "name", "ok", "error_type", "created_at")
    list_columns = (*RunRowAdmin.RUN_NAME, *list_display[1:])
    list_filter = ("source", "ok", "name")
    search_fields = ("=run__id", "name", "error_type")
    redacted_fields = ("data", "model_view", "error_message")


@admin.register(ToolCall)
class ToolCallAdmin(RunRowAdmin):
    list_display = (
        "idempotency_key",
        "run",
        "step",
        "tool",
        "effect_status",
        "attempts",
        "cost",
        "duration_ms",
    )
    list_columns = (
        *RunRowAdmin.RUN_NAME,
        "idempotency_key",
        "cost_usd",
        *(name for name in list_display[2:] if name != "cost"),
    )
    list_filter = ("tool", "effect_status")
    search_fields = ("=idempotency_key", "=run__id", "tool")
    redacted_fields = ("arguments", "result")
    money_fields = {"cost_usd": dollars}

    @admin.display(ordering="cost_usd")
    def cost(self, call: ToolCall) -> str:
        return dollars(call.cost_usd)


class SuperuserOnly:
    """An admin only a superuser reaches: Django's own, gated on permissions a tenant
    admin's group could hold, would show every tenant's accounts and let one be made a
    superuser."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_module_permission(request)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_module_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_module_permission(request)


class AccountAdmin(SuperuserOnly, UserAdmin):
    # An address is searched whole: "example" would otherwise find everyone at example.com.
    search_fields = ("^username", "first_name", "last_name", "=email")

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Cases, runs and decisions keep who acted: an account is deactivated, not deleted.
        return False


class AccountGroupAdmin(SuperuserOnly, GroupAdmin):
    pass


for model, model_admin in ((get_user_model(), AccountAdmin), (Group, AccountGroupAdmin)):
    admin.site.unregister(model)
    admin.site.register(model, model_admin)


@admin.register(DocumentDownload)
class DocumentDownloadAdmin(ReadOnlyAdmin):
    tenant_path = "document__case__tenant"
    list_display = ("document_shown", "user", "downloaded_at")
    list_select_related = ("document", "user")
    date_hierarchy = "downloaded_at"
    search_fields = ("document__original_name", "^user__username")
    redacted_in_name = ("document__original_name",)

    @admin.display(description="document", ordering="document__original_name")
    def document_shown(self, download: DocumentDownload) -> str:
        return redact(download.document.original_name)


@admin.register(CaseEdit)
class CaseEditAdmin(ReadOnlyAdmin):
    tenant_path = "case__tenant"
    list_display = ("case", "edited_by", "edited_at", "reason")
    list_select_related = ("case", "edited_by")
    date_hierarchy = "edited_at"
    search_fields = ("case__subject_name", "^edited_by__username", "reason")
    # A correction's changes hold the case's notes as they were and became.
    redacted_fields = ("reason", "changes")
