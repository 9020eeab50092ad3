"""Money as pages show it: rounded half up once, never half to even, with thousands
separators."""

from __future__ import annotations

from decimal import Decimal

from atlas.runtime.money import as_stored, budget_dollars, dollars


def test_amounts_are_shown_and_stored_rounded_half_up():
    assert dollars(Decimal("0.00025")) == "$0.0003"  # "{:.4f}" gives $0.0002
    assert dollars(Decimal("0")) == "$0.0000"
    assert dollars(Decimal("12.5"), places=2) == "$12.50"
    assert dollars(Decimal("123456.78905")) == "$123,456.7891"
    assert dollars("12345.67885") == "$12,345.6789"  # a payload's str(Decimal)
    assert as_stored(Decimal("0.0000015")) == Decimal("0.000002")


def test_a_budget_reads_as_it_was_set_to_the_cent_or_finer():
    assert budget_dollars(Decimal("100000")) == "$100,000.00"
    assert budget_dollars(Decimal("0.015")) == "$0.015"  # "{:.2f}" gave $0.02
    assert budget_dollars(Decimal("1.50")) == "$1.50"
    assert budget_dollars(Decimal("0.125")) == "$0.125"  # "{:,.2f}" gave $0.12


def test_a_zero_threshold_reads_as_a_person_writes_it():
    # The threshold column keeps four places: zero comes back as 0.0000, $0.50 as 0.5000.
    assert budget_dollars(Decimal("0.0000")) == "$0.00"
    assert budget_dollars(Decimal("0.5000")) == "$0.50"
    assert budget_dollars(Decimal("1E+1")) == "$10.00"  # str(Decimal) of an amount typed 1e1
