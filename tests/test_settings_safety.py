from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError

ROOT = Path(__file__).resolve().parent.parent


def _check(env_overrides: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_it_refuses_to_start_with_debug_off_and_the_development_key():
    result = _check({"DEBUG": "0"})
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_it_starts_with_debug_off_and_a_real_key():
    result = _check({"DEBUG": "0", "SECRET_KEY": "k" * 50})
    assert result.returncode == 0, result.stderr


def test_a_malformed_boolean_fails_loudly():
    result = _check({"DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


def test_a_zero_lease_fails_loudly():
    result = _check({"ATLAS_LEASE_SECONDS": "0"})
    assert result.returncode != 0
    assert "ATLAS_LEASE_SECONDS must be at least 1" in result.stderr


def test_a_negative_or_not_a_number_sweep_interval_fails_loudly():
    for raw in ("-2", "0", "nan"):
        result = _check({"ATLAS_SWEEP_SECONDS": raw})
        assert result.returncode != 0, raw
        assert "ATLAS_SWEEP_SECONDS must be" in result.stderr, raw


def test_a_malformed_model_setting_fails_loudly():
    result = _check({"ATLAS_MODEL": "gpt-4o"})
    assert result.returncode != 0
    assert "ATLAS_MODEL must be playbook, scripted:FILE or openai:MODEL" in result.stderr


def test_a_short_but_positive_lease_and_sweep_are_accepted():
    result = _check({"ATLAS_LEASE_SECONDS": "1.5", "ATLAS_SWEEP_SECONDS": "0.1"})
    assert result.returncode == 0, result.stderr


def _postgres_options(env_overrides: dict[str, str]) -> str:
    env = {**os.environ, "DATABASE_URL": "postgres://u@127.0.0.1:5432/atlas", **env_overrides}
    script = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS'])"
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "atlas.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_prepared_statements_are_on_unless_a_pooler_needs_them_off():
    assert "'prepare_threshold': 5" in _postgres_options({})
    assert "prepare_threshold" not in _postgres_options({"DB_PREPARED_STATEMENTS": "0"})


def test_behind_a_tls_proxy_a_forwarded_https_request_is_secure():
    script = (
        "import django; django.setup();"
        "from django.conf import settings; from django.test import RequestFactory;"
        "request = RequestFactory().get('/', HTTP_X_FORWARDED_PROTO='https');"
        "print(settings.SECURE_PROXY_SSL_HEADER, request.is_secure())"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "atlas.settings", "BEHIND_TLS_PROXY": "1"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.stdout.split() == ["('HTTP_X_FORWARDED_PROTO',", "'https')", "True"], (
        result.stderr
    )


def test_a_refused_request_is_logged_in_one_line_and_a_server_error_in_full():
    import logging
    import sys

    from atlas.log_filters import NoTracebackForClientErrors

    try:
        raise PermissionError("no")
    except PermissionError:
        exc_info = sys.exc_info()
    refused = logging.LogRecord("django.request", logging.WARNING, "", 0, "Forbidden", (), exc_info)
    refused.status_code = 403
    broken = logging.LogRecord("django.request", logging.ERROR, "", 0, "Error", (), exc_info)
    broken.status_code = 500
    line_filter = NoTracebackForClientErrors()
    assert line_filter.filter(refused) and refused.exc_info is None
    assert line_filter.filter(broken) and broken.exc_info is exc_info


def test_with_debug_on_a_django_log_line_is_printed_once():
    script = (
        "import django, logging; django.setup(); "
        "logging.getLogger('django.request').warning('Conflict: /x/')"
    )
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "atlas.settings"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stderr.count("Conflict: /x/") == 1, result.stderr


def test_behind_a_tls_proxy_browsers_are_told_to_keep_to_https():
    production = {"DEBUG": "0", "SECRET_KEY": "k" * 50, "BEHIND_TLS_PROXY": "1"}
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env={**env, **production},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "security.W004" not in result.stderr  # no Strict-Transport-Security


def test_a_session_ends_with_the_browser_and_after_a_working_day(settings):
    assert settings.SESSION_EXPIRE_AT_BROWSER_CLOSE
    assert settings.SESSION_COOKIE_AGE <= 12 * 3600


def test_common_and_all_digit_passwords_are_refused():
    for weak in ("password1234", "73948201957362"):
        with pytest.raises(ValidationError):
            validate_password(weak)
    validate_password("lantern-orbit-quarry-41")


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("DATABASE_URL", "postgress://localhost/atlas", "DATABASE_URL must be an address starting"),
        ("DATABASE_URL", "localhost:5432", "DATABASE_URL must be an address starting"),
        ("REDIS_URL", "notaurl", "REDIS_URL must be an address starting redis://"),
        ("REDIS_URL", "http://redis:6379/0", "REDIS_URL must be an address starting redis://"),
    ],
)
def test_a_malformed_address_fails_loudly(name, value, says):
    result = _check({name: value})
    assert result.returncode != 0
    assert says in result.stderr


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-1", "abc"])
def test_a_model_price_that_is_no_amount_or_negative_fails_loudly_in_one_line(raw):
    """Accepted, it would fail every model call (a negative cost) or crash a run already
    created (NaN); refused at start, it is one line, not a traceback."""
    result = _check({"OPENAI_PRICE_INPUT_PER_1K_USD": raw})
    assert result.returncode != 0, raw
    assert "OPENAI_PRICE_INPUT_PER_1K_USD must be" in result.stderr, raw
    assert "Traceback" not in result.stderr


def test_a_model_timeout_of_zero_fails_loudly():
    result = _check({"OPENAI_TIMEOUT_SECONDS": "0"})
    assert result.returncode != 0
    assert "OPENAI_TIMEOUT_SECONDS must be at least 1" in result.stderr


def test_a_request_limit_that_would_refuse_an_allowed_document_fails_loudly():
    result = _check({"ATLAS_UPLOAD_MAX_BYTES": "5242880", "ATLAS_REQUEST_MAX_BYTES": "1048576"})
    assert result.returncode != 0
    assert "ATLAS_REQUEST_MAX_BYTES must be at least 5308416" in result.stderr
