"""The run browser sorts by the settled figures (Run.settled_*), so that a researching
step, which rewrites the live ones, writes no index of the run row (a HOT update)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('runs', '0020_run_matched_registration'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='run',
            name='runs_run_tenant_cost_idx',
        ),
        migrations.RemoveIndex(
            model_name='run',
            name='runs_run_tenant_tokens_idx',
        ),
        migrations.RemoveIndex(
            model_name='run',
            name='runs_run_tenant_iterations_idx',
        ),
        migrations.RemoveIndex(
            model_name='run',
            name='runs_run_tenant_elapsed_idx',
        ),
        migrations.AddField(
            model_name='run',
            name='settled_cost_usd',
            field=models.GeneratedField(db_persist=True, expression=models.Case(models.When(status='researching', then=models.Value(-1)), default=models.F('cost_usd'), output_field=models.DecimalField(decimal_places=6, max_digits=12)), output_field=models.DecimalField(decimal_places=6, max_digits=12)),
        ),
        migrations.AddField(
            model_name='run',
            name='settled_elapsed_seconds',
            field=models.GeneratedField(db_persist=True, expression=models.Case(models.When(status='researching', then=models.Value(-1)), default=models.F('elapsed_seconds'), output_field=models.FloatField()), output_field=models.FloatField()),
        ),
        migrations.AddField(
            model_name='run',
            name='settled_iterations',
            field=models.GeneratedField(db_persist=True, expression=models.Case(models.When(status='researching', then=models.Value(-1)), default=models.F('iterations'), output_field=models.IntegerField()), output_field=models.IntegerField()),
        ),
        migrations.AddField(
            model_name='run',
            name='settled_tokens',
            field=models.GeneratedField(db_persist=True, expression=models.Case(models.When(status='researching', then=models.Value(-1)), default=models.F('tokens'), output_field=models.IntegerField()), output_field=models.IntegerField()),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['tenant', 'settled_cost_usd', 'id'], name='runs_run_tenant_cost_idx'),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['tenant', 'settled_tokens', 'id'], name='runs_run_tenant_tokens_idx'),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['tenant', 'settled_iterations', 'id'], name='runs_run_tenant_iterations_idx'),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['tenant', 'settled_elapsed_seconds', 'id'], name='runs_run_tenant_elapsed_idx'),
        ),
    ]
