"""Whether a tenant's policy counts nationality of a high-risk jurisdiction as living in one
does; off by default."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('runs', '0022_tenant_high_risk_jurisdictions'),
    ]

    operations = [
        migrations.AddField(
            model_name='tenant',
            name='nationality_counts',
            field=models.BooleanField(default=False, help_text="A person subject whose own form gives a nationality of one of the high-risk jurisdictions, or a director or beneficial owner a company's document gives one, is treated as one living there: not rated low, and the packet asks for enhanced due diligence.", verbose_name='nationality counts'),
        ),
    ]
