"""A tenant's high-risk jurisdictions (ISO 3166 codes), FATF's call for action by default:
a subject registered in one is not rated low."""

from django.db import migrations, models

import runs.models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0021_run_settled_figures"),
    ]

    operations = [
        migrations.AddField(
            model_name="tenant",
            name="high_risk_jurisdictions",
            field=models.JSONField(
                blank=True,
                default=runs.models.default_high_risk_jurisdictions,
                verbose_name="high-risk jurisdictions",
            ),
        ),
    ]
