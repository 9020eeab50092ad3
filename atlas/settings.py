"""Atlas settings: one file, read from the environment, local defaults that just run."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from atlas.env import (
    env_bool,
    env_decimal,
    env_float,
    env_int,
    env_list,
    env_model,
    env_str,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEV_SECRET_KEY = "atlas-dev-only-insecure-key"  # noqa: S105 - refused below when DEBUG is off

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
if not DEBUG and (SECRET_KEY == DEV_SECRET_KEY or len(SECRET_KEY) < 32):
    raise ImproperlyConfigured(
        "DEBUG is off but SECRET_KEY is unset, the development key, or shorter than 32 "
        "characters. Set SECRET_KEY to a long random value before running in production."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "servestatic",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "runs",
    "reviews",
    "axes",
    # After runs: runs' `runworker` (Channels' worker plus the run sweep) must win.
    "channels",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "atlas.content_security.ContentSecurityPolicy",
    "servestatic.middleware.ServeStaticMiddleware",
    # After the static files, which keep their caching: nothing else is stored.
    "atlas.no_store.no_store",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "runs.nav_refresh.RefreshNavAfterHtmxPost",
    "runs.session_ended.HtmxSessionEnded",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "atlas.urls"
ASGI_APPLICATION = "atlas.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "runs.context_processors.membership",
                "runs.nav_refresh.nav_refresh_event",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_url(
            "DATABASE_URL",
            f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
            ("postgres", "postgresql", "sqlite"),
        ),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters travel apart from the SQL instead of being quoted into it on the client
    # (the run's state is a large JSON value written on every step).
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = True
    # A statement run 5 times on a connection is prepared (psycopg's default), so a step's
    # write is not planned again on every step. Django turns this off by default for
    # PgBouncer before 1.21, which cannot pool prepared statements: set the variable to 0
    # there.
    if env_bool("DB_PREPARED_STATEMENTS", True):
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several threads (server and worker) write to one file: wait for the lock
    # instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"

REDIS_URL = env_url("REDIS_URL", "", ("redis", "rediss", "unix")) if env_str("REDIS_URL") else ""
if REDIS_URL:
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError

    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py's default 5 s socket timeout equals channels-redis's 5 s blocking
                # receive, so an idle receive could time out and kill its consumer.
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 15,
                        # A restarted Redis has closed every pooled connection: a command
                        # that meets a closed one is sent again on a new one instead of
                        # failing (and closing a page's live stream with it). Repeats are
                        # harmless: group membership is a set, and live messages are
                        # idempotent notices.
                        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
                        "retry_on_error": [RedisConnectionError],
                    }
                ],
                "capacity": 5000,
                "expiry": 30,
                # Parallel test processes share one Redis: keep their channels apart.
                "prefix": env_str("CHANNEL_PREFIX", "atlas") + env_str("PYTEST_XDIST_WORKER", ""),
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 5000}}
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Password guessing: after this many failures for one username from one address, signing in
# as that user from there is refused for a quarter of an hour (the admin unlocks sooner).
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "atlas.sign_in.locked_out"
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# In development, files are served from the apps and static/ as they are edited. In
# production, from what collectstatic put in STATIC_ROOT: names carry a content hash (so
# browsers may cache them for good) and each file is compressed too.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "servestatic.storage.CompressedManifestStaticFilesStorage"
    },
}
SERVESTATIC_USE_FINDERS = DEBUG

MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
MEDIA_URL = "media/"

SESSION_COOKIE_HTTPONLY = True
# A working day, and no longer than the browser stays open: a shared machine left signed in
# overnight is not a way into a tenant's cases.
SESSION_COOKIE_AGE = env_int("SESSION_HOURS", 10, minimum=1) * 3600
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
if env_bool("BEHIND_TLS_PROXY", False):
    # The proxy speaks HTTPS to browsers and plain HTTP to daphne; it says which in this
    # header (and must overwrite one a client sends).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # Browsers that have seen the site over HTTPS refuse plain HTTP to it from then on.
    SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 365 * 24 * 3600)
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"client_errors": {"()": "atlas.log_filters.NoTracebackForClientErrors"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["client_errors"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's own console handler (DEBUG only) would print each line a second time.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "daphne": {"level": "WARNING"},
        "axes": {"level": "WARNING"},  # a line per sign-in otherwise; lockouts still show
        "django.channels.server": {"level": "WARNING"},
    },
}

# --- Atlas ----------------------------------------------------------------
ATLAS_MODEL = env_model("ATLAS_MODEL", "playbook")
ATLAS_WORKER_CHANNEL = env_str("ATLAS_WORKER_CHANNEL", "atlas-runs")
ATLAS_WORKER_CONCURRENCY = env_int("ATLAS_WORKER_CONCURRENCY", 8, minimum=1)
ATLAS_LEASE_SECONDS = env_float("ATLAS_LEASE_SECONDS", 15.0, minimum=1.0)
ATLAS_SWEEP_SECONDS = env_float("ATLAS_SWEEP_SECONDS", 2.0, minimum=0.1)
ATLAS_REVIEW_CLAIM_SECONDS = env_int("ATLAS_REVIEW_CLAIM_SECONDS", 600, minimum=10)
ATLAS_UPLOAD_MAX_BYTES = env_int("ATLAS_UPLOAD_MAX_BYTES", 5 * 1024 * 1024, minimum=1)
# Any request body over this is refused by the server as it arrives (atlas/request_size.py);
# a document somewhat over the upload limit still reaches the form and its message.
ATLAS_REQUEST_MAX_BYTES = env_int(
    "ATLAS_REQUEST_MAX_BYTES",
    ATLAS_UPLOAD_MAX_BYTES + 16 * 1024 * 1024,
    # A document the upload limit allows, with the rest of its form.
    minimum=ATLAS_UPLOAD_MAX_BYTES + 64 * 1024,
)

# OpenAI-compatible adapter: the standard variable names every client uses.
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL", "")
OPENAI_API_KEY = env_str("OPENAI_API_KEY", "")
OPENAI_TIMEOUT_SECONDS = env_float("OPENAI_TIMEOUT_SECONDS", 30.0, minimum=1.0)
OPENAI_PRICE_INPUT_PER_1K_USD = env_decimal("OPENAI_PRICE_INPUT_PER_1K_USD", "0.0005")
OPENAI_PRICE_OUTPUT_PER_1K_USD = env_decimal("OPENAI_PRICE_OUTPUT_PER_1K_USD", "0.0015")

DATA_UPLOAD_MAX_MEMORY_SIZE = ATLAS_UPLOAD_MAX_BYTES + 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = ATLAS_UPLOAD_MAX_BYTES + 1024 * 1024
