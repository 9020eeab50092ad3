from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "runs"
    verbose_name = "Cases and runs"

    def ready(self) -> None:
        from runs import checks  # noqa: F401 - registers the checks
