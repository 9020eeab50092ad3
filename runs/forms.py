from __future__ import annotations

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat

from atlas.runtime.tools.schemas import NAME_MAX_LENGTH
from runs.case_fields import (
    clean_jurisdiction,
    clean_notes,
    clean_subject_name,
    clean_typed_text,
)
from runs.models import Case
from runs.uploads import CheckedUpload, check_upload

EMPTY_DOCUMENT = "The file you chose is empty: choose the one with the document in it."


class DocumentForm(forms.Form):
    """A document for a case: its type and size are checked from its content."""

    document = forms.FileField(
        error_messages={
            "required": "Choose a file to attach first.",
            "empty": EMPTY_DOCUMENT,
        },
    )
    document_sensitive = forms.BooleanField(
        required=False,
        label="Document is sensitive",
        help_text="Extracting a sensitive document needs a reviewer's approval.",
    )

    checked_upload: CheckedUpload | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        limit = filesizeformat(settings.ATLAS_UPLOAD_MAX_BYTES)
        self.fields["document"].help_text = f"PDF or plain text, up to {limit}."

    def clean_document(self):
        upload = self.cleaned_data.get("document")
        if upload:
            self.checked_upload = check_upload(upload)
        return upload


class SubjectForm(forms.ModelForm):
    """Who or what a case researches."""

    # The tools' limit, not the column's (300): the browser stops typing at it, and the
    # server refuses a longer name in the same words.
    subject_name = forms.CharField(
        max_length=NAME_MAX_LENGTH,
        label="Subject",
        error_messages={
            "required": "Enter the name of the company or person to research.",
            "max_length": "Enter the subject's name in at most %(limit_value)d characters "
            "(this one has %(show_value)d).",
        },
    )
    subject_type = forms.ChoiceField(
        choices=Case.SubjectType.choices, initial=Case.SubjectType.COMPANY, label="Subject type"
    )
    # Long enough for a country's name, which is read as its code.
    jurisdiction = forms.CharField(
        required=False,
        max_length=100,
        label="Jurisdiction (ISO code)",
        help_text="Two letters, such as GB, US or SG (a country's name works too). Leave "
        "blank if unknown.",
    )

    class Meta:
        model = Case
        fields = ["subject_name", "subject_type", "jurisdiction", "notes"]
        labels = {"jurisdiction": "Jurisdiction (ISO code)"}
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}

    def clean_subject_name(self) -> str:
        return clean_subject_name(self.cleaned_data["subject_name"])

    def clean_notes(self) -> str:
        return clean_notes(self.cleaned_data["notes"])

    def clean_jurisdiction(self) -> str:
        return clean_jurisdiction(self.cleaned_data["jurisdiction"])


class CaseForm(DocumentForm, SubjectForm):
    document = forms.FileField(required=False, error_messages={"empty": EMPTY_DOCUMENT})


class SubjectCorrectionForm(SubjectForm):
    reason = forms.CharField(
        max_length=500,
        error_messages={"required": "Say why the subject is corrected; the reason is kept."},
        label="Why the correction",
        help_text="Recorded with the case: say where the right details come from.",
    )

    def clean_reason(self) -> str:
        reason = " ".join(clean_typed_text(self.cleaned_data["reason"], "The reason").split())
        if not reason:
            raise forms.ValidationError("Say why the subject is corrected.")
        return reason
